"""Shell structure of one layer: tree-sitter-bash plus our own heredoc scanner.

`parse_script(text)` returns a `Script`: the simple commands of the text with
their words de-quoted (offsets into `text`), their redirections (heredocs
attached), the operator that follows each command, the loops around it, the
variables the text assigns, and the regions tree-sitter could not parse.
"""

from __future__ import annotations

import bisect
import functools
import re
import sys
import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, overload

from heredoc_lint.shell.heredoc import Heredoc, mask_heredocs, scan_heredocs
from heredoc_lint.shell.words import ExpansionKind, ExpansionNode, Word, dequote

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree


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


LoopKind = Literal["while", "until"]


@dataclass(frozen=True)
class Loop:
    kind: LoopKind
    start: int
    end: int
    stdin_redirected: bool  # `done < file`, a heredoc or herestring, or a pipe into it
    # The loop around this one.  A link, not a tuple of all of them in each loop and
    # command: that was memory quadratic in the depth (16,000 nested loops: 1.5 GB).
    outer: Loop | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Surroundings:
    """What a command's statement adds to it: redirections and the operator after it."""

    redirects: tuple[Redirect, ...]  # its own, then those of statements around it
    next_op: str | None  # the operator after the command's statement: ; & && || | ...
    next_op_start: int
    in_pipeline: bool  # stdin or stdout is a pipe
    piped_in: bool = False  # stdin is a pipe: the text before the command ends in `|`
    in_job: bool = False  # it, or a statement around it, ends in `&`: `(a; b) &`, `a && b &`


class CommandSource(Protocol):
    """Where a command reads its words and surroundings from, on first use."""

    def words(self) -> tuple[tuple[Word, ...], tuple[Word, ...]]: ...
    def word_reader(self) -> tuple[int, Callable[[int], Word], Callable[[], tuple[Word, ...]]]: ...
    def spans(self) -> tuple[tuple[int, int], ...]: ...
    def surroundings(self) -> Surroundings: ...


class LazyWords(Sequence[Word]):
    """A command's words (`Command.words`), each de-quoted when first read: the same
    values.  For a reader that may stop at the first words: `resolve` reads a command
    through its prefixes word by word, and `command sed -e ... FILE`, the most common
    command named like a wrapper in bash-completion's scripts, ends at `sed`."""

    __slots__ = ("_read", "_words", "_assignments")

    def __init__(
        self, count: int, read: Callable[[int], Word], assignments: Callable[[], tuple[Word, ...]]
    ) -> None:
        self._read = read
        self._words: list[Word | None] = [None] * count
        self._assignments = assignments

    def complete(self) -> tuple[tuple[Word, ...], tuple[Word, ...]]:
        """The words, those read and the rest, and the assignment words: what
        `CommandSource.words` gives."""
        return tuple(self), self._assignments()

    def __len__(self) -> int:
        return len(self._words)

    @overload
    def __getitem__(self, index: int) -> Word: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Word, ...]: ...
    def __getitem__(self, index: int | slice) -> Word | tuple[Word, ...]:
        if isinstance(index, slice):
            return tuple(self[k] for k in range(*index.indices(len(self._words))))
        word = self._words[index]  # an IndexError as a tuple's
        if word is None:
            word = self._words[index] = self._read(index)
        return word


