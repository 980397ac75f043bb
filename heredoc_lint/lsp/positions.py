"""File character offsets to LSP positions and back, in the negotiated encoding.

The engine counts characters of a Python string (code points); an LSP position is a
line and a column counted in UTF-16 code units (the default), UTF-8 bytes or code points
(UTF-32), as the server and the client agreed at `initialize`.  Lines end at `\\n`,
`\\r\\n` or a lone `\\r`, as the protocol says.  Pure functions: no LSP library here.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import cached_property

UTF8 = "utf-8"
UTF16 = "utf-16"
UTF32 = "utf-32"

_BREAK = re.compile(r"\r\n|\r|\n")


def units(text: str, encoding: str) -> int:
    """How many code units of `encoding` `text` takes."""
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)  # a surrogate pair each


def characters(text: str, count: int, encoding: str) -> int:
    """How many characters of `text` its first `count` code units hold.  A column inside
    a character (half a surrogate pair, the middle of a UTF-8 sequence) stops before it."""
    if encoding == UTF32 or text.isascii():
        return min(count, len(text))
    used = 0
    for index, ch in enumerate(text):
        used += units(ch, encoding)
        if used > count:
            return index
    return len(text)


@dataclass(frozen=True)
class Lines:
    """One document's line starts, to map offsets in `text` to (line, column) and back."""

    text: str

    @cached_property
    def starts(self) -> list[int]:
        return [0] + [m.end() for m in _BREAK.finditer(self.text)]

    def line_end(self, line: int) -> int:
        """The offset where `line`'s text ends (before its line break)."""
        if line + 1 >= len(self.starts):
            return len(self.text)
        end = self.starts[line + 1]
        return end - 2 if self.text[end - 2 : end] == "\r\n" else end - 1

    def position(self, offset: int, encoding: str) -> tuple[int, int]:
        """The (line, column) of `offset`, both 0-based; `offset` is clamped to the text."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        offset = min(offset, self.line_end(line))  # inside a \r\n: at the line's end
        return line, units(self.text[start:offset], encoding)

    def offset(self, line: int, column: int, encoding: str) -> int:
        """The offset of a position; past the last line: the end; past a line's end: its end."""
        if line < 0:
            return 0
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[line]
        text = self.text[start : self.line_end(line)]
        return start + characters(text, max(0, column), encoding)
