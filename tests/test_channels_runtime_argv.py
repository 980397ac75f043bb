"""The rules of the channels without a local shell, each run through the real channel.

An argv list with `sh -c S`, `bash -c S` or `sudo sh -c S` gives S to a shell with no
outer shell around it; an ssh argv gives its command to the remote login shell; fabric's
`Connection.run`/`sudo` give theirs to the remote login shell (after `sudo -S -p ...`);
a project wrapper named in `python-wrappers` is the channel it names (docs/channels.md).
For each cell, a small program with the bug is checked (code, severity, evidence, line
and column) and run for real (the remote ones against the loopback sshd of
tests/sshd.py) to show what the finding claims: the shell killed by its own pkill, the
value run as commands, the heredoc body cut short, the words split again. HL109 is
tests/test_channels_runtime_sudo.py (it needs a caller without root).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer

from heredoc_lint.engine import Settings, check_text
from heredoc_lint.layers.pywrappers import PyWrapper
from heredoc_lint.model import Severity

MARK = "zz-channels-argv-mark"

FABRIC = """\
import sys
from fabric import Connection

c = Connection("127.0.0.1", port={port}, user="{user}",
               connect_kwargs={{"key_filename": "{key}", "look_for_keys": False,
                               "allow_agent": False}})
"""

# A project's own wrappers (docs/configuration: `python-wrappers`), run for real.
REMOTE = """\
import subprocess

SSH = ["ssh", "-F", {config!r}, "h"]


def run(cmd):
    return subprocess.run(SSH + [cmd]).returncode


def argv(args):
    return subprocess.run(args).returncode
"""
WRAPPERS = (
    PyWrapper("myproj.remote.run", 0, "ssh"),
    PyWrapper("myproj.remote.argv", 0, "argv"),
)


@dataclass(frozen=True)
class Case:
    code: str
    severity: Severity
    evidence: str
    """What raised the finding (heredoc_lint/severities.py).  The HL201 cases take their
    value from `sys.argv`, which is `argv` evidence: info by default since its first look
    on real code, still the outside text the channel splits."""
    program: str
    """The program; `{d}` is the test's directory, `{config}`/`{port}`/`{user}`/`{key}`
    the sshd's. Its first argument is `value` below."""
    anchor: str
    """The finding's text: its first occurrence in the program."""
    value: str
    shows: Callable[[Path, str], None]
    """Asserts, from the test's directory and the program's output, the failure claimed."""


def _killed_itself(home: Path, out: str) -> None:
    # The shell's command line holds the pattern: pkill killed it before `touch` ran.
    assert not (home / "after").exists(), out


def _pwned(home: Path, out: str) -> None:
    # The value's `;` ended the command: its rest ran as a command of its own.
    assert (home / "pwned").exists(), out


def _cut_short(home: Path, out: str) -> None:
    # The value's `EOF` line ended the body, and the line after it ran as a command.
    assert (home / "out").read_text() == "a=1\n"
    assert (home / "pwned").exists(), out


def _split_again(home: Path, out: str) -> None:
    assert f"'{home}/my': No such file or directory" in out, out
    assert "inside.txt" not in out


PKILL = f"pkill -f {MARK}; touch {{d}}/after"
INJECT = "x; touch {d}/pwned"
BODY = "a=1\nEOF\ntouch {d}/pwned"
HEREDOC = "cat > {d}/out << 'EOF'\\n{{body}}\\nEOF\\n"

