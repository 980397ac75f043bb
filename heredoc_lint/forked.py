"""Runs one function over many items in forked processes, this one among them.

`map_forked(work, items, processes)` forks `processes - 1` children that start with
everything this process has imported and built (the items included: nothing is sent to
them), and works through the items itself too, so `--jobs 2` keeps exactly two cores
busy.  Every process takes the next item from one pipe of tokens, written before the
fork, so the items are taken in the order given (put the costly ones first) and the
processes finish together.  A child sends back each result as soon as it has it; a
child that dies costs only the item it was on, which comes back as `Lost`.

Nothing here is imported by a run that checks one file: concurrent.futures alone costs
26 ms to import.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

# A token names one share of the items.  All of them are written before the fork, so
# they must fit in the pipe at once: 1,024 four-byte tokens fill one page, the smallest
# buffer a pipe has on Linux.  More items than that: token t stands for items t, t+T,
# t+2T... (T tokens), so each share holds big and small items alike.
MAX_TOKENS = 1024
_TOKEN = 4
_HEADER = 8  # a result: the item's position and the length of its pickle, then the pickle


@dataclass(frozen=True)
class Lost:
    """An item whose worker process died while it was on it."""

    reason: str  # "was killed by signal 11 (SIGSEGV)", "exited with status 1"


def can_fork() -> bool:
    return hasattr(os, "fork")


def map_forked(
    work: Callable[[Item], Result], items: Sequence[Item], processes: int
) -> Iterator[tuple[int, Result | Lost]]:
    """(position in `items`, `work(item)`) for every item, in the order they are done.

    `work` must not raise.  This process must not run threads (it forks), and it checks
    items between collecting the others' results, so what the caller does with each
    result should be quick."""
    tokens = min(len(items), MAX_TOKENS)
    token_read = _token_pipe(tokens)
    if token_read is None:  # no such pipe on Linux or macOS: this process does all
        yield from ((i, work(item)) for i, item in enumerate(items))
        return
    children: dict[int, _Child] = {}
    try:
        sys.stdout.flush()  # a child must not write out this process's buffers again
        sys.stderr.flush()
        for _ in range(processes - 1):
            try:
                child = _fork(work, items, tokens, token_read, children)
            except OSError:  # no more processes to be had: the ones there are do it all
                break
            children[child.pid] = child
        done: set[int] = set()
        for position in _positions(token_read, len(items), tokens):
            result = work(items[position])
            done.add(position)
            yield position, result
            for child in children.values():
                for got in child.take(block=False):
                    done.add(got[0])
                    yield got
        os.close(token_read)
        token_read = -1
        for child in children.values():
            for got in child.take(block=True):
                done.add(got[0])
                yield got
        reasons = [child.wait() for child in children.values()]
        died = next((reason for reason in reasons if reason), "ended before sending it")
        for position in range(len(items)):
            if position not in done:
                yield position, Lost(died)
    finally:
        if token_read >= 0:
            os.close(token_read)
        for child in children.values():  # stopped early: by an error or an interrupt here
            child.stop()


def _token_pipe(tokens: int) -> int | None:
    """The read end of a pipe holding `tokens` tokens and then its end, or None when they
    do not fit in it at once."""
    data = b"".join(t.to_bytes(_TOKEN, "little") for t in range(tokens))
    token_read, token_write = os.pipe()
    os.set_blocking(token_write, False)  # a pipe too small for the tokens must not hang
    try:
        written = os.write(token_write, data)
    except BlockingIOError:
        written = 0
    finally:
        os.close(token_write)  # the readers see the end once the tokens are taken
    if written < len(data):
        os.close(token_read)
        return None
    return token_read


def _positions(token_read: int, count: int, tokens: int) -> Iterator[int]:
    """The positions of the items, one share at a time, as this process takes tokens."""
    while token := os.read(token_read, _TOKEN):
        if len(token) != _TOKEN:  # reads of a pipe are atomic: never seen
            raise RuntimeError("a token was split")
        yield from range(int.from_bytes(token, "little"), count, tokens)


@dataclass
class _Child:
    pid: int
    results: int  # the read end of its result pipe
    buffer: bytearray
    ended: str | None = None  # how it ended, once waited for

    def take(self, block: bool) -> Iterator[tuple[int, Any]]:
        """The results that have arrived; with `block`, all of them, up to its end."""
        os.set_blocking(self.results, block)
        while True:
            try:
                chunk = os.read(self.results, 1 << 16)
            except BlockingIOError:
                chunk = None
            if chunk:
                self.buffer += chunk
            yield from self._complete()
            if not chunk:
                return

    def _complete(self) -> Iterator[tuple[int, Any]]:
        while len(self.buffer) >= _HEADER:
            position = int.from_bytes(self.buffer[:4], "little")
            size = int.from_bytes(self.buffer[4:_HEADER], "little")
            if len(self.buffer) < _HEADER + size:
                return
            result = pickle.loads(self.buffer[_HEADER : _HEADER + size])
            del self.buffer[: _HEADER + size]
            yield position, result

    def wait(self) -> str:
        """How the child ended: "" for a clean exit, else what went wrong."""
        if self.ended is None:
            os.close(self.results)
            _, status = os.waitpid(self.pid, 0)
            self.ended = _ending(status)
        return self.ended

    def stop(self) -> None:
        if self.ended is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)
            self.wait()


def _ending(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        return f"was killed by signal {number} ({signal.Signals(number).name})"
    code = os.waitstatus_to_exitcode(status)
    return f"exited with status {code}" if code else ""


def _fork(
    work: Callable[[Item], Result],
    items: Sequence[Item],
    tokens: int,
    token_read: int,
    others: dict[int, _Child],
) -> _Child:
    results_read, results_write = os.pipe()
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        os.close(results_read)
        os.close(results_write)
        raise
    if pid:
        os.close(results_write)
        return _Child(pid, results_read, bytearray())
    code = 1
    try:
        os.close(results_read)
        for other in others.values():
            os.close(other.results)  # the parent must be the only reader of each
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: the parent reports it
        _die_with_parent(parent)
        for position in _positions(token_read, len(items), tokens):
            data = pickle.dumps(work(items[position]), pickle.HIGHEST_PROTOCOL)
            header = position.to_bytes(4, "little") + len(data).to_bytes(4, "little")
            _write_all(results_write, header + data)
        code = 0
    except BrokenPipeError:
        pass  # the parent is gone: nobody wants the rest
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _die_with_parent(parent: int) -> None:
    """A child whose parent was killed (`kill -9`) would go on checking files nobody
    reads: ask Linux to kill it with its parent."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: it stops at its next result, on the broken pipe
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
