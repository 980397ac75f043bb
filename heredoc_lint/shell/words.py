"""De-quoting of shell words with a map from every value character to its source.

A `Word` keeps two views of what a shell makes of the text:

* `value`: the text the author meant the callee to receive.  Quotes and
  escapes are removed, expansions are kept as their source text (they are never
  evaluated), and a backslash-newline inside double quotes is kept as written,
  because inside a quoted-delimiter heredoc of an inner layer the author wanted
  it literally.
* `received()`: what the callee really receives when the word is static (no
  expansions): the value with those backslash-newlines removed, as bash does.

`offsets[i]` is the offset, in the text the word was read from, of the source
character that produced `value[i]`; `offsets[len(value)]` is the word's end.

The rules are bash's (checked against bash itself by tests/test_oracle_bash.py), in a
UTF-8 locale, with two expansions left as flags rather than expansions: `globbing`
(pathname expansion) and `braces` (brace expansion) may turn one static word into
several arguments, or into other text.  A `$'...'` string is a byte string in bash: a
byte that is no part of valid UTF-8 (`$'\\xe9'`) becomes the surrogate-escape character
for it (U+DCE9), as `bytes.decode("utf-8", "surrogateescape")` does.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Literal, overload


class Quoting(str, Enum):  # noqa: UP042 - str() of members is relied on
    UNQUOTED = "unquoted"
    SINGLE = "single"
    DOUBLE = "double"
    ANSI = "ansi"
    ESCAPED = "escaped"


# `$x` `${x}`, `$1`, `$?` `$@`..., `$(...)`, backticks, `$((...))`, `<(...)`, `~user`
ExpansionKind = Literal[
    "variable", "positional", "special", "command", "backtick", "arithmetic", "process", "tilde"
]


@dataclass(frozen=True)
class Expansion:
    """A `$x`, `${x}`, `$(...)`, backtick, arithmetic or tilde expansion."""

    start: int  # index into the word's value
    end: int
    kind: ExpansionKind
    name: str  # the variable name, the command text, or "" when not meaningful
    quoted: bool  # inside double quotes (no word splitting)


class Offsets(Sequence[int]):
    """A tuple of ints kept as runs of consecutive values: what `Word.offsets` and a
    layer's offsets are.  A word's characters mostly come from consecutive source
    characters, so a 10 MB ssh string is one run, where a tuple took an int object and
    a reference per character (40 bytes per input byte, issue 18 item 8).  Equal to
    (and hashed as) the tuple of the same ints."""

    __slots__ = ("_firsts", "_values", "_length")

    def __init__(self, firsts: array[int], values: array[int], length: int) -> None:
        self._firsts = firsts  # index of the first element of each run
        self._values = values  # the value of that element; the run counts up from it
        self._length = length

    def __len__(self) -> int:
        return self._length

    def _run_end(self, k: int) -> int:
        return self._firsts[k + 1] if k + 1 < len(self._firsts) else self._length

    def __iter__(self) -> Iterator[int]:
        for k, value in enumerate(self._values):
            yield from range(value, value + self._run_end(k) - self._firsts[k])

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> Offsets: ...
    def __getitem__(self, index: int | slice) -> int | Offsets:
        if isinstance(index, slice):
            return self._slice(index)
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("Offsets index out of range")
        k = bisect.bisect_right(self._firsts, index) - 1
        return self._values[k] + index - self._firsts[k]

    def _slice(self, index: slice) -> Offsets:
        start, stop, step = index.indices(self._length)
        runs = OffsetRuns()
        if step != 1:
            for i in range(start, stop, step):
                runs.add(self[i])
            return runs.build()
        k = bisect.bisect_right(self._firsts, start) - 1 if start < stop else len(self._firsts)
        while k < len(self._firsts) and self._firsts[k] < stop:
            first, end = max(self._firsts[k], start), min(self._run_end(k), stop)
            value = self._values[k] + first - self._firsts[k]
            runs.add_range(value, value + end - first)
            k += 1
        return runs.build()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Offsets):  # runs are always merged: one form per sequence
            return (
                self._firsts == other._firsts
                and self._values == other._values
                and (self._length == other._length)
            )
        if isinstance(other, tuple):
            return len(other) == self._length and tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Offsets({tuple(self)!r})"


class OffsetRuns:
    """Builds an `Offsets`, merging each value into the run before it when it follows."""

    __slots__ = ("firsts", "values", "length")

    def __init__(self) -> None:
        self.firsts: array[int] = array("q")
        self.values: array[int] = array("q")
        self.length = 0

    def add(self, value: int) -> None:
        if self.values and self.values[-1] + self.length - self.firsts[-1] == value:
            self.length += 1
            return
        self.firsts.append(self.length)
        self.values.append(value)
        self.length += 1

    def add_range(self, start: int, stop: int) -> None:
        if stop > start:
            self.add(start)
            self.length += stop - start - 1  # the rest follows on in the same run

    def extend(self, values: Iterable[int]) -> None:
        if isinstance(values, Offsets):
            for k, value in enumerate(values._values):
                self.add_range(value, value + values._run_end(k) - values._firsts[k])
            return
        for value in values:
            self.add(value)

    def build(self) -> Offsets:
        return Offsets(self.firsts, self.values, self.length)


@dataclass(frozen=True)
class Word:
    start: int
    end: int
    value: str
    offsets: Sequence[int]  # an Offsets, or a tuple where a word is made by hand
    expansions: tuple[Expansion, ...] = ()
    continuations: tuple[int, ...] = ()  # value indices of kept backslash-newlines
    quoting: frozenset[Quoting] = frozenset()
    globbing: bool = False  # an unquoted *, ?, [ or extglob `@(`: pathname expansion
    braces: bool = False  # an unquoted `{` ... `,` or `..` ... `}`: brace expansion

    @property
    def static(self) -> bool:
        return not self.expansions

    def received(self) -> str:
        """The value the callee gets, for a static word."""
        if not self.continuations:
            return self.value
        skip: set[int] = set()
        for k in self.continuations:
            skip.update((k, k + 1))
        return "".join(c for i, c in enumerate(self.value) if i not in skip)


@dataclass(frozen=True)
class ExpansionNode:
    """An expansion's span in the source, as found by the parser."""

    end: int
    kind: ExpansionKind
    name: str


