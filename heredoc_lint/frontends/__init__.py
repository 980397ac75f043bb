"""Frontends find the texts a shell will parse inside a file: layer-0 fragments.

A frontend knows its file format (a shell script, Python call sites, Markdown
fences, workflow `run:` steps, an agent's command) and nothing of rules or
output: it returns `Fragment`s, each a text with the file offset of every
character, and the engine does the rest.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from heredoc_lint.kinds import SourceKind

if TYPE_CHECKING:
    from heredoc_lint.layers.pywrappers import PyWrapper
    from heredoc_lint.layers.wrappers import Role
    from heredoc_lint.model import Edit
    from heredoc_lint.shell.words import Word

# Maps an edit of a fragment's text (start, end, new text) to a file edit, re-encoded for
# the file's own syntax (a Python string literal...); None when it cannot be done safely.
EditEncoder = Callable[[int, int, str], "Edit | None"]


@dataclass(frozen=True)
class Fragment:
    text: str
    offsets: Sequence[int] | None = None  # file offset per character (+ the end); None: the file
    depth: int = 0  # 1 when a remote shell runs it (paramiko exec_command, fabric run)
    wrapper: str | None = None  # how messages name what runs it, e.g. "exec_command"
    role: Role | None = None  # what runs it (Layer.role)
    remote: bool = False
    shell: str = "bash"
    cmdline: str | None = None  # the command line of the process that holds the text (HL103)
    interpolations: tuple[tuple[int, int], ...] = ()  # spans of values known only at run time
    # The words before the wrapper in an argv list (`sudo` in `["sudo", "sh", "-c", S]`),
    # read by the rules as they read the words before a wrapper in a parent shell.
    prefix_words: tuple[Word, ...] = ()
    verbatim: bool = False  # each character is the same character in the file: edits map 1:1
    encode_edit: EditEncoder | None = None  # for fragments that are neither the file nor verbatim
    # Where the source of the character at a file offset ends, when a character can be
    # written with several (a Python escape, `}}`); None: one source character each.
    source_end: Callable[[int], int] | None = None
    # What the frontend knows of the text's source, for its own rules (Python: the string
    # analysis, a `frontends.python.PyFragment`); None for shell-like sources.
    origin: object = None
    # Spans of the text that a transcript shows run by root, behind a `#` prompt
    # (`root@host:~# cmd`): a root shell reads them.
    root_spans: tuple[tuple[int, int], ...] = ()


class SourceError(Exception):
    """The file is not valid in its own format (a Python syntax error...): reported as HL001."""

    def __init__(
        self,
        message: str,
        offset: int = 0,
        *,
        info: bool = False,
        partial: tuple[Fragment, ...] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.info = info  # a file this tool does not check (Python 2): info, not a warning
        # The fragments of the parts that could be read (the rest of a Python file around
        # a statement this Python cannot parse): checked, with this error beside them.
        self.partial = partial


# kind -> module that defines `fragments(text, path) -> list[Fragment]`
FRONTENDS = {
    "shell": "heredoc_lint.frontends.shell",
    "command": "heredoc_lint.frontends.shell",
    "python": "heredoc_lint.frontends.python",
    "markdown": "heredoc_lint.frontends.markdown",
    "actions": "heredoc_lint.frontends.actions",
}


def fragments(
    kind: SourceKind,
    text: str,
    path: str | None = None,
    python_wrappers: tuple[PyWrapper, ...] = (),
) -> list[Fragment]:
    module = importlib.import_module(FRONTENDS[kind])
    if kind == "python" and python_wrappers:  # the project's own callables: Python only
        return module.fragments(text, path, python_wrappers)  # type: ignore[no-any-return]
    if kind == "command":
        return module.command_fragments(text, path)  # type: ignore[no-any-return]
    return module.fragments(text, path)  # type: ignore[no-any-return]


def may_hold_fragments(
    kind: SourceKind, text: str, path: str | None, python_wrappers: tuple[PyWrapper, ...] = ()
) -> bool:
    """Whether `fragments` may parse `text` (False: it returns none first, so checking it
    costs no more than reading it), told without parsing: for Python files."""
    if kind != "python":
        return True
    module = importlib.import_module(FRONTENDS[kind])
    return module.may_hold_calls(text, path, python_wrappers)  # type: ignore[no-any-return]
