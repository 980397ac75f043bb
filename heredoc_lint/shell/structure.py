"""The statements of a layer above its simple commands: background jobs (`&`), pipelines,
`&&`/`||` lists, subshells `( )`, groups `{ }`, compound commands, and the redirections
written on each.

`structure(script)` reads them from the script's tree once per parse (kept while the
Script lives) as frozen dataclasses: the rules ask this model and never walk tree-sitter
nodes.  Simple commands are the Script's own `Command`s (de-quoted words, redirections).
Only what a job's statement is made of is read: the inside of a loop, an `if` or a
`case` is a `Compound` with its span (its own jobs are jobs of their own).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from heredoc_lint.shell.evidence import PerScript
from heredoc_lint.shell.syntax import (
    REDIRECT_TYPES,
    Command,
    Redirect,
    Script,
    redirect_reader,
)

if TYPE_CHECKING:
    from tree_sitter import Node

Span = tuple[int, int]


@dataclass(frozen=True)
class _Spanned:
    start: int
    end: int
    # Its first part: the `(`, `{` or keyword of a compound, a pipeline's first member,
    # a command's name.
    opener: Span


@dataclass(frozen=True)
class Simple(_Spanned):
    """A simple command: the Script's Command that starts here (None: none was read)."""

    command: Command | None


@dataclass(frozen=True)
class Pipeline(_Spanned):
    """`a | b |& c`: its members, and whether each one's stderr goes into the pipe too."""

    members: tuple[Statement, ...]
    stderr_piped: tuple[bool, ...]  # member k is followed by `|&`


@dataclass(frozen=True)
class AndOr(_Spanned):
    """`a && b || c`: run by one shell (a subshell when the list is a job)."""

    items: tuple[Statement, ...]


@dataclass(frozen=True)
class Subshell(_Spanned):
    """`( ... )`."""

    body: tuple[Statement, ...]


@dataclass(frozen=True)
class Group(_Spanned):
    """`{ ...; }`."""

    body: tuple[Statement, ...]


@dataclass(frozen=True)
class Compound(_Spanned):
    """`while`/`until`, `for`, `if`, `case`: its inside is not read here."""


@dataclass(frozen=True)
class Redirected(_Spanned):
    """A statement with redirections after it.  On a simple command, a pipeline or a list
    bash gives them to the (last) simple command, whose Command holds them too."""

    body: Statement | None
    redirects: tuple[Redirect, ...]


@dataclass(frozen=True)
class Other(_Spanned):
    """Any other statement: a declaration, a function definition, `! cmd`, `[[ ]]`..."""


Statement = Simple | Pipeline | AndOr | Subshell | Group | Compound | Redirected | Other


@dataclass(frozen=True)
class Job:
    """`statement &`, outside command and process substitutions (`$(a &)` waits on its
    own pipe) and arithmetic."""

    statement: Statement
    amp: int  # where the `&` stands


@dataclass(frozen=True)
class Structure:
    jobs: tuple[Job, ...]  # in the order of their `&`


_COMPOUNDS = frozenset(
    {"while_statement", "for_statement", "c_style_for_statement", "if_statement", "case_statement"}
)
# Where an `&` is not a job of this shell: `$(a &)`, `<(a &)`, `$(( a & b ))`, `[[ ]]`.
_OPAQUE = frozenset(
    {"command_substitution", "process_substitution", "arithmetic_expansion", "test_command"}
)
# Statements made of statements: read down to their simple commands.
_NESTING = frozenset({"pipeline", "list", "subshell", "compound_statement", "redirected_statement"})

_CACHE: PerScript[Structure] = PerScript()


def structure(script: Script) -> Structure:
    """The jobs of `script`, read once per parse."""
    return _CACHE.of(script, _read)


_LAST: PerScript[tuple[int | None]] = PerScript()  # a tuple: None is an answer too


