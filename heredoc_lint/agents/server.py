"""`heredoc-lint serve`: a resident `heredoc-lint hook`, answered for a bash client.

A hook runs before every command an agent issues. Started per call, Python alone takes
10-35 ms and our imports another 50, against 5 ms for `shellcheck -`. This server keeps
everything imported and answers `heredoc-lint-hook` (bin/heredoc-lint-hook: bash, whose
start costs 1 ms) with exactly what `heredoc-lint hook` would print. The client starts
the server when none answers, and runs the Python hook for that one call.

Protocol, over one TCP connection to 127.0.0.1 (bash can open TCP, not Unix sockets):

    client -> CLIENT_SECRET \\0
    server -> SERVER_SECRET \\0            (or it closes: wrong secret, or new code on disk)
    client -> ARGC \\0 ARG \\0 ... then the hook's stdin, then \\0 (JSON holds no NUL)
    server -> STATUS \\0 STDERR \\0 LENGTH \\0 STDOUT, and closes

The state file (`--state`: mode 0600 in a 0700 directory) holds `PORT CLIENT_SECRET
SERVER_SECRET PID`, fresh for each server. The client secret keeps other local users
out; the server secret proves to the client that it talks to the server that wrote the
file, not to a process that took the port after that server died (the client sends its
command only after that proof).

Each connection is read in a thread of its own, so a connection that sends nothing (or
slowly) holds up no other; before the client secret it has a second and 32 bytes. The
main thread hands the requests, in order of arrival, to worker processes
(agents/workers.py): each answers one request at a time with the hook's own
`--timeout` (SIGALRM, counted from the start of its check), and a slow check holds up
no other. The server exits after
`--idle` seconds without a request, on SIGTERM, and when its code or parser changed on
disk (an upgrade, an edit): a connection is checked against the files on disk unless
they were checked in the last half second (0.5 ms), so no answer comes from code that
changed before that.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import queue
import secrets
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from heredoc_lint.cli.options import Opt, UsageError, parse

if TYPE_CHECKING:
    from heredoc_lint.agents.workers import Pool

DEFAULT_IDLE = 3600.0  # seconds without a request before the server exits
HANDSHAKE_TIMEOUT = 1.0  # seconds a connection has to send the client secret
SEND_TIMEOUT = 10.0  # seconds a client has to take its answer
RECHECK_AFTER = 0.5  # seconds a check of the code on disk holds
MAX_READERS = 64  # connections read at once; more are closed (those clients fall back)


class ServeError(Exception):
    """Why the server cannot start: one line."""


@dataclass(frozen=True)
class Secrets:
    client: str
    server: str

    @staticmethod
    def fresh() -> Secrets:
        return Secrets(secrets.token_hex(16), secrets.token_hex(16))


def code_stamp() -> tuple[tuple[str, int, int, int], ...]:
    """Size, time and inode of each file of this package and of the parser it loads
    (tree-sitter, tree-sitter-bash): an upgrade or an edit changes it (0.5 ms)."""
    import tree_sitter
    import tree_sitter_bash

    package = Path(__file__).resolve().parent.parent
    paths = [
        os.path.join(directory, name)
        for directory, _, names in os.walk(package)
        for name in names
        if name.endswith(".py")
    ]
    for module in (tree_sitter, tree_sitter_bash):
        init = Path(module.__file__ or "").resolve()
        if init.name != "__init__.py":  # a lone module, never its whole directory
            paths.append(str(init))
            continue
        paths += [str(p) for p in init.parent.iterdir() if p.suffix in (".py", ".so", ".pyd")]
    found = []
    for path in sorted(paths):
        info = os.stat(path)
        found.append((path, info.st_size, info.st_mtime_ns, info.st_ino))
    return tuple(found)


def _safe_ancestors(directory: Path) -> None:
    """No one but this user and root can replace a directory on the way to `directory`:
    each is ours or root's, and writable by others only with the sticky bit (/tmp)."""
    import stat

    for ancestor in directory.absolute().parents:
        info = ancestor.stat()
        shared = info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX
        if info.st_uid not in (0, os.getuid()) or shared:
            raise ServeError(f"{ancestor}: others can replace what is inside it")


