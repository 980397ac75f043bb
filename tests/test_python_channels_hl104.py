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
from rulekit import python_findings_with_settings
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


# -- waits.py: whether the program waits for the channel a `&` job holds (HL104) -----------


def _hl104(text: str) -> list[tuple[str, str, str]]:
    found = python_findings_with_settings(text, "HL104")
    return [(f.severity.value, text[f.start : f.end], f.message) for f in found]


# What each library does with the channel is measured through the test sshd above and in
# tests/test_python_argv.py; here the reading of the program's own code is checked: which
# call, which stream, which line.
_JOB = "nohup sleep 4 > /dev/null &"


_PARAMIKO = (
    "import paramiko\n\n\n"
    "def deploy(client):\n"
    f'    cmd = "{_JOB}"\n'
    "    stdin, stdout, stderr = client.exec_command(cmd)\n"
    "    for line in {stream}:\n"
    "        print(line)\n"
)


def test_reading_a_stream_of_exec_command_named_in_a_function_waits() -> None:
    """The command is given by a name bound on the line before; the call's stdout is read
    by a `for` loop two lines below, inside the same function: a warning naming line 7."""
    ((severity, marked, message),) = _hl104(_PARAMIKO.format(stream="stdout"))
    assert (severity, marked) == ("warning", "nohup")
    assert "reading its output (line 7) waits for the channel to close" in message


def test_iterating_stdin_of_exec_command_is_no_wait() -> None:
    """stdin is never read from: iterating it shows no wait (an info)."""
    ((severity, marked, message),) = _hl104(_PARAMIKO.format(stream="stdin"))
    assert (severity, marked) == ("info", "nohup")
    assert "the file does not show that anything waits for it" in message


def test_reading_exec_command_output_at_module_level_waits() -> None:
    program = (
        "import paramiko\n\nclient = paramiko.SSHClient()\n"
        f'cmd = "{_JOB}"\n'
        "_, out, _ = client.exec_command(cmd)\nprint(out.read())\n"
    )
    ((severity, marked, message),) = _hl104(program)
    assert (severity, marked) == ("warning", "nohup")
    assert "reading its output (line 6) waits for the channel to close" in message


@pytest.mark.parametrize(
    ("disown", "reported"),
    [("True", False), ("False", True), ("1", True)],
)
def test_fabric_disown_is_read_from_the_literal_true(disown: str, reported: bool) -> None:
    """`disown=True` returns at once (measured in test_python_channels_hl104.py): no
    finding; `disown=False` (or a value not written as True) waits as a plain sudo."""
    program = (
        "from fabric import Connection\n\nc = Connection('h')\n"
        f'c.sudo("{_JOB}", disown={disown})\n'
    )
    found = _hl104(program)
    if not reported:
        assert found == []
        return
    ((severity, marked, message),) = found
    assert (severity, marked) == ("warning", "sudo")
    assert "`sudo()` reads the command's output to its end" in message


def _run_program(tmp_path: Path, program: str, sshd: SshServer) -> None:
    """Run the program (its output to files: a job holding a pipe would make this wait,
    not the program)."""
    script = tmp_path / "p.py"
    script.write_text(program)
    with (tmp_path / "out").open("w") as out, (tmp_path / "err").open("w") as err:
        code = subprocess.run(
            [sys.executable, str(script)], stdout=out, stderr=err, timeout=60, env=sshd.env()
        ).returncode
    assert code == 0, (tmp_path / "err").read_text()


def test_ssh_tt_returns_at_once(sshd: SshServer, tmp_path: Path) -> None:
    """`ssh -tt` gives the remote shell a terminal; when the shell exits, ssh returns
    although a `nohup` job still runs: no HL104.  Without `-tt` the program waits for the
    job, and HL104 says so.  Measured without a clock (the machine may be loaded): the
    job leaves a file when it ends, and whether the file is there when the program
    returns tells whether the program waited for it."""

    def program(flag: str, done: Path) -> str:
        job = f"nohup sh -c 'sleep 6; touch {done}' > /dev/null &"
        call = f'subprocess.run(["ssh", {flag}"-F", "{sshd.config}", "h", "{job}"])'
        return f"import subprocess\n{call}\n"

    tty_done, held_done = tmp_path / "tty-job-done", tmp_path / "held-job-done"
    tty, held = program('"-tt", ', tty_done), program("", held_done)
    assert _hl104(tty) == []
    ((severity, marked, message),) = _hl104(held)
    assert (severity, marked) == ("warning", "nohup")
    assert "`subprocess.run` waits for ssh to exit" in message
    _run_program(tmp_path, tty, sshd)
    assert not tty_done.exists()  # returned while the job still ran
    _run_program(tmp_path, held, sshd)
    assert held_done.exists()  # returned only once the job had ended


