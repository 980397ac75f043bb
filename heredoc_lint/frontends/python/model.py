"""The model of a Python file's shell strings: units, atoms, groups, run-time values."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from heredoc_lint.frontends.python.positions import Lines

if TYPE_CHECKING:
    from heredoc_lint.frontends.python.parsing import Unread

# What a Unit is the source of: a character of a string token, an f-string field, a
# format spec, a non-string `+` operand, or a character the reading made up (a space
# joining the words of an argument list).
UnitKind = Literal["char", "field", "spec", "expr", "synthetic"]
AtomKind = Literal["token", "expr"]  # a string token or a non-string `+` operand
Template = Literal["%", "format"]  # a `%` template or a `str.format` one
# Where a run-time value comes from: an f-string field, a `%s`, a `{}`, an expression.
InterpKind = Literal["field", "percent", "format", "expr"]


@dataclass(frozen=True, slots=True)  # one per character of every shell string (issue 18)
class Unit:
    """The source of one character of a fragment (or of one placeholder).

    `start:end` tiles the string's source: the escape sequence of a character (with any
    backslash-newline before it), the `{...}` of an f-string field, the `%s` of a
    template, the expression of a `+` operand.  `at` is where a finding on it points.
    """

    kind: UnitKind
    start: int
    end: int
    at: int
    atom: int = -1  # index into Analysis.atoms (-1: synthetic, no source of its own)
    interp: int = -1  # index into Analysis.interps for a placeholder


@dataclass
class Atom:
    """A string token, or a non-string operand of a `+` concatenation."""

    kind: AtomKind
    start: int
    end: int
    group: int
    prefix: str = ""  # lower-case token prefix: "", "r", "b", "rb", "f", "rf", "u"
    quote: str = ""  # ', ", ''' or \"\"\"
    template: Template | None = None  # when the token is such a template
    units: list[int] = field(default_factory=list)

    @property
    def content_start(self) -> int:
        return self.start + len(self.prefix) + len(self.quote)

    @property
    def content_end(self) -> int:
        return self.end - len(self.quote)

    @property
    def is_fstring(self) -> bool:
        return "f" in self.prefix


@dataclass
class Group:
    """The operands of one concatenation expression, in source order."""

    atoms: list[int]
    stmt_start: int  # offset of the start of the line of the enclosing statement
    indent: str
    hoistable: bool  # a statement of its own in a block: a new line may go before it
    scope: tuple[int, int] = (0, 0)  # file span of the enclosing function (or the file)


@dataclass(frozen=True)
class Interp:
    """A value known only at run time."""

    kind: InterpKind
    source: str  # the expression, as written
    span: tuple[int, int] | None  # file span of the expression; None: not one place
    anchor: tuple[int, int]  # what findings point at: the field, the `%s`, the expression
    safe: bool = False  # one shell word whatever happens: quoted, a number, a token, a literal
    is_str: bool = False  # known to be a str
    conversion: str | None = None  # f-string `!r`, `%r`...
    spec: str | None = None  # a format spec; "?" when it cannot be reused
    shared: bool = False  # one argument behind several placeholders
    words: bool = False  # `" ".join(...)`: several words on purpose
    escaped: str = ""  # characters the value has replaced (`.replace("'", "'\\''")`)
    evidence: str = ""  # why the value comes from outside the program ("": nothing shows it)
    shell_text: str = ""  # why the value is meant as shell text (a glob, options...)
    through: str = ""  # the name whose binding holds this value's source (`cmd = f"..."`)


@dataclass
class Analysis:
    """Everything the frontend learnt about one file, shared by its fragments."""

    text: str
    tree: ast.Module
    lines: Lines
    units: list[Unit] = field(default_factory=list)
    atoms: list[Atom] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    interps: list[Interp] = field(default_factory=list)
    imports: dict[str, str] = field(default_factory=dict)  # local name -> qualified name
    names: set[str] = field(default_factory=set)  # every name the file binds
    module_names: set[str] = field(default_factory=set)  # the names bound at module level
    python2: bool = False  # the file may run under Python 2: no fix may add Python 3 code
    path: str | None = None  # where the file is: its own modules are found next to it
    # False when `text` is not the file's own (decoded from another codec, decoding.py):
    # an edit of it cannot be written back.
    fixable: bool = True
    # Statements this Python cannot parse, left out of `tree` (parsing.parse_partly).
    unread: tuple[Unread, ...] = ()

    def add_unit(self, unit: Unit) -> int:
        self.units.append(unit)
        index = len(self.units) - 1
        if unit.atom >= 0:
            self.atoms[unit.atom].units.append(index)
        return index

    def new_group(self, hoist: tuple[int, str, bool, tuple[int, int]]) -> int:
        self.groups.append(Group([], *hoist))
        return len(self.groups) - 1

    def add_atom(self, atom: Atom) -> int:
        self.atoms.append(atom)
        index = len(self.atoms) - 1
        self.groups[atom.group].atoms.append(index)
        return index

    def add_interp(self, interp: Interp) -> int:
        self.interps.append(interp)
        return len(self.interps) - 1


@dataclass(frozen=True)
class Session:
    """The ssh of an argv list (`subprocess.run(["ssh", h, CMD])`) whose remote command is
    the fragment: what HL104 asks of the session the command runs in."""

    runner: str  # the Python function that starts ssh: "subprocess.run"
    waits: bool  # whether it waits for ssh to exit (`run` does, `Popen` does not)
    flags: frozenset[str]  # ssh's options: `-f` backgrounds it, `-t` gives the job a tty


# A fragment under construction: (character or "" for a placeholder, unit index) pairs.
Elems = list[tuple[str, int]]


@dataclass(frozen=True, eq=False)
class PyFragment:
    """The origin of a Python fragment: the file's analysis and where each character came from.

    It is the `origin` of the fragment and of its root layer; rules reach it from any
    layer through `fragment_of(layer)`.  Edits go back through `encode.py`.
    """

    analysis: Analysis = field(repr=False)
    text: str
    unit_of: tuple[int, ...]  # unit index of each character
    # The text is an argv list written as a command line (calls.py): no shell reads the
    # root layer, its quotes are the frontend's own; the layers below it are real.
    argv: bool = False
    session: Session | None = None  # the fragment is the remote command of an ssh argv list
    project: bool = False  # a call of the project's own wrapper (`python-wrappers`)

    def interp_at(self, index: int) -> Interp | None:
        if not 0 <= index < len(self.unit_of):
            return None
        unit = self.analysis.units[self.unit_of[index]]
        return self.analysis.interps[unit.interp] if unit.interp >= 0 else None
