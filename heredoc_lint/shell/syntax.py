"""Shell structure of one layer: tree-sitter-bash plus our own heredoc scanner.

`parse_script(text)` returns a `Script`: the simple commands of the text with
their words de-quoted (offsets into `text`), their redirections (heredocs
attached), the operator that follows each command, the loops around it, the
variables the text assigns, and the regions tree-sitter could not parse.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from heredoc_lint.shell.heredoc import Heredoc, mask_heredocs, scan_heredocs
from heredoc_lint.shell.words import ExpansionNode, Word, dequote

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Query


@dataclass(frozen=True)
class Redirect:
    start: int
    end: int
    op: str  # ">", ">>", "<", "&>", ">&", "<<", "<<<", ...
    fd: int | None  # an explicit descriptor: the 2 of `2>&1`
    target: Word | None
    heredoc: Heredoc | None = None

    @property
    def writes(self) -> bool:
        return ">" in self.op

    @property
    def source_fd(self) -> int:
        """The descriptor the redirection changes."""
        if self.fd is not None:
            return self.fd
        return 1 if self.writes else 0


@dataclass(frozen=True)
class Loop:
    kind: str  # while, until
    start: int
    end: int
    reads_stdin: bool  # its condition runs `read` on descriptor 0
    stdin_redirected: bool  # `done < file`, a heredoc or herestring, or a pipe into it


@dataclass(frozen=True, eq=False)
class Command:
    """A simple command.  Commands compare by identity; their words are de-quoted on first use,
    since most commands of a script are never looked at past their name."""

    start: int
    end: int
    redirects: tuple[Redirect, ...]  # its own, then those of statements around it
    next_op: str | None  # the operator after the command's statement: ; & && || | ...
    next_op_start: int
    loops: tuple[Loop, ...]  # enclosing while/until loops, outermost first
    in_pipeline: bool  # stdin or stdout is a pipe
    in_substitution: bool  # inside $(...), `...` or <(...)
    head: str  # the first word as written: a cheap look at the name before de-quoting
    dequote_words: Callable[[], tuple[tuple[Word, ...], tuple[Word, ...]]] = field(
        repr=False, compare=False
    )

    @functools.cached_property
    def _words(self) -> tuple[tuple[Word, ...], tuple[Word, ...]]:
        return self.dequote_words()

    @property
    def words(self) -> tuple[Word, ...]:
        """argv: the command name first."""
        return self._words[0]

    @property
    def assignments(self) -> tuple[Word, ...]:
        """`X=1` words before the command name."""
        return self._words[1]

    @property
    def name(self) -> str | None:
        if not self.words or not self.words[0].static:
            return None
        return self.words[0].value

    @property
    def background(self) -> bool:
        return self.next_op == "&"


@dataclass(frozen=True)
class ParseError:
    start: int
    end: int


@dataclass(frozen=True)
class Script:
    text: str
    commands: tuple[Command, ...]
    heredocs: tuple[Heredoc, ...]
    errors: tuple[ParseError, ...]
    assigned: tuple[tuple[str, int], ...]  # (variable name, where its assignment ends)


_EXPANSION_TYPES = frozenset(
    {
        "simple_expansion",
        "expansion",
        "command_substitution",
        "arithmetic_expansion",
        "process_substitution",
    }
)
_NOT_WORDS = frozenset(
    {
        "command_name",
        "variable_assignment",
        "file_redirect",
        "heredoc_redirect",
        "herestring_redirect",
        "comment",
    }
)
_DECLARATIONS = frozenset(
    {"export", "local", "declare", "readonly", "typeset", "unset", "unsetenv"}
)
_REDIRECT_TYPES = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_STATEMENT_WRAPPERS = frozenset({"redirected_statement", "negated_command"})
_SEQUENCES = frozenset({"list", "pipeline"})
_POSITIONAL = frozenset("0123456789")
_SPECIAL = frozenset("@*#?$!-")


@functools.cache
def _language() -> object:
    import tree_sitter_bash
    from tree_sitter import Language

    return Language(tree_sitter_bash.language())


@functools.cache
def _query() -> Query:
    from tree_sitter import Query

    return Query(
        _language(),  # type: ignore[arg-type]
        """
        [(command) (declaration_command) (unset_command)] @command
        (variable_assignment) @assignment
        (for_statement variable: (variable_name) @for_variable)
        """,
    )


_local = threading.local()


def _parser() -> Parser:
    parser: Parser | None = getattr(_local, "parser", None)
    if parser is None:
        from tree_sitter import Parser

        parser = Parser(_language())  # type: ignore[arg-type]
        _local.parser = parser
    return parser


class _Offsets:
    """tree-sitter speaks UTF-8 bytes; everything here speaks characters."""

    def __init__(self, text: str) -> None:
        data = text.encode("utf-8", "surrogatepass")
        self.data = data
        self.table: list[int] | None = None
        if len(data) != len(text):
            table = [0] * (len(data) + 1)
            pos = 0
            for index, ch in enumerate(text):
                width = len(ch.encode("utf-8", "surrogatepass"))
                for k in range(width):
                    table[pos + k] = index
                pos += width
            table[pos] = len(text)
            self.table = table

    def char(self, byte: int) -> int:
        return byte if self.table is None else self.table[byte]


def _expansion_kind(node: Node, source: str) -> tuple[str, str]:
    kind = node.type
    if kind == "command_substitution":
        inner = source.strip()
        if inner.startswith("`"):
            return "backtick", inner[1:-1].strip()
        return "command", inner[2:-1].strip()
    if kind == "arithmetic_expansion":
        return "arithmetic", ""
    if kind == "process_substitution":
        return "process", ""
    name = ""
    for child in node.children:
        if child.type in ("variable_name", "special_variable_name"):
            name = (child.text or b"").decode("utf-8", "replace")
            break
    if not name:
        body = source[2:-1] if source.startswith("${") else source[1:]
        name = body.lstrip("#!")[:1] if body[:1] in _SPECIAL else body
    if name and (name in _SPECIAL or name == "0"):
        return "special", name
    if name.isdigit():
        return "positional", name
    return "variable", name


class _Builder:
    def __init__(self, text: str) -> None:
        self.text = text
        self.heredocs = scan_heredocs(text)
        self.by_op = {h.op_start: h for h in self.heredocs}
        self.masked = mask_heredocs(text, self.heredocs)
        self.offsets = _Offsets(self.masked)
        self.commands: list[Command] = []
        self.errors: list[ParseError] = []
        self.assigned: list[tuple[str, int]] = []

    def span(self, node: Node) -> tuple[int, int]:
        return self.offsets.char(node.start_byte), self.offsets.char(node.end_byte)

    def word(self, node: Node, *more: Node) -> Word:
        """The word spanning `node` (and the nodes right after it that tree-sitter split off)."""
        start = self.span(node)[0]
        end = self.span(more[-1] if more else node)[1]
        nodes: dict[int, ExpansionNode] = {}
        stack = [node, *more]
        while stack:
            current = stack.pop()
            if current.type in _EXPANSION_TYPES:
                a, b = self.span(current)
                if current.type == "simple_expansion" and self.text[a + 1 : a + 2].isdigit():
                    # `$1y`, `$10`: bash takes one digit; the rest is text.
                    b = a + 2
                    name = self.text[a + 1]
                    kind = "special" if name == "0" else "positional"
                else:
                    kind, name = _expansion_kind(current, self.text[a:b])
                nodes[a] = ExpansionNode(b, kind, name)
                continue
            stack.extend(current.children)
        return dequote(self.text, start, end, nodes)

    def redirect(self, node: Node) -> Redirect:
        start, end = self.span(node)
        fd: int | None = None
        op = ""
        target: Word | None = None
        for child in node.children:
            if child.type == "file_descriptor":
                fd = int(child.text or b"0") if (child.text or b"").isdigit() else None
            elif not child.is_named:
                op = op or self.text[slice(*self.span(child))]
            elif target is None and child.type not in ("heredoc_body", "heredoc_start"):
                target = self.word(child)
        heredoc = self.by_op.get(start) if op == "<" else None
        if heredoc is None:
            heredoc = self.by_op.get(start + len(str(fd))) if fd is not None else None
        if heredoc is not None:
            op = "<<-" if heredoc.strip_tabs else "<<"
            target = None
        return Redirect(start, end, op, fd, target, heredoc)

    # -- walking ----------------------------------------------------------------
    def walk(self, root: Node) -> None:
        """Collect commands, assignments and errors; a query finds them without a Python
        walk over every node of the tree."""
        from tree_sitter import QueryCursor

        if root.has_error:
            self.collect_errors(root)
        captures = QueryCursor(_query()).captures(root)
        loops_by_node: dict[tuple[int, int], Loop] = {}
        for node in captures.get("command", []):
            context = self.context(node, loops_by_node)
            if context is not None:
                self.command(node, *context)
        for node in captures.get("assignment", []):
            if self.context(node, loops_by_node) is not None:
                self.assignment(node)
        for node in captures.get("for_variable", []):
            if self.context(node, loops_by_node) is not None:
                self.assigned.append((self.text[slice(*self.span(node))], self.span(node)[1]))

    def collect_errors(self, root: Node) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type == "ERROR" or node.is_missing:
                start, end = self.span(node)
                self.errors.append(ParseError(start, max(end, start + 1)))
                continue
            if node.has_error:
                stack.extend(node.children)
        self.errors.sort(key=lambda e: e.start)

    def context(
        self, node: Node, loops_by_node: dict[tuple[int, int], Loop]
    ) -> tuple[tuple[Loop, ...], bool] | None:
        """(enclosing loops, outermost first; inside a substitution), or None inside an ERROR
        region, where nothing is guessed."""
        loops: list[Loop] = []
        in_sub = False
        parent = node.parent
        while parent is not None:
            kind = parent.type
            if kind == "ERROR":
                return None
            if kind in ("while_statement", "until_statement"):
                key = (parent.start_byte, parent.end_byte)
                if key not in loops_by_node:
                    loops_by_node[key] = self.loop(parent)
                loops.append(loops_by_node[key])
            elif kind in ("command_substitution", "process_substitution"):
                in_sub = True
            parent = parent.parent
        return tuple(reversed(loops)), in_sub

    def assignment(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        if name is not None:
            self.assigned.append((self.text[slice(*self.span(name))], self.span(node)[1]))

    def loop(self, node: Node) -> Loop:
        start, end = self.span(node)
        condition = node.child_by_field_name("condition")
        reads = False
        if condition is not None:
            for sub in _descendants(condition):
                if sub.type == "command" and self._reads_own_stdin(sub):
                    reads = True
        fed = False
        parent = node.parent
        if parent is not None and parent.type == "redirected_statement":
            for child in parent.children:
                if child.type in _REDIRECT_TYPES:
                    r = self.redirect(child)
                    if r.source_fd == 0 and not r.writes:
                        fed = True
        if parent is not None and parent.type == "pipeline" and parent.children[0] != node:
            fed = True
        return Loop(node.type.split("_")[0], start, end, reads, fed)

    def _reads_own_stdin(self, command: Node) -> bool:
        """A `read` (also `IFS= read -r x`) that reads descriptor 0 as the loop gets it."""
        name = command.child_by_field_name("name")
        if name is None or self.text[slice(*self.span(name))] != "read":
            return False
        for child in command.children:
            value = self.text[slice(*self.span(child))]
            if child.type in _REDIRECT_TYPES:
                redirect = self.redirect(child)
                if redirect.source_fd == 0 and not redirect.writes:
                    return False  # `read x < file`
            elif value.startswith("-") and "u" in value:
                return False  # `read -u 3`
        parent = command.parent
        if parent is not None and parent.type == "redirected_statement":
            return not any(
                self.redirect(c).source_fd == 0
                for c in parent.children
                if c.type in _REDIRECT_TYPES and not self.redirect(c).writes
            )
        return True

    def inherited_redirects(self, node: Node) -> list[Redirect]:
        """Redirections of the statements around a simple command that apply to it.

        tree-sitter-bash attaches `> f` in `a && b > f` to the whole list; bash
        gives it to `b`, the last command, as it does for a pipeline.
        """
        found: list[Redirect] = []
        current = node
        while current.parent is not None:
            parent = current.parent
            if parent.type in _STATEMENT_WRAPPERS:
                if parent.type == "redirected_statement":
                    found.extend(
                        self.redirect(c) for c in parent.children if c.type in _REDIRECT_TYPES
                    )
                current = parent
            elif parent.type in _SEQUENCES and _last_named(parent) == current:
                current = parent
            else:
                break
        return found

    def following_operator(self, node: Node) -> tuple[str | None, int, bool]:
        """The operator after the command's statement (`;`, `&&`, `|`, `&`...)."""
        in_pipeline = False
        cursor: Node | None = node
        while cursor is not None:
            parent = cursor.parent
            if parent is not None and parent.type == "pipeline":
                in_pipeline = True
            sibling = cursor.next_sibling
            while sibling is not None and sibling.type in _REDIRECT_TYPES:
                sibling = sibling.next_sibling
            if sibling is not None and not sibling.is_named:
                start = self.span(sibling)[0]
                return self.text[slice(*self.span(sibling))], start, in_pipeline
            if (
                sibling is None
                and parent is not None
                and (parent.type in _SEQUENCES or parent.type in _STATEMENT_WRAPPERS)
            ):
                cursor = parent
                continue
            break
        return None, -1, in_pipeline

    def command(self, node: Node, loops: tuple[Loop, ...], in_sub: bool) -> None:
        start, end = self.span(node)
        # Groups of nodes that make one word: tree-sitter-bash 0.25 splits some words in
        # two (`$A/$B/c`, `x=$top/.$j.k`), but bash sees one word wherever nodes touch.
        words: list[list[Node]] = []
        assignments: list[list[Node]] = []
        redirects: list[Redirect] = []

        def add(groups: list[list[Node]], child: Node) -> None:
            if groups and groups[-1][-1].end_byte == child.start_byte:
                groups[-1].append(child)
            else:
                groups.append([child])

        for child in node.children:
            kind = child.type
            if kind == "command_name":
                name = child.children[0] if child.children else child
                glued = assignments and assignments[-1][-1].end_byte == name.start_byte
                add(assignments if glued and not words else words, name)
            elif kind == "variable_assignment":
                add(words if words else assignments, child)
                if not words:
                    self.assignment(child)
            elif kind in _REDIRECT_TYPES:
                redirects.append(self.redirect(child))
            elif not child.is_named:
                if node.type != "command" and kind in _DECLARATIONS:
                    add(words, child)
            elif kind not in _NOT_WORDS:
                add(words, child)

        def dequote_words() -> tuple[tuple[Word, ...], tuple[Word, ...]]:
            return (
                tuple(self.word(*group) for group in words),
                tuple(self.word(*group) for group in assignments),
            )

        redirects.extend(self.inherited_redirects(node))
        next_op, next_op_start, in_pipeline = self.following_operator(node)
        self.commands.append(
            Command(
                start,
                end,
                tuple(redirects),
                next_op,
                next_op_start,
                loops,
                in_pipeline,
                in_sub,
                self.text[self.span(words[0][0])[0] : self.span(words[0][-1])[1]] if words else "",
                dequote_words,
            )
        )


def _last_named(node: Node) -> Node | None:
    named = [c for c in node.children if c.is_named and c.type not in _REDIRECT_TYPES]
    return named[-1] if named else None


def _descendants(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def parse_script(text: str) -> Script:
    builder = _Builder(text)
    tree = _parser().parse(builder.offsets.data)
    builder.walk(tree.root_node)
    builder.commands.sort(key=lambda c: c.start)
    return Script(
        text,
        tuple(builder.commands),
        builder.heredocs,
        tuple(builder.errors),
        tuple(builder.assigned),
    )