def private_directory(directory: Path) -> None:
    """Create `directory` (0700), or check that it is ours and no one else can write in it,
    nor in the directories above it."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = directory.lstat()
    if info.st_uid != os.getuid() or info.st_mode & 0o022 or not directory.is_dir():
        raise ServeError(f"{directory}: not a directory only this user can write in")
    if directory.is_symlink():
        raise ServeError(f"{directory}: a symbolic link")
    _safe_ancestors(directory)


# Files the server creates are never reached through a link, nor opened if they exist.
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def write_state(state: Path, port: int, keys: Secrets) -> None:
    """Replace the state file at once: a client never reads half of it."""
    temp = state.with_name(f".{state.name}.{os.getpid()}")
    with contextlib.suppress(FileNotFoundError):
        temp.unlink()  # left by a killed server of the same pid (unlink never follows)
    fd = os.open(temp, _NEW_FILE, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(f"{port} {keys.client} {keys.server} {os.getpid()}\n")
    os.replace(temp, state)


def remove_state(state: Path, keys: Secrets) -> None:
    """Remove the state file if it is still this server's (a newer server may own it)."""
    with contextlib.suppress(OSError):
        if keys.client in state.read_text():
            state.unlink()


# --- reading requests (threads: a slow or hostile connection holds up no other) ------


def _quick_ack(conn: socket.socket) -> None:
    """Acknowledge at once: bash writes a request in several small writes, and Nagle's
    algorithm holds each next one until the last is acknowledged (40 ms of delayed ACK)."""
    if hasattr(socket, "TCP_QUICKACK"):
        with contextlib.suppress(OSError):
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)