# -- line continuations -----------------------------------------------------------------


def _skip_continuations(text: str, j: int, end: int) -> int:
    """The first index from j on that does not start a backslash-newline.

    bash removes a backslash-newline outside single quotes before it reads anything
    else, so `$\\<newline>'x'` is `$'x'` and `a\\<newline>=~` an assignment word.
    """
    while j + 1 < end and text[j] == "\\" and text[j + 1] == "\n":
        j += 2
    return j


def _logical(text: str, start: int, end: int) -> tuple[str, list[int]]:
    """text[start:end] without backslash-newlines, and the source offset of each char."""
    chars: list[str] = []
    where: list[int] = []
    j = _skip_continuations(text, start, end)
    while j < end:
        chars.append(text[j])
        where.append(j)
        j = _skip_continuations(text, j + 1, end)
    return "".join(chars), where


# -- $'...' ----------------------------------------------------------------------------

_SIMPLE_ESCAPES = {
    "a": 0x07,
    "b": 0x08,
    "e": 0x1B,
    "E": 0x1B,
    "f": 0x0C,
    "n": 0x0A,
    "r": 0x0D,
    "t": 0x09,
    "v": 0x0B,
    "\\": 0x5C,
    "'": 0x27,
    '"': 0x22,
    "?": 0x3F,
}
_OCTAL = frozenset("01234567")
_HEX = frozenset("0123456789abcdefABCDEF")
_UNICODE_DIGITS = {"x": 2, "u": 4, "U": 8}


# The largest code point of each UTF-8 length, up to bash's 31-bit extension.
_UTF8_LIMITS = (0x80, 0x800, 0x10000, 0x200000, 0x4000000, 0x80000000)


