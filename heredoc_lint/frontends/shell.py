"""Shell scripts and single command lines: the whole text is layer 0."""

from __future__ import annotations

from heredoc_lint.frontends import Fragment


def fragments(text: str, path: str | None = None) -> list[Fragment]:
    """A script: its own text; the process running it shows its path, not its text."""
    return [Fragment(text)]


def command_fragments(text: str, path: str | None = None) -> list[Fragment]:
    """A command line an agent runs: the text is on the running shell's command line."""
    return [Fragment(text, cmdline=f"bash -c {text}")]
