"""Runs one function over many items in forked processes, this one among them.

`map_forked(work, items, processes)` forks `processes - 1` children that start with
everything this process has imported and built (the items included: nothing is sent to
them), and works through the items itself too, so `--jobs 2` keeps exactly two cores
busy.  Every process takes the next item from one pipe of tokens, written before the
fork, so the items are taken in the order given (put the costly ones first) and the
processes finish together.  A child says which item it starts on and sends back each
result as soon as it has it; a child that dies costs only the item it was on, which
comes back as `Lost` (what was left of its share is done here).

`LimitedWorker` is one forked process that does calls for this one, each held to a
memory limit of its own: heredoc_lint.run.memory checks an input that might cost more than
its bound there, so that running out of memory ends that process, not this one.

No process forked here outlives the one that forked it: each is waited for on every
way out, an exception, Ctrl-C or SIGTERM (a process with children turns SIGTERM into
`Terminated`, so that its `finally` blocks run), and a forked child ends the
LimitedWorkers it started before it leaves.  An orphan would be re-parented to PID 1,
and in a container without an init nothing ever reaps it.

Nothing here uses concurrent.futures, which alone costs 26 ms to import.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pickle
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar

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
    out_of_memory: bool = False  # a LimitedWorker's: it died at (or near) its memory limit


class Terminated(SystemExit):
    """SIGTERM, in a process that forked children here: it leaves with the status a shell
    gives a process SIGTERM killed (143), once its `finally` blocks have ended them."""


def _terminated(signum: int, frame: object) -> None:
    # Once: a second SIGTERM must not cut short the clean-up the first one started.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise Terminated(128 + signum)


_HELD = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM held off while a child is forked and recorded: one that came in
    between would leave a child nobody knows of.  A forked child lets them in once it
    is in its own `try` (else it would run this process's clean-up); this process turns
    SIGTERM into `Terminated` from now on, unless it handles SIGTERM already."""
    parent = os.getpid()
    with contextlib.suppress(ValueError):  # not the main thread: a signal cannot be set
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _terminated)
    signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        if os.getpid() == parent:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)


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
                with _signals_held():
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
        with _signals_held():  # a second Ctrl-C or a SIGTERM must not cut this short
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
            if self.results >= 0:
                os.close(self.results)
                self.results = -1
            ended = ""
            with contextlib.suppress(ChildProcessError):  # SIGCHLD ignored: reaped already
                _, status = os.waitpid(self.pid, 0)
                ended = _ending(status)
            self.ended = ended  # only now: a wait cut short (Ctrl-C) is done again
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
    pid = _fork_or_close(results_read, results_write)
    if pid:
        os.close(results_write)
        os.set_blocking(results_read, False)
        return _Child(pid, results_read)

    def share() -> int:
        os.close(results_read)
        for other in others:
            os.close(other.results)  # the parent must be the only reader of each
        _die_with_parent(parent)
        for position in _positions(token_read, len(items), tokens):
            _write_all(results_write, _header(position, _STARTED))
            data = pickle.dumps(work(items[position]), pickle.HIGHEST_PROTOCOL)
            _write_all(results_write, _header(position, len(data)) + data)
        return 0

    _live_child(share)


def _live_child(body: Callable[[], int]) -> NoReturn:
    """A forked child's life: `body`, then the end of the process with its status (1
    when it raised: the parent reports the child lost, the traceback says why).  The
    LimitedWorkers it started end with it."""
    code = 1
    try:
        _forget_inherited()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # until it forks children itself
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
        code = body()
    except (BrokenPipeError, KeyboardInterrupt, Terminated):
        pass  # the parent is gone, or stops the run: nobody wants the rest
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        leaving()  # the parent's SIGTERM (the run stops) must not cut the rest short
        try:
            end_limited_workers()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def leaving() -> None:
    """Neither Ctrl-C nor SIGTERM interrupts this process from now on: it is on its way
    out, and ends its children first.  A signal that came just before is let through
    here (its handler may run at any point until it is ignored) and ignored."""
    while True:
        try:
            signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
            for signum in _HELD:
                signal.signal(signum, signal.SIG_IGN)
            return
        except (KeyboardInterrupt, SystemExit):
            continue


