"""Parsing a Python file, and the lines where a call of interest may start."""

from __future__ import annotations

import ast
import bisect
import contextlib
import io
import re
import sys
import tokenize
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NoReturn

from heredoc_lint.frontends import SourceError
from heredoc_lint.frontends.python import channels
from heredoc_lint.frontends.python.positions import Lines
from heredoc_lint.run.memory import limited


@dataclass(frozen=True)
class Unread:
    """A statement this Python cannot parse, blanked so that the rest of the file is read."""

    start: int  # character offsets of its logical line(s)
    end: int
    first_line: int
    last_line: int
    message: str  # what Python said of it



@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Python warns of what it parses (`"\\s"`: a SyntaxWarning since 3.12, a
    DeprecationWarning before): the code read is not this program's, and its warnings
    would reach the user's terminal as if they were the tool's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


def parse(text: str) -> ast.Module:
    return parse_partly(text)[0]


_SURROGATE = re.compile("[\ud800-\udfff]")  # a byte kept from a file that is not UTF-8


def parse_partly(text: str) -> tuple[ast.Module, tuple[Unread, ...]]:
    """The file's tree, and the statements left out of it because this Python cannot
    parse them while it parses the rest of the file.

    A file written for a newer Python (a 3.12 f-string that reuses its quotes, PEP 701)
    fails as a whole under 3.11: each statement that fails is blanked (spaces keep
    every offset) and the file parsed again, so that one statement does not hide the
    others.  Whether the statements left out are newer syntax or an error is not known
    here: they are reported as not checked.  Any other error is the file's: SourceError,
    as it is when a statement cannot be blanked (the error is not confined to it)."""
    source = text
    if _SURROGATE.search(text):
        source = _SURROGATE.sub("\ufffd", text)
    unread: list[Unread] = []
    first: SyntaxError | None = None
    statements: list[_Statement] | None = None  # tokenized once, at the first error
    while True:
        try:
            with quiet():
                return ast.parse(source), tuple(unread)
        except SyntaxError as error:
            first = first or error
            blanked = None
            if len(unread) < _MAX_UNREAD and _newer_syntax(error.msg, _line(source, error)):
                # Blanking keeps every offset and line: the statements stay where they were.
                statements = _statements(source) if statements is None else statements
                blanked = _blank_statement(source, error, unread, statements)
            if blanked is None:
                _raise(text, first)
            source = blanked
        except (ValueError, RecursionError, MemoryError) as error:
            if isinstance(error, MemoryError) and limited():
                raise  # the memory bound's, not the source's
            raise SourceError(f"Python source cannot be read: {error}", 0) from None


# What Python 3.11 says of syntax a newer Python reads: an f-string that reuses its
# quotes, holds a backslash or a comment (3.12, PEP 701), `type X = ...` and generic
# functions and classes (3.12, PEP 695).  Any other error is the file's.
_NEWER_LINE = re.compile(
    r"^\s*(?:type\s+\w+\s*(?:\[|=)|(?:async\s+)?def\s+\w+\s*\[|class\s+\w+\s*\[)"
)


def _newer_syntax(message: str, line: str) -> bool:
    if message.startswith("f-string"):
        return True
    generic = message.startswith(("invalid syntax", "expected '('"))
    return generic and _NEWER_LINE.match(line) is not None


# More statements than this that fail: not newer syntax here and there, an error.
_MAX_UNREAD = 20


def _line(text: str, error: SyntaxError) -> str:
    lines = Lines(text)
    line = max(error.lineno or 1, 1)
    start = lines.starts[min(line, len(lines.starts)) - 1]
    end = text.find("\n", start)
    return text[start : end if end >= 0 else len(text)]


@dataclass(frozen=True)
class _Statement:
    """A logical line: its character span (indentation left out) and physical lines."""

    start: int
    end: int
    first_line: int
    last_line: int
    opens_block: bool  # a header (`def`, `if`...): an indented block follows


def _blank_statement(
    source: str, error: SyntaxError, unread: list[Unread], statements: list[_Statement]
) -> str | None:
    """`source` with the statement where `error` is blanked out, its record added to
    `unread`; None when that cannot be done (the statement was blanked already...)."""
    line = error.lineno or 0
    k = bisect.bisect_right([s.first_line for s in statements], line) - 1
    if k < 0 or not statements[k].first_line <= line <= statements[k].last_line:
        return None
    statement = statements[k]
    start, end = statement.start, statement.end
    if any(u.start == start for u in unread):
        return None  # blanked and still failing: the error is not in this statement
    # What stands in the statement's place keeps the block structure: a header (`def`,
    # `if`...) becomes `if 1:`, so that its body still has one.
    stand_in = "if 1:" if statement.opens_block else "pass"
    if end - start < len(stand_in):
        return None
    blank = "".join(c if c in "\r\n" else " " for c in source[start:end])
    if "\n" in blank[: len(stand_in)] or "\r" in blank[: len(stand_in)]:
        return None  # a first line shorter than the stand-in: it would swallow a line end
    blank = stand_in + blank[len(stand_in) :]
    unread.append(Unread(start, end, statement.first_line, statement.last_line, error.msg))
    return source[:start] + blank + source[end:]


