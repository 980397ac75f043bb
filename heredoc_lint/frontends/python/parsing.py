"""Parsing a Python file, and the lines where a call of interest may start."""

from __future__ import annotations

import ast
import bisect
import re

from heredoc_lint.frontends import SourceError
from heredoc_lint.frontends.python.positions import Lines
from heredoc_lint.frontends.python.prefilter import ANY_FUNCTION


def parse(text: str) -> ast.Module:
    source = text
    if any("\ud800" <= c <= "\udfff" for c in text):
        source = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    try:
        return ast.parse(source)
    except SyntaxError as error:
        lines = Lines(text)
        line = max(error.lineno or 1, 1)
        line_start = lines.starts[min(line, len(lines.starts)) - 1]
        offset = min(line_start + max((error.offset or 1) - 1, 0), len(text))
        line_end = text.find("\n", line_start)
        line_text = text[line_start : line_end if line_end >= 0 else len(text)]
        if _python2_error(error.msg, line_text):
            raise SourceError(
                f"not checked: Python 2 source (line {line}: {error.msg})", offset, info=True
            ) from None
        raise SourceError(f"Python syntax error: {error.msg}", offset) from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise SourceError(f"Python source cannot be read: {error}", 0) from None


# The subprocess/os/asyncio functions, paramiko's exec_command and fabric's sudo and local.
_HOT_CALLS = f"{ANY_FUNCTION}|exec_command|sudo|local"
_IMPORT_LINES = re.compile(r"^[ \t]*(?:from|import)[ \t][^\n(]*(?:\([^)]*\)|[^\n]*)", re.MULTILINE)
_AS_NAME = re.compile(r"\bas\s+(\w+)")


def hot_lines(text: str, lines: Lines) -> list[int]:
    """The lines where a call of interest may start (its name and `(`), sorted."""
    names = _HOT_CALLS
    aliases = {a for m in _IMPORT_LINES.finditer(text) for a in _AS_NAME.findall(m.group())}
    if aliases:
        names += "|" + "|".join(sorted(aliases))
    hot: set[int] = set()
    for match in re.finditer(rf"\b(?:{names})\s*\(", text):
        hot.add(bisect.bisect_right(lines.starts, match.start()))
    return sorted(hot)


# What Python 3 says of Python 2 syntax, and the Python 2 forms it only calls "invalid".
_PYTHON2_MESSAGES = (
    "Missing parentheses in call to 'print'",
    "Missing parentheses in call to 'exec'",
    "multiple exception types must be parenthesized",
    "leading zeros in decimal integer literals",
    "Function parameters cannot be parenthesized",
)
_PYTHON2_LINE = re.compile(
    r"`|<>|^\s*raise\s+[\w.]+\s*,|\bur['\"]|\b\d+[lL]\b|^\s*print\s*(?:>>|[^\s(=.,)\]}])"
)


def _python2_error(message: str, line: str) -> bool:
    """Whether a syntax error is Python 2 syntax: `print x`, `except E, e`, backticks..."""
    if message.startswith(_PYTHON2_MESSAGES):
        return True
    # Only Python 3's generic messages: an unterminated string holding a backtick is not
    # Python 2.
    generic = message.startswith(("invalid syntax", "invalid decimal literal"))
    return generic and _PYTHON2_LINE.search(line) is not None


# A file that parses as Python 3 but also runs under Python 2: a `python2` shebang, the
# `__future__` imports that only matter there, `print >>f`, modules and names it alone has.
_PYTHON2_FILE = re.compile(
    r"\A#![^\n]*\bpython2\b"
    r"|^[ \t]*from[ \t]+__future__[ \t]+import[ \t]+[^\n]*"
    r"\b(?:print_function|unicode_literals|absolute_import)\b"
    r"|^[ \t]*print[ \t]*>>"
    r"|\b(?:xrange|raw_input|execfile|unichr)\(|\bbasestring\b|\.iteritems\(\)"
    r"|^[ \t]*import[ \t]+(?:urllib2|ConfigParser|cPickle|commands|Queue|StringIO)\b",
    re.MULTILINE,
)


def python2_file(text: str) -> bool:
    """Whether the file may run under Python 2: fixes must not add Python 3 code to it."""
    return _PYTHON2_FILE.search(text) is not None
