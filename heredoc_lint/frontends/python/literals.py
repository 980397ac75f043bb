"""Python string literal tokens: where they are and the character each escape yields."""

from __future__ import annotations

import functools
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
        k = token_end(text, i, end)
        if k is None:
            return None
        tokens.append((i, k))
        i = k
    return tokens


def token_end(text: str, i: int, end: int) -> int | None:
    """Where the string token at text[i] (its prefix) ends; None if not one.

    In an f-string a field is read as Python 3.12 reads it (PEP 701): a string in it may
    reuse the outer quotes (`f"{d["a"]}"`), so it is skipped as a token of its own, not
    taken for the end.  Python 3.11 allows no such reuse, so its f-strings end where they
    did before."""
    m = PREFIX.match(text, i, end)
    j = m.end() if m else i
    if j >= end or text[j] not in "'\"":
        return None
    quote = text[j : j + 3] if text[j : j + 3] in ("'''", '"""') else text[j]
    fstring = "f" in text[i:j].lower()
    k: int | None = j + len(quote)
    while k is not None and k < end:
        if text[k] == "\\":
            k += 2
        elif text.startswith(quote, k):
            return k + len(quote)
        elif fstring and text.startswith("{{", k):
            k += 2
        elif fstring and text[k] == "{":
            k = _field_end(text, k + 1, end)
        else:
            k += 1
    return None


def _field_end(text: str, k: int, end: int) -> int | None:
    """After the `{` of an f-string field: the index after its `}`, None if none."""
    depth = 0
    spec = False  # in the format spec (after a `:` at depth 0): text, and `{...}` fields
    while k < end:
        c = text[k]
        if c == "}" and depth == 0:
            return k + 1
        if spec:
            next_k = _field_end(text, k + 1, end) if c == "{" else k + 1
        elif c in "'\"" or (c.isalpha() and not _identifier_before(text, k)):
            next_k = token_end(text, k, end) if _starts_string(text, k, end) else k + 1
        elif c == "#":  # a comment (3.12): to the end of its line
            newline = text.find("\n", k, end)
            next_k = end if newline < 0 else newline
        else:
            depth += (c in "([{") - (c in ")]}")
            spec = c == ":" and depth == 0
            next_k = k + 1
        if next_k is None:
            return None
        k = next_k
    return None


def _identifier_before(text: str, k: int) -> bool:
    return k > 0 and (text[k - 1].isalnum() or text[k - 1] == "_")


def _starts_string(text: str, k: int, end: int) -> bool:
    """A string token (with its prefix) starts at text[k]."""
    m = PREFIX.match(text, k, end)
    j = m.end() if m else k
    return j < end and text[j] in "'\""


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


# What ends a stretch of characters that are each their own source character, by
# (raw, bytes, braces): an escape, a carriage return, a doubled brace of an f-string, a
# non-ASCII character of a bytes literal (which stands for its UTF-8 bytes).  Compiled
# on first use: the range up to U+10FFFF costs 5 ms a pattern, and most runs read no
# bytes literal.
@functools.cache
def _special(raw: bool, is_bytes: bool, braces: bool) -> re.Pattern[str]:
    return re.compile(
        "["
        + ("" if raw else r"\\")
        + r"\r"
        + (r"{}" if braces else "")
        + (r"\x80-\U0010ffff" if is_bytes else "")
        + "]"
    )


def decode(
    text: str, start: int, end: int, raw: bool, is_bytes: bool, braces: bool
) -> list[tuple[str, int, int, int]]:
    """The characters of the literal source text[start:end], as (characters, tile start,
    tile end, anchor) pieces.

    A tile is the source of one character; a backslash-newline, which yields nothing,
    joins the tile of the next character (or of the last one).  With `braces` (the text
    of an f-string), `{{` and `}}` are one character each.  A piece whose tile is as
    long as its characters and starts at its anchor is a stretch of characters that are
    each their own source character (the tile of character k is start + k); any other
    piece is one character.  A literal is mostly such stretches: one piece each, not a
    tuple per character (issue 18 item 8).
    """
    out: list[tuple[str, int, int, int]] = []
    special = _special(raw, is_bytes, braces)
    pending = -1  # start of a backslash-newline waiting for the next character
    i = start
    while i < end:
        if pending < 0:
            found = special.search(text, i, end)
            stop = found.start() if found else end
            if stop > i:
                out.append((text[i:stop], i, stop, i))
                i = stop
                continue
        c = text[i]
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
        out.append((char, pending if pending >= 0 else i, j, i))
        pending = -1
        i = j
    if pending >= 0 and out:
        chars, tile_start, tile_end, at = out.pop()
        if len(chars) > 1:  # the last character of a stretch takes the backslash-newline
            out.append((chars[:-1], tile_start, tile_end - 1, at))
            tile_start = at = tile_end - 1
        out.append((chars[-1], tile_start, end, at))
    return out
