"""The shell rules through every Python channel that hands a string to a local shell.

`subprocess.run(S, shell=True)`, `os.system(S)` and `os.popen(S)` run `/bin/sh -c S`,
invoke's `run(S)` runs `/bin/bash -c S`: S is a shell script like a line of a `.sh` file,
and every shell rule applies to it and to the ssh strings inside it (docs/channels.md).
For each rule, a small program with the bug is checked (code, severity, line and column
of the finding) and then run for real, each `ssh h` reaching the loopback sshd of
tests/sshd.py, to show what the finding claims: the remote file with the local value,
the session held, the loop cut short, the words split again, the command run here.
HL109, which needs a caller without root, is tests/test_channels_runtime_sudo.py.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer

from heredoc_lint.engine import check_text
from heredoc_lint.model import Finding, Severity

# How each channel runs S; `{s}` is S as a raw Python literal, so that an offset in S is
# the same offset in the program's text.
CHANNELS = {
    "subprocess shell=True": "import subprocess\nsubprocess.run({s}, shell=True)\n",
    "os.system": "import os\nos.system({s})\n",
    "os.popen": "import os\nprint(os.popen({s}).read(), end='')\n",
    "invoke run": "import invoke\ninvoke.run({s}, warn=True)\n",
}


# The HL104 job's seconds: long enough that a loaded machine's ssh round trip stays
# well under it.
JOB = 10


@dataclass(frozen=True)
class Ran:
    stdout: str
    stderr: str
    took: float
    home: Path
    """The test's directory: the program's cwd, with the files the case made."""
    bash: bool
    """The channel's shell is bash (invoke), not /bin/sh (dash here)."""


@dataclass(frozen=True)
class Case:
    code: str
    severity: Severity
    script: str
    """S, with `{d}` for the test's directory and `{ssh}` for the wrapper that reaches the sshd."""
    anchor: str
    """The finding's text: its first occurrence in S."""
    shows: Callable[[Ran], None]
    """Asserts the runtime failure the rule claims."""


def _file(ran: Ran, name: str) -> str:
    return (ran.home / name).read_text()


def _hl101(ran: Ran) -> None:
    # The quoted 'EOF' asked for `$1` as it is; the local sh expanded it to nothing.
    assert _file(ran, "out") == "port \n"


def _expanded_locally(ran: Ran) -> None:
    # `x` is bound on the remote side; the local shell filled in its own, empty `$x`.
    assert _file(ran, "out") == "\n"


def _killed_itself(ran: Ran) -> None:
    # `sh -c S` has the pattern on its command line: pkill killed it before `touch` ran.
    assert not (ran.home / "after").exists(), ran.stdout + ran.stderr


def _held(ran: Ran) -> None:
    assert ran.took >= JOB - 0.5, f"the program went on after {ran.took:.2f}s: nothing waited"


def _one_line_read(ran: Ran) -> None:
    # ssh read `b` and `c` from the loop's input: the loop ran once.
    assert ran.stdout == "seen-a\n", ran.stdout + ran.stderr


def _split_again(ran: Ran) -> None:
    assert f"'{ran.home}/my': No such file or directory" in ran.stderr, ran.stderr
    assert "inside.txt" not in ran.stdout


def _port_is_a_file(ran: Ran) -> None:
    assert 'stat local "2222": No such file or directory' in ran.stderr, ran.stderr
    assert not (ran.home / "b.txt").exists()


def _ran_here(ran: Ran) -> None:
    # `cd` ran on the remote side and was lost with its shell; `touch` ran in the local cwd.
    assert (ran.home / "made").exists()
    assert not (ran.home / "sub" / "made").exists()


def _wrong_host(ran: Ran) -> None:
    # Three shells: the first (local) one expanded `$x`, the innermost never saw it.
    assert ran.stdout == "\n", ran.stdout + ran.stderr


def _swallowed(ran: Ran) -> None:
    # No terminator: `  EOF` and the command after it are body text, and `echo` never ran.
    # (bash ends the body with a newline, dash with the string's last character.)
    assert _file(ran, "out") == "body\n  EOF\necho after" + "\n" * ran.bash
    assert "after" not in ran.stdout