def _fork_or_close(*pipe: int) -> int:
    """os.fork() (in `_signals_held`); `pipe` closed if it fails."""
    try:
        return os.fork()
    except OSError:
        for fd in pipe:
            os.close(fd)
        raise


def can_limit() -> bool:
    """Whether a LimitedWorker can hold a process to a memory limit here (Linux: the data
    size is read from /proc, and RLIMIT_DATA counts every private writable mapping)."""
    return can_fork() and os.path.exists("/proc/self/status")


class LimitedWorker:
    """A forked process that calls functions for this one, one call at a time, each held
    to a memory limit of its own: RLIMIT_DATA, `extra` bytes above what the process
    holds when the call starts.  When an allocation fails there, Python raises
    MemoryError and a C library (tree-sitter, libcst) may crash; either way only that
    process ends, and the call is Lost.

    It is forked at the first call, from this process as it is then, and serves the
    calls after it: a fork of a process grown large costs 5-20 ms more than the call
    (its pages are copied as the child writes them).  One that died is replaced at the
    next call.  Functions and arguments go to it pickled: module-level functions.  Use
    it in one process: a forked copy of this one starts a worker of its own."""

    def __init__(self) -> None:
        self._child: _Limited | None = None

    def __enter__(self) -> LimitedWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(
        self, function: Callable[..., Result], args: tuple[Any, ...], extra: int
    ) -> Result | Lost:
        """`function(*args)` in the worker, with `extra` bytes of memory to spend; Lost
        when the worker died on it (`out_of_memory`: at or near that limit).  `function`
        must not raise, except MemoryError."""
        child = self._child
        if child is None or child.owner != os.getpid():
            with _signals_held():
                child = self._child = _Limited.fork()
        request = pickle.dumps((function, args, extra), pickle.HIGHEST_PROTOCOL)
        child.busy = True
        with contextlib.suppress(BrokenPipeError):
            _write_all(child.requests, len(request).to_bytes(8, "little") + request)
        reply = child.reply()
        child.busy = False
        if reply is None or reply[0] != _DONE:
            self._child = None
            lost = child.end(extra)
            if reply is not None or child.stuck:  # it said so before it left, or it hung
                lost = Lost("ran out of the memory it was given", out_of_memory=True)
            return lost
        result: Result = pickle.loads(reply[1])
        return result

    def close(self) -> None:
        """End the worker; one stopped in the middle of a call (Ctrl-C, the hook's clock)
        is killed."""
        child = self._child
        if child is not None and child.owner == os.getpid():
            with _signals_held():  # a second Ctrl-C must not cut this short
                child.close()
        self._child = None


def end_limited_workers() -> None:
    """End every LimitedWorker process this process started and has not ended: what a
    process that leaves with os._exit does first (a forked child, a server's worker)."""
    for child in list(_LIMITED):
        if child.owner == os.getpid():
            child.close()


def _forget_inherited() -> None:
    """In a forked child: the parent's LimitedWorkers are not its own to end; its copies
    of their pipes are closed (a worker sees the end of its requests only when every
    copy of their write end is closed)."""
    for child in list(_LIMITED):
        if child.owner != os.getpid():
            _LIMITED.remove(child)
            for fd in (child.requests, child.replies):
                if fd >= 0:
                    os.close(fd)


_DONE = 0  # a reply's status: the call returned, its result follows
_NO_MEMORY = 1  # the call ran out of memory (memory.exhausted); the worker then leaves


