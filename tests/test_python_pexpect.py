"""pexpect's `spawn("ssh h 'CMD'")` and `run(...)`: pexpect splits the command line itself.

No local shell reads the string ("Pexpect does NOT interpret shell meta characters"), so
the frontend reads it as an argv line only where pexpect's split and a shell's agree
(checked here against pexpect's own `split_command_line` and real bash); the wrapper
table then makes the ssh or `bash -c` layer below it. Each runtime case runs the real
program (real pexpect, the real ssh client, the test sshd) and checks the finding's line
and column.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest
from cli_process import fix_file
from rulekit import code_severity_text, python_findings
from sshd import AT_ONCE, SshServer, long_job

from heredoc_lint.engine import check_text
from heredoc_lint.frontends.python.calls import pexpect_words
from heredoc_lint.model import Finding, Severity

JOB = "nohup sleep 4 > /dev/null &"  # stderr still the session's
FIXED_JOB = "nohup sleep 4 > /dev/null 2>&1 < /dev/null &"


def findings(text: str, code: str) -> list[Finding]:
    return [f for f in check_text(text, "python", "p.py") if f.code == code]


def _program(call: str) -> str:
    return f"import sys\n\nimport pexpect\n\n{call}\n"


CALL_LINE = 5


def _position(program: str, at: int) -> tuple[int, int]:
    return program.count("\n", 0, at) + 1, at - (program.rfind("\n", 0, at) + 1) + 1


def _column(program: str, needle: str) -> tuple[int, int]:
    return _position(program, program.index(needle))


def _at(program: str, finding: Finding) -> tuple[int, int]:
    return _position(program, finding.start)


def _run(
    tmp_path: Path, text: str, sshd: SshServer, *args: str
) -> tuple[subprocess.CompletedProcess[str], float]:
    script = tmp_path / "p.py"
    script.write_text(text)
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=sshd.env(),
    )
    return done, time.monotonic() - began


def test_run_of_ssh_waits_for_the_job_hl104(sshd: SshServer, tmp_path: Path) -> None:
    program = _program(f"pexpect.run(\"ssh -F {sshd.config} h '{JOB}'\")")
    (finding,) = findings(program, "HL104")
    assert finding.severity is Severity.WARNING
    assert program[finding.start : finding.end] == "nohup"
    assert _at(program, finding) == _column(program, "nohup")
    assert "ssh does not return until this job exits" in finding.message
    _, held = _run(tmp_path, program, sshd)
    assert held >= 3.5, f"the program went on after {held:.2f}s"
    fixed = fix_file(tmp_path / "p.py", program)
    assert fixed == program.replace(JOB, FIXED_JOB)
    assert findings(fixed, "HL104") == []
    _, quick = _run(tmp_path, long_job(fixed, 4), sshd)
    assert quick < AT_ONCE, f"the fixed program still waited {quick:.2f}s"


def test_spawn_of_an_argv_list_does_not_show_a_wait_info(sshd: SshServer, tmp_path: Path) -> None:
    program = _program(f'pexpect.spawn("ssh", ["-F", "{sshd.config}", "h", "{JOB}"])')
    (finding,) = findings(program, "HL104")
    assert finding.severity is Severity.INFO
    assert _at(program, finding) == _column(program, "nohup")
    _, took = _run(tmp_path, long_job(program, 4), sshd)
    assert took < AT_ONCE, f"the program waited {took:.2f}s"  # it never reads the child


def test_ssh_splits_the_words_again_hl106(sshd: SshServer, tmp_path: Path) -> None:
    folder = tmp_path / "my dir"
    folder.mkdir()
    (folder / "inside.txt").write_text("x")
    program = _program(f"print(pexpect.run(\"ssh -F {sshd.config} h ls '{folder}'\").decode())")
    (finding,) = findings(program, "HL106")
    assert finding.severity is Severity.INFO
    assert _at(program, finding) == (CALL_LINE, _column(program, "ssh")[1])
    assert "arrives as 2 separate arguments" in finding.message
    assert finding.message.endswith(
        "`dir`); pass the remote command as one quoted string"
        " with each argument quoted for the remote shell"
    )
    done, _ = _run(tmp_path, program, sshd)
    assert f"{tmp_path}/my" in done.stdout and "No such file or directory" in done.stdout
    assert "inside.txt" not in done.stdout


def test_a_value_in_the_remote_command_is_split_hl201(sshd: SshServer, tmp_path: Path) -> None:
    folder = tmp_path / "my dir"
    folder.mkdir()
    (folder / "a.txt").write_text("inside\n")
    call = f"print(pexpect.run(f\"ssh -F {sshd.config} h 'cat {{sys.argv[1]}}'\").decode())"
    program = _program(call)
    (finding,) = findings(program, "HL201")
    # `sys.argv` is evidence of a value from outside: info by default (severities.py)
    assert finding.severity is Severity.INFO and finding.evidence == "argv"
    assert program[finding.start : finding.end] == "{sys.argv[1]}"
    assert _at(program, finding) == _column(program, "{sys.argv[1]}")
    assert "as an unquoted shell word" in finding.message
    done, _ = _run(tmp_path, program, sshd, str(folder / "a.txt"))
    assert f"{tmp_path}/my: No such file or directory" in done.stdout, done.stdout
    assert "inside" not in done.stdout


def test_bash_c_kills_its_own_shell_hl103(sshd: SshServer, tmp_path: Path) -> None:
    program = _program(
        "print(pexpect.run(\"bash -c 'pkill -f zz-pexpect-marker; echo restarted'\").decode())"
    )
    (finding,) = findings(program, "HL103")
    assert finding.severity is Severity.ERROR
    assert _at(program, finding) == _column(program, "pkill")
    assert "(`bash -c pkill -f zz-pexpect-marker; echo restarted`)" in finding.message
    done, _ = _run(tmp_path, program, sshd)
    assert done.returncode == 0, done.stderr
    assert "restarted" not in done.stdout  # bash was killed by the pkill it ran


@pytest.mark.parametrize(
    "call",
    [
        # An operator: pexpect passes `|` to ssh as a word, a shell would make a pipe.
        f"pexpect.run(\"ssh h '{JOB}' | cat\")",
        # `$CMD` is the two characters to pexpect, an expansion to a shell.
        'pexpect.run("ssh h $CMD")',
        # A backslash in double quotes: pexpect keeps it, a shell may drop it.
        f"pexpect.run('ssh h \"{JOB} \\\\\"')",
        # Not pexpect's spawn: the file does not import it.
        f"other.spawn(\"ssh h '{JOB}'\")",
        # The arguments are not known.
        f'pexpect.spawn("ssh", ARGS + ["{JOB}"])',
    ],
)
def test_no_evidence_no_finding(call: str) -> None:
    text = f"import other\nimport pexpect\n\n{call}\n"
    assert [f for f in check_text(text, "python", "p.py") if f.code.startswith("HL1")] == []


LINES = [
    "ssh h 'nohup x > /dev/null &'",
    'ssh -p 22 h "ls -l /srv"',
    "bash -c 'echo a; echo b'",
    "ssh   h\tls  a\\ b \"c d\" 'e \"f\"' g''h",
    "scp a.txt h:/tmp/x",
    "ssh h 'it'\\''s'",
    "ssh *.txt a#b",
]


def _bash_words(line: str) -> list[str]:
    done = subprocess.run(
        ["bash", "-c", 'set -f; eval "set -- $1"; printf "%s\\0" "$@"', "_", line],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.split("\0")[:-1]


@pytest.mark.parametrize("line", LINES)
def test_the_split_is_pexpects_and_bashs(line: str) -> None:
    words = pexpect_words([(c, 0) for c in line])
    assert words is not None
    assert words == pexpect.split_command_line(line)
    assert words == _bash_words(line)


@pytest.mark.parametrize(
    "line",
    [
        "ssh h x | y",
        "ssh h $X",
        "ssh h `x`",
        'ssh h "a\\"b"',
        "ssh h x\ny",
        "ssh h #c",
        "a 'b",
        "ssh h ''",
    ],
)
def test_lines_read_otherwise_are_refused(line: str) -> None:
    assert pexpect_words([(c, 0) for c in line]) is None


def test_spawn_of_a_line_does_not_show_a_wait(sshd: SshServer, tmp_path: Path) -> None:
    """`spawn` returns at once, and nothing here reads the child: not reported."""
    program = _program(f"child = pexpect.spawn(\"ssh -F {sshd.config} h '{JOB}'\")")
    assert findings(program, "HL104") == []
    _, took = _run(tmp_path, long_job(program, 4), sshd)
    assert took < AT_ONCE, f"the program waited {took:.2f}s"


def test_a_fix_may_not_write_what_pexpect_reads_otherwise() -> None:
    from heredoc_lint.frontends import fragments

    text = "import pexpect\n\npexpect.run(\"ssh h 'echo a'\")\n"
    (fragment,) = fragments("python", text, "p.py")
    assert fragment.text == "ssh h 'echo a'" and fragment.encode_edit is not None
    at = fragment.text.index("a'")
    edit = fragment.encode_edit(at, at + 1, "b c")
    assert edit is not None and (edit.start, edit.end, edit.content) == (
        text.index("a'"),
        text.index("a'") + 1,
        "b c",
    )
    for content in ('"b"', "\\b", "$b", "`b`", "b\nc"):
        assert fragment.encode_edit(at, at + 1, content) is None, content


# -- calls.py: which calls run a shell, which shell, where ---------------------------------


_NOHUP = "nohup sleep 100 &"


def test_pexpect_run_waits_for_ssh_and_spawn_does_not() -> None:
    """`pexpect.run` reads ssh's output to its end: a remote `nohup job &` that keeps the
    session's stdout holds it (HL104, warning); `pexpect.spawn` returns at once, and
    nothing in the file waits: no finding."""
    text = (
        f"import pexpect\npexpect.run(\"ssh h '{_NOHUP}'\")\npexpect.spawn(\"ssh h '{_NOHUP}'\")\n"
    )
    found = python_findings(text)
    assert [(code, sev, line) for code, sev, line in code_severity_text(text, found)] == [
        ("HL104", "warning", "nohup")
    ]
    assert text.count("\n", 0, found[0].start) == 1  # on pexpect.run's line
    assert "ssh does not return until this job exits" in found[0].message


def test_pexpect_passes_a_dollar_as_it_is(tmp_path: Path) -> None:
    """pexpect splits `ssh h echo $HOME` itself (its own split_command_line keeps
    `$HOME`), and no local shell expands it: ssh sends `echo $HOME` to the remote shell.
    No HL102 (which says the local shell expands it)."""
    import pexpect

    assert pexpect.split_command_line("ssh h echo $HOME") == ["ssh", "h", "echo", "$HOME"]
    text = 'import pexpect\npexpect.run("ssh h echo $HOME")\n'
    assert python_findings(text) == []
