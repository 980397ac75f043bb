"""ast positions (line, UTF-8 byte column) to character offsets of the file text."""

from __future__ import annotations

import ast
import re
from array import array

_NEWLINE = re.compile(r"\r\n|\r|\n")


class Lines:
    """ast positions (1-based line, UTF-8 byte column) to character offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        # An array, not a list of ints: a long literal of many lines is 36 bytes a line less.
        self.starts: array[int] = array("q", [0])
        self.starts.extend(m.end() for m in _NEWLINE.finditer(text))

    def offset(self, line: int, col: int) -> int:
        start = self.starts[min(line, len(self.starts)) - 1]
        end = start + col
        chunk = self.text[start:end]
        if chunk.isascii():
            return end
        data = self.text[start : start + col + 1].encode("utf-8", "surrogatepass")
        return start + len(data[:col].decode("utf-8", "ignore"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end_line = node.end_lineno or node.lineno  # type: ignore[attr-defined]
        end_col = node.end_col_offset  # type: ignore[attr-defined]
        return start, self.offset(end_line, end_col if end_col is not None else 0)