# -- exec_command's command given by keyword --------------------------------------------------


_EXEC_CALLS = [
    'client.exec_command("sleep 100 &")',
    'client.exec_command(command="sleep 100 &", timeout=5)',
    'client.exec_command(timeout=5, command="sleep 100 &")',
    'client.exec_command(get_pty=False, command="sleep 100 &", timeout=5)',
]


@pytest.mark.parametrize("call", _EXEC_CALLS)
def test_a_job_holding_the_channel_is_a_warning_whatever_the_keywords_order(call: str) -> None:
    """paramiko's `exec_command` returns at once, but reading its stdout waits for the
    channel's end of file, which the `&` job holds: HL104 is a warning that names the line
    of the read, whether the command is the first argument or the keyword `command`
    before, between or after the others.  (Run 7: the channel's call was located by its
    first keyword, so `timeout=5, command=...` was an info "the file does not show that
    anything waits"; the mutant `keywords[-1]` broke `command=..., timeout=5`.)"""
    text = (
        "import paramiko\ndef f(client):\n"
        f"    stdin, stdout, stderr = {call}\n"
        "    return stdout.read()\n"
    )
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.severity) == ("HL104", Severity.WARNING)
    assert text[finding.start : finding.end] == "sleep"
    assert "reading its output (line 4) waits" in finding.message


def test_a_job_holding_the_channel_of_an_unread_call_is_an_info() -> None:
    """The control: nothing reads the stdout, nothing waits; an info."""
    text = (
        'import paramiko\ndef f(client):\n    client.exec_command(timeout=5, command="sleep 9 &")\n'
    )
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.severity) == ("HL104", Severity.INFO)
    assert "the file does not show that anything wai" in finding.message


# -- the fix's `str(...)`: left out where the value is known to be a str ---------------------


_BUILT_COMMANDS = [
    # (JOB, the statements before the call in `f`): where the command's text is written
    ("leep 100 &", '    cmd = "s" + JOB\n'),  # one character in the assignment of `cmd`
    ("sleep 100 &", "    cmd = JOB\n"),  # none: `cmd` is given another name's value
    ("sleep 100 &", "    job = JOB\n    cmd = job\n"),  # through two names
]


@pytest.mark.parametrize(("job", "before"), _BUILT_COMMANDS)
def test_the_call_is_found_from_a_command_built_in_names(job: str, before: str) -> None:
    """The call whose channel the job holds is found from where the command's characters
    are written: in its argument, in the assignment of the name it is given, or in the
    assignment of a name that one is given (`cmd = JOB`).  Found, its read makes HL104 a
    warning.  (Run 7: the mutant `i >= 1` dropped the command's first character, the only
    one written in `cmd = "s" + JOB`; and `cmd = JOB` was never followed: an info.)"""
    text = (
        f'import paramiko\nJOB = "{job}"\ndef f(client):\n{before}'
        "    stdin, stdout, stderr = client.exec_command(cmd)\n"
        "    return stdout.read()\n"
    )
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.severity) == ("HL104", Severity.WARNING)
    line = text.count("\n", 0, text.index("stdout.read()")) + 1
    assert f"reading its output (line {line}) waits" in finding.message


def test_reading_the_name_of_exec_commands_stdin_waits_for_nothing() -> None:
    """Of `stdin, stdout, stderr = exec_command(...)` only stdout and stderr are the
    channel's output: a later `.read()` of the first name (here given a file) does not
    wait for the job, so HL104 stays an info.  (Run 7: with `len(elements) == 3` made
    `== 4`, the first name counted as an output and the info became a warning.)"""
    text = (
        "import paramiko\ndef f(client):\n"
        '    stdin, stdout, stderr = client.exec_command("sleep 100 &")\n'
        '    stdin = open("input.txt")\n'
        "    return stdin.read()\n"
    )
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.severity) == ("HL104", Severity.INFO)
    assert "the file does not show that anything wai" in finding.message