class _Fields:
    """NUL-terminated fields read from a socket."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self.buffer = bytearray()

    def next(self, limit: int | None = None) -> bytes:
        """The next field; ValueError when it grows past `limit` bytes."""
        while True:
            end = self.buffer.find(0)
            if end >= 0:
                field = bytes(self.buffer[:end])
                del self.buffer[: end + 1]
                return field
            if limit is not None and len(self.buffer) > limit:
                raise ValueError("field too long")
            chunk = self.conn.recv(65536 if limit is None else limit + 1)
            if not chunk:
                raise ConnectionError("the client closed the connection mid-request")
            self.buffer += chunk
            _quick_ack(self.conn)


@dataclass(frozen=True)
class Request:
    conn: socket.socket
    args: list[str]
    data: bytes


class CodeWatch:
    """Whether the code on disk changed since the server started, looked at no more than
    once per RECHECK_AFTER seconds; once changed, changed for good."""

    def __init__(self) -> None:
        self.stamp = code_stamp()
        self.checked = time.monotonic()
        self.stale = False
        self.lock = threading.Lock()  # readers of concurrent connections agree

    def changed(self) -> bool:
        with self.lock:
            if not self.stale and time.monotonic() - self.checked > RECHECK_AFTER:
                self.checked = time.monotonic()
                self.stale = code_stamp() != self.stamp
            return self.stale


def _read_request(
    conn: socket.socket, keys: Secrets, watch: CodeWatch, requests: queue.Queue[Request | None]
) -> None:
    """Authenticate one connection and queue its request (this connection's thread)."""
    try:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        _quick_ack(conn)
        fields = _Fields(conn)
        # Before the secret: a few bytes within a second, or the connection is dropped.
        conn.settimeout(HANDSHAKE_TIMEOUT)
        if not secrets.compare_digest(fields.next(len(keys.client)), keys.client.encode()):
            conn.close()
            return
        if watch.changed():
            conn.close()  # without the proof: the client runs the new code itself
            requests.put(None)
            return
        conn.sendall(keys.server.encode() + b"\0")
        conn.settimeout(None)  # the client's own stdin may come slowly
        count = int(fields.next(16))
        args = [fields.next().decode("utf-8", "surrogateescape") for _ in range(count)]
        requests.put(Request(conn, args, fields.next()))
    except (OSError, ValueError):
        conn.close()


@dataclass
class Activity:
    """When a connection last arrived or a request was answered, and how many
    connections are still sending theirs: the server is idle only without any."""

    last: float
    reading: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def change(self, reading: int) -> None:
        with self.lock:
            self.reading += reading
            self.last = time.monotonic()

    def idle_for(self) -> float:
        with self.lock:
            return 0.0 if self.reading else time.monotonic() - self.last


def _accept(
    listener: socket.socket,
    keys: Secrets,
    watch: CodeWatch,
    requests: queue.Queue[Request | None],
    activity: Activity | None = None,
) -> None:
    readers = threading.BoundedSemaphore(MAX_READERS)
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return  # the listener was closed: the server is leaving
        if not readers.acquire(blocking=False):
            conn.close()  # a flood of connections: the client falls back to the Python hook
            continue
        if activity is not None:
            activity.change(+1)

        def read(conn: socket.socket = conn) -> None:
            try:
                _read_request(conn, keys, watch, requests)
            finally:
                readers.release()
                if activity is not None:
                    activity.change(-1)

        threading.Thread(target=read, daemon=True).start()


# --- answering (the main thread: the hook's SIGALRM timeout works as in its own process)


def answer(args: list[str], data: bytes) -> tuple[int, bytes, bytes]:
    """Exit status, stdout and stderr of `heredoc-lint hook ARGS` with `data` on stdin."""
    from heredoc_lint.agents import hook

    out = io.BytesIO()
    text_out = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    err = io.StringIO()
    with contextlib.redirect_stdout(text_out), contextlib.redirect_stderr(err):
        try:
            status = hook.main(args, data)
        except Exception as error:  # as entry.main: a hook fails open
            err.write(f"heredoc-lint: internal error: {type(error).__name__}: {error}\n")
            status = 0
        text_out.flush()
    # As Python's own stderr writes what it cannot encode.
    return status, out.getvalue(), err.getvalue().encode("utf-8", "backslashreplace")


BIG_REQUEST = 1 << 20  # bytes: after a request this large, memory goes back to the system


def _release_memory() -> None:
    """Give freed heap back to the system (glibc keeps it otherwise: 115 MB resident
    after one 50 MB request)."""
    import ctypes
    import ctypes.util
    import gc

    gc.collect()
    with contextlib.suppress(OSError, AttributeError, TypeError):
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)


def respond(request: Request) -> None:
    status, out, err = answer(request.args, request.data)
    head = b"%d\0%s\0%d\0" % (status, err.replace(b"\0", b""), len(out))
    with request.conn as conn, contextlib.suppress(OSError):
        conn.settimeout(SEND_TIMEOUT)
        conn.sendall(head + out)
        # The end of the answer, at once: a child forked for another request meanwhile
        # holds a copy of this socket, and a close alone ends it only with the last copy.
        conn.shutdown(socket.SHUT_WR)


# --- the server -----------------------------------------------------------------------


@contextlib.contextmanager
def _exclusive(lock: Path) -> Iterator[bool]:
    """Whether this process holds `lock`: one server per state file."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(lock, flags, 0o600)
    try:
        info = os.fstat(fd)
        if info.st_uid != os.getuid() or not (info.st_mode & 0o170000) == 0o100000:
            raise ServeError(f"{lock}: not a regular file of this user")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def _warm_up() -> None:
    """Import everything an answer needs (a denied command with a fix, a project
    configuration, the option parser), before the first client waits. Also a safety
    matter: a child forked while the main thread is in the middle of an import would
    find that module's lock held by a thread it does not have, and wait forever."""
    import argparse  # noqa: F401  (the hook's option parser, imported when first used)
    import base64  # noqa: F401
    import difflib  # noqa: F401
    import tomllib  # noqa: F401
    import traceback  # noqa: F401

    from heredoc_lint.run import config  # noqa: F401

    sample = "ssh h \"pkill -f app; cat > f << 'EOF'\n$1\nEOF\""
    payload = {
        "cwd": os.getcwd(),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": sample},
    }
    import json

    for args in (["claude"], ["claude", "--rewrite", "--warnings", "context"]):
        answer(args, json.dumps(payload).encode())


