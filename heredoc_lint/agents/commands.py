"""What the agent integrations share: turning a tool call into the shell text to check.

Kept free of engine imports: the hook imports this before it knows whether there is
anything to check.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence

from heredoc_lint.shell.names import MULTICALL, SHELLS

_C_FLAG = re.compile(r"^-[A-Za-z]*c[A-Za-z]*$")  # -c, -lc, -ec, -xc, ...


def script_from_argv(argv: Sequence[str]) -> str:
    """The shell text behind an argv such as ``["bash", "-lc", "ssh h ..."]``.

    For ``SHELL [options] -c SCRIPT ...`` that is SCRIPT (the text the shell parses).
    Any other argv runs without a shell, so it is checked as the equivalent command
    line, each word quoted (``shlex.join``): the quoting keeps its meaning.
    """
    words = [str(w) for w in argv]
    if not words:
        return ""
    name = os.path.basename(words[0])
    start = 1
    if name in MULTICALL and len(words) > 1:  # busybox sh -c ...
        name, start = os.path.basename(words[1]), 2
    if name in SHELLS:
        for i in range(start, len(words)):
            word = words[i]
            if word == "--" or not word.startswith("-"):
                break
            if _C_FLAG.match(word):
                return words[i + 1] if i + 1 < len(words) else ""
    return shlex.join(words)


def command_text(value: object) -> str | None:
    """The command of a tool call's `command` field: a string, or an argv list.

    None when the value is neither (the caller reports it as malformed input).
    """
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(w, str) for w in value):
        return script_from_argv(value)
    return None


def unwrap_shell_c(text: str) -> str:
    """SCRIPT of a command string that is only ``SHELL [options] -c SCRIPT`` (Codex's
    legacy `shell` tool shows its argv ``["bash", "-lc", SCRIPT]`` joined like this and
    runs it without an outer shell); any other text unchanged."""
    try:
        words = shlex.split(text)
    except ValueError:
        return text
    if len(words) < 3 or os.path.basename(words[0]) not in SHELLS | MULTICALL:
        return text
    script = script_from_argv(words)
    if words[-1] == script and _C_FLAG.match(words[-2]):
        return script
    return text


def first_line(command: str, limit: int = 100) -> str:
    """The command's first non-empty line, shortened to `limit` characters."""
    for line in command.splitlines():
        if line.strip():
            line = line.strip()
            break
    else:
        line = ""
    more = len(command.strip().splitlines()) > 1
    if len(line) > limit:
        return line[: limit - 1] + "…"
    return line + (" …" if more else "")
