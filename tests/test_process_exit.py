"""Nothing outlives heredoc-lint: the CLI with `--jobs 2`, the resident server and the
hook client reap every process they start, on every way out (a normal exit, SIGINT,
SIGTERM).

Each is started in a session of its own; once it has exited, no process of that session
may be left, running or a zombie.  The test process is made a child subreaper for the
while, so that a process orphaned by the one under test is re-parented to it rather than
to PID 1: a zombie stays visible whatever init the machine runs (one that reaps would
hide it; a container without one keeps it for ever), and is reaped here at the end.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_process import CLI
from test_server import CLEAN, Install, claude, install  # noqa: F401  (install: a fixture)

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists() or not hasattr(os, "fork"), reason="needs Linux"
)

PR_SET_CHILD_SUBREAPER = 36
WAIT = 60.0  # seconds for what should take one: a loaded machine is slow, not broken
# A script that costs more than memory.ALLOWANCE / PER_TOKEN tokens: checked in a forked
# process held to its memory bound (forked.LimitedWorker).  With a trigger word on each
# line it is also slow to check (seconds); without, quick.
SLOW = 'ssh h "pkill -f x; echo $y"\n' * 3000
QUICK = "echo a b c d e f\n" * 4000


@dataclass(frozen=True)
class Process:
    pid: int
    state: str  # "Z": a zombie
    ppid: int
    command: str

    def __str__(self) -> str:
        return f"{self.pid} ({self.command}, state {self.state}, parent {self.ppid})"


def members(session: int) -> list[Process]:
    """Every process of `session`, zombies included (field 6 of /proc/PID/stat)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        head, _, tail = stat.rpartition(")")
        fields = tail.split()
        if int(fields[3]) == session:
            found.append(Process(int(entry.name), fields[0], int(fields[1]), head.split("(", 1)[1]))
    return found


def wait_until(done: Callable[[], bool], what: str, seconds: float = WAIT) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, f"after {seconds:g} s: {what}"
        time.sleep(0.02)


@contextlib.contextmanager
def subreaper() -> Iterator[None]:
    """Orphans of this process's descendants come to this process while it lasts."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    if prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        pytest.skip("cannot become a child subreaper")
    try:
        yield
    finally:
        prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


@contextlib.contextmanager
def session_of(proc: subprocess.Popen[bytes]) -> Iterator[None]:
    """On the way out: whatever is left of `proc`'s session is killed and reaped (a
    process orphaned while this one was a subreaper is its child)."""
    try:
        yield
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(WAIT)
        for left in members(proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(left.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(left.pid, 0)


def assert_nothing_left(proc: subprocess.Popen[bytes]) -> None:
    """`proc` has exited (and been reaped): no process of its session remains."""
    assert proc.poll() is not None
    left = members(proc.pid)
    assert not left, "left behind: " + "; ".join(map(str, left))


def send(proc: subprocess.Popen[bytes], signum: int, to: str) -> None:
    """`signum` to the process (`kill PID`), or to its process group (Ctrl-C)."""
    if to == "group":
        os.killpg(proc.pid, signum)
    else:
        os.kill(proc.pid, signum)


def grandchildren(proc: subprocess.Popen[bytes]) -> list[Process]:
    """The processes of `proc`'s session started by its children (live ones)."""
    inside = members(proc.pid)
    children = {p.pid for p in inside if p.ppid == proc.pid}
    return [p for p in inside if p.ppid in children and p.state != "Z"]


# --- the CLI, `--jobs 2` ---------------------------------------------------------------


def tree(root: Path, text: str, count: int = 16) -> Path:
    """`count` scripts, each costly enough for a memory-bound process of its own, and
    enough of them (runner.MIN_FILES_PER_WORKER) for two workers."""
    root.mkdir()
    for i in range(count):
        (root / f"f{i:02d}.sh").write_text(text)
    return root


def cli(root: Path, stderr: Path) -> subprocess.Popen[bytes]:
    with stderr.open("wb") as err:
        return subprocess.Popen(
            [*CLI, "--no-cache", "--jobs", "2", "."],
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )


def test_the_cli_leaves_nothing_when_it_ends(tmp_path: Path) -> None:
    root = tree(tmp_path / "tree", QUICK)
    with subreaper():
        proc = cli(root, tmp_path / "stderr")
        with session_of(proc):
            assert proc.wait(WAIT) == 0, (tmp_path / "stderr").read_text()
            assert_nothing_left(proc)


@pytest.mark.parametrize(
    ("signum", "to"),
    [
        (signal.SIGINT, "group"),  # Ctrl-C
        (signal.SIGINT, "process"),
        (signal.SIGTERM, "process"),  # kill PID, timeout
        (signal.SIGTERM, "group"),
    ],
    ids=["SIGINT-group", "SIGINT-process", "SIGTERM-process", "SIGTERM-group"],
)
def test_the_cli_leaves_nothing_when_stopped(tmp_path: Path, signum: int, to: str) -> None:
    root = tree(tmp_path / "tree", SLOW)
    with subreaper():
        proc = cli(root, tmp_path / "stderr")
        with session_of(proc):
            # A worker of the run has a memory-bound process of its own by then.
            wait_until(
                lambda: bool(grandchildren(proc)) or proc.poll() is not None,
                "no worker started a process of its own",
            )
            assert proc.poll() is None, "the run ended before its workers were seen"
            send(proc, signum, to)
            proc.wait(WAIT)
            assert_nothing_left(proc)
            stopped = proc.returncode in (-signum, 128 + signum, 130)
            assert stopped, (proc.returncode, (tmp_path / "stderr").read_text())


# --- the resident server ----------------------------------------------------------------


