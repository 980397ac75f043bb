"""The resident server's worker processes (heredoc_lint/agents/workers.py), driven the way
the server's main thread drives them: a real connection handed over to a real forked
worker, which answers the client directly."""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator

import pytest

from heredoc_lint.agents.server import BIG_REQUEST, Request
from heredoc_lint.agents.workers import Pool

BAD = 'ssh h "pkill -f sglang; ./restart"'


def claude(command: str) -> bytes:
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    return json.dumps(payload).encode()


@pytest.fixture
def pool() -> Iterator[Pool]:
    workers = Pool([], lambda: None)
    yield workers
    pids = [w.pid for w in workers.workers]
    workers.close()
    for pid in pids:  # close() waited for each: none is left to reap
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def connection(listener: socket.socket) -> tuple[socket.socket, socket.socket]:
    """A client socket and the server's end of it."""
    client = socket.create_connection(listener.getsockname(), timeout=60)
    conn, _ = listener.accept()
    return client, conn


def reply(client: socket.socket) -> tuple[bytes, bytes, bytes]:
    data = b""
    while chunk := client.recv(65536):
        data += chunk
    status, err, length, out = data.split(b"\0", 3)
    assert int(length) == len(out)
    return status, err, out


def alive(pid: int) -> bool:
    try:
        finished, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    return finished == 0


def test_a_worker_answers_the_client_directly_and_serves_again(pool: Pool) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        for _ in range(2):  # the same worker, twice: it stays for the next request
            client, conn = connection(listener)
            pool.hand(Request(conn, ["claude"], claude(BAD)))
            assert conn.fileno() == -1  # the server's copy is closed: the worker has one
            status, err, out = reply(client)
            client.close()
            assert (status, err) == (b"0", b"")
            got = json.loads(out)["hookSpecificOutput"]
            assert (
                got["permissionDecision"] == "deny" and "HL103" in got["permissionDecisionReason"]
            )
            assert pool.collect(None) == 1 and pool.busy() == 0
        assert len(pool.workers) == 1


def test_a_busy_worker_gets_a_second_one_beside_it(pool: Pool) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        slow_client, slow_conn = connection(listener)
        slow = claude("\n".join(['ssh h "pkill -f x; echo"'] * 3000))
        pool.hand(Request(slow_conn, ["claude", "--timeout", "0"], slow))
        client, conn = connection(listener)
        pool.hand(Request(conn, ["claude"], claude(BAD)))
        assert len(pool.workers) == 2 and pool.busy() == 2
        assert b'"deny"' in reply(client)[2]
        slow_client.settimeout(0)  # the slow one is still being checked
        with pytest.raises(BlockingIOError):
            slow_client.recv(1)
        slow_client.settimeout(120)
        assert reply(slow_client)[0] == b"0"


def test_a_worker_leaves_after_a_big_request(pool: Pool) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client, conn = connection(listener)
        pool.hand(Request(conn, ["claude"], claude("echo " + "x" * BIG_REQUEST)))
        (worker,) = pool.workers
        assert reply(client) == (b"0", b"", b"")  # no trigger: a quiet allow
        deadline = time.monotonic() + 30
        while pool.workers and time.monotonic() < deadline:
            pool.collect(1)
        assert pool.workers == [] and not alive(worker.pid)  # its memory went with it
        client, conn = connection(listener)  # and the next request gets a new worker
        pool.hand(Request(conn, ["claude"], claude(BAD)))
        assert b'"deny"' in reply(client)[2]
        assert [w.pid for w in pool.workers] != [worker.pid]


def test_idle_workers_beyond_the_first_leave(pool: Pool, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = pool.spawn(), pool.spawn()
    monkeypatch.setattr("heredoc_lint.agents.workers.SPARE_IDLE", 0.0)
    pool.trim()
    assert pool.workers == [first] and not alive(second.pid)