CASES = {
    "sh -c argv HL103": Case(
        "HL103",
        Severity.ERROR,
        "shares-string",
        f'import subprocess\nsubprocess.run(["sh", "-c", "{PKILL}"])\n',
        "pkill",
        "",
        _killed_itself,
    ),
    "bash -c argv HL103": Case(
        "HL103",
        Severity.ERROR,
        "shares-string",
        f'import subprocess\nsubprocess.run(["bash", "-c", "{PKILL}"])\n',
        "pkill",
        "",
        _killed_itself,
    ),
    "sudo sh -c argv HL103": Case(
        "HL103",
        Severity.ERROR,
        "shares-string",
        f'import subprocess\nsubprocess.run(["sudo", "sh", "-c", "{PKILL}"])\n',
        "pkill",
        "",
        _killed_itself,
    ),
    "sh -c argv HL201": Case(
        "HL201",
        Severity.INFO,
        "argv",
        "import subprocess\nimport sys\n\n\ndef listing(path):\n"
        '    subprocess.run(["sh", "-c", f"ls {{path}}"])\n\n\nlisting(sys.argv[1])\n',
        "{path}",
        INJECT,
        _pwned,
    ),
    "bash -c argv HL202": Case(
        "HL202",
        Severity.WARNING,
        "runtime-body",
        "import subprocess\nimport sys\n\n\ndef conf(body):\n"
        f'    subprocess.run(["bash", "-c", f"{HEREDOC}"])\n\n\nconf(sys.argv[1])\n',
        "<<",
        BODY,
        _cut_short,
    ),
    "ssh argv HL103": Case(
        "HL103",
        Severity.ERROR,
        "shares-string",
        f'import subprocess\nsubprocess.run(["ssh", "-F", "{{config}}", "h", "{PKILL}"])\n',
        "pkill",
        "",
        _killed_itself,
    ),
    "fabric run HL201": Case(
        "HL201",
        Severity.INFO,
        "argv",
        FABRIC + 'c.run(f"ls {{sys.argv[1]}}", warn=True)\n',
        "{sys.argv[1]}",
        INJECT,
        _pwned,
    ),
    "fabric sudo HL201": Case(
        "HL201",
        Severity.INFO,
        "argv",
        FABRIC + 'c.sudo(f"ls {{sys.argv[1]}}", warn=True)\n',
        "{sys.argv[1]}",
        INJECT,
        _pwned,
    ),
    "fabric run HL202": Case(
        "HL202",
        Severity.WARNING,
        "runtime-body",
        FABRIC + f'body = sys.argv[1]\nc.run(f"{HEREDOC}")\n',
        "<<",
        BODY,
        _cut_short,
    ),
    "fabric sudo HL202": Case(
        "HL202",
        Severity.WARNING,
        "runtime-body",
        FABRIC + f'body = sys.argv[1]\nc.sudo(f"{HEREDOC}")\n',
        "<<",
        BODY,
        _cut_short,
    ),
    "wrapper runs=ssh HL201": Case(
        "HL201",
        Severity.INFO,
        "argv",
        'import sys\nfrom myproj import remote\n\nremote.run(f"ls {{sys.argv[1]}}")\n',
        "{sys.argv[1]}",
        INJECT,
        _pwned,
    ),
    "wrapper runs=argv HL106": Case(
        "HL106",
        Severity.INFO,
        "rejoined-word",
        "from myproj import remote\n\n"
        'remote.argv(["ssh", "-F", "{config}", "h", "ls", "{d}/my dir"])\n',
        "ssh",
        "",
        _split_again,
    ),
}


def _program(case: Case, home: Path, sshd: SshServer) -> str:
    return case.program.format(
        d=home, config=sshd.config, port=sshd.port, user=sshd.user, key=sshd.key
    )


def _prepare(home: Path, sshd: SshServer) -> None:
    (home / "my dir").mkdir()
    (home / "my dir" / "inside.txt").write_text("x")
    package = home / "myproj"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "remote.py").write_text(REMOTE.format(config=str(sshd.config)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_rule_holds_through_the_channel(name: str, sshd: SshServer, tmp_path: Path) -> None:
    case = CASES[name]
    program = _program(case, tmp_path, sshd)
    found = check_text(program, "python", "p.py", Settings(python_wrappers=WRAPPERS))
    (finding,) = [f for f in found if f.code == case.code]
    at = program.index(case.anchor)
    assert (finding.start, finding.end) == (at, at + len(case.anchor))
    line, column = kit.line_col(program, finding.start)
    assert program.splitlines()[line - 1][column - 1 :].startswith(case.anchor)
    assert (finding.severity, finding.evidence) == (case.severity, case.evidence)
    _prepare(tmp_path, sshd)
    script = tmp_path / "p.py"
    script.write_text(program)
    done = subprocess.run(
        [sys.executable, str(script), case.value.format(d=tmp_path)],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=sshd.env(),
        timeout=60,
        check=False,
    )
    case.shows(tmp_path, done.stdout + done.stderr)


@pytest.mark.parametrize("name", sorted(n for n in CASES if CASES[n].code == "HL103"))
def test_the_bracket_fix_lets_the_shell_run_on(name: str, sshd: SshServer, tmp_path: Path) -> None:
    """The control of HL103's cases: a pattern that misses its own shell, and `touch` runs."""
    fixed = _program(CASES[name], tmp_path, sshd).replace(MARK, f"[{MARK[0]}]{MARK[1:]}")
    assert [f for f in check_text(fixed, "python", "p.py") if f.code == "HL103"] == []
    script = tmp_path / "p.py"
    script.write_text(fixed)
    subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=sshd.env(), timeout=60, check=True
    )
    assert (tmp_path / "after").exists()