@dataclass(eq=False)  # each is itself: _LIMITED.remove must not take another
class _Limited:
    """The parent's side of a LimitedWorker's process."""

    pid: int
    owner: int  # the process that forked it
    requests: int  # the write end of its requests pipe
    replies: int  # the read end of its replies pipe
    resident: int = 0  # bytes it held when the current call started
    busy: bool = False  # on a call whose reply has not been read
    ended: Lost | None = None  # how it ended, once waited for
    stuck: bool = False  # killed for spinning at its memory limit (_Limited.spinning)
    _at_limit_since: float | None = None  # its CPU seconds when first seen at its limit

    @classmethod
    def fork(cls) -> _Limited:
        """A new worker (in `_signals_held`), recorded in _LIMITED."""
        requests_read, requests_write = os.pipe()
        replies_read, replies_write = os.pipe()
        sys.stdout.flush()  # the child must not write out this process's buffers again
        sys.stderr.flush()
        parent = os.getpid()
        _prctl()  # found here, once, not in the child
        pid = _fork_or_close(requests_read, requests_write, replies_read, replies_write)
        if pid:
            os.close(requests_read)
            os.close(replies_write)
            child = cls(pid, parent, requests_write, replies_read)
            _LIMITED.append(child)
            return child

        def serve() -> int:
            os.close(requests_write)
            os.close(replies_read)
            _die_with_parent(parent)
            return _serve(requests_read, replies_write)

        _live_child(serve)

    def reply(self) -> tuple[int, bytes] | None:
        """The status and data of the reply to the current call; None when the worker
        ended before it sent one."""
        head = _read_exactly(self.replies, _RESIDENT)
        if head is None:
            return None
        self.resident = int.from_bytes(head, "little")
        if not self._replies_or_kill():
            return None
        head = _read_exactly(self.replies, 9)
        if head is None:
            return None
        data = _read_exactly(self.replies, int.from_bytes(head[1:], "little"))
        return None if data is None else (head[0], data)

    def _replies_or_kill(self) -> bool:
        """Wait until its reply starts to come (True), or kill it if it spins at its memory
        limit meanwhile (False)."""
        import select

        self._at_limit_since = None
        while not select.select([self.replies], [], [], _WATCH)[0]:
            if self.spinning():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
                self.stuck = True
                return False
        return True

    def spinning(self) -> bool:
        """Whether it has spent _SPINNING seconds of CPU within _AT_LIMIT bytes of its data
        limit since it was first seen there, without replying.  CPython can loop there
        for ever: as it unwinds to a handler that needs the offset of the instruction it
        was on, it pushes that offset as an int, and when the int cannot be allocated (an
        offset over 256, not a cached one) it unwinds to the same handler again (ceval.c,
        exception_unwind, 3.11 to 3.13; seen in one hook run in ten on 200 KB of `$a`).
        Counted in CPU time, so that a loaded machine does not make it early."""
        try:
            data = data_held(self.pid)
            with open(f"/proc/{self.pid}/limits", encoding="ascii") as limits:
                limit = next(line.split()[3] for line in limits if line.startswith("Max data size"))
            with open(f"/proc/{self.pid}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, StopIteration):  # gone: its end is in the pipe
            return False
        if limit == "unlimited" or data < int(limit) - _AT_LIMIT:
            self._at_limit_since = None
            return False
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
        if self._at_limit_since is None:
            self._at_limit_since = cpu
        return cpu - self._at_limit_since >= _SPINNING

    def end(self, extra: int) -> Lost:
        """Close its pipes and wait for it; how it ended, as a Lost of a call with `extra`
        bytes to spend: near that limit, a crash is taken for want of memory."""
        if self.ended is not None:
            return self.ended
        for fd in (self.requests, self.replies):
            if fd >= 0:
                os.close(fd)
        self.requests = self.replies = -1
        try:
            _, status, usage = os.wait4(self.pid, 0)
        except ChildProcessError:  # SIGCHLD ignored: reaped already
            lost = Lost("ended before sending its result")
        else:
            # A C library that gets no memory crashes (tree-sitter: SIGSEGV, libcst:
            # SIGABRT); a crash far below the limit is not that.  ru_maxrss: KiB, its
            # peak this call.
            near = extra > 0 and usage.ru_maxrss * 1024 - self.resident >= extra // 2
            reason = _ending(status) or "ended before sending its result"
            lost = Lost(reason, out_of_memory=near)
        self.ended = lost  # only now: a wait cut short (Ctrl-C) is done again
        with contextlib.suppress(ValueError):
            _LIMITED.remove(self)
        return lost

    def close(self) -> None:
        """End it; killed if it is in the middle of a call (Ctrl-C, the hook's clock)."""
        if self.busy and self.ended is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        self.end(0)


_LIMITED: list[_Limited] = []  # the LimitedWorkers' processes not yet ended
_WATCH = 0.25  # seconds between looks at a worker that has not replied
_AT_LIMIT = 2 * 1024 * 1024  # bytes below its limit that count as at it: an allocation
# that fails there asks for more (CPython's arena, malloc's fallback: 1 MiB each)
_SPINNING = 1.0  # CPU seconds a worker may spend at its limit without replying


def _serve(requests: int, replies: int) -> int:
    """The worker's loop: each call, held to its limit, until the requests end or a call
    runs out of memory (then the exit status is 0 too: it said so)."""
    import faulthandler
    import gc
    import resource

    from heredoc_lint.run.memory import exhausted

    faulthandler.disable()  # a crash is the parent's to report, in one line
    gc.freeze()  # its collections need not walk (and copy) all it has of the parent's

    while (head := _read_exactly(requests, 8)) is not None:
        data = _read_exactly(requests, int.from_bytes(head, "little"))
        if data is None:
            break
        function, args, extra = pickle.loads(data)
        _forget_peak()
        _write_all(replies, _resident().to_bytes(_RESIDENT, "little"))
        # What it writes on stderr is held back until it returns: when it runs out of
        # memory, Rust's "memory allocation of 120 bytes failed" is not a second line.
        said = os.memfd_create("heredoc-lint-stderr")
        stderr = os.dup(2)
        os.dup2(said, 2)
        limit = resource.getrlimit(resource.RLIMIT_DATA)
        status, out = _DONE, b""
        try:
            _limit_data(extra)
            out = pickle.dumps(function(*args), pickle.HIGHEST_PROTOCOL)
        except (MemoryError, SystemError) as error:
            if not exhausted(error):  # a SystemError can be a C library's own bug
                raise
            status = _NO_MEMORY
        finally:
            resource.setrlimit(resource.RLIMIT_DATA, limit)
            sys.stderr.flush()
            os.dup2(stderr, 2)
            os.close(stderr)
        if status == _DONE:
            _write_all(2, os.pread(said, os.fstat(said).st_size, 0))
        os.close(said)
        _write_all(replies, bytes([status]) + len(out).to_bytes(8, "little") + out)
        if status == _NO_MEMORY:
            break  # its heap may be left in pieces: the next call gets a fresh worker
    return 0


def _read_exactly(fd: int, size: int) -> bytes | None:
    """`size` bytes from `fd`, or None when it ends first."""
    chunks = []
    while size > 0:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _resident() -> int:
    """Bytes of this process's memory that are resident."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _limit_data(extra: int) -> None:
    """Hold this process's data (heap and private mappings) to what it has now and
    `extra` bytes more: an allocation past it fails (MemoryError in Python)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    limit = data_held() + extra
    for other in (soft, hard):
        if other != resource.RLIM_INFINITY:
            limit = min(limit, other)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))


def data_held(pid: int | str = "self") -> int:
    """Bytes of the data (heap and private mappings) of this process (or process `pid`):
    what RLIMIT_DATA counts."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    return 0


_RESIDENT = 8  # bytes of the resident size a LimitedWorker sends as a call starts


def _forget_peak() -> None:
    """Start this process's peak resident size (ru_maxrss) again from now (Linux 4.0)."""
    with contextlib.suppress(OSError), open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")


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
    prctl = _prctl()
    if prctl is not None:
        prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    # else not Linux: it stops at its next result, on the broken pipe
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


@functools.lru_cache(maxsize=1)
def _prctl() -> Callable[[int, int], int] | None:
    """libc's prctl, found before a fork: importing ctypes in each child costs 3 ms."""
    try:
        import ctypes

        prctl: Callable[[int, int], int] = ctypes.CDLL(None).prctl
    except (OSError, AttributeError):
        return None
    return prctl
