"""HL104 on the Python channels that run a remote shell: paramiko's exec_command, fabric's run.

The channel stays open while a `&` job holds its stdout or stderr, as an ssh session
does. Whether the program waits for it depends on what it does with the channel, and the
finding says so: a warning only where the file shows the wait. Each case runs the real
program against the test sshd, before and after the fix, and times it.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_process import fix_file
from sshd import AT_ONCE, SshServer, long_job

from heredoc_lint.engine import check_text
from heredoc_lint.model import Finding, Severity

JOB = "nohup sleep 4 > /dev/null &"  # stderr still the channel's
FIXED_JOB = "nohup sleep 4 > /dev/null 2>&1 < /dev/null &"

PARAMIKO = """\
import paramiko

client = paramiko.SSHClient()
client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
client.connect("127.0.0.1", port={port}, username="{user}", key_filename="{key}",
               look_for_keys=False, allow_agent=False)
{body}
client.close()
"""

FABRIC = """\
from fabric import Connection

c = Connection("127.0.0.1", port={port}, user="{user}",
               connect_kwargs={{"key_filename": "{key}", "look_for_keys": False,
                               "allow_agent": False}})
{body}
c.close()
"""


def hl104(text: str) -> list[Finding]:
    return [f for f in check_text(text, "python", "p.py") if f.code == "HL104"]


def _program(template: str, body: str, sshd: SshServer) -> str:
    return template.format(port=sshd.port, user=sshd.user, key=sshd.key, body=body)


def _run(tmp_path: Path, text: str) -> float:
    script = tmp_path / "p.py"
    script.write_text(text)
    began = time.monotonic()
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return time.monotonic() - began


def _fix(tmp_path: Path, text: str) -> str:
    return fix_file(tmp_path / "p.py", text)


WAITS = [
    # The body starts on line 7 of the program.
    (
        PARAMIKO,
        f'stdin, stdout, stderr = client.exec_command("{JOB}")\nstdout.read()',
        "reading its output (line 8) waits",
    ),
    (
        PARAMIKO,
        f'_, out, err = client.exec_command("{JOB}")\nfor line in err:\n    print(line)',
        "reading its output (line 8) waits",
    ),
    (
        PARAMIKO,
        f'print(client.exec_command("{JOB}")[1].read())',
        "reading its output (line 7) waits",
    ),
    (FABRIC, f'c.run("{JOB}", hide=True)', "`run()` reads the command's output to its end"),
]


@pytest.mark.parametrize(("template", "body", "says"), WAITS)
def test_a_program_that_waits_for_the_channel_is_warned_and_fixed(
    template: str, body: str, says: str, sshd: SshServer, tmp_path: Path
) -> None:
    program = _program(template, body, sshd)
    (finding,) = hl104(program)
    assert finding.severity == Severity.WARNING
    assert says in finding.message
    assert program[finding.start : finding.end] == "nohup"
    held = _run(tmp_path, program)
    assert held >= 3.5, f"the program went on after {held:.2f}s: it did not wait"

    fixed = _fix(tmp_path, program)
    assert fixed == program.replace(JOB, FIXED_JOB)
    assert hl104(fixed) == []
    quick = _run(tmp_path, long_job(fixed, 4))
    assert quick < AT_ONCE, f"the fixed program still waited {quick:.2f}s"


NO_WAIT = [
    # exec_command returns at once; nothing here reads the channel.
    (PARAMIKO, f'client.exec_command("{JOB}")'),
    # The exit status comes when the shell exits, not when the job does (measured).
    (PARAMIKO, f'_, out, _ = client.exec_command("{JOB}")\nout.channel.recv_exit_status()'),
    # asynchronous=True leaves the wait to a join() the file may or may not make.
    (FABRIC, f'promise = c.run("{JOB}", asynchronous=True, hide=True)'),
]


@pytest.mark.parametrize(("template", "body"), NO_WAIT)
def test_a_program_that_does_not_show_a_wait_gets_info(
    template: str, body: str, sshd: SshServer, tmp_path: Path
) -> None:
    program = _program(template, body, sshd)
    (finding,) = hl104(program)
    assert finding.severity == Severity.INFO
    assert "the file does not show that anything waits for it" in finding.message
    # What the info says: this program does not wait.
    assert _run(tmp_path, long_job(program, 4)) < AT_ONCE


def test_fabric_disown_returns_at_once_and_is_not_reported(sshd: SshServer, tmp_path: Path) -> None:
    program = _program(FABRIC, f'c.run("{JOB}", disown=True)', sshd)
    assert hl104(program) == []
    assert _run(tmp_path, long_job(program, 4)) < AT_ONCE


def test_subprocess_run_of_a_module_is_not_taken_for_fabric() -> None:
    # `subprocess.run(cmd)` and `c.exec_command(cmd)` share the string: the wait is read
    # from the exec_command call, not from subprocess's `run`.
    text = (
        "import subprocess\nimport paramiko\n\n"
        f'cmd = "{JOB}"\n'
        "subprocess.run(cmd, shell=True)\n"
        "client = paramiko.SSHClient()\n"
        "client.exec_command(cmd)\n"
    )
    (finding,) = hl104(text)
    assert finding.severity == Severity.INFO
