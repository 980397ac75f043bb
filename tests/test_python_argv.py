"""Python argv lists keep their words: HL106, HL108 and HL104 through the real channel.

`subprocess.run(["ssh", h, "ls", "/srv/my dir"])` has no local shell, but ssh joins its
words with spaces and the remote shell splits them again; `["scp", "-p", PORT, ...]` is
scp's `-p`; `["ssh", h, "nohup x > /dev/null &"]` keeps ssh waiting for the job. Each case
runs the program against the test sshd and shows the failure the finding claims, then
checks the finding's line and column.
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

JOB = "nohup sleep 4 > /dev/null &"
FIXED_JOB = "nohup sleep 4 > /dev/null 2>&1 < /dev/null &"


def findings(text: str, code: str) -> list[Finding]:
    return [f for f in check_text(text, "python", "p.py") if f.code == code]


def _run(
    tmp_path: Path, text: str, sshd: SshServer
) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run the program; its output goes to files, not pipes: a job left behind holding a
    pipe would make this wait, not the program."""
    script = tmp_path / "p.py"
    script.write_text(text)
    out, err = tmp_path / "out", tmp_path / "err"
    began = time.monotonic()
    with out.open("w") as stdout, err.open("w") as stderr:
        code = subprocess.run(
            [sys.executable, str(script)], stdout=stdout, stderr=stderr, timeout=60, env=sshd.env()
        ).returncode
    took = time.monotonic() - began
    return subprocess.CompletedProcess(script, code, out.read_text(), err.read_text()), took


def _fix(tmp_path: Path, text: str) -> str:
    return fix_file(tmp_path / "p.py", text)


def test_ssh_argv_words_are_split_again_hl106(sshd: SshServer, tmp_path: Path) -> None:
    folder = tmp_path / "my dir"
    folder.mkdir()
    (folder / "inside.txt").write_text("x")
    program = (
        "import subprocess\n"
        "import sys\n"
        f'done = subprocess.run(["ssh", "-F", "{sshd.config}", "h", "ls", "{folder}"])\n'
        "sys.exit(done.returncode)\n"
    )
    (finding,) = findings(program, "HL106")
    assert finding.severity is Severity.INFO
    assert program[finding.start : finding.end] == "ssh"
    assert finding.start == program.index('"ssh"') + 1
    assert "the remote shell splits the string again" in finding.message
    assert "arrives as 2 separate arguments" in finding.message
    # What the finding claims: the remote ls gets `.../my` and `dir`, not the folder.
    done, _ = _run(tmp_path, program, sshd)
    assert done.returncode != 0
    assert f"{tmp_path}/my" in done.stderr and "No such file or directory" in done.stderr
    assert "inside.txt" not in done.stdout
    # One string written for the remote shell is one word there: no finding, and it works.
    good = program.replace(f'"ls", "{folder}"', f"\"ls '{folder}'\"")
    assert findings(good, "HL106") == []
    done, _ = _run(tmp_path, good, sshd)
    assert (done.returncode, done.stdout) == (0, "inside.txt\n")


def test_scp_argv_lower_p_is_not_a_port_hl108(sshd: SshServer, tmp_path: Path) -> None:
    source = tmp_path / "a.txt"
    source.write_text("x")
    program = (
        "import subprocess\n"
        "import sys\n"
        f'port = "{sshd.port}"\n'
        f'done = subprocess.run(["scp", "-p", "{sshd.port}", "{source}", "h:{tmp_path}/b.txt"])\n'
        "sys.exit(done.returncode)\n"
    )
    (finding,) = findings(program, "HL108")
    assert finding.severity is Severity.ERROR
    line = program.splitlines()[3]
    assert program[finding.start : finding.end] == "-p"
    assert finding.start == program.index(line) + line.index('"-p"') + 1
    assert f"`{sshd.port}` becomes a source file" in finding.message
    # The number is taken for a local file (scp: the test's wrapper, the real scp).
    done, _ = _run(tmp_path, program, sshd)
    assert done.returncode != 0
    assert f'stat local "{sshd.port}": No such file or directory' in done.stderr, done.stderr
    fixed = _fix(tmp_path, program)
    assert fixed == program.replace('"-p"', '"-P"')
    assert findings(fixed, "HL108") == []
    done, _ = _run(tmp_path, fixed, sshd)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "b.txt").read_text() == "x"


def _ssh_program(sshd: SshServer, call: str) -> str:
    return f'import subprocess\nCONFIG = "{sshd.config}"\n{call}\n'


