"""Project wrappers of Python: callables of the project's own that run a shell command.

`[tool.heredoc-lint] python-wrappers` names them, with the argument that holds the
command and what runs it:

    python-wrappers = { "myproj.remote.run" = { arg = 0, runs = "ssh" },
                        "self.node.ssh" = { arg = "cmd", runs = "ssh" },
                        "*.exec_remote" = { arg = 0, runs = "ssh" } }

A pattern is a dotted name, matched segment by segment against the call as written
(`self.node.ssh(...)`) and against the import path it stands for (`from myproj import
remote` ... `remote.run(...)` is `myproj.remote.run`). `*` stands for one segment; a
leading `*` for one or more, so `*.exec_remote` is any method of that name (and never a
bare function `exec_remote(...)`). Nothing else is a pattern: a call the file does not
write in one of these two ways is not read.

Light on purpose: the configuration loads this module; the Python frontend uses it.
"""

from __future__ import annotations

from typing import NamedTuple

# What runs the command: the remote login shell over ssh; a local `/bin/sh -c` or
# `/bin/bash -c`; or no shell, the value being an argv list read by the wrapper table.
RUNS = ("ssh", "sh", "bash", "argv")


class PyWrapper(NamedTuple):
    """One entry of `python-wrappers` (a tuple: settings are JSON in the cache key)."""

    pattern: str
    arg: int | str  # the position of the command argument, or its keyword
    runs: str  # one of RUNS


def matches(pattern: str, dotted: str) -> bool:
    """Whether the dotted name of a call matches `pattern` (see the module docstring)."""
    want, have = pattern.split("."), dotted.split(".")
    if want[0] == "*" and len(want) > 1:
        rest = want[1:]
        return len(have) > len(rest) and _segments(rest, have[len(have) - len(rest) :])
    return len(want) == len(have) and _segments(want, have)


def _segments(want: list[str], have: list[str]) -> bool:
    return all(w in ("*", h) for w, h in zip(want, have, strict=True))


def last_names(wrappers: tuple[PyWrapper, ...]) -> frozenset[str]:
    """The names the wrappers' calls end with: what a file must hold to call one."""
    return frozenset(w.pattern.rsplit(".", 1)[-1] for w in wrappers)


def parse_entries(where: str, value: object) -> tuple[PyWrapper, ...]:
    """`python-wrappers` read from the configuration; ValueError says what is wrong."""
    if not isinstance(value, dict):
        raise ValueError(f"{where}: `python-wrappers` must be a table of pattern = {{arg, runs}}")
    found = []
    for pattern, entry in value.items():
        key = f"{where}: `python-wrappers.{pattern}`"
        segments = pattern.split(".")
        if not all(s == "*" or s.isidentifier() for s in segments) or all(
            s == "*" for s in segments
        ):
            raise ValueError(f"{key}: a pattern is a dotted name, `*` for a segment")
        if not isinstance(entry, dict) or set(entry) - {"arg", "runs"}:
            raise ValueError(f"{key} must be a table with `arg` and `runs`")
        arg, runs = entry.get("arg", 0), entry.get("runs")
        if isinstance(arg, bool) or not (
            (isinstance(arg, int) and arg >= 0) or (isinstance(arg, str) and arg.isidentifier())
        ):
            raise ValueError(f"{key}: `arg` is a position (0, 1...) or a keyword name")
        if runs not in RUNS:
            raise ValueError(f"{key}: `runs` must be one of {', '.join(RUNS)}")
        found.append(PyWrapper(pattern, arg, runs))
    return tuple(found)
