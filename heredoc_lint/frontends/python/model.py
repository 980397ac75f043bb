"""The model of a Python file's shell strings: units, atoms, groups, run-time values."""

from __future__ import annotations

import ast
import bisect
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, overload

from heredoc_lint.frontends.python.positions import Lines
from heredoc_lint.shell.words import OffsetRuns, Offsets

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


@dataclass(frozen=True, slots=True)  # made on demand from `Units`, which holds them as runs
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


_KINDS: tuple[UnitKind, ...] = ("char", "field", "spec", "expr", "synthetic")
_KIND_CODE = {kind: code for code, kind in enumerate(_KINDS)}


class Units(Sequence[Unit]):
    """`Analysis.units`: append-only, each unit's index its identity, kept as runs.

    A run is units of one kind, atom and run-time value whose `start`, `end` and `at`
    each move by the same step from one unit to the next: the characters of a literal
    between escapes are one run (step 1), so are `\\n\\n...` (step 2), and the synthetic
    characters at one spot (step 0).  A 1.6 MB literal took a Unit, two ints and two
    list slots per character, 150 bytes (issue 18 item 8); here it is one run, and a
    Unit is made when it is asked for."""

    __slots__ = (
        "_firsts",
        "_kinds",
        "_starts",
        "_ends",
        "_ats",
        "_atoms",
        "_interps",
        "_steps",
        "_length",
        "_hint",
    )

    def __init__(self) -> None:
        self._firsts: array[int] = array("q")  # index of the first unit of each run
        self._kinds: array[int] = array("b")  # _KINDS code
        self._starts: array[int] = array("q")  # the first unit's fields
        self._ends: array[int] = array("q")
        self._ats: array[int] = array("q")
        self._atoms: array[int] = array("i")  # indices into lists: under 2**31
        self._interps: array[int] = array("i")
        self._steps: array[int] = array("q")  # what start, end and at gain per unit
        self._length = 0
        self._hint = 0  # the run last looked up: reads mostly go through a run in order

    def __len__(self) -> int:
        return self._length

    @property
    def runs(self) -> int:
        """How many runs hold the units (what their memory grows with)."""
        return len(self._firsts)

    def append(self, unit: Unit) -> int:
        """Adds `unit`; its index."""
        return self.add(unit.kind, unit.start, unit.end, unit.at, unit.atom, unit.interp)

    def add(
        self, kind: UnitKind, start: int, end: int, at: int, atom: int = -1, interp: int = -1
    ) -> int:
        """Adds the unit of these fields, in the run before it when it follows on; its index."""
        index = self._length
        self._length += 1
        code = _KIND_CODE[kind]
        if self._firsts and (
            self._kinds[-1] == code and self._atoms[-1] == atom and self._interps[-1] == interp
        ):
            count = index - self._firsts[-1]  # units in the last run
            step = start - self._starts[-1] if count == 1 else self._steps[-1]
            last = self._starts[-1] + (count - 1) * step
            if (
                start - last == step
                and end - self._ends[-1] == count * step
                and at - self._ats[-1] == count * step
            ):
                self._steps[-1] = step
                return index
        self._firsts.append(index)
        self._kinds.append(code)
        self._starts.append(start)
        self._ends.append(end)
        self._ats.append(at)
        self._atoms.append(atom)
        self._interps.append(interp)
        self._steps.append(0)
        return index

    def add_chars(self, start: int, count: int, atom: int) -> int:
        """Adds `count` characters of a literal, each its own source character from
        `start` on; the index of the first."""
        first = self._length
        for k in range(min(count, 3)):
            self.add("char", start + k, start + k + 1, start + k, atom)
        # The third is in a run of step 1, whatever run the first joined: the rest follow.
        self._length += max(count - 3, 0)
        return first

    def _run(self, index: int) -> tuple[int, int]:
        """The run of the unit at `index` and its index from the first (not negative)."""
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("unit index out of range")
        firsts, k = self._firsts, self._hint
        if not (firsts[k] <= index and (k + 1 == len(firsts) or index < firsts[k + 1])):
            k = self._hint = bisect.bisect_right(firsts, index) - 1
        return k, index

    def ats(self, first: int, count: int) -> Iterator[tuple[int, int, int]]:
        """Where findings on units first..first+count-1 point, run by run: (the `at` of
        the first, what it gains per unit, how many units)."""
        index, stop = first, first + count
        while index < stop:
            k, _ = self._run(index)
            run_end = self._firsts[k + 1] if k + 1 < len(self._firsts) else self._length
            n = min(run_end, stop) - index
            yield self._ats[k] + (index - self._firsts[k]) * self._steps[k], self._steps[k], n
            index += n

    def wide_chars(self) -> Iterator[tuple[int, int]]:
        """(at, end) of each character written with more than one source character at
        `at` (an escape such as `\\x7d`, the `}}` of an f-string, `%%` of a template)."""
        char = _KIND_CODE["char"]
        for k, first in enumerate(self._firsts):
            if self._kinds[k] != char or self._ends[k] - self._ats[k] <= 1:
                continue
            stop = self._firsts[k + 1] if k + 1 < len(self._firsts) else self._length
            step = self._steps[k]
            for n in range(stop - first):
                yield self._ats[k] + n * step, self._ends[k] + n * step

    @overload
    def __getitem__(self, index: int) -> Unit: ...
    @overload
    def __getitem__(self, index: slice) -> list[Unit]: ...
    def __getitem__(self, index: int | slice) -> Unit | list[Unit]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        k, index = self._run(index)
        move = (index - self._firsts[k]) * self._steps[k]
        return Unit(
            _KINDS[self._kinds[k]],
            self._starts[k] + move,
            self._ends[k] + move,
            self._ats[k] + move,
            self._atoms[k],
            self._interps[k],
        )

    def __iter__(self) -> Iterator[Unit]:
        for index in range(self._length):
            yield self[index]