def test_ssh_argv_background_job_holds_ssh_hl104(sshd: SshServer, tmp_path: Path) -> None:
    program = _ssh_program(sshd, f'subprocess.run(["ssh", "-F", CONFIG, "h", "{JOB}"])')
    (finding,) = findings(program, "HL104")
    assert finding.severity is Severity.WARNING
    assert program[finding.start : finding.end] == "nohup"
    assert "`subprocess.run` waits for ssh to exit" in finding.message
    _, held = _run(tmp_path, program, sshd)
    assert held >= 3.5, f"the program went on after {held:.2f}s"
    fixed = _fix(tmp_path, program)
    assert fixed == program.replace(JOB, FIXED_JOB)
    assert findings(fixed, "HL104") == []
    _, quick = _run(tmp_path, long_job(fixed, 4), sshd)
    assert quick < AT_ONCE, f"the fixed program still waited {quick:.2f}s"


@pytest.mark.parametrize(
    ("call", "severity"),
    [
        # ssh -f goes to the background itself: nothing waits for the job.
        (f'subprocess.run(["ssh", "-f", "-F", CONFIG, "h", "{JOB}"])', None),
        # Popen returns at once; the file does not show a wait.
        (f'subprocess.Popen(["ssh", "-F", CONFIG, "h", "{JOB}"])', Severity.INFO),
    ],
)
def test_ssh_argv_that_does_not_wait(
    call: str, severity: Severity | None, sshd: SshServer, tmp_path: Path
) -> None:
    program = _ssh_program(sshd, call)
    assert [f.severity for f in findings(program, "HL104")] == ([severity] if severity else [])
    _, took = _run(tmp_path, long_job(program, 4), sshd)
    assert took < AT_ONCE, f"the program waited {took:.2f}s"


CONFIG = "CONFIG"  # the name the programs above bind


@pytest.mark.parametrize(
    "call",
    [
        'subprocess.run(["ssh", host, "ls", path])',  # the value is not known: no guess
        'subprocess.run(["ssh", host, "ls", "-l", "/srv"])',  # each word one word again
        'subprocess.run(["ssh", host, "echo", "a b"])',  # echo joins them the same way
        'subprocess.run(["scp", "-P", "2222", src, dst])',  # the real port flag
        'subprocess.run(["scp", "-p", port, src, dst])',  # a value: not known to be a number
        'subprocess.run(["ssh", host, "nohup x > log 2>&1 < /dev/null &"])',
    ],
)
def test_no_new_noise(call: str) -> None:
    text = f"import subprocess\ndef f(host, path, src, dst, port):\n    {call}\n"
    codes = {"HL104", "HL106", "HL108"}
    assert [f for f in check_text(text, "python", "p.py") if f.code in codes] == []


def test_ssh_argv_of_several_words_holds_ssh_hl104(sshd: SshServer, tmp_path: Path) -> None:
    """The remote command given as words: ssh joins them, the job still holds the session
    (the ssh layer below the argv's own line: its options are read there)."""
    words = '"nohup", "sleep", "4", ">", "/dev/null", "&"'
    program = _ssh_program(sshd, f'subprocess.run(["ssh", "-F", CONFIG, "h", {words}])')
    found = findings(program, "HL104")
    assert [(program[f.start : f.end], f.severity) for f in found] == [("nohup", Severity.WARNING)]
    assert "ssh does not return until this job exits" in found[0].message
    assert findings(program, "HL106") == []  # `>` and `&` are for the remote shell
    _, held = _run(tmp_path, program, sshd)
    assert held >= 3.5, f"the program went on after {held:.2f}s"
    detached = program.replace('"ssh", "-F"', '"ssh", "-f", "-F"')
    assert findings(detached, "HL104") == []


# -- calls.py: which calls run a shell, which shell, where ---------------------------------


def test_both_values_of_a_chosen_argv_element_are_read() -> None:
    """`["ssh", "h", A if x else B]`: A and B are each the remote command (two HL103)."""
    text = (
        "import subprocess\n\ndef go(x):\n"
        '    subprocess.run(["ssh", "h", "pkill -f a; echo" if x else "pkill -f b; echo"])\n'
    )
    found = python_findings(text)
    assert [(f.code, text[f.start : f.end + 5]) for f in found] == [
        ("HL103", "pkill -f a"),
        ("HL103", "pkill -f b"),
    ]


_PKILL = "pkill -f sglang; echo"


def test_an_argv_remote_command_of_one_word_is_the_remote_script() -> None:
    """`["ssh", h, "CMD"]`: CMD is the remote shell's script (HL103 at its pkill);
    `["ssh", h, "ls", "/srv/my dir"]`: ssh joins the words with spaces, and the remote
    shell splits `/srv/my dir` again (HL106 at ssh)."""
    text = (
        "import subprocess\n"
        f'subprocess.run(["ssh", "h", "{_PKILL}"])\n'
        'subprocess.run(["ssh", "h", "ls", "/srv/my dir"])\n'
    )
    found = python_findings(text)
    assert code_severity_text(text, found) == [
        ("HL103", "error", "pkill"),
        ("HL106", "info", "ssh"),
    ]
    assert "`/srv/my dir` arrives as 2 separate arguments" in found[1].message
