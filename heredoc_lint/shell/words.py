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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum


class Quoting(str, Enum):
    UNQUOTED = "unquoted"
    SINGLE = "single"
    DOUBLE = "double"
    ANSI = "ansi"
    ESCAPED = "escaped"


@dataclass(frozen=True)
class Expansion:
    """A `$x`, `${x}`, `$(...)`, backtick, arithmetic or tilde expansion."""

    start: int  # index into the word's value
    end: int
    kind: str  # variable, positional, special, command, backtick, arithmetic, process, tilde
    name: str  # the variable name, the command text, or "" when not meaningful
    quoted: bool  # inside double quotes (no word splitting)


@dataclass(frozen=True)
class Word:
    start: int
    end: int
    value: str
    offsets: tuple[int, ...]
    expansions: tuple[Expansion, ...] = ()
    continuations: tuple[int, ...] = ()  # value indices of kept backslash-newlines
    quoting: frozenset[Quoting] = frozenset()
    globbing: bool = False  # an unquoted *, ? or [ : pathname expansion may change it

    @property
    def static(self) -> bool:
        return not self.expansions

    def received(self) -> str:
        """The value the callee gets, for a static word."""
        if not self.continuations:
            return self.value
        skip = set()
        for k in self.continuations:
            skip.update((k, k + 1))
        return "".join(c for i, c in enumerate(self.value) if i not in skip)

    def source_text(self, text: str) -> str:
        return text[self.start : self.end]


@dataclass(frozen=True)
class ExpansionNode:
    """An expansion's span in the source, as found by the parser."""

    end: int
    kind: str
    name: str


_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_OCTAL = frozenset("01234567")
_HEX = frozenset("0123456789abcdefABCDEF")


def _ansi_escape(text: str, i: int, end: int) -> tuple[str, int]:
    """Decode one `$'...'` escape whose backslash is at i; return (chars, next index)."""
    c = text[i + 1] if i + 1 < end else ""
    if c in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[c], i + 2
    if c in _OCTAL:
        j = i + 1
        while j < end and j < i + 4 and text[j] in _OCTAL:
            j += 1
        return chr(int(text[i + 1 : j], 8) & 0xFF), j
    if c in ("x", "u", "U"):
        limit = {"x": 2, "u": 4, "U": 8}[c]
        j = i + 2
        while j < end and j < i + 2 + limit and text[j] in _HEX:
            j += 1
        if j == i + 2:
            return text[i : i + 2], i + 2
        code = int(text[i + 2 : j], 16)
        if c == "x":
            return chr(code), j
        try:
            return chr(code), j
        except (ValueError, OverflowError):
            return text[i:j], j
    if c == "c" and i + 2 < end:
        ctrl = text[i + 2]
        if ctrl == "\\" and i + 3 < end and text[i + 3] == "\\":
            return "\x1c", i + 4
        return chr(ord(ctrl.upper()) & 0x1F) if ord(ctrl) < 128 else ctrl, i + 3
    return "\\" + c, i + 2


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
    nodes = expansion_nodes or {}
    out: list[str] = []
    offs: list[int] = []
    expansions: list[Expansion] = []
    continuations: list[int] = []
    quoting: set[Quoting] = set()
    globbing = False
    in_double = False
    i = start

    def emit(s: str, at: int) -> None:
        for ch in s:
            out.append(ch)
            offs.append(at)

    def emit_source(a: int, b: int) -> None:
        out.extend(text[a:b])
        offs.extend(range(a, b))

    while i < end:
        node = nodes.get(i)
        if node is not None and node.end <= end:
            first = len(out)
            emit_source(i, node.end)
            expansions.append(Expansion(first, len(out), node.kind, node.name, in_double))
            i = node.end
            continue
        c = text[i]
        nxt = text[i + 1] if i + 1 < end else ""
        if in_double:
            if c == '"':
                in_double = False
                i += 1
            elif c == "\\" and nxt in ('$', "`", '"', "\\", "\n"):
                if nxt == "\n":
                    continuations.append(len(out))
                    emit_source(i, i + 2)
                else:
                    emit(nxt, i + 1)
                i += 2
            else:
                emit(c, i)
                i += 1
            continue
        if c == "'":
            quoting.add(Quoting.SINGLE)
            close = text.find("'", i + 1, end)
            close = end if close < 0 else close
            emit_source(i + 1, close)
            i = close + 1
        elif c == '"':
            quoting.add(Quoting.DOUBLE)
            in_double = True
            i += 1
        elif c == "\\":
            if nxt == "\n":
                i += 2  # line continuation: gone before anything else sees the word
            elif nxt:
                quoting.add(Quoting.ESCAPED)
                emit(nxt, i + 1)
                i += 2
            else:
                emit(c, i)
                i += 1
        elif c == "$" and nxt == "'":
            quoting.add(Quoting.ANSI)
            i += 2
            while i < end and text[i] != "'":
                if text[i] == "\\":
                    chars, j = _ansi_escape(text, i, end)
                    if "\x00" in chars:  # bash truncates the word at a NUL
                        chars = chars[: chars.index("\x00")]
                    emit(chars, i)
                    i = j
                else:
                    emit(text[i], i)
                    i += 1
            i += 1
        elif c == "$" and nxt == '"':
            quoting.add(Quoting.DOUBLE)
            in_double = True
            i += 2
        elif c == "~" and i == start:
            stop = i + 1
            while stop < end and (text[stop].isalnum() or text[stop] in "_-.+"):
                stop += 1
            first = len(out)
            emit_source(i, stop)
            expansions.append(Expansion(first, len(out), "tilde", text[i + 1 : stop], False))
            i = stop
        else:
            quoting.add(Quoting.UNQUOTED)
            if c in "*?[":
                globbing = True
            emit(c, i)
            i += 1
    if not quoting:
        quoting.add(Quoting.UNQUOTED)
    offs.append(end)
    return Word(
        start,
        end,
        "".join(out),
        tuple(offs),
        tuple(expansions),
        tuple(continuations),
        frozenset(quoting),
        globbing,
    )

