"""Turning an edit of an inner layer into an edit of the file.

A fix is written in the coordinates of the layer it repairs: "replace these
characters of the remote command with this text".  To land in the file, the
new text must be re-quoted for every shell outside that layer, and the
replacement must leave each outer shell's quoting state exactly as it was, so
that the text after the edit still means what it meant.  `lift` does this one
layer at a time: it finds the quoting state before the start and before the
end of the span in the parent word, encodes the new text for the start state,
and closes or reopens quotes to reach the end state.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from enum import Enum

from heredoc_lint.layers.layer import Layer
from heredoc_lint.model import Applicability, Edit, Fix
from heredoc_lint.shell.words import Word


class Quote(Enum):
    UNQUOTED = "unquoted"
    SINGLE = "single"
    DOUBLE = "double"
    ANSI = "ansi"
    INSIDE = "inside"  # between a backslash and the character it escapes, or in an expansion


_SAFE_UNQUOTED = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=+,:@%-"
)
_OPEN = {Quote.UNQUOTED: "", Quote.SINGLE: "'", Quote.DOUBLE: '"', Quote.ANSI: "$'"}
_CLOSE = {Quote.UNQUOTED: "", Quote.SINGLE: "'", Quote.DOUBLE: '"', Quote.ANSI: "'"}


_STATES: OrderedDict[tuple[int, int], tuple[str, Word, dict[int, Quote]]] = OrderedDict()
_STATES_KEPT = 64


def quote_states(text: str, word: Word) -> dict[int, Quote]:
    """The lexer state before each offset of `word` in `text` (and at its end).

    Remembered: a fix of many heredocs in one string lifts many edits through one word.
    Keyed by identity, not equality: hashing a Word hashes its offsets, one per character,
    and doing that for each of n edits in one long word was quadratic.  The entry holds the
    text and the word, so their ids cannot be reused while it is kept.
    Callers must not change the dict."""
    key = (id(text), id(word))
    kept = _STATES.get(key)
    if kept is not None and kept[0] is text and kept[1] is word:
        _STATES.move_to_end(key)
        return kept[2]
    states = _quote_states(text, word)
    _STATES[key] = (text, word, states)
    if len(_STATES) > _STATES_KEPT:
        _STATES.popitem(last=False)
    return states


def _quote_states(text: str, word: Word) -> dict[int, Quote]:
    opaque = {}
    for e in word.expansions:
        opaque[word.offsets[e.start]] = word.offsets[e.end - 1] + 1
    states: dict[int, Quote] = {}
    state = Quote.UNQUOTED
    i = word.start
    while i < word.end:
        states[i] = state
        if i in opaque:
            for k in range(i + 1, opaque[i]):
                states[k] = Quote.INSIDE
            i = opaque[i]
            continue
        c = text[i]
        nxt = text[i + 1] if i + 1 < word.end else ""
        step = 1
        if state is Quote.UNQUOTED:
            if c == "'":
                state = Quote.SINGLE
            elif c == '"':
                state = Quote.DOUBLE
            elif c == "$" and nxt in ("'", '"'):
                states[i + 1] = Quote.INSIDE
                state = Quote.ANSI if nxt == "'" else Quote.DOUBLE
                step = 2
            elif c == "\\" and nxt:
                states[i + 1] = Quote.INSIDE
                step = 2
        elif c == ('"' if state is Quote.DOUBLE else "'"):  # the quote that closes it
            state = Quote.UNQUOTED
        elif c == "\\" and _escapes(state, nxt):
            states[i + 1] = Quote.INSIDE
            step = 2
        i += step
    states[word.end] = state
    return states


def _escapes(state: Quote, nxt: str) -> bool:
    """Whether a backslash inside quotes of `state` escapes `nxt`, the character after it
    ("" at the word's end): in double quotes only `$`, a backtick, `"`, a backslash and a
    newline; in `$'...'` any; in single quotes none."""
    if state is Quote.DOUBLE:
        return nxt in ("$", "`", '"', "\\", "\n")
    return state is Quote.ANSI and bool(nxt)


def encode(content: str, state: Quote) -> str:
    """Source text that, read in `state`, yields `content` literally and stays in `state`."""
    if state is Quote.SINGLE:
        return content.replace("'", "'\\''")
    if state is Quote.DOUBLE:
        out = []
        for ch in content:
            out.append("\\" + ch if ch in '\\$`"' else ch)
        return "".join(out)
    if state is Quote.ANSI:
        return content.replace("\\", "\\\\").replace("'", "\\'")
    if not content or all(ch in _SAFE_UNQUOTED for ch in content):
        return content
    return "'" + content.replace("'", "'\\''") + "'"


def transition(start: Quote, end: Quote) -> str:
    return "" if start is end else _CLOSE[start] + _OPEN[end]


def _word_at(layer: Layer, start: int, end: int) -> Word | None:
    """The first source word that holds [start, end]."""
    words = layer.source_words
    starts = layer.source_word_starts
    if starts is None:  # words out of order or overlapping: each is looked at
        candidates: Sequence[Word] = words
    else:
        # Words in order, apart and never empty: only the last one starting at or before
        # `start`, or the one before it (ending right there), can hold the span.  Looking
        # at every word was quadratic: a fix per word of a long ssh command line.
        k = bisect.bisect_right(starts, start) - 1
        candidates = words[max(0, k - 1) : k + 1] if k >= 0 else ()
    for word in candidates:
        if word.start <= start and end <= word.end:
            return word
    return None


def lift_once(layer: Layer, start: int, end: int, content: str) -> tuple[int, int, str] | None:
    """The parent-layer edit that makes layer.text[start:end] read `content`."""
    if layer.parent is None:
        return start, end, content
    offsets = layer.parent_offsets
    if layer.kind == "stdin":
        if layer.expanded and not _literal_in_unquoted_heredoc(layer, start, end, content):
            return None
        # A quoted heredoc body is literal: its characters are the parent's characters.
        return offsets[start], offsets[end] if end < len(offsets) else offsets[-1], content
    size = len(layer.text)
    if start == end == size and size:
        a = b = offsets[size - 1] + 1  # appending: stay inside the closing quote
    else:
        a = offsets[start] if start < size else offsets[-1]
        b = offsets[end] if end < size else offsets[-1]
        if end > start:
            b = max(b, offsets[end - 1] + 1)
        if end == start:
            b = a
    word = _word_at(layer, a, b)
    if word is None:
        return None  # the span crosses the words ssh joined: no safe edit
    states = quote_states(layer.parent.text, word)
    if states.get(a) is Quote.INSIDE:
        a -= 1  # start at the escaping backslash
    if states.get(b) is Quote.INSIDE and b > a:
        b -= 1
    state_in, state_out = states.get(a), states.get(b)
    if state_in is None or state_out is None or Quote.INSIDE in (state_in, state_out):
        return None
    return a, b, encode(content, state_in) + transition(state_in, state_out)


def _literal_in_unquoted_heredoc(layer: Layer, start: int, end: int, content: str) -> bool:
    """Whether an edit of an unquoted heredoc's body reads the same before and after the
    parent's expansion: no `$`, backtick or backslash written, and no escape or
    expansion of the body in the span or at its edges."""
    if set(content) & set("$`\\"):
        return False
    offsets = layer.parent_offsets
    span = offsets[max(0, start - 1) : min(end + 1, len(offsets))]
    if any(b != a + 1 for a, b in zip(span, span[1:], strict=False)):
        return False
    return not any(e.start <= end and start <= e.end for e in layer.local_expansions)


def _root_edit(root: Layer, start: int, end: int, content: str) -> Edit | None:
    """A root's edit in the file: direct for a file, through its frontend's encoder for a
    fragment (a Markdown block, a `run:` step, a Python string); none for a fragment
    without one (Python text decoded from another encoding: no edit)."""
    if root.offsets is None:
        return Edit(start, end, content)
    if root.encode_edit is not None:
        return root.encode_edit(start, end, content)
    return None


def layer_fix(
    layer: Layer,
    spans: Iterable[tuple[int, int, str]],
    applicability: Applicability,
    message: str,
) -> Fix | None:
    """The fix that makes each `layer.text[start:end]` read its content, or None when one
    of them has no safe edit in the file (a fix that does part of its job is no fix)."""
    edits = []
    for start, end, content in spans:
        edit = lift(layer, start, end, content)
        if edit is None:
            return None
        edits.append(edit)
    return Fix(tuple(edits), applicability, message)


def lift(layer: Layer, start: int, end: int, content: str) -> Edit | None:
    """The file edit that makes layer.text[start:end] read `content`, or None if none is safe."""
    current = layer
    span: tuple[int, int, str] | None = (start, end, content)
    while current.parent is not None and span is not None:
        span = lift_once(current, *span)
        current = current.parent
    if span is None:
        return None
    return _root_edit(current, *span)
