"""What the shell files a script sources define for it: wrapper functions and values.

    . "$(dirname "$0")/lib/remote.sh"     # defines: on() { ssh "$HOST" "$@"; }
    on "pkill -f app; ./app"              # runs: ssh "$HOST" "pkill -f app; ./app"

A script that sources a file of its project (`source F`, `. F`) can call the functions F
defines and use the variables F assigns, as if written at the `source` line. `imported`
reads, for a script at a known path, each such file and what it defines
(`shell.definitions`: one-command functions, names assigned a literal once), and the files
those source in turn (to a depth of MAX_DEPTH). Each definition counts from the end of the
script's `source` command on; a name defined in two sourced files is left out, as a name
defined twice in one script is.

Which file is meant is read from the word after `source`, with patterns, not run:
a relative path (`lib/remote.sh`), or one after the script's own directory
(`"$(dirname "$0")"/`, `"${BASH_SOURCE%/*}"/`, `"$(cd "$(dirname "$0")" && pwd)"/`) or a
variable (`"$DIR"/`, taken as that directory). It is looked for in the script's directory
and those above it up to the project's top (project.directories_up), the first that holds
it; a path with `..` from the script's directory only, never above the top. An absolute
path (`/etc/os-release`), `~/`, and a path built any other way are not followed. What was
read enters the cache key of the script's findings (`stamp`): editing a sourced file
rechecks the scripts that source it.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, replace
from typing import TypeVar

from heredoc_lint.project.directories import directories_up
from heredoc_lint.shell.definitions import Definitions, FunctionBody, Literal, read_definitions
from heredoc_lint.shell.syntax import parse_script

_Defined = TypeVar("_Defined", FunctionBody, Literal)

MAX_DEPTH = 3  # a library that sources a library that sources one: deeper is not written
_LARGEST = 1 << 20  # a shell library of more than a megabyte is no library
# `source F` or `. F` as a command: at a line's start, or after `;`, `&&`, `||`, `then`,
# `do`, `{` (`[ -f "$F" ] && . "$F"`).  The command word is found first and what is
# before it on its line checked after: one pattern for both is tried at every position
# of the text, ten times slower.
_SOURCE_WORD = re.compile(r"(?:source|\.)[ \t]+")
_BEFORE_SOURCE = re.compile(r"(?:^[ \t]*|(?:;|&&|\|\||\bthen|\bdo|\{)[ \t]+)\Z", re.MULTILINE)
# What may stand for the script's directory (or a directory the project names) before `/`.
_DIRECTORY = "|".join(
    (
        r"\$\(\s*dirname\s[^)\n]*\)",  # "$(dirname "$0")"
        r"\$\(\s*cd\s[^\n]*?pwd\s*\)",  # "$(cd "$(dirname "$0")" && pwd)"
        r"\$\{BASH_SOURCE(?:\[0\])?%/\*\}",  # "${BASH_SOURCE%/*}"
        r"\$\{?[A-Za-z_]\w*\}?",  # "$DIR", "${DIR}"
    )
)
_PATH = re.compile(
    rf"""(?:"?(?:{_DIRECTORY})"?/)?["']?(?P<path>[\w.@+-][\w.@+/-]*)["']?"""
    r"""(?=$|[\s;&|)#])"""
)


@dataclass(frozen=True)
class Imported:
    """What a script's sourced files define for it, and what was read (for the cache)."""

    definitions: Definitions
    stamp: str  # each file read: path, modification time, size


def imported(path: str | None, text: str) -> Imported | None:
    """The definitions that the project's files sourced by the script at `path` (whose
    text is `text`) make for it; None when it sources none of them."""
    if path is None or "source" not in text and ". " not in text:
        return None
    gathered = _Gathered({}, {}, set(), [], {os.path.normpath(path)})
    for at, source in _sourced(path, text):
        _gather(source, at, 1, gathered)
    if not gathered.stamps:
        return None
    twice = gathered.twice
    defined = Definitions(
        {k: v for k, v in gathered.functions.items() if k not in twice},
        {k: v for k, v in gathered.literals.items() if k not in twice},
    )
    return Imported(defined, "\n".join(gathered.stamps))


@dataclass
class _Gathered:
    functions: dict[str, FunctionBody]
    literals: dict[str, Literal]
    twice: set[str]  # names defined by two of the files
    stamps: list[str]
    seen: set[str]


def _put(table: dict[str, _Defined], name: str, value: _Defined, twice: set[str]) -> None:
    if name in table:
        twice.add(name)
    table[name] = value


def _gather(source: str, at: int, depth: int, gathered: _Gathered) -> None:
    """Add what the file `source` defines (and what the files it sources define, to
    MAX_DEPTH) to the tables, each counting from `at` in the sourcing script."""
    key = os.path.normpath(source)
    if key in gathered.seen:
        return
    gathered.seen.add(key)
    read = _read(source)
    if read is None:
        return
    text, stamp = read
    gathered.stamps.append(stamp)
    found = _definitions(source, stamp)
    for name, body in found.functions.items():
        line = text.count("\n", 0, body.command.start) + 1
        where = f"{source} line {line}"
        _put(gathered.functions, name, replace(body, end=at, where=where), gathered.twice)
    for name, value in found.literals.items():
        _put(gathered.literals, name, replace(value, end=at), gathered.twice)
    if depth < MAX_DEPTH:
        for _, inner in _sourced(source, text):
            _gather(inner, at, depth + 1, gathered)


def _sourced(path: str, text: str) -> list[tuple[int, str]]:
    """Each project file that `text` (the script at `path`) sources: where its `source`
    command ends, and the file's path."""
    found = []
    line_end = 0  # the first command of a line is read: the rest of the line is its own
    for match in _SOURCE_WORD.finditer(text):
        start = match.start()
        line_start = text.rfind("\n", 0, start) + 1
        if start < line_end or not _BEFORE_SOURCE.search(text, line_start, start):
            continue
        line_end = text.find("\n", start)
        if line_end < 0:
            line_end = len(text)
        word = _PATH.match(text, match.end(), line_end)
        if word is None:
            continue
        located = _locate(path, word.group("path"))
        if located is not None:
            found.append((word.end(), located))
    return found


def _locate(script: str, relative: str) -> str | None:
    """The file `relative` names, from the script's directory or one above it; with
    `..` in it (`"$(dirname "$0")/../lib/x.sh"`), from the script's directory only, and
    not above the project's top."""
    parts = [p for p in relative.split("/") if p and p != "."]
    if not parts:
        return None
    directories = [directory for directory, _ in directories_up(script)]
    if ".." in parts:
        top = os.path.abspath(directories[-1] or ".")
        candidate = os.path.normpath(os.path.join(directories[0], *parts))
        inside = os.path.abspath(candidate).startswith(top.rstrip(os.sep) + os.sep)
        return candidate if inside and os.path.isfile(candidate) else None
    for directory in directories:
        candidate = os.path.join(directory, *parts)
        if os.path.isfile(candidate):
            return candidate
    return None


def _read(path: str) -> tuple[str, str] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    if stat.st_size > _LARGEST:
        return None
    stamp = f"{path}\0{stat.st_mtime_ns}\0{stat.st_size}"
    text = _text(path, stamp)
    return None if text is None else (text, stamp)


@functools.lru_cache(maxsize=128)
def _text(path: str, stamp: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(_LARGEST).decode("utf-8", "replace")
    except OSError:
        return None


@functools.lru_cache(maxsize=128)
def _definitions(path: str, stamp: str) -> Definitions:
    text = _text(path, stamp)
    return read_definitions(parse_script(text or ""))
