"""Which of many spans holds an offset, and which line an offset is on, in logarithmic time.

A rule that asks "which command (heredoc, expansion) holds this offset?" for each of the n
expansions of a string, by looking at each of the n commands, takes quadratic time: a
long ssh string of `$x`s or a file of thousands of heredocs is an input anyone can write.
"""

from __future__ import annotations

import bisect
import re
from collections import OrderedDict
from collections.abc import Sequence
from itertools import pairwise


class Spans:
    """Half-open spans [start, end), in a given order (their priority)."""

    __slots__ = ("_spans", "_starts", "_reach", "_in_order")

    def __init__(self, spans: Sequence[tuple[int, int]]) -> None:
        self._spans = tuple(spans)
        self._in_order = all(a[0] <= b[0] for a, b in pairwise(self._spans))
        ordered = self._spans if self._in_order else tuple(sorted(self._spans))
        self._starts = [start for start, _ in ordered]
        # The furthest end among the spans up to each one: a span holds an offset when it
        # starts at or before it and this is past it.
        self._reach: list[int] = []
        furthest = -1
        for _, end in ordered:
            furthest = max(furthest, end)
            self._reach.append(furthest)

    def __len__(self) -> int:
        return len(self._spans)

    def _first_sorted(self, offset: int) -> int | None:
        """The position, in start order, of the first span that holds `offset`."""
        last = bisect.bisect_right(self._starts, offset)  # spans [0, last) start at or before
        k = bisect.bisect_right(self._reach, offset, 0, last)  # the first whose reach is past
        return k if k < last else None

    def holds(self, offset: int) -> bool:
        """Whether any span holds `offset`."""
        return self._first_sorted(offset) is not None

    def first(self, offset: int) -> int | None:
        """The index (in the given order) of the first span that holds `offset`."""
        if self._in_order:
            return self._first_sorted(offset)
        # Spans out of order (rare: heredocs nested in a substitution in a heredoc body):
        # the priority is the given order, so each is looked at.
        for k, (start, end) in enumerate(self._spans):
            if start <= offset < end:
                return k
        return None


_NEWLINE = re.compile("\n")
_LINE_STARTS: OrderedDict[int, tuple[str, list[int]]] = OrderedDict()
_LINE_STARTS_KEPT = 8


def line_number(text: str, offset: int) -> int:
    """`text.count("\\n", 0, offset) + 1`, from the newlines of `text` found once (counting
    up to each offset again was quadratic in a file of many findings).  Kept by identity
    for the few texts checked last; the entry holds the text, so its id is not reused."""
    kept = _LINE_STARTS.get(id(text))
    if kept is None or kept[0] is not text:
        newlines = [m.start() for m in _NEWLINE.finditer(text)]
        kept = _LINE_STARTS[id(text)] = (text, newlines)
        if len(_LINE_STARTS) > _LINE_STARTS_KEPT:
            _LINE_STARTS.popitem(last=False)
    else:
        _LINE_STARTS.move_to_end(id(text))
    if offset < 0:  # str.count's slice counts from the end
        offset = max(0, len(text) + offset)
    return bisect.bisect_left(kept[1], min(offset, len(text))) + 1
