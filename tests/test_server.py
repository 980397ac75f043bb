"""The resident hook: `bin/heredoc-lint-hook` (bash) talking to a real `heredoc-lint serve`.

The client must be indistinguishable from `heredoc-lint hook` (same stdout, stderr and
exit status, byte for byte), must fall back to the Python hook whenever the server cannot
be trusted or reached, and must never send a command to anyone but the server that wrote
its state file. Every test runs the real bash client and a real server process.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CLIENT = ROOT / "bin" / "heredoc-lint-hook"
SEED = (ROOT / "tests" / "cases" / "seed000.sh").read_text().split("\n", 1)[1]
CLEAN = "ls -la /tmp && ssh build-1 'uptime; df -h /'"


def claude(command: str) -> bytes:
    return json.dumps(
        {
            "session_id": "s",
            "cwd": "/home/u/p",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        }
    ).encode()


def padded(command: str, size: int) -> bytes:
    """The Claude input for `command` and spaces, `size` bytes long."""
    return claude(command + " " * (size - len(claude(command))))


def cursor(command: str) -> bytes:
    return json.dumps({"hook_event_name": "beforeShellExecution", "command": command}).encode()


@dataclass
class Install:
    """A bin directory as pip makes it: the client beside a `heredoc-lint` script (which
    logs each call, so a test can tell a served answer from the Python fallback)."""

    bin: Path
    state_dir: Path
    log: Path
    package: Path  # the heredoc_lint package the server imports
    env: dict[str, str]

    @property
    def state(self) -> Path:
        marker = str(self.bin).replace("%", "%25").replace("/", "%2F")
        return self.state_dir / f"server-{socket.gethostname()}-{marker}"

    def hook(self, *args: str, data: bytes) -> subprocess.CompletedProcess[bytes]:
        return self._run("heredoc-lint-hook", *args, data=data)

    def python_hook(self, *args: str, data: bytes) -> subprocess.CompletedProcess[bytes]:
        return self._run("heredoc-lint", "hook", *args, data=data)

    def _run(self, program: str, *args: str, data: bytes) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [str(self.bin / program), *args],
            input=data,
            capture_output=True,
            env=self.env,
            cwd=self.bin,  # `python -m` puts the working directory first on sys.path
            timeout=60,
            check=False,
        )

    def python_calls(self) -> list[str]:
        """The `heredoc-lint hook` calls so far (the client's fallback)."""
        if not self.log.exists():
            return []
        lines = self.log.read_text(errors="surrogateescape").splitlines()
        return [line for line in lines if line.startswith("hook")]

    def wait_for_server(self) -> tuple[int, str, str, int]:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.state.exists():
                port, client, server, pid = self.state.read_text().split()
                return int(port), client, server, int(pid)
            time.sleep(0.05)
        raise AssertionError(f"no server wrote {self.state}")

    def start_server(self, *args: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [str(self.bin / "heredoc-lint"), "serve", "--state", str(self.state), *args],
            env=self.env,
            cwd=self.bin,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )


def _wait_gone(pid: int, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def install(tmp_path: Path) -> Iterator[Install]:
    if shutil.which("bash") is None:
        pytest.fail("bash is needed: the client is a bash script")
    package = tmp_path / "lib"
    shutil.copytree(
        ROOT / "heredoc_lint",
        package / "heredoc_lint",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shutil.copy2(CLIENT, bin_dir / "heredoc-lint-hook")
    log = tmp_path / "calls.log"
    wrapper = bin_dir / "heredoc-lint"
    wrapper.write_text(
        f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{sys.executable}" -m heredoc_lint "$@"\n'
    )
    wrapper.chmod(0o755)
    env = {
        **os.environ,
        "PYTHONPATH": str(package),
        "HEREDOC_LINT_SERVER_DIR": str(tmp_path / "state"),
    }
    found = Install(bin_dir, tmp_path / "state", log, package / "heredoc_lint", env)
    yield found
    # Stop every server this test started (they outlive their client by design), and
    # the children answering for them (gone already, some of them).
    for line in subprocess.run(
        ["pgrep", "-f", f"serve --state {found.state}"], capture_output=True, text=True
    ).stdout.split():
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(line), signal.SIGTERM)
        _wait_gone(int(line))


@pytest.fixture
def served(install: Install) -> Install:
    """An install whose server is up (started by a first call, as in real use)."""
    first = install.hook("claude", data=claude(CLEAN))
    assert first.returncode == 0 and first.stdout == b""
    assert install.python_calls() == ["hook claude"]  # no server yet: the Python hook answered
    install.wait_for_server()
    return install


READ_LIMIT = 2048  # the client reads up to this much itself, and cat the rest
CASES = [
    ("claude", claude(SEED), ()),  # deny, with the fixed command
    ("claude", claude(CLEAN), ()),  # allow: nothing printed
    ("claude", claude(SEED), ("--no-fix", "--select", "HL103")),
    ("claude", claude("ssh h 'pkill -f app; echo done'"), ("--warnings", "context")),
    ("cursor", cursor(SEED), ()),
    ("cursor", cursor("true"), ()),  # Cursor's allow is an object, not silence
    ("claude", b"not json at all", ()),  # allowed, with a note on stderr
    ("claude", b"", ()),
    ("claude", claude('ssh h "echo caf\u00e9 $1 \U0001f600"'), ()),  # non-ASCII
    (
        "claude",
        b'{"tool_name": "Bash", "tool_input": {"command": "ssh h \\"echo \xff\xfe $1\\""}}',
        (),
    ),
    ("claude", claude(SEED + "\n" + "echo " + "x" * 20_000), ()),  # a long input
    ("claude", claude((SEED + "\n") * 12), ()),  # a long answer
    ("claude", claude(SEED), ("--rewrite",)),  # allow with updatedInput
    ("codex", claude(SEED).replace(b'"Bash"', b'"shell"'), ("--rewrite",)),
    ("claude", cursor(SEED).replace(b"beforeShellExecution", b"preToolUse"), ()),
    ("claude", claude(SEED), ("--select", "NOPE")),  # usage error: exit 1, one line
    ("claude", claude(SEED), ("--bogus",)),
    ("claude", claude(SEED), ("--select", os.fsdecode(b"HL\xff"))),  # shown escaped
    # inputs at the client's switch from read to cat
    *[("claude", padded("ssh h 'echo $1'", READ_LIMIT + d), ()) for d in (-1, 0, 1)],
    ("nobody", claude(SEED), ()),
]


@pytest.mark.parametrize(("agent", "data", "options"), CASES)
def test_a_served_answer_is_the_hooks_byte_for_byte(
    served: Install, agent: str, data: bytes, options: tuple[str, ...]
) -> None:
    expected = served.python_hook(agent, *options, data=data)
    calls = len(served.python_calls())
    got = served.hook(agent, *options, data=data)
    assert len(served.python_calls()) == calls, "the client fell back to the Python hook"
    assert (got.returncode, got.stdout, got.stderr) == (
        expected.returncode,
        expected.stdout,
        expected.stderr,
    )
    assert got.returncode != 2


def test_the_seed_is_denied_through_the_server(served: Install) -> None:
    got = served.hook("claude", data=claude(SEED))
    answer = json.loads(got.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert "HL103" in answer["permissionDecisionReason"]
    assert served.python_calls() == ["hook claude"]  # only the first call, before the server


@pytest.mark.parametrize("flag", ["--help", "-h", "--hel", "--h"])
def test_help_goes_to_the_python_hook(served: Install, flag: str) -> None:
    """argparse takes `--hel` for `--help`; help is laid out for the caller's terminal."""
    got = served.hook("claude", flag, data=b"")
    assert got.returncode == 0 and b"usage: heredoc-lint hook" in got.stdout
    assert served.python_calls()[-1] == f"hook claude {flag}"


def test_a_closed_stdin_goes_to_the_python_hook(served: Install) -> None:
    got = subprocess.run(
        ["bash", "-c", f'exec "{served.bin}/heredoc-lint-hook" claude <&-'],
        capture_output=True,
        env=served.env,
        cwd=served.bin,
        timeout=60,
        check=False,
    )
    assert got.returncode == 0 and got.stdout == b""
    assert b"read error" not in got.stderr and b"heredoc-lint: hook:" in got.stderr
    assert served.python_calls()[-1] == "hook claude"


def test_a_slow_stdin_is_waited_for(served: Install) -> None:
    """The agent may write its JSON after the handshake's time limit: still answered."""
    client = subprocess.Popen(
        [str(served.bin / "heredoc-lint-hook"), "claude"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=served.env,
        cwd=served.bin,
    )
    assert client.stdin is not None
    client.stdin.write(claude(SEED)[:40])
    client.stdin.flush()
    time.sleep(2.5)  # over HANDSHAKE_TIMEOUT: that limit ends with the handshake
    out, err = client.communicate(claude(SEED)[40:], timeout=60)
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny", err
    assert served.python_calls() == ["hook claude"]


def test_idle_connections_hold_up_no_client(served: Install) -> None:
    """Connections that never send a secret (another local user, a port scan) neither
    stall the server nor push its clients to the Python hook."""
    port = served.wait_for_server()[0]
    idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(5)]
    try:
        got = served.hook("claude", data=claude(SEED))
        assert json.loads(got.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
        assert served.python_calls() == ["hook claude"]
    finally:
        for conn in idle:
            conn.close()


class Impostor:
    """A listener on the server's port that does not know the server secret: what a
    local process sees if it takes the port of a server that died."""

    def __init__(self, proof: bytes, answer: bytes = b"", hold: float = 5) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.received = b""
        self.proof = proof
        self.answer = answer  # sent once the request is in (a server cut off mid-answer)
        self.hold = hold  # seconds the connection stays open after that
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return  # closed before any client came: a test whose client never connects
        with conn:
            conn.settimeout(5)
            try:
                while not self.received.endswith(b"\0"):
                    chunk = conn.recv(4096)
                    if not chunk:
                        return
                    self.received += chunk
                conn.sendall(self.proof + b"\0")
                conn.settimeout(self.hold)
                if self.answer:
                    while self.received.count(b"\0") < 4:  # secret, argc, agent, input
                        self.received += conn.recv(4096)
                    conn.sendall(self.answer)
                while chunk := conn.recv(4096):
                    self.received += chunk
            except OSError:
                pass

    def close(self) -> None:
        self.listener.close()
        self.thread.join(10)


def _write_state(install: Install, port: int, client: str, server: str) -> None:
    install.state_dir.mkdir(mode=0o700, exist_ok=True)
    install.state.write_text(f"{port} {client} {server} 1\n")
    install.state.chmod(0o600)


def test_a_process_on_a_dead_servers_port_never_gets_the_command(install: Install) -> None:
    impostor = Impostor(proof=b"0" * 32)  # any answer but the real server secret
    _write_state(install, impostor.port, "c" * 32, "s" * 32)
    try:
        got = install.hook("claude", data=claude(SEED))
    finally:
        impostor.close()
    assert impostor.received == b"c" * 32 + b"\0"  # the dead server's secret, nothing more
    assert json.loads(got.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert install.python_calls() == ["hook claude"]  # stdin was intact for the fallback


def _cut_off_call(
    install: Install, answer: bytes, hold: float
) -> tuple[subprocess.CompletedProcess[bytes], float]:
    impostor = Impostor(proof=b"s" * 32, answer=answer, hold=hold)
    _write_state(install, impostor.port, "c" * 32, "s" * 32)
    install.env["HEREDOC_LINT_HOOK_WAIT"] = "1"
    start = time.monotonic()
    try:
        got = install.hook("cursor", data=cursor(SEED))
    finally:
        impostor.close()
    assert impostor.received.endswith(cursor(SEED) + b"\0")  # the request went out
    return got, time.monotonic() - start


# A server killed before, during and after the head of its answer, and one that stalls:
# the client never takes that for an allow; the Python hook checks the command instead.
@pytest.mark.parametrize(
    ("answer", "hold"),
    [
        (b"", 0.2),  # closed without an answer
        (b"0\0\0" + b"30\0" + b'{"permission": "al', 0.2),  # cut inside the JSON
        (b"0\0\0" + b"24\0" + b'{"permission": "allow"}', 0.2),  # short by a newline
        (b"0\0", 0.2),  # cut after the status
        # Stalls, connection open: the client's wait (1 s here) ends it, then the Python
        # hook answers. Far from both the stall and the client's default wait of 15 s.
        (b"", 30),
    ],
)
def test_a_server_cut_off_mid_call_is_not_an_allow(
    install: Install, answer: bytes, hold: float
) -> None:
    got, took = _cut_off_call(install, answer, hold)
    assert got.returncode == 0
    assert json.loads(got.stdout)["permission"] == "deny"
    assert b"heredoc-lint: hook: the server did" in got.stderr
    assert install.python_calls() == ["hook cursor"]
    assert took < 12, took  # the wait, not the stall (30 s) nor the default wait (15 s)


def test_a_missing_heredoc_lint_fails_open_with_exit_0(install: Install) -> None:
    """Gemini CLI denies on any status but 0 and 1: `heredoc-lint` gone from the bin
    directory and from PATH (exit 127 from a plain exec) must still be 0."""
    (install.bin / "heredoc-lint").unlink()
    install.env["PATH"] = "/usr/bin:/bin"
    for agent, data in (("gemini", claude(SEED)), ("cursor", cursor(SEED))):
        got = install.hook(agent, data=data)
        assert got.returncode == 0, got.stderr
        assert got.stdout == (b'{"permission": "allow"}\n' if agent == "cursor" else b"")
        assert got.stderr.endswith(b"the command was allowed unchecked\n")


def test_an_unusable_state_directory_says_so_and_checks_without_a_server(
    install: Install,
) -> None:
    install.state_dir.mkdir()
    install.state_dir.chmod(0o500)  # ours, but nothing can be written in it
    if os.access(install.state_dir, os.W_OK):  # root writes anyway: use a symlink
        install.state_dir.chmod(0o700)
        install.state_dir.rmdir()
        install.state_dir.symlink_to(install.bin)
    got = install.hook("claude", data=claude(SEED))
    assert json.loads(got.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert got.stderr.count(b"\n") == 1
    assert b"is not a directory of this user; running without the server" in got.stderr
    assert install.python_calls() == ["hook claude"]
    time.sleep(0.5)
    assert "serve" not in install.log.read_text()  # no server started to fail


def test_input_with_a_nul_byte_gets_the_python_hooks_answer(served: Install) -> None:
    data = claude("ssh h 'echo $1'")[:-2] + b"\0" + b'"}'
    expected = served.python_hook("claude", data=data)
    got = served.hook("claude", data=data)
    assert (got.returncode, got.stdout, got.stderr) == (
        expected.returncode,
        expected.stdout,
        expected.stderr,
    )
    assert b"input is not JSON" in got.stderr


def test_a_state_file_of_another_user_is_not_trusted(install: Install) -> None:
    if os.getuid() != 0:
        pytest.skip("needs root to create a file owned by another user")
    impostor = Impostor(proof=b"s" * 32)
    _write_state(install, impostor.port, "c" * 32, "s" * 32)
    os.chown(install.state, 65534, 65534)
    try:
        got = install.hook("claude", data=claude(SEED))
    finally:
        impostor.close()
    assert impostor.received == b""  # never connected
    assert json.loads(got.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_wrong_client_secret_gets_nothing_and_the_server_goes_on(served: Install) -> None:
    port, _, server_secret, _ = served.wait_for_server()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(b"0" * 32 + b"\0" + b"1\0claude\0" + claude(SEED) + b"\0")
        try:
            reply = conn.recv(4096)
        except ConnectionResetError:  # closed with our request unread
            reply = b""
        assert reply == b""  # no proof, no answer
    got = served.hook("claude", data=claude(SEED))
    assert json.loads(got.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert len(served.python_calls()) == 1


def test_the_server_leaves_when_its_code_changes(served: Install) -> None:
    _, _, _, pid = served.wait_for_server()
    rule = served.package / "rules" / "hl103_pkill_self_match.py"
    os.utime(rule, ns=(time.time_ns(), time.time_ns() + 10**9))
    time.sleep(RECHECK_PAUSE)
    got = served.hook("claude", data=claude(SEED))  # the server closes; the Python hook answers
    expected = served.python_hook("claude", data=claude(SEED))
    assert (got.returncode, got.stdout, got.stderr) == (0, expected.stdout, expected.stderr)
    assert json.loads(got.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert served.python_calls()[:2] == ["hook claude", "hook claude"]
    assert _wait_gone(pid)


RECHECK_PAUSE = 1.0  # longer than server.RECHECK_AFTER


def test_one_server_per_state_file_and_it_cleans_up(served: Install) -> None:
    port, client, _, pid = served.wait_for_server()
    second = served.start_server("--foreground")
    assert second.wait(30) == 0  # the lock is taken: it leaves at once
    assert served.wait_for_server()[:2] == (port, client)
    os.kill(pid, signal.SIGTERM)
    assert _wait_gone(pid)
    assert not served.state.exists()


# The idle time counts from the server's start, before its state file is written: on a
# loaded machine this test may be run only after the server has (rightly) left. Such a
# start proves nothing either way; the server is started again with twice the idle time.
# Only the precondition is tried again (the state seen, the handshake done), and each start
# is still checked: the server waited its idle time, exited with 0, and left no state.
IDLE_TRIES = (1.0, 2.0, 4.0, 8.0)  # --idle, in seconds, for each start


def _state_while_up(
    install: Install, server: subprocess.Popen[bytes]
) -> tuple[int, str, str, int] | None:
    """The state file of `server` as it wrote it, or None if it had left before."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(FileNotFoundError):
            port, client, secret, pid = install.state.read_text().split()
            return int(port), client, secret, int(pid)
        if server.poll() is not None:
            return None
        time.sleep(0.05)
    raise AssertionError(f"no server wrote {install.state}")


def _left_when_idle(
    install: Install, server: subprocess.Popen[bytes], began: float, idle: float
) -> None:
    assert server.wait(30) == 0
    assert time.monotonic() - began >= idle  # not before its idle time
    assert not install.state.exists()


def test_an_idle_server_exits_and_removes_its_state(install: Install) -> None:
    for idle in IDLE_TRIES:
        began = time.monotonic()
        server = install.start_server("--foreground", "--idle", str(idle))
        seen = _state_while_up(install, server)
        _left_when_idle(install, server, began, idle)
        if seen is not None:  # it wrote its state, and removed it
            return
    raise AssertionError("each server left before its state file was seen")


def test_a_directory_others_can_write_is_refused(install: Install) -> None:
    install.state_dir.mkdir(mode=0o777)
    install.state_dir.chmod(0o777)
    server = install.start_server("--foreground")
    _, err = server.communicate(timeout=30)
    assert server.returncode == 2
    assert err.decode().count("\n") == 1
    assert "only this user can write" in err.decode()
    assert not install.state.exists()


# --- issue 18, item 14: the state files, the idle timer, memory, SIGTERM ----------------


def test_the_state_temp_file_is_never_written_through_a_link(tmp_path: Path) -> None:
    from heredoc_lint.agents.server import Secrets, write_state

    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    state = tmp_path / "server-x"
    (tmp_path / f".server-x.{os.getpid()}").symlink_to(victim)  # planted before the write
    write_state(state, 4242, Secrets("c" * 32, "s" * 32))
    assert victim.read_text() == "precious\n"
    assert state.read_text() == f"4242 {'c' * 32} {'s' * 32} {os.getpid()}\n"
    assert not state.is_symlink() and state.stat().st_mode & 0o777 == 0o600


def test_a_lock_file_that_is_a_link_stops_the_server(install: Install) -> None:
    install.state_dir.mkdir(mode=0o700)
    victim = install.state_dir.parent / "victim"
    victim.write_text("precious\n")
    lock = install.state.with_name(install.state.name + ".lock")
    lock.symlink_to(victim)
    server = install.start_server("--foreground")
    _, err = server.communicate(timeout=60)
    assert server.returncode == 2
    assert err.decode().startswith("heredoc-lint: serve: ")
    assert victim.read_text() == "precious\n" and not install.state.exists()


def test_a_state_directory_under_a_shared_directory_is_refused(tmp_path: Path) -> None:
    from heredoc_lint.agents.server import ServeError, private_directory

    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # anyone may rename what is inside, and no sticky bit
    with pytest.raises(ServeError, match="others can replace what is inside it"):
        private_directory(shared / "heredoc-lint")
    shared.chmod(0o1777)  # as /tmp: the sticky bit keeps others' hands off
    private_directory(shared / "heredoc-lint")


def _cpu_seconds(pid: int) -> float:
    """The CPU time of a live process so far: its threads' and the children it reaped."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(ticks) for ticks in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def test_sigterm_ends_the_server_at_once_and_removes_its_state(install: Install) -> None:
    """At once: no interpreter shutdown (module teardown, frozen objects: it once cost
    over a second), told by the CPU time the server spends after the signal, which the
    machine's load does not stretch; and no wait for a later poll or timeout (its idle
    time is an hour), told by the wall clock with room for a loaded machine."""
    server = install.start_server("--foreground")
    _, _, _, pid = install.wait_for_server()
    assert pid == server.pid  # the wrapper execs the server
    cpu = _cpu_seconds(pid)
    start = time.monotonic()
    os.kill(pid, signal.SIGTERM)
    while not (ended := os.wait4(pid, os.WNOHANG))[0]:
        assert time.monotonic() - start < 30, "the server did not leave"
        time.sleep(0.01)
    took = time.monotonic() - start
    server.returncode = os.waitstatus_to_exitcode(ended[1])
    usage = ended[2]
    assert server.returncode == 0
    assert usage.ru_utime + usage.ru_stime - cpu < 0.25, (cpu, usage)
    assert took < 5, took
    assert not install.state.exists()


def _connected(
    install: Install, idle: float
) -> tuple[subprocess.Popen[bytes], socket.socket, float] | None:
    """A server started with `--idle idle` and a connection past its handshake (the
    server has proved itself); None if the server had left, idle, before that."""
    began = time.monotonic()
    server = install.start_server("--foreground", "--idle", str(idle))
    state = _state_while_up(install, server)
    if state is not None:
        port, client, secret, _ = state
        try:
            conn = socket.create_connection(("127.0.0.1", port), timeout=10)
        except OSError:  # refused: the server has left
            conn = None
        if conn is not None:
            try:
                conn.sendall(client.encode() + b"\0")
                proof = conn.recv(4096)
            except OSError:  # reset: the server left with this connection not accepted
                proof = b""
            if proof == secret.encode() + b"\0":
                return server, conn, idle
            conn.close()
    _left_when_idle(install, server, began, idle)
    return None


def test_a_connection_still_sending_keeps_the_server_up(install: Install) -> None:
    for idle in IDLE_TRIES:
        if found := _connected(install, idle):
            break
    else:
        raise AssertionError("each server left before a connection was accepted")
    server, conn, idle = found
    with conn:
        time.sleep(idle + 1.5)  # past the idle time, the request still coming
        sent = time.monotonic()  # the server's last activity is after this
        conn.sendall(b"1\0claude\0" + claude(SEED) + b"\0")
        reply = b""
        while chunk := conn.recv(65536):
            reply += chunk
    assert reply, "the server left with the request still coming"
    status, _, length, out = reply.split(b"\0", 3)
    assert (status, int(length)) == (b"0", len(out))
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    _left_when_idle(install, server, sent, idle)  # and then, idle, it leaves


def _resident_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_memory_goes_back_after_a_big_request(served: Install) -> None:
    _, _, _, pid = served.wait_for_server()
    before = _resident_kb(pid)
    big = claude("echo " + "x" * 20_000_000)  # 20 MB, no rule's trigger: a quick allow
    got = served.hook("claude", data=big)
    assert (got.returncode, got.stdout) == (0, b"")
    deadline = time.monotonic() + 10  # the server answers first, then releases
    while (after := _resident_kb(pid)) - before >= 30_000 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert after - before < 30_000, (before, after)  # KB: well under the request's size


# --- issue 18, item 7: a slow check holds up no other ----------------------------------


def _served_call(port: int, client: str, server: str, data: bytes, *options: str) -> bytes:
    """One request by the protocol (as the bash client sends it); the whole reply."""
    with socket.create_connection(("127.0.0.1", port), timeout=120) as conn:
        conn.sendall(client.encode() + b"\0")
        proof = b""
        while not proof.endswith(b"\0"):
            chunk = conn.recv(4096)
            assert chunk, "the server closed the connection before its proof"
            proof += chunk
        assert proof == server.encode() + b"\0"
        args = ["claude", *options]
        head = b"".join(x.encode() + b"\0" for x in [str(len(args)), *args])
        conn.sendall(head + data + b"\0")
        reply = b""
        while chunk := conn.recv(65536):
            reply += chunk
    return reply


def _children(pid: int) -> list[str]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return found.stdout.split()


def test_a_dangerous_command_is_answered_before_slow_ones_finish(served: Install) -> None:
    """Three slow checks are under way (three workers of the server busy) when BAD
    arrives; BAD's deny comes back first. Answered one at a time, BAD waited for all
    three (~30 s)."""
    port, client, server, pid = served.wait_for_server()
    slow = claude("\n".join(['ssh h "pkill -f x; echo"'] * 6000))
    bad = claude('ssh h "pkill -f sglang; ./restart"')
    finished: list[tuple[str, bytes]] = []
    lock = threading.Lock()

    def call(name: str, data: bytes) -> None:
        reply = _served_call(port, client, server, data)
        with lock:
            finished.append((name, reply))

    slow_calls = [threading.Thread(target=call, args=(f"slow{i}", slow)) for i in range(3)]
    for thread in slow_calls:
        thread.start()
    deadline = time.monotonic() + 60
    while len(_children(pid)) < 3:  # the first worker has one, two new ones the others
        assert time.monotonic() < deadline, "the slow checks never started"
        time.sleep(0.02)
    call("bad", bad)
    with lock:
        assert [name for name, _ in finished] == ["bad"]  # no slow answer came before it
    for thread in slow_calls:
        thread.join(120)
    assert sorted(name for name, _ in finished[1:]) == ["slow0", "slow1", "slow2"]
    status, _, length, out = finished[0][1].split(b"\0", 3)
    assert (status, int(length)) == (b"0", len(out))
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert "HL103" in answer["permissionDecisionReason"]
    for _, reply in finished[1:]:  # each slow one was checked (or ran out of time): complete
        status, _, length, out = reply.split(b"\0", 3)
        assert (status, int(length)) == (b"0", len(out))


def test_a_check_beside_a_slow_one_keeps_its_own_time_limit(served: Install) -> None:
    """A request answered by a second worker (the first one busy) stops at its own
    `--timeout`, counted from its own start: the hook's SIGALRM works in a worker."""
    port, client, server, pid = served.wait_for_server()
    slow = claude("\n".join(['ssh h "pkill -f x; echo"'] * 6000))
    busy = threading.Thread(target=_served_call, args=(port, client, server, slow))
    busy.start()
    deadline = time.monotonic() + 60
    while True:  # until the first worker is on the slow check when this one comes
        assert time.monotonic() < deadline
        reply = _served_call(port, client, server, slow, "--timeout", "0.3")
        status, err, length, out = reply.split(b"\0", 3)
        if b"longer than 0.3 s" in err:
            break
    assert (status, out) == (b"0", b"")  # allowed unchecked, as the hook does
    assert err.decode().startswith("heredoc-lint: hook: checking took longer than 0.3 s")
    busy.join(120)