@dataclass(slots=True)  # one per string token and operand: many in a large file
class Atom:
    """A string token, or a non-string operand of a `+` concatenation."""

    kind: AtomKind
    start: int
    end: int
    group: int
    prefix: str = ""  # lower-case token prefix: "", "r", "b", "rb", "f", "rf", "u"
    quote: str = ""  # ', ", ''' or \"\"\"
    template: Template | None = None  # when the token is such a template

    @property
    def content_start(self) -> int:
        return self.start + len(self.prefix) + len(self.quote)

    @property
    def content_end(self) -> int:
        return self.end - len(self.quote)

    @property
    def is_fstring(self) -> bool:
        return "f" in self.prefix


@dataclass(slots=True)
class Group:
    """The operands of one concatenation expression, in source order."""

    atoms: list[int]
    stmt_start: int  # offset of the start of the line of the enclosing statement
    indent: str
    hoistable: bool  # a statement of its own in a block: a new line may go before it
    scope: tuple[int, int] = (0, 0)  # file span of the enclosing function (or the file)


@dataclass(frozen=True, slots=True)
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
    plain: bool = False  # no line break, `$`, backtick or backslash in it, ever (origins)
    through: str = ""  # the name whose binding holds this value's source (`cmd = f"..."`)


@dataclass
class Analysis:
    """Everything the frontend learnt about one file, shared by its fragments."""

    text: str
    tree: ast.Module
    lines: Lines
    units: Units = field(default_factory=Units)
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
    _wide: dict[int, int] | None = field(default=None, repr=False)  # source_end's

    def add_unit(self, unit: Unit) -> int:
        return self.units.append(unit)

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

    def source_end(self, at: int) -> int:
        """Where the source of the character a finding points at with `at` ends: after
        its whole escape or doubled brace, not after its first source character."""
        if self._wide is None:  # made on the first finding: most files have none
            self._wide = {}
            for start, end in self.units.wide_chars():
                self._wide[start] = max(end, self._wide.get(start, 0))
        end = self._wide.get(at, at + 1)
        while end - at > 1:  # a backslash-newline after it yields nothing: not its source
            if self.text.endswith("\\\n", at, end):
                end -= 2
            elif self.text.endswith("\\\r\n", at, end):
                end -= 3
            else:
                break
        return max(end, at + 1)


@dataclass(frozen=True, slots=True)
class Session:
    """The ssh of an argv list (`subprocess.run(["ssh", h, CMD])`) whose remote command is
    the fragment: what HL104 asks of the session the command runs in."""

    runner: str  # the Python function that starts ssh: "subprocess.run"
    waits: bool  # whether it waits for ssh to exit (`run` does, `Popen` does not)
    flags: frozenset[str]  # ssh's options: `-f` backgrounds it, `-t` gives the job a tty


