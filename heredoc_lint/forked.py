"""Runs one function over many items in forked processes, this one among them.

`map_forked(work, items, processes)` forks `processes - 1` children that start with
everything this process has imported and built (the items included: nothing is sent to
them), and works through the items itself too, so `--jobs 2` keeps exactly two cores
busy.  Every process takes the next item from one pipe of tokens, written before the
fork, so the items are taken in the order given (put the costly ones first) and the
processes finish together.  A child says which item it starts on and sends back each
result as soon as it has it; a child that dies costs only the item it was on, which
comes back as `Lost` (what was left of its share is done here).

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
from dataclasses import dataclass, field
from typing import Any, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

# A token names one share of the items.  All of them are written before the fork, so
# they must fit in the pipe at once: 1,024 four-byte tokens fill one page, the smallest
# buffer a pipe has on Linux.  More items than that: token t stands for items t, t+T,
# t+2T... (T tokens), so each share holds big and small items alike.
MAX_TOKENS = 1024
_TOKEN = 4
_HEADER = 8  # a record: an item's position and the length of its result's pickle


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
    children: list[_Child] = []
    try:
        sys.stdout.flush()  # a child must not write out this process's buffers again
        sys.stderr.flush()
        for _ in range(processes - 1):
            try:
                children.append(_fork(work, items, tokens, token_read, children))
            except OSError:  # no more processes to be had: the ones there are do it all
                break
        done: set[int] = set()
        for position in _positions(token_read, len(items), tokens):
            result = work(items[position])
            done.add(position)
            yield position, result
            for child in children:
                for got in child.take():
                    done.add(got[0])
                    yield got
        os.close(token_read)
        token_read = -1
        for got in _drain(children):
            done.add(got[0])
            yield got
        for child in children:
            reason = child.wait()
            if child.current is not None:  # it died on this one
                done.add(child.current)
                yield child.current, Lost(reason or "ended before sending its result")
        # The rest of a dead child's share: never started, so done here.
        for position in range(len(items)):
            if position not in done:
                yield position, work(items[position])
    finally:
        if token_read >= 0:
            os.close(token_read)
        for child in children:  # stopped early: by an error or an interrupt here
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
    """The positions of the items, one share at a time, as this process takes tokens.
    (A read of a pipe is atomic: each one takes a whole token.)"""
    while token := os.read(token_read, _TOKEN):
        yield from range(int.from_bytes(token, "little"), count, tokens)


def _drain(children: list[_Child]) -> Iterator[tuple[int, Any]]:
    """Every result still to come from `children`, from whichever has one, up to their
    ends: a child never waits on a full pipe while this one waits on another."""
    import select

    open_ = {child.results: child for child in children}
    while open_:
        ready, _, _ = select.select(list(open_), [], [])
        for fd in ready:
            yield from open_[fd].take()
            if open_[fd].finished:
                del open_[fd]


@dataclass
class _Child:
    pid: int
    results: int  # the read end of its result pipe (non-blocking)
    buffer: bytearray = field(default_factory=bytearray)
    current: int | None = None  # the position it said it started on and has not sent
    finished: bool = False  # its pipe reached its end
    ended: str | None = None  # how it ended, once waited for

    def take(self) -> Iterator[tuple[int, Any]]:
        """The results that have arrived."""
        while not self.finished:
            try:
                chunk = os.read(self.results, 1 << 16)
            except BlockingIOError:
                return
            self.finished = not chunk
            self.buffer += chunk
            yield from self._complete()

    def _complete(self) -> Iterator[tuple[int, Any]]:
        while len(self.buffer) >= _HEADER:
            position = int.from_bytes(self.buffer[:4], "little")
            size = int.from_bytes(self.buffer[4:_HEADER], "little")
            if size == _STARTED:
                self.current = position
                del self.buffer[:_HEADER]
                continue
            if len(self.buffer) < _HEADER + size:
                return
            result = pickle.loads(self.buffer[_HEADER : _HEADER + size])
            del self.buffer[: _HEADER + size]
            self.current = None
            yield position, result

    def wait(self) -> str:
        """How the child ended: "" for a clean exit (or one that cannot be known), else
        what went wrong."""
        if self.ended is None:
            self.ended = ""
            os.close(self.results)
            with contextlib.suppress(ChildProcessError):  # SIGCHLD ignored: reaped already
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
        try:
            name = signal.Signals(number).name
        except ValueError:  # a real-time signal
            name = f"SIGRTMIN+{number - signal.SIGRTMIN}"
        return f"was killed by signal {number} ({name})"
    code = os.waitstatus_to_exitcode(status)
    return f"exited with status {code}" if code else ""


def _fork(
    work: Callable[[Item], Result],
    items: Sequence[Item],
    tokens: int,
    token_read: int,
    others: list[_Child],
) -> _Child:
    results_read, results_write = os.pipe()
    _widen(results_write)
    parent = os.getpid()
    # Ctrl-C must not land between the fork and the child's own `try`: the child would
    # run this process's clean-up and stop its siblings.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pid = os.fork()
    except OSError:
        os.close(results_read)
        os.close(results_write)
        raise
    finally:
        if os.getpid() == parent:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if pid:
        os.close(results_write)
        os.set_blocking(results_read, False)
        return _Child(pid, results_read)
    code = 1
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        os.close(results_read)
        for other in others:
            os.close(other.results)  # the parent must be the only reader of each
        _die_with_parent(parent)
        for position in _positions(token_read, len(items), tokens):
            _write_all(results_write, _header(position, _STARTED))
            data = pickle.dumps(work(items[position]), pickle.HIGHEST_PROTOCOL)
            _write_all(results_write, _header(position, len(data)) + data)
        code = 0
    except (BrokenPipeError, KeyboardInterrupt):
        pass  # the parent is gone, or stops the run: nobody wants the rest
    except BaseException:
        import traceback

        traceback.print_exc()  # the parent reports the item as lost, this says why
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


_STARTED = 0xFFFFFFFF  # in place of a result's length: the child starts on that item


def _header(position: int, size: int) -> bytes:
    return position.to_bytes(4, "little") + size.to_bytes(4, "little")


def _widen(fd: int) -> None:
    """Room for many results in a child's pipe (Linux: up to 1 MiB), so that a child
    seldom waits for this process to finish a big file before it can send."""
    with contextlib.suppress(ImportError, AttributeError, OSError):
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)


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