def last_simple_command(script: Script) -> int | None:
    """Where the script's last simple command starts when it ends the script at its top
    level, after `;`, `&&`, `||` or a newline, bare (no redirection, pipe, `&`, compound
    around it); None otherwise. bash (5.2 measured) runs that command in place of the
    shell of a `-c` string: nothing is left of the shell for it to see. Read once per
    parse: each pkill of a string asks."""
    return _LAST.of(script, lambda read: (_last_simple_command(read),))[0]


def _last_simple_command(script: Script) -> int | None:
    if script.tree is None:
        return None
    node = script.tree.root_node
    while node.type in ("program", "list"):
        named = [c for c in node.named_children if c.type != "comment"]
        if not named:
            return None
        node = named[-1]
        after = node.next_sibling
        if after is not None and after.type == "&":
            return None
    return script.char(node.start_byte) if node.type == "command" else None


def _read(script: Script) -> Structure:
    if script.tree is None:
        return Structure(())
    reader = _Reader(script)
    return Structure(tuple(Job(reader.statement(node), amp) for node, amp in reader.jobs()))


class _Reader:
    """Turns tree-sitter nodes into statements, each node once."""

    def __init__(self, script: Script) -> None:
        assert script.tree is not None
        self.root = script.tree.root_node
        self.char = script.char
        self.by_start = {c.start: c for c in script.commands}
        self.redirect: Callable[[Node], Redirect] = redirect_reader(script.text)
        self.read: dict[int, Statement] = {}  # by node id

    def span(self, node: Node) -> Span:
        return self.char(node.start_byte), self.char(node.end_byte)

    def jobs(self) -> Iterator[tuple[Node, int]]:
        """(statement node, offset of its `&`) for each `&` after a statement."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            if node.type == "&" and not node.is_named:
                previous = node.prev_sibling
                if previous is not None and previous.is_named:
                    yield previous, self.char(node.start_byte)
            if node.type not in _OPAQUE:
                stack.extend(reversed(node.children))

    def statement(self, top: Node) -> Statement:
        """The statement of `top`, its parts read first (a loop, not recursion: a
        statement nested thousands deep is read in the same way)."""
        stack: list[tuple[Node, bool]] = [(top, False)]
        while stack:
            node, ready = stack.pop()
            if node.id in self.read:
                continue
            parts = _parts(node)
            if ready or not parts:
                self.read[node.id] = self._make(node)
                continue
            stack.append((node, True))
            stack.extend((child, False) for child in parts)
        return self.read[top.id]

    def _make(self, node: Node) -> Statement:
        start, end = self.span(node)
        opener = self.span(node.children[0]) if node.children else (start, end)
        kind = node.type
        parts = [self.read[c.id] for c in _parts(node)]
        if kind == "command":
            return Simple(start, end, opener, self.by_start.get(start))
        if kind == "pipeline":
            named = node.named_children
            piped = tuple(c.next_sibling is not None and c.next_sibling.type == "|&" for c in named)
            return Pipeline(start, end, opener, tuple(parts), piped)
        if kind == "list":
            return AndOr(start, end, opener, tuple(parts))
        if kind == "redirected_statement":
            found = [self.redirect(c) for c in node.children if c.type in REDIRECT_TYPES]
            return Redirected(start, end, opener, parts[0] if parts else None, tuple(found))
        if kind == "subshell":
            return Subshell(start, end, opener, tuple(parts))
        if kind == "compound_statement":
            return Group(start, end, opener, tuple(parts))
        if kind in _COMPOUNDS:
            return Compound(start, end, opener)
        return Other(start, end, opener)


def _parts(node: Node) -> list[Node]:
    """The statements a statement is made of (comments left out; a pipeline keeps every
    named child, as each is a member)."""
    kind = node.type
    if kind not in _NESTING:
        return []
    if kind == "pipeline":
        return list(node.named_children)
    if kind == "redirected_statement":
        body = next((c for c in node.named_children if c.type not in REDIRECT_TYPES), None)
        return [] if body is None else [body]
    return [c for c in node.named_children if c.type != "comment"]