class Elems(Sequence[tuple[str, int]]):
    """A fragment under construction: (character, unit index) pairs, ("", unit index)
    for the placeholder of a run-time value.

    Kept as runs: a run is characters whose units are consecutive indices (what reading a
    literal makes, escapes and all, since each unit is added after the one before), held
    as one string and its first unit; a placeholder is a run of its own.  A pair per
    character took a tuple, an int and a list slot, 90 bytes (issue 18 item 8); a plain
    literal is one run here, and a pair is made when it is asked for."""

    __slots__ = ("_texts", "_firsts", "_units", "_length", "_tail")

    def __init__(self, pairs: Iterable[tuple[str, int]] = ()) -> None:
        self._texts: list[str] = []  # each run's characters; "" for a placeholder
        self._firsts: array[int] = array("q")  # index of the first pair of each run
        self._units: array[int] = array("q")  # unit index of that pair
        self._length = 0
        # Characters added to the last run, joined to its text when it is read: adding
        # one character at a time to a long run is not quadratic.
        self._tail: list[str] = []
        self.extend(pairs)

    def __len__(self) -> int:
        return self._length

    def _seal(self) -> None:
        if self._tail:
            self._texts[-1] += "".join(self._tail)
            self._tail.clear()

    def add_run(self, text: str, unit: int) -> None:
        """Adds the characters of `text`, of units `unit`, `unit + 1`...; "": a placeholder."""
        if (
            text
            and self._texts
            and self._texts[-1]
            and self._units[-1] + self._length - self._firsts[-1] == unit
        ):
            self._tail.append(text)
            self._length += len(text)
            return
        self._seal()
        self._texts.append(text)
        self._firsts.append(self._length)
        self._units.append(unit)
        self._length += len(text) or 1

    def append(self, pair: tuple[str, int]) -> None:
        self.add_run(*pair)

    def extend(self, pairs: Iterable[tuple[str, int]]) -> None:
        if isinstance(pairs, Elems):
            for text, unit in pairs.runs():
                self.add_run(text, unit)
            return
        for text, unit in pairs:
            self.add_run(text, unit)

    def runs(self) -> Iterator[tuple[str, int]]:
        """(characters, unit of the first) of each run; ("", unit) for a placeholder."""
        self._seal()
        return zip(self._texts, self._units, strict=True)

    def text(self, placeholder: str = "") -> str:
        """The characters, `placeholder` standing for each run-time value."""
        self._seal()
        return "".join(t or placeholder for t in self._texts)

    def has_chars(self) -> bool:
        self._seal()
        return any(self._texts)

    def __iter__(self) -> Iterator[tuple[str, int]]:
        for text, unit in self.runs():
            if text:
                yield from zip(text, range(unit, unit + len(text)), strict=True)
            else:
                yield text, unit

    @overload
    def __getitem__(self, index: int) -> tuple[str, int]: ...
    @overload
    def __getitem__(self, index: slice) -> Elems: ...
    def __getitem__(self, index: int | slice) -> tuple[str, int] | Elems:
        self._seal()
        if isinstance(index, slice):
            return self._slice(index)
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("Elems index out of range")
        k = bisect.bisect_right(self._firsts, index) - 1
        move = index - self._firsts[k]
        text = self._texts[k]
        return (text[move] if text else ""), self._units[k] + move

    def _slice(self, index: slice) -> Elems:
        start, stop, step = index.indices(self._length)
        if step != 1:
            return Elems(self[i] for i in range(start, stop, step))
        out = Elems()
        k = bisect.bisect_right(self._firsts, start) - 1 if start < stop else len(self._firsts)
        while k < len(self._firsts) and self._firsts[k] < stop:
            first = self._firsts[k]
            a, b = max(first, start) - first, min(stop, first + (len(self._texts[k]) or 1)) - first
            text = self._texts[k]
            out.add_run(text[a:b], self._units[k] + a)
            k += 1
        return out

    def __add__(self, other: Iterable[tuple[str, int]]) -> Elems:
        out = Elems(self)
        out.extend(other)
        return out

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Elems, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list

    def __repr__(self) -> str:
        return f"Elems({list(self)!r})"


@dataclass(frozen=True, eq=False)
class PyFragment:
    """The origin of a Python fragment: the file's analysis and where each character came from.

    It is the `origin` of the fragment and of its root layer; rules reach it from any
    layer through `fragment_of(layer)`.  Edits go back through `encode.py`.
    """

    analysis: Analysis = field(repr=False)
    text: str
    # Unit index of each character: given as a tuple, kept as runs (an `Offsets`).
    unit_of: Sequence[int]
    # The text is an argv list written as a command line (calls.py): no shell reads the
    # root layer, its quotes are the frontend's own; the layers below it are real.
    argv: bool = False
    session: Session | None = None  # the fragment is the remote command of an ssh argv list
    project: bool = False  # a call of the project's own wrapper (`python-wrappers`)
    status_ignored: bool = False  # run by a bare `os.system(...)`: its exit status is dropped

    def __post_init__(self) -> None:
        if not isinstance(self.unit_of, Offsets):
            runs = OffsetRuns()
            runs.extend(self.unit_of)
            object.__setattr__(self, "unit_of", runs.build())

    def interp_at(self, index: int) -> Interp | None:
        if not 0 <= index < len(self.unit_of):
            return None
        unit = self.analysis.units[self.unit_of[index]]
        return self.analysis.interps[unit.interp] if unit.interp >= 0 else None
