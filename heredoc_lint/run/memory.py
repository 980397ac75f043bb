"""The memory bound: what checking one input may cost, and the check held to it.

Checking an input (a file, standard input, an agent's command) may make the process
grow by ALLOWANCE and PER_BYTE bytes for each byte of the input, no more: past that the
input is refused with one line and the run fails (exit 2), as a file over the 10 MiB
read bound is.  So no input costs more than 100 bytes per byte beyond a fixed
allowance, whatever its shape: a dense command list, whose syntax tree alone costs
tree-sitter-bash 110 bytes per byte, or an f-string of 50,000 fields, which costs
Python's `ast` 581.  Real code stays well inside: of the 150 largest files of the
precision corpus (bench/bench_precision.py), the costliest took 32 MB (a 252 KB Python
test file, 128 bytes per byte).

The bound is kept by checking an input that might need more than the allowance in a
forked process held to it (forked.LimitedWorker, RLIMIT_DATA): when an allocation
fails there, Python raises MemoryError and a C library (tree-sitter, libcst) may crash,
and either way only that process ends.  Which inputs might: those with more than
ALLOWANCE / PER_TOKEN tokens (words, numbers, punctuation), each token priced at the
most one has cost (PER_TOKEN).  Real code is far cheaper per token, so most files, up
to about 60 KB of ordinary code, are checked in this process.  Where the limit cannot
be set (no /proc: not Linux) every input is checked here.

The limit counts what the worker maps during a call.  Memory it had freed before (after
a larger input, or this process's freed memory it was forked with) is reused uncounted:
a run's peak stays within the bound of its largest input, and what this process held
when it forked the worker.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # forked is imported only when a check needs the worker
    from types import ModuleType

    from heredoc_lint.run.forked import LimitedWorker, Lost

Result = TypeVar("Result")

ALLOWANCE = 64 * 1024 * 1024  # bytes any input may cost, however small
PER_BYTE = 100  # bytes more for each byte of it (issue 18 item 8)
# The most one token has cost to check, with room to spare: 2,900 to 3,540 bytes (from
# run to run) in an f-string of `{a}` fields; 840 to 970 for `$a$a...` in an ssh string;
# a nested `bash -c` layer does not multiply it (bench/bench_shapes.py --memory).
PER_TOKEN = 4_000


def _classes() -> bytes:
    """Each byte to its class: "a" a word character (as in a `\\w+` run), " " blank, "."
    any other: punctuation, a token on its own, or a byte of a character that is not
    ASCII (each such byte then counts as a token: the count errs on the safe side)."""
    table = bytearray(b"." * 256)
    for c in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_":
        table[c] = ord("a")
    for c in b" \t\n\r\v\f":
        table[c] = ord(" ")
    return bytes(table)


_CLASSES = _classes()
_MOST_TOKENS = ALLOWANCE // PER_TOKEN  # the tokens the allowance pays for
_CHUNK = 64 * 1024  # bytes counted at a time: a large input is found costly early
_MIB = 1024 * 1024
# Resident memory the worker's limit does not count: the pages of the libraries a check
# loads (tree-sitter-bash, libcst) are the files', not its data.  Its limit is that much
# lower, so that the process stays within the bound as its peak resident size counts it.
_UNCOUNTED = 16 * _MIB


def allowed(size: int) -> int:
    """Bytes of memory that checking an input of `size` bytes may take."""
    return ALLOWANCE + PER_BYTE * size


def refusal(size: int) -> str:
    """What to say of an input of `size` bytes that needed more than it was allowed."""
    return (
        f"not checked: it needs more memory than the {allowed(size) / _MIB:.0f} MiB "
        f"heredoc-lint allows for it ({ALLOWANCE // _MIB} MiB and {PER_BYTE} bytes "
        "per byte of input)"
    )


def limited() -> bool:
    """Whether this process runs under a data limit: a MemoryError is then the limit's,
    to be passed on, not a property of the input (Python's parser also raises it for a
    source too deeply nested to parse)."""
    import resource

    return resource.getrlimit(resource.RLIMIT_DATA)[0] != resource.RLIM_INFINITY


def exhausted(error: BaseException) -> bool:
    """Whether `error`, raised while checking under a data limit, is the limit's: a
    MemoryError, or the SystemError of a C library that returned from a failed
    allocation without setting one (tree-sitter 0.23, one run in eight on 10,000
    heredocs in ssh strings)."""
    return isinstance(error, (MemoryError, SystemError)) and limited()


def imported_outside_the_limit(
    name: str, first_use: Callable[[ModuleType], object] | None = None
) -> ModuleType:
    """The module `name`, imported with this process's data limit (a LimitedWorker's, in a
    check) lifted while it loads, and put back higher by what the import made the process
    hold: its memory is the program's, not the input's, and a library's mapping could
    fail under the limit.  For a large library that a check needs only now and then
    (libcst, for an f-string in a call): imported before every worker is forked, it would
    cost each run that forks one, 170 ms for libcst.  `first_use(module)`, called after
    the import (outside the limit too), does the library's own first-use work."""
    import importlib
    import sys

    module = sys.modules.get(name)
    if module is None:
        with _lifted():
            module = importlib.import_module(name)
            if first_use is not None:
                first_use(module)
    return module