def serve(state: Path, idle: float) -> int:
    private_directory(state.parent)
    with _exclusive(state.with_name(state.name + ".lock")) as mine:
        if not mine:
            return 0  # another server answers for this state file
        _warm_up()
        import gc

        gc.freeze()  # the imported modules are never garbage: keep collections short
        keys = Secrets.fresh()
        watch = CodeWatch()
        activity = Activity(time.monotonic())

        pools: list[Pool] = []

        def terminate(signum: int, frame: object) -> None:
            # At once: interpreter shutdown (module teardown, frozen objects) took over a
            # second. The workers are stopped and waited for (a client cut off here falls
            # back to the Python hook).
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # once: the wait is not cut short
            remove_state(state, keys)
            for pool in pools:
                pool.close(stop=True)
            os._exit(0)

        signal.signal(signal.SIGTERM, terminate)
        requests: queue.Queue[Request | None] = queue.Queue()
        with socket.create_server(("127.0.0.1", 0)) as listener:
            from heredoc_lint.agents.workers import Pool

            pool = Pool([listener], _warm_up)
            pools.append(pool)
            pool.spawn()  # before any thread: the first worker, warm for the first call
            write_state(state, listener.getsockname()[1], keys)
            threading.Thread(
                target=_accept, args=(listener, keys, watch, requests, activity), daemon=True
            ).start()
            stop = True  # an exception (Ctrl-C): the workers are stopped, not waited for
            try:
                code = _answer_requests(pool, requests, activity, idle)
                stop = False
                return code
            finally:
                remove_state(state, keys)
                pool.close(stop=stop)


def _answer_requests(
    pool: Pool, requests: queue.Queue[Request | None], activity: Activity, idle: float
) -> int:
    """Hand the requests to the workers until the server has been idle for `idle`
    seconds (no connection, no check under way) or its code changed."""
    while True:
        if pool.collect(0):
            activity.change(0)  # a request was answered
        pool.trim()
        left = idle - activity.idle_for() if idle > 0 else None
        if pool.busy():  # look in again soon: the server is not idle before they end
            left = 0.05 if left is None else min(left, 0.05)
        try:
            request = requests.get(timeout=None if left is None else max(left, 0.01))
        except queue.Empty:
            if pool.busy() or idle <= 0 or activity.idle_for() < idle:
                continue  # a connection came in, is still sending, or is answered
            return 0
        if request is None:  # a reader saw new code
            return 0
        size = len(request.data)
        pool.hand(request)
        request = None  # before the release: the input is garbage now
        if size >= BIG_REQUEST:
            _release_memory()


DESCRIPTION = (
    "Answer `heredoc-lint-hook` calls from a resident process (the client starts it; "
    "see docs/agents.md)."
)
OPTIONS = (
    Opt(("--state",), "The state file to write.", Path, required=True),
    Opt(
        ("--idle",),
        f"Exit after this many seconds without a request (default: {DEFAULT_IDLE:g}; 0: never).",
        float,
        DEFAULT_IDLE,
    ),
    Opt(("--foreground",), "Stay in the caller's session and directory.", bool, False),
)


def main(argv: list[str]) -> int:
    try:
        values = parse("heredoc-lint serve", DESCRIPTION, OPTIONS, argv)
    except UsageError as error:
        sys.stderr.write(f"heredoc-lint: serve: {error}\n")
        return 2
    except SystemExit as stop:  # --help
        return stop.code if isinstance(stop.code, int) else 0
    state = values["state"].absolute()
    if not values["foreground"]:
        # Out of the agent's process group and session, off any mounted directory.
        with contextlib.suppress(OSError):
            os.setsid()
        os.chdir("/")
    os.umask(0o077)
    try:
        return serve(state, values["idle"])
    except ServeError as error:
        sys.stderr.write(f"heredoc-lint: serve: {error}\n")
        return 2
    except OSError as error:
        sys.stderr.write(f"heredoc-lint: serve: {error}\n")
        return 2
