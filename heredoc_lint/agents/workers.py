"""The worker processes of `heredoc-lint serve`: a slow check holds up no other.

The server's main thread hands each request, in order of arrival, to a free worker: the
connection itself (SCM_RIGHTS over a Unix socket pair) with the hook's arguments and
input. The worker answers the client directly and says "done". With every worker busy
(a slow check), the main thread forks another, up to MAX_WORKERS; a worker left idle
for SPARE_IDLE seconds leaves, except the last one.

Why processes, forked from a main thread that never checks anything:

- Threads share one interpreter lock, and the hook's `--timeout` is a SIGALRM, which
  only a main thread receives; a worker is a process whose main thread does the check,
  so each request has its own budget, counted from when its check starts.
- A child forked while another thread is inside a check inherits the locks that thread
  held (Python 3.11's `functools.cached_property` holds a class-wide lock while it
  computes) and waits on them forever. The main thread only reads queues and sockets.
- A forked worker shares the server's imported modules copy-on-write; its first answers
  pay for the pages they touch (30-50 ms), so each worker warms up before it serves and
  stays for the next requests instead of one process per request.
- A worker that answered a request over BIG_REQUEST bytes leaves, so its memory goes
  back to the system.

The server waits for every worker it forked before it leaves, whichever way it leaves
(idle, new code, Ctrl-C, SIGTERM), and a worker ends the processes it started (the
memory-bound checker of heredoc_lint.run.forked) before it leaves: an orphan is re-parented
to PID 1, and in a container without an init nothing ever reaps it.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NoReturn

from heredoc_lint.agents.server import BIG_REQUEST, Request, respond

MAX_WORKERS = 8  # requests checked at once; more wait for a worker to be free
SPARE_IDLE = 60.0  # seconds a worker beyond the first stays without a request
_LENGTH = 8  # bytes of the length that heads a hand-off


@dataclass
class Worker:
    pid: int
    sock: socket.socket  # the server's end of the pair
    busy: bool = False
    big: bool = False  # the request it is answering is big: it leaves afterwards
    used: float = 0.0  # when it was last given a request (time.monotonic)


def _encode(request: Request) -> bytes:
    fields = [str(len(request.args)).encode()]
    fields += [arg.encode("utf-8", "surrogateescape") for arg in request.args]
    return b"\0".join([*fields, request.data])  # the input holds no NUL (the protocol's)


def _decode(payload: bytes) -> tuple[list[str], bytes]:
    count, rest = payload.split(b"\0", 1)
    parts = rest.split(b"\0", int(count))
    args = [part.decode("utf-8", "surrogateescape") for part in parts[:-1]]
    return args, parts[-1]


def _receive_exactly(sock: socket.socket, size: int, start: bytes = b"") -> bytes | None:
    data = bytearray(start)
    while len(data) < size:
        chunk = sock.recv(min(size - len(data), 1 << 20))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def _receive(sock: socket.socket) -> Request | None:
    """The next request handed to this worker, or None when the server is gone."""
    head, fds, _, _ = socket.recv_fds(sock, _LENGTH, 1)
    if not head:
        return None
    full = _receive_exactly(sock, _LENGTH, head)
    if full is None or len(fds) != 1:
        return None
    payload = _receive_exactly(sock, int.from_bytes(full, "big"))
    if payload is None:
        return None
    args, data = _decode(payload)
    return Request(socket.socket(fileno=fds[0]), args, data)


def _work(sock: socket.socket, warm_up: Callable[[], None]) -> None:
    """A worker's life: answer what the server hands over, one at a time."""
    warm_up()  # touch the pages an answer needs now, not while a client waits
    while True:
        request = _receive(sock)
        if request is None:
            return
        big = len(request.data) >= BIG_REQUEST
        respond(request)
        sock.sendall(b"d")
        if big:
            return  # its memory goes back to the system with it


class Pool:
    """The workers of one server, driven from the server's main thread."""

    def __init__(self, inherited: Sequence[socket.socket], warm_up: Callable[[], None]) -> None:
        self.inherited = inherited  # the server's sockets, closed in each worker
        self.warm_up = warm_up
        self.workers: list[Worker] = []

    def spawn(self) -> Worker:
        ours, theirs = socket.socketpair()
        # Held off until the worker is recorded (here) or in its own `try` (there): one
        # that came in between would leave a worker nobody waits for.
        signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
        try:
            pid = os.fork()
            if pid == 0:  # the worker: never returns
                self._worker_life(ours, theirs)
            theirs.close()
            worker = Worker(pid, ours, used=time.monotonic())
            self.workers.append(worker)
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
        return worker

    def _worker_life(self, ours: socket.socket, theirs: socket.socket) -> NoReturn:
        status = 0
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the server's handler
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
            ours.close()
            for sock in [*self.inherited, *(w.sock for w in self.workers)]:
                sock.close()
            _work(theirs, self.warm_up)
        except BaseException:
            status = 1
        finally:
            forked = sys.modules.get("heredoc_lint.run.forked")
            if forked is not None:  # it checked a costly input: end what it started
                with contextlib.suppress(BaseException):
                    forked.leaving()
                    forked.end_limited_workers()
            os._exit(status)

    def _drop(self, worker: Worker) -> None:
        worker.sock.close()
        _wait(worker.pid)  # it leaves once its end of the pair is closed
        self.workers.remove(worker)  # only now: SIGTERM meanwhile waits for it too

    def collect(self, wait: float | None = 0) -> int:
        """Free the workers that finished (waiting up to `wait` seconds for one, None:
        as long as it takes); how many finished."""
        busy = [w for w in self.workers if w.busy]
        if not busy:
            return 0
        ready, _, _ = select.select([w.sock for w in busy], [], [], wait)
        for worker in busy:
            if worker.sock not in ready:
                continue
            try:
                done = worker.sock.recv(1)
            except OSError:
                done = b""
            worker.busy = False
            if not done or worker.big:  # it died, or leaves after a big request
                self._drop(worker)
        return len(ready)

    def busy(self) -> int:
        return sum(w.busy for w in self.workers)

    def hand(self, request: Request) -> None:
        """Give `request` to a free worker (forking one, or waiting for one, if none)."""
        self.collect(0)
        while True:
            worker = next((w for w in self.workers if not w.busy), None)
            if worker is None and len(self.workers) < MAX_WORKERS:
                worker = self.spawn()
            if worker is None:
                self.collect(None)
                continue
            payload = _encode(request)
            try:
                head = len(payload).to_bytes(_LENGTH, "big")
                socket.send_fds(worker.sock, [head], [request.conn.fileno()])
                worker.sock.sendall(payload)
            except OSError:  # it died between two requests: another one takes it
                self._drop(worker)
                continue
            worker.busy, worker.big = True, len(request.data) >= BIG_REQUEST
            worker.used = time.monotonic()
            request.conn.close()  # the worker has its own copy
            return

    def trim(self) -> None:
        """Let idle workers beyond the first leave."""
        now = time.monotonic()
        for worker in list(self.workers[1:]):
            if not worker.busy and now - worker.used > SPARE_IDLE:
                self._drop(worker)

    def close(self, stop: bool = False) -> None:
        """End the workers and wait for them: each leaves after the request it is
        answering, or at once (SIGTERM) with `stop`."""
        for worker in self.workers:
            worker.sock.close()
            if stop:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(worker.pid, signal.SIGTERM)
        while self.workers:
            _wait(self.workers[0].pid)
            del self.workers[0]


_HELD = {signal.SIGINT, signal.SIGTERM}


def _wait(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