def _utf8(code: int) -> bytes:
    """bash's u32toutf8: UTF-8 extended to 31 bits, surrogates included; b"" beyond."""
    count = next((n + 1 for n, limit in enumerate(_UTF8_LIMITS) if code < limit), 0)
    if count <= 1:
        return bytes((code,)) if count else b""
    lead = (0xFF00 >> count) & 0xFF  # 110xxxxx, 1110xxxx, ...
    tail = [0x80 | ((code >> (6 * k)) & 0x3F) for k in reversed(range(count - 1))]
    return bytes((lead | (code >> (6 * (count - 1))), *tail))


def _toctrl(byte: int) -> int:
    """bash's TOCTRL: `?` is DEL; anything else keeps its low five bits (`a` is `A`)."""
    return 0x7F if byte == 0x3F else byte & 0x1F


def _ansi_escape(body: str, i: int) -> tuple[bytes, int]:
    """Decode the escape whose backslash is at body[i]; return (bytes, next index).

    `body` is the text between `$'` and the closing quote, so nothing here can run
    past the string.
    """
    c = body[i + 1] if i + 1 < len(body) else ""
    if c in _SIMPLE_ESCAPES:
        return bytes((_SIMPLE_ESCAPES[c],)), i + 2
    if c in _OCTAL:
        j = i + 1
        while j < len(body) and j < i + 4 and body[j] in _OCTAL:
            j += 1
        return bytes((int(body[i + 1 : j], 8) & 0xFF,)), j
    if c in _UNICODE_DIGITS:
        j = i + 2
        while j < len(body) and j < i + 2 + _UNICODE_DIGITS[c] and body[j] in _HEX:
            j += 1
        if j == i + 2:  # no digit: the backslash and the letter stay
            return to_bytes(body[i : i + 2]), j
        code = int(body[i + 2 : j], 16)
        # \xHH is one byte; \u and \U are characters, encoded for the (UTF-8) locale.
        return (bytes((code,)) if c == "x" else _utf8(code)), j
    if c == "c" and i + 2 < len(body):
        # `\c\\` is one control character; the rest of a multi-byte character stays.
        skip = 2 if body[i + 2] == "\\" and body[i + 3 : i + 4] == "\\" else 1
        first, *rest = to_bytes(body[i + 2])
        return bytes((_toctrl(first), *rest)), i + 2 + skip
    # An unknown escape, or `\c` ending the string: kept as written.
    return to_bytes(body[i : i + 2]), i + 2


