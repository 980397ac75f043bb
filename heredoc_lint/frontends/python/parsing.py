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
        offset = lines.starts[min(line, len(lines.starts)) - 1] + max((error.offset or 1) - 1, 0)
        raise SourceError(f"Python syntax error: {error.msg}", min(offset, len(text))) from None
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