@dataclass(frozen=True, eq=False, slots=True)
class Command:
    """A simple command.  Commands compare by identity.  Its words and surroundings are
    read from the tree on first use, since most commands of a script are never looked at
    past their name.  Slots and one `source` object (not three closures): a script of
    short commands holds hundreds of thousands of them (issue 18 item 8)."""

    start: int
    end: int
    loop: Loop | None  # the innermost enclosing while/until loop
    in_substitution: bool  # inside $(...), `...` or <(...)
    head: str  # the first word as written, up to HEAD_LIMIT: a cheap look before de-quoting
    source: CommandSource = field(repr=False, compare=False)
    _read_words: tuple[tuple[Word, ...], tuple[Word, ...]] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    _read_spans: tuple[tuple[int, int], ...] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    _read_surroundings: Surroundings | None = field(
        default=None, init=False, repr=False, compare=False
    )

    # Each cache is set once, from a pure function of the tree: two threads that race
    # both compute the same value (no lock, unlike functools.cached_property in 3.11).
    @property
    def _words(self) -> tuple[tuple[Word, ...], tuple[Word, ...]]:
        if self._read_words is None:
            object.__setattr__(self, "_read_words", self.source.words())
        assert self._read_words is not None
        return self._read_words

    @property
    def word_spans(self) -> tuple[tuple[int, int], ...]:
        """Where each word of `words` stands in the text, without de-quoting any (which
        costs more than the parse for a command of many words)."""
        if self._read_spans is None:
            object.__setattr__(self, "_read_spans", self.source.spans())
        assert self._read_spans is not None
        return self._read_spans

    @property
    def _surroundings(self) -> Surroundings:
        if self._read_surroundings is None:
            object.__setattr__(self, "_read_surroundings", self.source.surroundings())
        assert self._read_surroundings is not None
        return self._read_surroundings

    @property
    def loops(self) -> tuple[Loop, ...]:
        """The enclosing while/until loops, outermost first.  Built on each use, in time
        linear in the depth: walk `loop` and its `outer` links where that matters."""
        found = []
        loop = self.loop
        while loop is not None:
            found.append(loop)
            loop = loop.outer
        return tuple(reversed(found))

    @property
    def words(self) -> tuple[Word, ...]:
        """argv: the command name first."""
        return self._words[0]

    def lazy_words(self) -> Sequence[Word]:
        """`words`, each de-quoted when first read, unless they all are already."""
        if self._read_words is not None:
            return self._read_words[0]
        return LazyWords(*self.source.word_reader())

    def keep_words(self, words: Sequence[Word]) -> None:
        """Take the words `lazy_words` gave, those read and the rest, as `words`: not
        de-quoted twice."""
        if self._read_words is None and isinstance(words, LazyWords):
            object.__setattr__(self, "_read_words", words.complete())

    @property
    def assignments(self) -> tuple[Word, ...]:
        """`X=1` words before the command name."""
        return self._words[1]

    @property
    def redirects(self) -> tuple[Redirect, ...]:
        return self._surroundings.redirects

    @property
    def next_op(self) -> str | None:
        return self._surroundings.next_op

    @property
    def next_op_start(self) -> int:
        return self._surroundings.next_op_start

    @property
    def in_pipeline(self) -> bool:
        return self._surroundings.in_pipeline

    @property
    def name(self) -> str | None:
        head = self.head
        if len(head) < HEAD_LIMIT and _PLAIN_HEAD.fullmatch(head):
            # The whole first word, and de-quoting would copy it as it is: most commands
            # are asked their name only, and de-quoting every word of each costs more.
            return head
        if not self.words or not self.words[0].static:
            return None
        return self.words[0].value

    def may_be(self, names: Collection[str]) -> bool:
        """Whether the command name, de-quoted and without its directory, can be one of
        `names`: a look at the head alone, before any word is de-quoted (which costs
        quadratic time in a command nested 10,000 deep).  A name with a `$` or a backtick
        is none of them (not static, or not such a name); a head cut at HEAD_LIMIT may be."""
        head = self.head
        if "$" in head or "`" in head:
            return False
        if len(head) >= HEAD_LIMIT:
            return True
        if "'" in head or '"' in head or "\\" in head or "\n" in head:
            # str.translate costs a microsecond even when it deletes nothing, and almost
            # every head of a script holds no quote mark: four scans of it cost less.
            head = head.translate(_QUOTE_MARKS)
        return head.rsplit("/", 1)[-1] in names

    @property
    def background(self) -> bool:
        return self.next_op == "&"

    @property
    def in_job(self) -> bool:
        """Run in a job its shell does not wait for, with /dev/null as its stdin: `a &`,
        `(a; b) &`, `a && b &`, a loop `&`.  Not inside a substitution: bash shows
        `$(cat &)` reading the caller's stdin."""
        return not self.in_substitution and (self.background or self._surroundings.in_job)

    @property
    def reads_stdin(self) -> bool:
        """Whether the command gets the standard input of the shell that runs it: not
        redirected (`< file`, a heredoc, a here-string), not the reading end of a pipe,
        not in a background job (which a shell without job control gives /dev/null; but
        bash not inside a loop fed by a redirection or a pipe, which keeps that input)."""
        return not self.in_job and self.reads_stdin_unless_job

    @property
    def reads_stdin_unless_job(self) -> bool:
        """`reads_stdin`, whether or not the command is in a background job."""
        if self._surroundings.piped_in:
            return False
        return not any(r.source_fd == 0 and (not r.writes or r.op == "<>") for r in self.redirects)


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
    # tree-sitter's tree of the heredoc-masked text, for a rule that needs the structure
    # itself, and the map from its byte offsets to character offsets.
    tree: Tree | None = field(default=None, repr=False, compare=False)
    char: Callable[[int], int] = field(default=lambda byte: byte, repr=False, compare=False)
    # Where each function definition of the tree starts (its bytes, in order), the walk's
    # by-product: what definitions.py looks at before it walks the tree for them again.
    function_starts: tuple[int, ...] = field(default=(), repr=False, compare=False)


