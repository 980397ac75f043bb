"""Bash is the oracle: the de-quoter and the heredoc scanner agree with bash on the corpus.

Words: every static word of every simple command of the real corpus (argv words,
assignment words, redirection targets) is handed to bash as an argument of `printf
'%s\\0'`, verbatim from the source, with pathname and brace expansion off; bash's
NUL-separated output must equal `Word.received()`.  A static word has no expansion, so
evaluating its source text runs nothing.

Heredocs: the file's text is wrapped in a function definition that bash parses but never
calls, and `declare -f` prints the function back; bash prints each here-document body
as it read it (tabs of `<<-` already stripped), followed by its delimiter line.  The
bodies bash prints must equal `Heredoc.literal_value()` for every heredoc whose body is
literal: a quoted delimiter, or no `$`, backtick or backslash in it.

Nothing from the corpus is executed: bash only parses the corpus text (`bash -n`, the
function definition) and runs printf on words without expansions.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import pytest

from corpus import CorpusFile, corpus_files, decode, encode
from heredoc_lint.shell.heredoc import Heredoc
from heredoc_lint.shell.syntax import Script, parse_script
from heredoc_lint.shell.words import Word

BASH = ("bash", "--norc", "--noprofile")
# Globbing and brace expansion off: a static word is then one argument, its source
# text minus quoting.  extglob on: bash-completion is written for it, and `@(a|b)` is
# a syntax error without it.
PRELUDE = "set -f; set +B; shopt -s extglob\n"
END = "__heredoc_lint_end__"
FUNCTION = "__heredoc_lint_oracle"
# `name=(...)`, `name+=(...)`: a compound array assignment (in `declare`, `local`, ...)
# is not an argument printf could take: bash hands it to the builtin unexpanded.
_COMPOUND_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=\(")


# -- the oracle -------------------------------------------------------------------------


def run_bash(script: str, *, timeout: float = 60) -> tuple[int, str, str]:
    """Run a bash script given on stdin; return (exit code, stdout, stderr)."""
    result = subprocess.run(
        BASH,
        input=encode(script),
        capture_output=True,
        timeout=timeout,
        check=False,
        env={**os.environ, "LC_ALL": "C.UTF-8"},  # `$'\u00e9'` is UTF-8 in the model
    )
    return result.returncode, decode(result.stdout), decode(result.stderr)


def printf_line(source: str) -> str:
    """A printf line printing the word written as `source`, then a \1 separator."""
    # A `#` that starts a word starts a comment; an empty quoted prefix keeps it a word.
    prefix = '""' if source.startswith("#") else ""
    return f"printf '%s\\0' {prefix}{source}\nprintf '\\1\\0'\n"


def bash_argv(
    sources: Sequence[str], brace_expansion: Sequence[bool] | None = None
) -> list[list[str]] | None:
    """The arguments bash makes of each word written as in `sources`; None on an error.

    Pathname expansion is off; brace expansion is on for the words `brace_expansion`
    says (default: none).
    """
    lines = [PRELUDE]
    on = False
    for k, source in enumerate(sources):
        want = bool(brace_expansion and brace_expansion[k])
        if want != on:
            lines.append("set -B\n" if want else "set +B\n")
            on = want
        lines.append(printf_line(source))
    lines.append(f"printf '%s\\0' {END}\n")
    code, out, _ = run_bash("".join(lines))
    values = out.split("\0")
    if code != 0 or values[-2:] != [END, ""]:
        return None
    groups: list[list[str]] = [[]]
    for value in values[:-2]:
        if value == "\1":
            groups.append([])
        else:
            groups[-1].append(value)
    groups.pop()  # after the last separator
    return groups if len(groups) == len(sources) else None


def sh_single_quote(text: str) -> str:
    """bash's sh_single_quote: how `declare -f` prints a quoted heredoc delimiter."""
    return "'" + text.replace("'", "'\\''") + "'"


def function_listing(text: str) -> str | None:
    """`declare -f` of a function whose body is `text` (parsed by bash, never called)."""
    script = f"shopt -s extglob\n{FUNCTION}() {{\n{text}\n}}\ndeclare -f {FUNCTION}\n"
    code, out, _ = run_bash(script)
    return out if code == 0 and out else None


def _body_in_listing(listing: str, start: int, delimiter: str) -> tuple[str, int] | None:
    """Read a body printed from `start` up to its delimiter line; return (body, end)."""
    pos = start
    while pos <= len(listing):
        nl = listing.find("\n", pos)
        line_end = len(listing) if nl < 0 else nl
        if listing[pos:line_end] == delimiter:
            return listing[start:pos], line_end + 1
        if nl < 0:
            return None
        pos = nl + 1
    return None


@dataclass(frozen=True)
class HeredocQuery:
    """What the listing shows of a heredoc: its operator, in two possible spellings."""

    delimiter: str
    quoted: bool
    strip_tabs: bool
    source: str  # the operator as written, which is how a backtick substitution shows it

    @property
    def printed(self) -> str:
        word = sh_single_quote(self.delimiter) if self.quoted else self.delimiter
        return "<<" + ("-" if self.strip_tabs else "") + word


def _find_headers(listing: str, queries: Sequence[HeredocQuery]) -> list[int | None]:
    """Where each operator is printed, searched in source order.

    `declare -f` prints a command's words before its redirections, so an operator may
    come after one of a later heredoc (`cat <<A $(cat <<B ...)`): when not found after
    the previous one, the search starts again from the top.
    """
    found: list[int | None] = []
    used: set[int] = set()
    cursor = 0
    for query in queries:
        at = None
        for start in (cursor, 0):
            for header in (query.printed, query.source):
                at = listing.find(header, start)
                while at >= 0 and at in used:
                    at = listing.find(header, at + 1)
                if at >= 0:
                    break
            if at is not None and at >= 0:
                break
        if at is None or at < 0:
            found.append(None)
            continue
        used.add(at)
        found.append(at)
        cursor = at + 1
    return found


def bash_heredoc_bodies(listing: str, queries: Sequence[HeredocQuery]) -> list[str | None]:
    """The bodies `declare -f` printed for `queries` (None where one was not found).

    `declare -f` prints a heredoc operator as `<<DELIM`, `<<-DELIM` or with the
    delimiter single-quoted; after the end of the line come, for each operator of the
    line in turn, the body as bash stored it and the delimiter alone on a line.
    """
    headers = _find_headers(listing, queries)
    by_line: dict[int, list[tuple[int, int]]] = {}  # line end -> [(header at, query index)]
    for index, at in enumerate(headers):
        if at is not None:
            nl = listing.find("\n", at)
            by_line.setdefault(nl, []).append((at, index))
    bodies: list[str | None] = [None] * len(queries)
    for nl, members in by_line.items():
        if nl < 0:
            continue
        pos = nl + 1
        for _, index in sorted(members):
            found = _body_in_listing(listing, pos, queries[index].delimiter)
            if found is None:
                break
            bodies[index], pos = found
    return bodies
