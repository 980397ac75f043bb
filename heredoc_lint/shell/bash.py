"""Asking bash itself: the oracle where tree-sitter-bash and bash disagree."""

from __future__ import annotations


def bash_accepts(text: str) -> bool | None:
    """Whether bash parses `text` (`-n`: read commands, run none); None if bash is missing."""
    import shutil
    import subprocess  # only when tree-sitter failed: off the start-up path

    from heredoc_lint.shell.words import to_bytes

    bash = shutil.which("bash")
    if bash is None:
        return None
    try:
        done = subprocess.run(
            [bash, "--norc", "--noprofile", "-O", "extglob", "-n"],
            input=to_bytes(text),
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.returncode == 0