@contextlib.contextmanager
def _lifted() -> Iterator[None]:
    """This process's data limit lifted inside, then put back higher by what it grew."""
    if not limited():
        yield
        return
    import resource

    from heredoc_lint.run.forked import data_held

    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    before = data_held()
    resource.setrlimit(resource.RLIMIT_DATA, (hard, hard))
    try:
        yield
    finally:
        grown = max(0, data_held() - before)
        lifted = soft + grown if hard == resource.RLIM_INFINITY else min(soft + grown, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (lifted, hard))


def tokens(data: bytes) -> int:
    """At least as many as the tokens of the UTF-8 text `data`: its words (runs of word
    characters) and its other characters that are not blank, one token each."""
    shape = data.translate(_CLASSES)
    # Every word starts the text or follows a blank or another token's last byte.
    runs = shape.count(b" a") + shape.count(b".a") + shape.startswith(b"a")
    return shape.count(b".") + runs


def costly(data: bytes) -> bool:
    """Whether checking the UTF-8 text `data` might cost more than the allowance: whether
    it holds more tokens than the allowance pays for at PER_TOKEN each."""
    most = _MOST_TOKENS
    # A token holds a byte that is not blank: most files stop here.
    if len(data) - data.count(b" ") - data.count(b"\n") <= most:
        return False
    count = 0
    for start in range(0, len(data), _CHUNK):
        count += tokens(data[start : start + _CHUNK])  # a word cut in two counts twice
        if count > most:
            return True
    return False


class Bound:
    """Runs checks held to the bound: each in this process, or in a worker process held
    to it (forked.LimitedWorker) when it might need more than the allowance.  The worker
    is forked at the first such check and serves the ones after it; `close` ends it.

    `prepare`, called once before the worker is first forked, imports what the checks
    would import when first needed: an import under the limit could fail (a library's
    mapping did), and its memory is the program's, not the input's."""

    def __init__(self, prepare: Callable[[], object] | None = None) -> None:
        self._worker: LimitedWorker | None = None
        self._prepare = prepare

    def __enter__(self) -> Bound:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(
        self,
        function: Callable[..., Result],
        args: tuple[Any, ...],
        data: bytes,
        parses: Callable[[], bool] | None = None,
    ) -> Result | Lost:
        """`function(*args)`, the check of the UTF-8 text `data`, held to what its size
        allows; Lost when it needed more (or the worker died otherwise: Lost.reason says
        how).  `parses()`, asked of an input that may be costly, says whether the check
        may parse it: one that will not (no call of interest in a Python file) costs no
        more than its read, and is checked here.  It is asked before the tokens are
        counted, which costs more than a prefilter's scan."""
        if (
            len(data) <= _MOST_TOKENS  # a token takes a byte
            or (parses is not None and not parses())
            or not costly(data)
        ):
            return function(*args)
        from heredoc_lint.run.forked import LimitedWorker, can_limit

        if not can_limit():
            return function(*args)
        if self._worker is None:
            if self._prepare is not None:
                self._prepare()
            self._worker = LimitedWorker()
        return self._worker.call(function, args, allowed(len(data)) - _UNCOUNTED)

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
