"""HL105 and the database clients: `psql` reads its statements from stdin unless `-c`
gives them (issue 20, run 4a: the survivors `'mysql'` and `'-c'` of the rule's tables).

A real PostgreSQL server (the Debian package's `initdb`/`pg_ctl`, run as the `postgres`
user on a Unix socket in a temp dir, no TCP) answers the remote `psql` that the loopback
sshd runs: the `-n` fix is safe exactly when the output does not change with stdin.

`mysql` is the same kind of client (mysql(1): "mysql db_name < script.sql > output.tab";
statements come from stdin unless `-e`/`--execute` gives them), with no server here:
psql stands in for it, and the rule's answer for `mysql` is checked to be psql's.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sshd import SshServer, run_local

from heredoc_lint.engine import Settings, check_shell
from heredoc_lint.model import Applicability, Edit

_PG_BIN = Path("/usr/lib/postgresql/15/bin")


def _unavailable(message: str) -> None:
    message = f"a real PostgreSQL server is needed: {message} (apt-get install postgresql)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def pg_socket() -> Iterator[str]:
    """The directory of a fresh server's Unix socket (trust auth, user `postgres`)."""
    bins = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    if not bins or shutil.which("psql") is None or shutil.which("runuser") is None:
        _unavailable("no pg_ctl or psql")
    if os.geteuid() != 0:
        _unavailable("the server runs as user postgres: the tests must run as root")
    pg_ctl = bins[-1]
    base = Path(tempfile.mkdtemp(prefix="hl-pg-"))
    try:
        shutil.chown(base, "postgres")
        as_postgres = ["runuser", "-u", "postgres", "--"]
        subprocess.run(
            [*as_postgres, str(pg_ctl.parent / "initdb"), "-D", f"{base}/data", "-A", "trust"]
            + ["-U", "postgres"],
            check=True,
            capture_output=True,
        )
        start = [*as_postgres, str(pg_ctl), "-D", f"{base}/data", "-l", f"{base}/log", "-w"]
        subprocess.run(
            [*start, "-o", f"-k {base} -c listen_addresses=''", "start"],
            check=True,
            capture_output=True,
        )
        try:
            yield str(base)
        finally:
            subprocess.run(
                [*as_postgres, str(pg_ctl), "-D", f"{base}/data", "-m", "immediate", "-w", "stop"],
                capture_output=True,
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _fix_applicability(remote: str) -> Applicability:
    quoted = shlex.quote(remote)
    text = f"while read h; do ssh h {quoted}; done < hosts\n"
    (found,) = check_shell(text, "t.sh", Settings(select=frozenset({"HL105"})))
    assert (found.start, found.end) == (17, 20)
    assert found.fix is not None
    assert found.fix.edits == (Edit(20, 20, " -n"),)
    return found.fix.applicability


def _reads_stdin(remote: str, sshd: SshServer) -> bool:
    """Whether the output through the real sshd changes between `-n` and two statements
    on stdin."""
    quoted = shlex.quote(remote)
    piped = run_local(f"printf \"select 'l1';\\nselect 'l2';\\n\" | ssh h {quoted}", sshd)
    nulled = run_local(f"ssh -n h {quoted}", sshd)
    assert piped.returncode == 0, piped.stderr
    assert nulled.returncode == 0, nulled.stderr
    return (piped.stdout, piped.stderr) != (nulled.stdout, nulled.stderr)


@pytest.mark.parametrize(
    ("options", "reads"),
    [
        ("", True),
        ("-c 'select 7'", False),
        ("--command 'select 7'", False),
        ("-f -", True),
    ],
)
def test_psql_reads_stdin_unless_given_a_command(
    options: str, reads: bool, pg_socket: str, sshd: SshServer
) -> None:
    remote = f"psql -h {pg_socket} -U postgres -At {options}".strip()
    assert _reads_stdin(remote, sshd) is reads
    expected = Applicability.UNSAFE if reads else Applicability.SAFE
    assert _fix_applicability(remote) is expected


@pytest.mark.parametrize(
    ("remote", "stand_in"),
    [
        ("mysql -h db1 shop", "psql -h db1 shop"),
        ("mysql -e 'select 1' shop", "psql -c 'select 1' shop"),
        ("mysql --execute 'select 1' shop", "psql --command 'select 1' shop"),
    ],
)
def test_mysql_is_judged_like_psql(remote: str, stand_in: str) -> None:
    """mysql(1) reads statements from stdin unless `-e`/`--execute` gives them, as psql
    does with `-c`/`--command` (shown against a real server above)."""
    assert _fix_applicability(remote) is _fix_applicability(stand_in)
    reads = not any(o in remote for o in ("-e ", "--execute "))
    assert _fix_applicability(remote) is (Applicability.UNSAFE if reads else Applicability.SAFE)
