"""Python string literal tokens: where they are and the character each escape yields."""

from __future__ import annotations

import re
import unicodedata

PREFIX = re.compile(r"[rRbBuUfF]{0,2}")
_SIMPLE = {
    "\n": None,
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
_OCTAL = frozenset("01234567")


def scan_tokens(text: str, start: int, end: int) -> list[tuple[int, int]] | None:
    """The string tokens of an implicit concatenation in text[start:end]."""
    tokens: list[tuple[int, int]] = []
    i = start
    while i < end:
        c = text[i]
        if c in " \t\f\r\n":
            i += 1
            continue
        if c == "\\" and i + 1 < end and text[i + 1] in "\r\n":
            i += 2
            continue
        if c == "#":
            nl = text.find("\n", i, end)
            i = end if nl < 0 else nl
            continue
        m = PREFIX.match(text, i, end)
        j = m.end() if m else i
        if j >= end or text[j] not in "'\"":
            return None
        quote = text[j : j + 3] if text[j : j + 3] in ("'''", '"""') else text[j]
        k = j + len(quote)
        while True:
            if k >= end:
                return None
            if text[k] == "\\":
                k += 2
                continue
            if text.startswith(quote, k):
                k += len(quote)
                break
            k += 1
        tokens.append((i, k))
        i = k
    return tokens


def _escape(text: str, i: int, end: int, is_bytes: bool) -> tuple[str | None, int]:
    """The character of the escape sequence at text[i] (a backslash) and where it ends.

    None for a backslash-newline, which yields nothing.  An unknown escape yields the
    backslash alone (the next character is read on its own).
    """
    c = text[i + 1] if i + 1 < end else ""
    if c == "\r":
        return None, i + (3 if text[i + 2 : i + 3] == "\n" else 2)
    if c in _SIMPLE:
        return _SIMPLE[c], i + 2
    if c in _OCTAL:
        j = i + 1
        while j < min(i + 4, end) and text[j] in _OCTAL:
            j += 1
        value = int(text[i + 1 : j], 8)
        return (chr(value) if not is_bytes or value < 0x80 else chr(0xDC00 + (value & 0xFF))), j
    if c == "x":
        value = int(text[i + 2 : i + 4], 16)
        return (chr(value) if not is_bytes or value < 0x80 else chr(0xDC00 + value)), i + 4
    if not is_bytes and c in "uU":
        width = 4 if c == "u" else 8
        return chr(int(text[i + 2 : i + 2 + width], 16)), i + 2 + width
    if not is_bytes and c == "N":
        close = text.index("}", i)
        return unicodedata.lookup(text[i + 3 : close]), close + 1
    return "\\", i + 1


def decode(
    text: str, start: int, end: int, raw: bool, is_bytes: bool, braces: bool
) -> list[tuple[str, int, int, int]]:
    """(character, tile start, tile end, anchor) for the literal source text[start:end].

    A tile is the source of one character; a backslash-newline, which yields nothing,
    joins the tile of the next character (or of the last one).  With `braces` (the text
    of an f-string), `{{` and `}}` are one character each.
    """
    out: list[tuple[str, int, int, int]] = []
    pending = -1  # start of a backslash-newline waiting for the next character
    i = start
    while i < end:
        c = text[i]
        at = i
        if c == "\\" and not raw:
            char, j = _escape(text, i, end, is_bytes)
            if char is None:
                pending = i if pending < 0 else pending
                i = j
                continue
        elif c == "\r":
            char, j = "\n", i + (2 if text[i + 1 : i + 2] == "\n" else 1)
        elif braces and c in "{}" and text[i + 1 : i + 2] == c:
            char, j = c, i + 2
        else:
            char, j = c, i + 1
            if is_bytes and ord(c) > 0x7F:
                char = chr(0xDC00 + (ord(c) & 0xFF))
        out.append((char, pending if pending >= 0 else i, j, at))
        pending = -1
        i = j
    if pending >= 0 and out:
        char, tile_start, _, at = out[-1]
        out[-1] = (char, tile_start, end, at)
    return out