CASES = [
    Case("HL101", Severity.WARNING, "ssh h \"cat > {d}/out << 'EOF'\nport $1\nEOF\"", "<<", _hl101),
    Case("HL102", Severity.ERROR, 'ssh h "x=remote; echo $x > {d}/out"', "$x", _expanded_locally),
    Case(
        "HL103",
        Severity.ERROR,
        "pkill -f zz-channels-shell-mark; touch {d}/after",
        "pkill",
        _killed_itself,
    ),
    Case("HL104", Severity.WARNING, f'ssh h "nohup sleep {JOB} > /dev/null &"', "nohup", _held),
    Case(
        "HL105",
        Severity.WARNING,
        "while read -r n; do ssh h true; echo seen-$n; done < {d}/hosts",
        "ssh",
        _one_line_read,
    ),
    Case("HL106", Severity.INFO, 'ssh h ls "{d}/my dir"', "ssh", _split_again),
    Case(
        "HL107",
        Severity.INFO,
        "ssh h bash -s << EOF\nx=remote\necho $x > {d}/out\nEOF",
        "<<",
        _expanded_locally,
    ),
    Case("HL108", Severity.ERROR, "scp -p 2222 {d}/a.txt h:{d}/b.txt", "-p", _port_is_a_file),
    Case("HL110", Severity.ERROR, "ssh h cd {d}/sub && touch made", "&&", _ran_here),
    Case(
        "HL111",
        Severity.WARNING,
        # the inner ssh by the test's wrapper, which adds its `-F config`: an ssh given a
        # config file of the middle host's is there on purpose, no `ssh -J` hop
        "ssh h \"{ssh} h2 'x=inner; echo $x'\"",
        "ssh",
        _wrong_host,
    ),
    Case(
        "HL112", Severity.ERROR, "cat << EOF > {d}/out\nbody\n  EOF\necho after", "<<", _swallowed
    ),
]


def _literal(script: str) -> str:
    """`script` as a raw Python literal whose text is the value itself."""
    assert "\\" not in script
    for quote in ("'", '"', "'''", '"""'):
        fits = quote not in script and not script.endswith(quote[0])
        if fits and (len(quote) == 3 or "\n" not in script):
            return f"r{quote}{script}{quote}"
    raise AssertionError(f"no raw literal holds {script!r}")


def _prepare(home: Path) -> None:
    (home / "hosts").write_text("a\nb\nc\n")
    (home / "my dir").mkdir()
    (home / "my dir" / "inside.txt").write_text("x")
    (home / "a.txt").write_text("x")
    (home / "sub").mkdir()


def _run(program: str, home: Path, sshd: SshServer, bash: bool) -> Ran:
    """Run the program in `home`; its output goes to files, not pipes: a job left behind
    holding a pipe would make this wait, not the program."""
    script = home / "p.py"
    script.write_text(program)
    out, err = home / "stdout", home / "stderr"
    began = time.monotonic()
    with out.open("w") as stdout, err.open("w") as stderr:
        subprocess.run(
            [sys.executable, str(script)],
            cwd=home,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            env=sshd.env(),
            timeout=60,
            check=False,
        )
    return Ran(out.read_text(), err.read_text(), time.monotonic() - began, home, bash)


def _only(program: str, code: str) -> Finding:
    found = [f for f in check_text(program, "python", "p.py") if f.code == code]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("channel", sorted(CHANNELS))
@pytest.mark.parametrize("case", CASES, ids=[c.code for c in CASES])
def test_the_rule_holds_through_the_channel(
    case: Case, channel: str, sshd: SshServer, tmp_path: Path
) -> None:
    script = case.script.format(d=tmp_path, ssh=sshd.bin_dir / "ssh")
    literal = _literal(script)
    program = CHANNELS[channel].format(s=literal)
    finding = _only(program, case.code)
    at = program.index(literal) + literal.index(script) + script.index(case.anchor)
    assert program[at : at + len(case.anchor)] == case.anchor
    assert (finding.start, finding.end) == (at, at + len(case.anchor))
    assert kit.line_col(program, finding.start) == kit.line_col(program, at)
    assert kit.line_col(program, at)[0] == 2 + script.count("\n", 0, script.index(case.anchor))
    assert finding.severity is case.severity
    _prepare(tmp_path)
    case.shows(_run(program, tmp_path, sshd, bash=channel == "invoke run"))


@pytest.mark.parametrize("channel", sorted(CHANNELS))
def test_hl103_control_a_pattern_that_misses_its_shell(
    channel: str, sshd: SshServer, tmp_path: Path
) -> None:
    """HL103's `after` is missing because of the pkill: with `[z]z-...` it is written."""
    script = f"pkill -f '[z]z-channels-shell-mark'; touch {tmp_path}/after"
    program = CHANNELS[channel].format(s=_literal(script))
    assert [f for f in check_text(program, "python", "p.py") if f.code == "HL103"] == []
    _run(program, tmp_path, sshd, bash=channel == "invoke run")
    assert (tmp_path / "after").exists()


@pytest.mark.parametrize("channel", sorted(CHANNELS))
def test_hl104_control_a_job_that_leaves_the_session(
    channel: str, sshd: SshServer, tmp_path: Path
) -> None:
    """HL104's wait is the job's: with its output and input away from the session, ssh
    returns at once through the same channel."""
    script = f'ssh h "nohup sleep {JOB} > /dev/null 2>&1 < /dev/null &"'
    program = CHANNELS[channel].format(s=_literal(script))
    assert [f for f in check_text(program, "python", "p.py") if f.code == "HL104"] == []
    ran = _run(program, tmp_path, sshd, bash=channel == "invoke run")
    assert ran.took < JOB - 2, f"the program waited {ran.took:.2f}s"
