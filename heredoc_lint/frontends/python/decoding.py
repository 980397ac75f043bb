"""A Python file's text as Python reads it: its PEP 263 coding line decides.

The file arrives decoded as UTF-8 (every other byte kept as a lone surrogate), which
is what Python reads too unless the first two lines name another encoding
(`# -*- coding: utf-7 -*-`).  Then Python decodes the bytes with that codec, and a
string literal can hold a command the UTF-8 text does not show (`+AHM-sh` is `ssh` in
UTF-7).  Such a file is read in Python's text, and each character of that text maps
back to the file's own text, where findings are reported.  Nothing is ever fixed in
it: an edit would have to be written in the file's codec.
"""

from __future__ import annotations

import bisect
import codecs
import io
import re
import tokenize
from array import array
from dataclasses import dataclass

from heredoc_lint.frontends import SourceError

# The coding line of PEP 263, as tokenize finds it: on line 1 or 2, in a comment.
_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=]", re.MULTILINE)


@dataclass(frozen=True)
class Decoded:
    """Python's text of a file and, per character of it (and its end), the offset in the
    file's UTF-8 text of the bytes it was decoded from."""

    text: str
    encoding: str
    to_file: array[int]  # 8 bytes a character: a file may be megabytes

    def file_offset(self, offset: int) -> int:
        return self.to_file[max(0, min(offset, len(self.to_file) - 1))]


def declared_encoding(text: str) -> str:
    """The encoding Python reads the file in ("utf-8" unless a coding line names another).

    SourceError when Python itself would refuse the file for its coding line."""
    first = text.find("\n")
    second = text.find("\n", first + 1) if first >= 0 else -1
    head = [text[: first if first >= 0 else len(text)]]
    if first >= 0:
        head.append(text[first + 1 : second if second >= 0 else len(text)])
    if not any(_COOKIE.match(line) for line in head):
        return "utf-8"
    raw = "\n".join(head).encode("utf-8", "surrogateescape") + b"\n"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as error:
        line = 2 if len(head) > 1 and _COOKIE.match(head[1]) else 1
        at = 0 if line == 1 else len(head[0]) + 1
        raise SourceError(
            f"not checked: Python cannot run this file, its coding line (line {line}) "
            f"fails: {error.msg if hasattr(error, 'msg') else error}",
            at,
        ) from None
    return "utf-8" if encoding in ("utf-8", "utf-8-sig") else encoding


def decode(text: str) -> Decoded | None:
    """Python's text of the file, or None when it is `text` itself (UTF-8, or a codec that
    reads these bytes as the same characters, such as Latin-1 on an ASCII file)."""
    encoding = declared_encoding(text)
    if encoding == "utf-8":
        return None
    raw = text.encode("utf-8", "surrogateescape")
    try:
        decoded = raw.decode(encoding)
    except UnicodeDecodeError as error:
        at = _char_of_byte(text, error.start)
        line = text.count("\n", 0, at) + 1
        raise SourceError(
            f"not checked: Python cannot run this file: byte {error.start} (line {line}) "
            f"is not valid in {encoding}, the encoding its coding line names",
            at,
        ) from None
    if decoded == text:
        return None
    return Decoded(decoded, encoding, _map_back(text, raw, encoding))


def _map_back(text: str, raw: bytes, encoding: str) -> array[int]:
    """For each character the codec decodes from `raw` (and the end): the offset in `text`
    of the byte its sequence starts at."""
    byte_starts = _byte_starts(text)
    decoder = codecs.getincrementaldecoder(encoding)()
    to_file = array("q")
    start = 0
    for position in range(len(raw)):
        out = decoder.decode(raw[position : position + 1])
        if out:
            to_file.extend([_char_at(byte_starts, start)] * len(out))
            start = position + 1
    tail = decoder.decode(b"", final=True)
    to_file.extend([_char_at(byte_starts, start)] * len(tail))
    to_file.append(len(text))
    return to_file


def _byte_starts(text: str) -> list[int]:
    """The byte offset where each character of `text` starts in its UTF-8 bytes."""
    starts: list[int] = []
    position = 0
    for char in text:
        starts.append(position)
        position += 1 if char < "\x80" else len(char.encode("utf-8", "surrogateescape"))
    return starts


def _char_at(byte_starts: list[int], byte: int) -> int:
    return max(0, bisect.bisect_right(byte_starts, byte) - 1)


def _char_of_byte(text: str, byte: int) -> int:
    return _char_at(_byte_starts(text), byte)