# Where the statements around a command stop being its shell's: a substitution runs in a
# shell of its own, a function's body where the function is called.
_OTHER_SHELLS = frozenset({"command_substitution", "process_substitution", "function_definition"})
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
# Builtins whose whole effect is on the shell that runs them (its directory, variables,
# options): lost when that shell ends, as with a command string that is split in two.
STATE_BUILTINS = frozenset(
    "cd pushd popd export source . umask ulimit set shopt unset alias unalias declare "
    "typeset local readonly trap hash enable builtin newgrp setopt unsetopt".split()
)
_DECLARATIONS = frozenset(
    {"export", "local", "declare", "readonly", "typeset", "unset", "unsetenv"}
)
REDIRECT_TYPES = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_COMMANDS = frozenset({"command", "declaration_command", "unset_command"})
_STATEMENT_WRAPPERS = frozenset({"redirected_statement", "negated_command"})
_SEQUENCES = frozenset({"list", "pipeline"})
_POSITIONAL = frozenset("0123456789")
_SPECIAL = frozenset("@*#?$!-")


@functools.cache
def _language() -> object:
    import tree_sitter_bash
    from tree_sitter import Language

    return Language(tree_sitter_bash.language())


_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_SUBSTITUTION = re.compile(rb"\$\(|`|[<>]\(")  # byte offsets, as tree-sitter's
# tree-sitter-bash 0.25.1's scanner passes the character after `{`, `{12` or `{1..2` to C's
# isdigit(), whose table ends at 255: a wider character there reads far outside it, and
# crashes the process when that memory is not mapped (found by tests/test_fuzz.py in CI).
# Such a character (UTF-8 lead byte 0xC4 and up) is handed to the parser as the same
# number of ASCII word bytes, which parse as it does and keep every byte offset.
_WIDE_AFTER_BRACE = re.compile(rb"\{[0-9]*(?:\.\.[0-9]*)?([\xc4-\xf4][\x80-\xbf]+)")
# Nodes that never hold a command, and expressions that hold one only in a substitution.
_NO_COMMANDS = frozenset(
    {
        "word",
        "number",
        "raw_string",
        "comment",
        "string_content",
        "variable_name",
        "special_variable_name",
        "ansi_c_string",
        "file_descriptor",
        "test_operator",
        "regex",
        "extglob_pattern",
        "heredoc_start",
        "heredoc_body",
        "heredoc_content",
        "heredoc_end",
    }
)
_EXPRESSIONS = frozenset(
    {
        "string",
        "concatenation",
        "expansion",
        "simple_expansion",
        "array",
        "test_command",
        "binary_expression",
        "unary_expression",
        "ternary_expression",
        "postfix_expression",
        "parenthesized_expression",
        "arithmetic_expansion",
        "subscript",
        "translated_string",
        "brace_expression",
        # Words too: a command's name, a file or here-string redirection's target (not a
        # heredoc_redirect, which may hold the pipeline after it: `cat <<EOF | sh`).
        "command_name",
        "file_redirect",
        "herestring_redirect",
    }
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
    """tree-sitter speaks UTF-8 bytes; everything here speaks characters.

    Only the characters outside ASCII are recorded (the byte offset after each and the
    extra bytes up to it), so an ASCII text costs nothing and a mostly ASCII one little.
    """

    def __init__(self, text: str) -> None:
        self.data = text.encode("utf-8", "surrogatepass")
        self.starts: list[int] = []  # byte offset just after each non-ASCII character
        self.extra: list[int] = []  # bytes beyond one per character, up to and with it
        if len(self.data) != len(text):
            extra = 0
            for match in _NON_ASCII.finditer(text):
                width = len(match.group().encode("utf-8", "surrogatepass"))
                extra += width - len(match.group())
                self.starts.append(match.end() + extra)
                self.extra.append(extra)

    def char(self, byte: int) -> int:
        if not self.starts:
            return byte
        k = bisect.bisect_right(self.starts, byte)
        return byte - (self.extra[k - 1] if k else 0)


def _expansion_kind(node: Node, source: str) -> tuple[ExpansionKind, str]:
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
        written = source.lstrip()  # tree-sitter may start the node at the blank before it
        body = written[2:-1] if written.startswith("${") else written[1:]
        # `${#@}`, `${!*}`: the parameter after the operator; `${#}`, `${!}`: itself
        special = body.lstrip("#!")[:1] or body[:1]
        name = special if body[:1] in _SPECIAL else body
    if name and (name in _SPECIAL or name == "0"):
        return "special", name
    if name.isdigit():
        return "positional", name
    return "variable", name


HEAD_LIMIT = 256  # Command.head is cut here; a longer head is never taken at face value
_QUOTE_MARKS = str.maketrans("", "", "'\"\\\n")  # quotes, escapes, line continuations
_BACKSLASH = ord("\\")
# A head that de-quotes to itself, a static word: words.py's plain unquoted run.
_PLAIN_HEAD = re.compile(r"[^$'\"\\~*?\[({},.<>`]+")


def _children(node: Node) -> list[Node]:
    """The children of `node`, read through a copy of it: a Node keeps the list of its
    children once read, and a command's node is kept (by its place) as long as the
    command: that list, and the Node of each word, was most of a script's memory."""
    copy = node.walk().node
    return (copy or node).children


class _Place:
    """A node with the path to it, its type and children read once."""

    __slots__ = ("node", "kind", "parent", "index", "loop", "in_sub", "_children")

    def __init__(
        self,
        node: Node,
        kind: str,
        parent: _Place | None,
        index: int,
        loop: Loop | None,
        in_sub: bool,
    ) -> None:
        self.node = node
        # `node.type`, which builds a new str on each call: the walk, and each command's
        # look at the statements around it, ask the type of a place many times.
        self.kind = kind
        self.parent = parent
        self.index = index  # among the parent's children
        self.loop = loop  # the innermost loop around the node
        self.in_sub = in_sub
        self._children: list[Node] | None = None

    @property
    def children(self) -> list[Node]:
        if self._children is None:
            node = self.node
            # A command's node is kept as long as the command: read through a copy.
            self._children = _children(node) if self.kind in _COMMANDS else node.children
        return self._children

    def command_children(self) -> list[Node]:
        """A command's children: the list the walk holds while it is at the command, else
        read again and not kept (`forget_children`)."""
        if self._children is not None:
            return self._children
        return _children(self.node)

    def forget_children(self) -> None:
        self._children = None

    @property
    def last_named_index(self) -> int:
        children = self.children
        for index in range(len(children) - 1, -1, -1):
            child = children[index]
            if child.is_named and child.type not in REDIRECT_TYPES:
                return index
        return -1


class _Builder:
    def __init__(self, text: str) -> None:
        self.text = text
        self.heredocs = scan_heredocs(text)
        self.by_op = {h.op_start: h for h in self.heredocs}
        self.masked = mask_heredocs(text, self.heredocs)
        self.offsets = _Offsets(self.masked)
        # An ASCII text's byte offsets are its character offsets (`span` is called for
        # most nodes of the tree: no call to `char` for those).
        self.ascii = not self.offsets.starts
        self.tree: Tree | None = None
        self.substitutions = [m.start() for m in _SUBSTITUTION.finditer(self.offsets.data)]
        self.commands: list[Command] = []
        # tree-sitter-bash 0.25 reads the `0` of `cmd 0<f` as an argument: the redirection
        # (by its node's first byte) and the descriptor bash gives it, with its start.
        self.glued_fd: dict[int, tuple[int, int]] = {}
        self.errors: list[ParseError] = []
        self.assigned: list[tuple[str, int]] = []
        self.function_starts: list[int] = []

    def span(self, node: Node) -> tuple[int, int]:
        if self.ascii:
            return node.start_byte, node.end_byte
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
                # Inside double quotes tree-sitter starts an expansion after a blank at the
                # blank (`"${y} ${z}"`): the expansion is what follows it.
                while a < b and self.text[a] in " \t\n":
                    a += 1
                if current.type == "simple_expansion" and self.text[a + 1 : a + 2].isdigit():
                    # `$1y`, `$10`: bash takes one digit; the rest is text.
                    b = a + 2
                    name = self.text[a + 1]
                    kind: ExpansionKind = "special" if name == "0" else "positional"
                else:
                    kind, name = _expansion_kind(current, self.text[a:b])
                nodes[a] = ExpansionNode(b, kind, name)
                continue
            stack.extend(current.children)
        return dequote(self.text, start, end, nodes)

    def head(self, nodes: list[Node]) -> str:
        """The first word as written, cut at HEAD_LIMIT characters: a command nested
        10,000 deep in `$(` must not copy its whole text once per level."""
        start, end = self.span(nodes[0])[0], self.span(nodes[-1])[1]
        return self.text[start : min(end, start + HEAD_LIMIT)]

    def glue_descriptor(self, place: _Place, words: list[list[Node]]) -> None:
        """`cat x 0<&3`: a last argument of digits that touches the redirection after the
        command is that redirection's descriptor (bash: `0<&3`), not an argument."""
        parent = place.parent
        if parent is None or parent.kind != "redirected_statement":
            return
        if not words or len(words[-1]) != 1 or words[-1][0].type != "number":
            return
        number = words[-1][0]
        first = next((c for c in parent.node.children if c.type in REDIRECT_TYPES), None)
        if first is None or first.start_byte != number.end_byte or not number.text:
            return
        if not number.text.isdigit():
            return
        self.glued_fd[first.start_byte] = (int(number.text), self.span(number)[0])
        words.pop()

    def redirect(self, node: Node) -> Redirect:
        start, end = self.span(node)
        fd: int | None = None
        if node.start_byte in self.glued_fd:
            fd, start = self.glued_fd[node.start_byte]
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
        """One pass from the root down, keeping the path to each node.

        tree-sitter's `parent` and `next_sibling` cost a walk from the root each, so the
        path is carried down instead: every step here is constant work, and a script of
        10,000 nested `if`s takes linear time.
        """
        stack: list[_Place] = [_Place(root, root.type, None, 0, None, False)]
        while stack:
            place = stack.pop()
            node, kind = place.node, place.kind
            if kind == "ERROR" or node.is_missing:
                start, end = self.span(node)
                self.errors.append(ParseError(start, max(end, start + 1)))
                continue
            loop, in_sub = place.loop, place.in_sub
            # Read before `command`, which then groups the words from this same list.
            children = place.children
            if kind in _COMMANDS:
                self.command(place)
            elif kind == "variable_assignment":
                self.assignment(node)
            elif kind == "for_statement":
                var = node.child_by_field_name("variable")
                if var is not None:
                    self.assigned.append((self.text[slice(*self.span(var))], self.span(var)[1]))
            elif kind == "while_statement":  # tree-sitter-bash: `until` loops too
                loop = self.loop(place)
            elif kind in ("command_substitution", "process_substitution"):
                in_sub = True
            elif kind == "function_definition":
                self.function_starts.append(node.start_byte)
            for index in range(len(children) - 1, -1, -1):
                child = children[index]
                child_kind = child.type  # read once: each read builds a new str
                if not (child.is_named or child_kind == "ERROR" or child.is_missing):
                    continue
                if child_kind in _NO_COMMANDS and not child.has_error:
                    continue
                if (
                    child_kind in _EXPRESSIONS
                    and not child.has_error
                    and not self.holds_substitution(child)
                ):
                    continue  # a word or expression without `$(`, backticks or `<(`
                # One str per type, not per place: places are kept as long as commands.
                stack.append(_Place(child, sys.intern(child_kind), place, index, loop, in_sub))
            if kind in _COMMANDS:
                place.forget_children()  # read again on use: one list less per command
        self.errors.sort(key=lambda e: e.start)

    def holds_substitution(self, node: Node) -> bool:
        """Whether a command substitution may start inside `node` (commands hide there)."""
        starts = self.substitutions
        k = bisect.bisect_left(starts, node.start_byte)
        return k < len(starts) and starts[k] < node.end_byte

    def assignment(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        if name is not None:
            self.assigned.append((self.text[slice(*self.span(name))], self.span(node)[1]))

    def _stdin_redirected(self, statement: _Place | None) -> bool:
        """Whether `statement` is a redirected_statement that gives its body a new stdin."""
        if statement is None or statement.kind != "redirected_statement":
            return False
        return any(
            r.source_fd == 0 and not r.writes
            for r in (self.redirect(c) for c in statement.children if c.type in REDIRECT_TYPES)
        )

    def loop(self, place: _Place) -> Loop:
        node = place.node
        start, end = self.span(node)
        parent = place.parent
        fed = self._stdin_redirected(parent) or (
            parent is not None and parent.kind == "pipeline" and place.index > 0
        )
        kind: LoopKind = "until" if node.children[0].type == "until" else "while"
        return Loop(kind, start, end, fed, place.loop)

    def inherited_redirects(self, place: _Place) -> list[Redirect]:
        """Redirections of the statements around a simple command that apply to it.

        tree-sitter-bash attaches `> f` in `a && b > f` to the whole list; bash
        gives it to `b`, the last command, as it does for a pipeline.
        """
        return [self.redirect(node) for node in self.inherited_redirect_nodes(place)]

    def inherited_redirect_nodes(self, place: _Place) -> list[Node]:
        """The redirection nodes of `inherited_redirects`, innermost statement first."""
        found: list[Node] = []
        current = place
        while current.parent is not None:
            parent = current.parent
            if parent.kind in _STATEMENT_WRAPPERS:
                if parent.kind == "redirected_statement":
                    found.extend(c for c in parent.children if c.type in REDIRECT_TYPES)
                current = parent
            elif parent.kind in _SEQUENCES and parent.last_named_index == current.index:
                current = parent
            else:
                break
        return found

    def following_operator(self, place: _Place) -> tuple[str | None, int, bool]:
        """The operator after the command's statement (`;`, `&&`, `|`, `&`...)."""
        in_pipeline = False
        cursor = place
        while cursor.parent is not None:
            parent = cursor.parent
            if parent.kind == "pipeline":
                in_pipeline = True
            siblings = parent.children
            index = cursor.index + 1
            while index < len(siblings) and siblings[index].type in REDIRECT_TYPES:
                index += 1
            if index < len(siblings) and not siblings[index].is_named:
                start, end = self.span(siblings[index])
                return self.text[start:end], start, in_pipeline
            if index >= len(siblings) and (
                parent.kind in _SEQUENCES or parent.kind in _STATEMENT_WRAPPERS
            ):
                cursor = parent
                continue
            break
        return None, -1, in_pipeline

    def in_job(self, place: _Place) -> bool:
        """Whether a statement around the command at `place` is followed by `&`."""
        cursor = place
        while cursor.parent is not None:
            parent = cursor.parent
            siblings = parent.children
            index = cursor.index + 1
            while index < len(siblings) and siblings[index].type in REDIRECT_TYPES:
                index += 1
            if index < len(siblings) and siblings[index].type == "&":
                return True
            if parent.kind in _OTHER_SHELLS:
                return False
            cursor = parent
        return False

    def groups(self, place: _Place) -> tuple[list[list[Node]], list[list[Node]], list[Node]]:
        """The nodes of each word, of each assignment word, and the redirections of the
        simple command at `place`.  Groups of nodes make one word: tree-sitter-bash 0.25
        splits some words in two (`$A/$B/c`, `x=$top/.$j.k`), but bash sees one word
        wherever nodes touch."""
        words: list[list[Node]] = []
        assignments: list[list[Node]] = []
        redirects: list[Node] = []

        data = self.offsets.data

        def add(groups: list[list[Node]], child: Node) -> None:
            # A backslash-newline between two nodes is no break: `ss\\<newline>h` is `ssh`.
            # (Most gaps are a blank: its first byte says so before any slice.)
            if groups:
                end, start = groups[-1][-1].end_byte, child.start_byte
                if end >= start or (
                    data[end] == _BACKSLASH and data[end:start] == b"\\\n" * ((start - end) // 2)
                ):
                    groups[-1].append(child)
                    return
            groups.append([child])

        for child in place.command_children():
            kind = child.type
            if kind == "command_name":
                name = child.children[0] if child.children else child
                glued = assignments and assignments[-1][-1].end_byte == name.start_byte
                add(assignments if glued and not words else words, name)
            elif kind == "variable_assignment":
                add(words if words else assignments, child)
            elif kind in REDIRECT_TYPES:
                redirects.append(child)
            elif not child.is_named:
                if place.kind != "command" and kind in _DECLARATIONS:
                    add(words, child)
            elif kind not in _NOT_WORDS:
                add(words, child)
        self.glue_descriptor(place, words)  # the same each time: a pure function of the tree
        for child in self.redirect_arguments(place):
            add(words, child)
        return words, assignments, redirects

    def redirect_arguments(self, place: _Place) -> list[Node]:
        """The words after a redirection's target, which bash gives to the command as
        arguments (`ssh h 2>/dev/null "cmd"` runs `ssh h cmd`; `cat <<EOF x` reads x).
        tree-sitter-bash 0.25 puts them in the redirection: more destinations of a
        file_redirect, arguments of a heredoc_redirect.  The redirections are those of
        the statements around the command that bash gives it (`inherited_redirects`)."""
        found: list[Node] = []
        for redirect in self.inherited_redirect_nodes(place):
            if redirect.type == "file_redirect":
                found.extend(redirect.children_by_field_name("destination")[1:])
            elif redirect.type == "heredoc_redirect":
                found.extend(redirect.children_by_field_name("argument"))
        return found

    def command(self, place: _Place) -> None:
        words, assignments, _ = self.groups(place)
        for group in assignments:
            for child in group:
                if child.type == "variable_assignment":
                    self.assignment(child)
        start, end = self.span(place.node)
        if words:  # arguments after a redirection of the statement (`redirect_arguments`)
            end = max(end, self.span(words[-1][-1])[1])
        self.commands.append(
            Command(
                start,
                end,
                place.loop,
                place.in_sub,
                self.head(words[0]) if words else "",
                _Pending(self, place),
            )
        )


class _Pending:
    """What a command reads from the tree on first use: its nodes are found again then,
    not kept (a Node, a list and a closure per word cost more than the text)."""

    __slots__ = ("builder", "place")

    def __init__(self, builder: _Builder, place: _Place) -> None:
        self.builder = builder
        self.place = place

    def words(self) -> tuple[tuple[Word, ...], tuple[Word, ...]]:
        words, assignments, _ = self.builder.groups(self.place)
        word = self.builder.word
        return tuple(word(*g) for g in words), tuple(word(*g) for g in assignments)

    def word_reader(self) -> tuple[int, Callable[[int], Word], Callable[[], tuple[Word, ...]]]:
        groups, assignments, _ = self.builder.groups(self.place)
        word = self.builder.word
        return len(groups), lambda k: word(*groups[k]), lambda: tuple(word(*g) for g in assignments)

    def spans(self) -> tuple[tuple[int, int], ...]:
        span = self.builder.span
        return tuple((span(g[0])[0], span(g[-1])[1]) for g in self.builder.groups(self.place)[0])

    def surroundings(self) -> Surroundings:
        builder, place = self.builder, self.place
        own = [builder.redirect(child) for child in builder.groups(place)[2]]
        return Surroundings(
            (*own, *builder.inherited_redirects(place)),
            *builder.following_operator(place),
            _after_pipe(builder.text, builder.span(place.node)[0]),
            builder.in_job(place),
        )


def _after_pipe(text: str, start: int) -> bool:
    """The command at `start` reads a pipe: the text before it ends in `|` or `|&`."""
    i = start
    while i > 0:
        if text[i - 1] in " \t\n" or text[i - 1] == "\\" and text[i : i + 1] == "\n":
            i -= 1
        else:
            break
    before = text[max(0, i - 2) : i]
    return before.endswith("|") and not before.endswith("||") or before == "|&"


def _safe_for_scanner(data: bytes) -> bytes:
    if b"$" in data:
        data = _LONE_DOLLAR.sub(b".", data)
    if not _WIDE_AFTER_BRACE.search(data):
        return data
    return _WIDE_AFTER_BRACE.sub(
        lambda m: m.group()[: m.start(1) - m.start()] + b"x" * len(m.group(1)), data
    )


# A `$` that starts no expansion is a plain character to bash (`pkill -f app$; next`
# passes `app$`), but tree-sitter-bash 0.25 makes an ERROR of `$;`, `$|`, `$&`, `$)`,
# `$>` and drops a bare `$`: the parser gets a plain byte there (the words are read from
# the text itself).  Not the second `$` of `$$`, which is the shell's process id.  (The
# `$` first, the byte before it looked at after: a pattern that starts with a literal
# lets the regex engine skip to each `$`, where a lookbehind is tried at every byte.)
_LONE_DOLLAR = re.compile(rb"\$(?<!\$\$)(?=[;&|)<>\s]|\Z)")


# A word that starts a statement and holds brace or glob characters: `{ssh,}`, `ss[h]`,
# `/usr/bin/ss?`.  tree-sitter-bash reads it as a group or an array element and fails.
_STATEMENT_START = re.compile(rb"(?:^|(?<=[\n;&|]))[ \t]*", re.MULTILINE)
_EXPANDED_NAME = re.compile(rb"[^\s;&|()<>'\"`$\\=]*[\[{*?][^\s;&|()<>'\"`$\\=]*(?=[ \t])")


def _reparse_expanded_names(data: bytes, tree: Tree) -> Tree:
    """Parse again with the brace and glob characters of the command names where parse
    errors start handed to the parser as word bytes (the same count: every offset stays,
    and the words are de-quoted from the text itself), when bash would read such a word
    as a command name (`{ssh,} h CMD`, `ss[h] h CMD`) and the new parse has no error."""
    masked = bytearray(data)
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        # `{ssh,} h CMD` also parses as a `{ ...` group missing its `}`.
        if node.type in ("ERROR", "compound_statement"):
            starts = _STATEMENT_START.finditer(data, node.start_byte, node.end_byte)
            for at in (node.start_byte, *(place.end() for place in starts)):
                found = _EXPANDED_NAME.match(data, at)
                word = found.group() if found else b""
                if found is None or not word.strip(b"{}[]*?,") or word == b"[[":
                    continue
                for k in range(found.start(), found.end()):
                    if data[k] in b"{}[]*?,":
                        masked[k] = ord("x")
        stack.extend(child for child in node.children if child.has_error)
    if masked == data:
        return tree
    again = _parser().parse(bytes(masked))
    return tree if again.root_node.has_error else again


def parse_script(text: str) -> Script:
    builder = _Builder(text)
    # The commands de-quote their words later, from nodes of this tree: the builder,
    # which they hold, keeps the tree alive as long as they need it.
    data = _safe_for_scanner(builder.offsets.data)
    builder.tree = _parser().parse(data)
    if builder.tree.root_node.has_error:
        builder.tree = _reparse_expanded_names(data, builder.tree)
    builder.walk(builder.tree.root_node)
    commands = tuple(sorted(builder.commands, key=lambda c: c.start))
    # The commands' closures hold the builder: without its list of them there is no
    # reference cycle, and a script's objects go as soon as it does, without the GC.
    builder.commands = []
    return Script(
        text,
        commands,
        builder.heredocs,
        tuple(builder.errors),
        tuple(builder.assigned),
        builder.tree,
        builder.offsets.char,
        tuple(sorted(builder.function_starts)),
    )


def redirect_reader(text: str) -> Callable[[Node], Redirect]:
    """Reads a redirection node of `parse_script(text)`'s tree as the commands' own are
    read (operator, descriptor, de-quoted target, heredoc): for the redirections that a
    statement puts on a group, a subshell or a loop (`( a; b ) > f`), which belong to no
    simple command.  Reads the text once; call it once per script."""
    return _Builder(text).redirect