def _statements(source: str) -> list[_Statement]:
    """The logical lines of `source` in order; [] when it cannot be tokenized."""
    lines = Lines(source)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    skip = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)
    found: list[_Statement] = []
    start: tuple[int, int] | None = None
    for k, token in enumerate(tokens):
        if start is None:
            if token.type in skip or token.type == tokenize.NEWLINE:
                continue
            start = token.start
        if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            end = token.start
            opens = any(t.type == tokenize.INDENT for t in tokens[k + 1 : k + 2])
            offset, end_offset = _offset(lines, source, start), _offset(lines, source, end)
            found.append(_Statement(offset, end_offset, start[0], end[0], opens))
            start = None
    return found


def _offset(lines: Lines, source: str, position: tuple[int, int]) -> int:
    """The offset of tokenize's (row, column): past a last line without a newline, the
    tokenizer puts its NEWLINE and ENDMARKER on a row after the text's last one."""
    row, column = position
    return lines.starts[row - 1] + column if row <= len(lines.starts) else len(source)


def unread_message(unread: tuple[Unread, ...]) -> str:
    """The HL001 message of a file read but for `unread` statements."""
    places = [
        f"line {u.first_line}"
        if u.first_line == u.last_line
        else f"lines {u.first_line}-{u.last_line}"
        for u in unread
    ]
    where = places[0] if len(places) == 1 else ", ".join(places[:-1]) + " and " + places[-1]
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    return (
        f"not checked: {where}: Python {version} cannot parse "
        f"{'it' if len(unread) == 1 else 'them'} ({unread[0].message}): syntax of a newer "
        "Python (3.12 f-strings, `type` and type parameters); the rest of the file was "
        "checked"
    )


def _raise(text: str, error: SyntaxError) -> NoReturn:
    """The SourceError of a file that does not parse: Python 2 (info) or an error."""
    lines = Lines(text)
    line = max(error.lineno or 1, 1)
    line_start = lines.starts[min(line, len(lines.starts)) - 1]
    offset = min(line_start + max((error.offset or 1) - 1, 0), len(text))
    # Python 2 reads a tab as indentation to the next multiple of 8 columns, where
    # Python 3 refuses tabs mixed with spaces: in a file that shows Python 2 otherwise
    # (`.iteritems()`, `print >>f`...), that is Python 2 indentation, not a mistake.
    python2_tabs = isinstance(error, TabError) and python2_file(text)
    if python2_tabs or _python2_error(error.msg, _line(text, error)):
        raise SourceError(
            f"not checked: Python 2 source (line {line}: {error.msg})", offset, info=True
        ) from None
    raise SourceError(f"Python syntax error: {error.msg}", offset) from None


# The last name of every call the finder reads.
_HOT_CALLS = "|".join(sorted(channels.CALL_NAMES))
_IMPORT_LINES = re.compile(r"^[ \t]*(?:from|import)[ \t][^\n(]*(?:\([^)]*\)|[^\n]*)", re.MULTILINE)
_AS_NAME = re.compile(r"\bas\s+(\w+)")


def hot_lines(text: str, lines: Lines) -> list[int]:
    """The lines where a call of interest may start (its name and `(`), sorted."""
    names = _HOT_CALLS
    aliases = {a for m in _IMPORT_LINES.finditer(text) for a in _AS_NAME.findall(m.group())}
    if aliases:
        names += "|" + "|".join(sorted(aliases))
    hot: set[int] = set()
    # `(subprocess.run)(` and `subprocess.run\` + newline + `(` are calls too.
    for match in re.finditer(rf"\b(?:{names})[\s)\\]*\(", text):
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
# Each form with the strings it cannot match without (one of them): one regular expression
# of them all tried each alternative at each offset (5 ms in a 100 KB file).
_PYTHON2_FORMS = tuple(
    (needles, re.compile(pattern, re.MULTILINE))
    for needles, pattern in (
        (("python2",), r"\A#![^\n]*\bpython2\b"),
        (
            ("__future__",),
            r"^[ \t]*from[ \t]+__future__[ \t]+import[ \t]+[^\n]*"
            r"\b(?:print_function|unicode_literals|absolute_import)\b",
        ),
        ((">>",), r"^[ \t]*print[ \t]*>>"),
        (
            ("xrange(", "raw_input(", "execfile(", "unichr("),
            r"\b(?:xrange|raw_input|execfile|unichr)\(",
        ),
        (("basestring",), r"\bbasestring\b"),
        ((".iteritems()",), r"\.iteritems\(\)"),
        (
            ("urllib2", "ConfigParser", "cPickle", "commands", "Queue", "StringIO"),
            r"^[ \t]*import[ \t]+(?:urllib2|ConfigParser|cPickle|commands|Queue|StringIO)\b",
        ),
    )
)


def python2_file(text: str) -> bool:
    """Whether the file may run under Python 2: fixes must not add Python 3 code to it."""
    return any(
        any(needle in text for needle in needles) and form.search(text) is not None
        for needles, form in _PYTHON2_FORMS
    )
