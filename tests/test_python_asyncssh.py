"""asyncssh's `conn.run(CMD)` and `conn.create_process(CMD)`: the remote login shell.

The connection is known from the file itself (`asyncssh.connect(...)`, awaited or in
`async with`, or an annotation); each case runs the real program against the test sshd
and shows what the finding claims: the job that holds the channel (HL104), the `pkill -f`
that kills its own `bash -c` (HL103), the path split at its blank (HL201).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_process import fix_file
from rulekit import code_severity_text, python_findings
from sshd import AT_ONCE, SshServer, long_job

from heredoc_lint.engine import check_text
from heredoc_lint.model import Finding, Severity

JOB = "nohup sleep 4 > /dev/null &"  # stderr still the channel's
FIXED_JOB = "nohup sleep 4 > /dev/null 2>&1 < /dev/null &"

PROGRAM = """\
import asyncio
import sys

import asyncssh


async def main() -> None:
    async with asyncssh.connect("127.0.0.1", port={port}, username="{user}",
                                client_keys=["{key}"], known_hosts=None,
                                agent_path=None) as conn:
{body}


asyncio.run(main())
"""
BODY_LINE = 11  # the first line of the body


def findings(text: str, code: str) -> list[Finding]:
    return [f for f in check_text(text, "python", "p.py") if f.code == code]


def _program(sshd: SshServer, *body: str) -> str:
    lines = "\n".join(" " * 8 + line for line in body)
    return PROGRAM.format(port=sshd.port, user=sshd.user, key=sshd.key, body=lines)


def _run(tmp_path: Path, text: str, *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    script = tmp_path / "p.py"
    script.write_text(text)
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=60
    )
    return done, time.monotonic() - began


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def test_run_waits_for_the_job_that_holds_the_channel_hl104(
    sshd: SshServer, tmp_path: Path
) -> None:
    program = _program(sshd, f'await conn.run("{JOB}")')
    (finding,) = findings(program, "HL104")
    assert finding.severity is Severity.WARNING
    assert _line_col(program, finding.start) == (BODY_LINE, 8 + len('await conn.run("') + 1)
    assert program[finding.start : finding.end] == "nohup"
    assert "the channel of `asyncssh run` as its stderr" in finding.message
    assert "`run()` reads the command's output to its end" in finding.message
    done, held = _run(tmp_path, program)
    assert done.returncode == 0, done.stderr
    assert held >= 3.5, f"the program went on after {held:.2f}s: it did not wait"
    fixed = fix_file(tmp_path / "p.py", program)
    assert fixed == program.replace(JOB, FIXED_JOB)
    assert findings(fixed, "HL104") == []
    done, quick = _run(tmp_path, long_job(fixed, 4))
    assert done.returncode == 0, done.stderr
    assert quick < AT_ONCE, f"the fixed program still waited {quick:.2f}s"


def test_create_process_does_not_show_a_wait_info(sshd: SshServer, tmp_path: Path) -> None:
    program = _program(sshd, f'await conn.create_process("{JOB}")')
    (finding,) = findings(program, "HL104")
    assert finding.severity is Severity.INFO
    assert "the file does not show that anything waits for it" in finding.message
    done, took = _run(tmp_path, long_job(program, 4))
    assert done.returncode == 0, done.stderr
    assert took < AT_ONCE, f"the program waited {took:.2f}s"  # what the info says


def test_pkill_kills_its_own_login_shell_hl103(sshd: SshServer, tmp_path: Path) -> None:
    body = (
        'done = await conn.run("pkill -f zz-asyncssh-marker; echo restarted")',
        "print(done.exit_status, done.exit_signal, repr(done.stdout))",
    )
    program = _program(sshd, *body)
    (finding,) = findings(program, "HL103")
    assert finding.severity is Severity.ERROR
    assert _line_col(program, finding.start) == (BODY_LINE, 8 + len('done = await conn.run("') + 1)
    assert "(`bash -c pkill -f zz-asyncssh-marker; echo restarted`)" in finding.message
    done, _ = _run(tmp_path, program)
    assert done.returncode == 0, done.stderr
    # The shell was killed by the pkill it ran: `echo restarted` never ran.
    assert "restarted" not in done.stdout
    assert "TERM" in done.stdout or done.stdout.startswith("143 "), done.stdout


def test_a_path_from_the_command_line_is_split_hl201(sshd: SshServer, tmp_path: Path) -> None:
    folder = tmp_path / "my dir"
    folder.mkdir()
    (folder / "a.txt").write_text("inside\n")
    body = (
        'done = await conn.run(f"cat {sys.argv[1]}")',
        "print(done.exit_status, repr(done.stdout), repr(done.stderr))",
    )
    program = _program(sshd, *body)
    (finding,) = findings(program, "HL201")
    # `sys.argv` is evidence of a value from outside: info by default (severities.py)
    assert finding.severity is Severity.INFO and finding.evidence == "argv"
    assert program[finding.start : finding.end] == "{sys.argv[1]}"
    column = 8 + len('done = await conn.run(f"cat ') + 1
    assert _line_col(program, finding.start) == (BODY_LINE, column)
    assert "into the `asyncssh run` command string as an unquoted shell word" in finding.message
    done, _ = _run(tmp_path, program, str(folder / "a.txt"))
    assert done.returncode == 0, done.stderr
    assert f"{tmp_path}/my: No such file or directory" in done.stdout, done.stdout
    assert "inside" not in done.stdout


@pytest.mark.parametrize(
    "body",
    [
        # A parameter named like a connection: nothing shows it is asyncssh's.
        "async def f(conn):\n    await conn.run('nohup x &')\n",
        # A connection of some other library.
        "async def f():\n    conn = other.connect()\n    await conn.run('nohup x &')\n",
        # asyncssh's `run` of a module, or a process's own methods.
        "async def f(p):\n    await p.create_process('nohup x &')\n",
    ],
)
def test_no_evidence_no_finding(body: str) -> None:
    text = "import asyncssh\nimport other\n\n" + body
    assert check_text(text, "python", "p.py") == []


def test_an_annotated_connection_is_read() -> None:
    text = (
        "import asyncssh\n\n"
        "async def f(conn: asyncssh.SSHClientConnection):\n"
        "    await conn.run('nohup x > /dev/null &')\n"
    )
    (finding,) = findings(text, "HL104")
    assert text[finding.start : finding.end] == "nohup"


# -- calls.py: which calls run a shell, which shell, where ---------------------------------


_PKILL = "pkill -f sglang; echo"


def test_asyncssh_run_on_a_connection_runs_its_string_remotely() -> None:
    """`async with asyncssh.connect(h) as conn: await conn.run(CMD)`: CMD is the remote
    shell's script."""
    text = (
        "import asyncssh\n\nasync def go():\n    async with asyncssh.connect('h') as conn:\n"
        f'        await conn.run("{_PKILL}")\n'
    )
    assert code_severity_text(text, python_findings(text)) == [("HL103", "error", "pkill")]
