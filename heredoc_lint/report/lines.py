"""Character offsets to 1-based lines and columns."""

from __future__ import annotations

import bisect
from functools import cached_property


class LineIndex:
    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def starts(self) -> list[int]:
        """Where each line starts; built on first use, as most files have no finding."""
        starts = [0]
        pos = self.text.find("\n")
        while pos >= 0:
            starts.append(pos + 1)
            pos = self.text.find("\n", pos + 1)
        return starts

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column), both 1-based, columns counted in characters."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1

    def line_text(self, line: int) -> str:
        start = self.starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start : len(self.text) if end < 0 else end].rstrip("\r")