def server(where: Install, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        # `serve --state` first: the install fixture stops the servers it finds by it.
        [str(where.bin / "heredoc-lint"), "serve", "--state", str(where.state), "--foreground"]
        + list(args),
        env=where.env,
        cwd=where.bin,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def request(port: int, client: str, proof: str, data: bytes) -> bytes:
    """One request by the protocol; the reply, or what came of it before it was cut."""
    reply = b""
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 120) as conn:
        conn.sendall(client.encode() + b"\0")
        while not reply.endswith(b"\0"):
            chunk = conn.recv(4096)
            if not chunk:
                return b""
            reply += chunk
        assert reply == proof.encode() + b"\0"
        conn.sendall(b"1\0claude\0" + data + b"\0")
        reply = b""
        while chunk := conn.recv(65536):
            reply += chunk
    return reply


def test_the_server_leaves_nothing_when_idle(install: Install) -> None:  # noqa: F811
    with subreaper():
        proc = server(install, "--idle", "1")
        with session_of(proc):
            # Its first worker is forked before it writes its state.
            wait_until(lambda: install.state.exists() or proc.poll() is not None, "no state")
            assert proc.wait(WAIT) == 0
            assert_nothing_left(proc)


@pytest.mark.parametrize(
    ("signum", "to"),
    [(signal.SIGTERM, "process"), (signal.SIGINT, "group"), (signal.SIGINT, "process")],
    ids=["SIGTERM-process", "SIGINT-group", "SIGINT-process"],
)
def test_the_server_leaves_nothing_when_stopped(
    install: Install,  # noqa: F811
    signum: int,
    to: str,
) -> None:
    with subreaper():
        proc = server(install)
        with session_of(proc):
            port, client, proof, _ = install.wait_for_server()
            # A slow, costly request: a worker busy on it, in a memory-bound process.
            data = claude(SLOW.replace("$y", "") * 2)
            replies: list[bytes] = []
            caller = threading.Thread(
                target=lambda: replies.append(request(port, client, proof, data)), daemon=True
            )
            caller.start()
            wait_until(
                lambda: bool(grandchildren(proc)) or bool(replies),
                "no worker started a process of its own",
            )
            assert not replies, "the request was answered before its worker was seen"
            send(proc, signum, to)
            proc.wait(WAIT)
            caller.join(WAIT)
            assert_nothing_left(proc)


# --- the hook client --------------------------------------------------------------------


@pytest.fixture
def resident(install: Install) -> Iterator[Install]:  # noqa: F811
    """An install with its server up, started here (not by a client: a server started by
    the client is meant to outlive it, in a session of its own)."""
    proc = server(install)
    install.wait_for_server()
    yield install
    proc.terminate()
    proc.wait(WAIT)


def hook_client(where: Install, stdin: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(where.bin / "heredoc-lint-hook"), "claude"],
        env=where.env,
        cwd=where.bin,
        stdin=stdin,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


@pytest.mark.parametrize(
    "data",
    [
        claude("ssh h 'pkill -f app; echo done'\n" * 40),  # served; a long answer
        claude("ssh h 'echo $1'")[:-2] + b"\0" + b'"}',  # a NUL byte: the Python hook
    ],
    ids=["served", "nul-byte"],
)
def test_the_hook_client_leaves_nothing_when_it_ends(resident: Install, data: bytes) -> None:
    read, write = os.pipe()
    with subreaper():
        proc = hook_client(resident, read)
        os.close(read)
        with session_of(proc):
            os.write(write, data)
            os.close(write)
            assert proc.wait(WAIT) == 0
            assert_nothing_left(proc)


@pytest.mark.parametrize(
    ("signum", "to"),
    [(signal.SIGTERM, "process"), (signal.SIGINT, "group")],
    ids=["SIGTERM-process", "SIGINT-group"],
)
def test_the_hook_client_leaves_nothing_when_stopped(
    resident: Install, signum: int, to: str
) -> None:
    """Stopped while it reads its input, after a NUL byte (the Python hook's input): the
    rest of the input is still coming."""
    read, write = os.pipe()
    with subreaper():
        proc = hook_client(resident, read)
        os.close(read)
        try:
            with session_of(proc):
                os.write(write, claude("true")[:-2] + b"\0")
                # It hands the input to the Python hook: the log says when it runs.
                wait_until(lambda: "hook claude" in resident.python_calls(), "no Python hook")
                send(proc, signum, to)
                proc.wait(WAIT)
                assert_nothing_left(proc)
        finally:
            os.close(write)


# --- the Python hook (`heredoc-lint hook`, what the client runs without a server) -------


def python_hook(stdin: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*CLI, "hook", "claude"],
        stdin=stdin,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


@pytest.mark.parametrize(
    ("signum", "to"),
    [(None, ""), (signal.SIGTERM, "process"), (signal.SIGINT, "group")],
    ids=["ends", "SIGTERM-process", "SIGINT-group"],
)
def test_the_python_hook_leaves_nothing(signum: int | None, to: str) -> None:
    """A command costly enough to be checked in a memory-bound process of its own."""
    read, write = os.pipe()
    with subreaper():
        proc = python_hook(read)
        os.close(read)
        with session_of(proc):
            os.write(write, claude(SLOW.replace("$y", "") * 2))
            os.close(write)
            if signum is not None:
                wait_until(
                    lambda: (
                        any(p.ppid == proc.pid for p in members(proc.pid))
                        or proc.poll() is not None
                    ),
                    "the hook started no process of its own",
                )
                assert proc.poll() is None, "the hook ended before its worker was seen"
                send(proc, signum, to)
            proc.wait(WAIT)
            assert_nothing_left(proc)