def to_bytes(text: str) -> bytes:
    """The bytes a text stands for: its undecodable bytes (U+DC80-U+DCFF) given back."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        # A surrogate that no undecodable byte made (JSON's "\ud800" in an agent's
        # command) is kept as the three bytes Python would write for it.
        return b"".join(_char_bytes(ch) for ch in text)


def _char_bytes(ch: str) -> bytes:
    if "\udc80" <= ch <= "\udcff":
        return bytes((ord(ch) - 0xDC00,))
    return ch.encode("utf-8", "surrogatepass")


def _ansi_string(text: str, quote: int, end: int) -> tuple[int, list[tuple[str, int]]]:
    """Decode the `$'...'` whose opening quote is at `quote`; return (index after it,
    [(char, source offset)]).

    bash first finds the closing quote (a backslash escapes any character, the quote
    included), then decodes the escapes into bytes; a NUL byte ends the string.
    """
    close = quote + 1
    while close < end and text[close] != "'":
        close += 2 if text[close] == "\\" else 1
    close = min(close, end)
    body = text[quote + 1 : close]
    data = bytearray()
    sources: list[int] = []  # source offset of each byte
    i = 0
    while i < len(body):
        if body[i] == "\\":
            chunk, j = _ansi_escape(body, i)
        else:
            chunk, j = to_bytes(body[i]), i + 1
        data += chunk
        sources += [quote + 1 + i] * len(chunk)
        i = j
    if 0 in data:  # bash's result is a C string: it stops at the first NUL
        del data[data.index(0) :]
    chars: list[tuple[str, int]] = []
    pos = 0
    for ch in data.decode("utf-8", "surrogateescape"):
        chars.append((ch, sources[pos]))
        pos += len(to_bytes(ch))
    return close + 1, chars


# -- expansions the parser did not report -----------------------------------------------

_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _NAME_START | frozenset("0123456789")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = frozenset("@*#?$!-0123456789")
_CLOSERS = {"{": "}", "(": ")", "[": "]"}
_OPENED: dict[str, ExpansionKind] = {"{": "variable", "(": "command", "[": "arithmetic"}


def _fallback_dollar(text: str, i: int, end: int) -> ExpansionNode | None:
    """The expansion a `$` at i starts, when the parser reported none there.

    tree-sitter-bash misses some (`zfoo$$` is read as a word and a lone `$`); bash does
    not, so the word must not look static.  The span is approximate (brackets are
    matched without regard to quoting), which is enough to mark the word.
    """
    j = _skip_continuations(text, i + 1, end)
    nxt = text[j] if j < end else ""
    if nxt in _NAME_START:
        stop = j
        while stop < end and text[stop] in _NAME_CHARS:
            stop = _skip_continuations(text, stop + 1, end)
        return ExpansionNode(stop, "variable", _logical(text, j, stop)[0])
    if nxt in _SPECIAL:
        kind: ExpansionKind = "positional" if nxt.isdigit() and nxt != "0" else "special"
        return ExpansionNode(j + 1, kind, nxt)
    if nxt in _CLOSERS:
        stop = _matching(text, j, end, nxt, _CLOSERS[nxt])
        kind = _OPENED[nxt]
        if text.startswith("((", j):
            kind = "arithmetic"
        braced = text[j + 1 : stop - 1] if nxt == "{" else ""
        # `${port}` names its variable as `$port` does (the parser's name, syntax.py)
        return ExpansionNode(stop, kind, braced if _NAME.fullmatch(braced) else "")
    return None  # `$` before anything else is a literal dollar


def _matching(text: str, i: int, end: int, opener: str, closer: str) -> int:
    depth = 0
    while i < end:
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == opener:
            depth += 1
        elif text[i] == closer:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return end


def _fallback_backtick(text: str, i: int, end: int) -> ExpansionNode:
    j = i + 1
    while j < end and text[j] != "`":
        j += 2 if text[j] == "\\" else 1
    stop = min(j + 1, end)
    return ExpansionNode(stop, "backtick", text[i + 1 : stop - 1].strip())


# -- tilde ------------------------------------------------------------------------------

# `name=`, `name[sub]=`, `name+=`: bash tilde-expands after the `=` and after each `:` of
# such a word, even as an argument of an ordinary command (outside POSIX mode).
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^]]*\])?\+?=")
_TILDE_QUOTES = frozenset("\\'\"")


def _tilde_end(text: str, i: int, end: int, in_assignment: bool) -> int | None:
    """End of the login name of the tilde prefix at i, or None if bash keeps the `~`.

    bash takes the text up to the first `/` (or `:` in an assignment word); a quote or
    backslash in it cancels the expansion.  The login name ends at a `:` or `=~` too.
    (A `$` does not cancel: `~root:$x` gives `/root:$x`, the `$x` unexpanded.)
    """
    name_end: int | None = None
    j = _skip_continuations(text, i + 1, end)
    while j < end and text[j] != "/" and not (in_assignment and text[j] == ":"):
        if text[j] in _TILDE_QUOTES:
            return None
        if name_end is None and (text[j] == ":" or text.startswith("=~", j)):
            name_end = j
        j = _skip_continuations(text, j + 1, end)
    return j if name_end is None else name_end


def matching_close(text: str, i: int, end: int, opener: str, closer: str) -> int:
    """Index after the `closer` matching the `opener` at text[i] (backslash escapes
    skipped), or `end`."""
    depth = 0
    k = i
    while k < end:
        c = text[k]
        if c == "\\":
            k += 2
            continue
        if c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return k + 1
        k += 1
    return end


# -- the de-quoter ----------------------------------------------------------------------


# Runs the de-quoter can copy at once: characters that start no quoting, expansion,
# tilde, pattern or brace expansion (`note_pattern` must see each of those).
_PLAIN_UNQUOTED = re.compile(r"[^$'\"\\~*?\[({},.<>`]+")
_PLAIN_DOUBLE = re.compile(r'[^"\\$`]+')


class _Dequoter:
    """One pass over the word's source, bash's quote removal with offsets."""

    def __init__(self, text: str, start: int, end: int, nodes: Mapping[int, ExpansionNode]):
        self.text = text
        self.start = start
        self.end = end
        self.nodes = nodes
        self.out: list[str] = []  # pieces of the value (a run of source text is one)
        self.offs = OffsetRuns()
        self.expansions: list[Expansion] = []
        self.continuations: list[int] = []
        self.quoting: set[Quoting] = set()
        self.globbing = False
        self.brace_state = 0  # 1: an unquoted `{`; 2: then a `,` or `..`; 3: then `}`
        self.last_unquoted = -1  # offset of the last unquoted literal character
        # Expansions start with `$` or a backtick, but for `<(` and `>(`: only those
        # could start inside a double-quoted run of plain characters.
        self.odd_nodes = any(text[k] not in "$`" for k in nodes)
        if "\\\n" in text[start:end]:
            logical, where = _logical(text, start, end)
            match = _ASSIGNMENT.match(logical)
            self.assignment_eq = where[match.end() - 1] if match else None  # its `=`
        else:  # no backslash-newline: the source is the logical text (the usual, fast case)
            plain = _ASSIGNMENT.match(text, start, end)
            self.assignment_eq = plain.end() - 1 if plain else None

    # -- output -------------------------------------------------------------------------
    def emit(self, chars: str, at: int) -> None:
        for ch in chars:
            self.out.append(ch)
            self.offs.add(at)

    def emit_source(self, a: int, b: int) -> None:
        self.out.append(self.text[a:b])
        self.offs.add_range(a, b)

    def expansion(self, i: int, node: ExpansionNode, quoted: bool) -> int:
        first = self.offs.length
        self.emit_source(i, node.end)
        self.expansions.append(Expansion(first, self.offs.length, node.kind, node.name, quoted))
        return node.end

    def word(self) -> Word:
        if not self.quoting:
            self.quoting.add(Quoting.UNQUOTED)
        self.offs.add(self.end)
        return Word(
            self.start,
            self.end,
            "".join(self.out),
            self.offs.build(),
            tuple(self.expansions),
            tuple(self.continuations),
            frozenset(self.quoting),
            self.globbing,
            self.brace_state == 3,
        )

    # -- reading ------------------------------------------------------------------------
    def run(self) -> Word:
        i = self.start
        while i < self.end:
            i = self.unquoted(i)
        return self.word()

    def found_expansion(self, i: int, quoted: bool) -> int | None:
        """If an expansion starts at i, emit it and return where it ends."""
        node = self.nodes.get(i)
        if node is None or node.end > self.end:
            c = self.text[i]
            if c == "$":
                node = _fallback_dollar(self.text, i, self.end)
            elif c == "`":
                node = _fallback_backtick(self.text, i, self.end)
        if node is None:
            return None
        return self.expansion(i, node, quoted)

    def unquoted(self, i: int) -> int:
        plain = _PLAIN_UNQUOTED.match(self.text, i, self.end)
        if plain is not None:  # a run of characters that are only themselves
            self.quoting.add(Quoting.UNQUOTED)
            self.emit_source(i, plain.end())
            self.last_unquoted = plain.end() - 1
            return plain.end()
        text, c = self.text, self.text[i]
        nxt = text[i + 1] if i + 1 < self.end else ""
        if c == "$":
            after = _skip_continuations(text, i + 1, self.end)
            if text[after : after + 1] == "'":
                return self.ansi(after)
            if text[after : after + 1] == '"':  # $"...": translatable; no catalog, same text
                return self.double(after + 1)
        stop = self.found_expansion(i, quoted=False)
        if stop is not None:
            return stop
        if c == "'":
            return self.single(i)
        if c == '"':
            return self.double(i + 1)
        if c == "\\":
            return self.backslash(i, nxt)
        if c == "~" and self.tilde_allowed(i):
            stop = self.tilde(i)
            if stop is not None:
                return stop
        self.quoting.add(Quoting.UNQUOTED)
        self.note_pattern(i)
        self.emit(c, i)
        return i + 1

    def backslash(self, i: int, nxt: str) -> int:
        if nxt == "\n":
            return i + 2  # line continuation: gone before anything else sees the word
        if not nxt:  # a lone backslash at the end of the word stays
            self.emit("\\", i)
            return i + 1
        self.quoting.add(Quoting.ESCAPED)
        self.emit(nxt, i + 1)
        return i + 2

    def single(self, i: int) -> int:
        self.quoting.add(Quoting.SINGLE)
        close = self.text.find("'", i + 1, self.end)
        close = self.end if close < 0 else close
        self.emit_source(i + 1, close)
        return close + 1

    def double(self, i: int) -> int:
        """Read a double-quoted string whose content starts at i; return after it."""
        self.quoting.add(Quoting.DOUBLE)
        text = self.text
        while i < self.end:
            c = text[i]
            if c == '"':
                return i + 1
            plain = _PLAIN_DOUBLE.match(text, i, self.end)
            if plain is not None and not self.odd_nodes:
                self.emit_source(i, plain.end())
                i = plain.end()
                continue
            nxt = text[i + 1] if i + 1 < self.end else ""
            if c == "\\" and nxt in ("$", "`", '"', "\\", "\n"):
                if nxt == "\n":
                    self.continuations.append(self.offs.length)
                    self.emit_source(i, i + 2)
                else:
                    self.emit(nxt, i + 1)
                i += 2
                continue
            stop = self.found_expansion(i, quoted=True) if c in "$`" or i in self.nodes else None
            if stop is not None:
                i = stop
                continue
            self.emit(c, i)
            i += 1
        return self.end

    def ansi(self, quote: int) -> int:
        self.quoting.add(Quoting.ANSI)
        stop, chars = _ansi_string(self.text, quote, self.end)
        for ch, at in chars:
            self.emit(ch, at)
        return stop

    # -- tilde, patterns ----------------------------------------------------------------
    def tilde_allowed(self, i: int) -> bool:
        """A tilde prefix starts a word, or follows an assignment word's `=` or one of
        its unquoted `:`."""
        if i == _skip_continuations(self.text, self.start, self.end):
            return True
        if self.assignment_eq is None:
            return False
        return self.before(i) == self.assignment_eq or self.unquoted_before(i, ":")

    def before(self, i: int) -> int:
        """Offset of the character before i, line continuations skipped."""
        j = i - 1
        while j >= self.start + 1 and self.text[j] == "\n" and self.text[j - 1] == "\\":
            j -= 2
        return j

    def unquoted_before(self, i: int, char: str) -> bool:
        """Is the character before i the unquoted `char`?"""
        j = self.before(i)
        return self.last_unquoted == j and self.text[j] == char

    def tilde(self, i: int) -> int | None:
        stop = _tilde_end(self.text, i, self.end, self.assignment_eq is not None)
        if stop is None:
            return None
        node = ExpansionNode(stop, "tilde", self.text[i + 1 : stop])
        return self.expansion(i, node, quoted=False)

    def note_pattern(self, i: int) -> None:
        """Track the unquoted characters that make pathname or brace expansion."""
        c = self.text[i]
        if c in "*?[" or (c == "(" and i > self.start and self.text[i - 1] in "@!+"):
            self.globbing = True
        # (A `${` never gets here: it is an expansion.  `\${a,b}` is brace expansion.)
        if c == "{" and self.brace_state == 0:
            self.brace_state = 1
        elif self.brace_state == 1 and (c == "," or (c == "." and self.unquoted_before(i, "."))):
            self.brace_state = 2
        elif self.brace_state == 2 and c == "}":
            self.brace_state = 3
        self.last_unquoted = i


def dequote(
    text: str,
    start: int,
    end: int,
    expansion_nodes: Mapping[int, ExpansionNode] | None = None,
) -> Word:
    """De-quote the word text[start:end].

    `expansion_nodes` maps the source offset where an expansion starts to its
    end and kind; anything there is kept as an opaque part of the value.
    """
    return _Dequoter(text, start, end, expansion_nodes or {}).run()
