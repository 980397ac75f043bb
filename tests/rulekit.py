"""Helpers shared by the per-rule tests (tests/test_rule_hl1*.py).

A rule is checked and fixed either alone (`Settings(select={code})`, the default here) or
with every rule on (`every_rule=True`: the default settings, where other rules take part
too); each test file keeps the choice it was written with. Whether the example cases in
tests/cases/ have false positives is checked for every rule by tests/test_cases.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cli_process import run_cli
from sshd import SshServer, run_local

from heredoc_lint.engine import Settings, check_shell, check_text, fix_shell
from heredoc_lint.kinds import SourceKind
from heredoc_lint.model import Applicability, Finding, Severity

CASES = Path(__file__).parent / "cases"


def case_text(name: str) -> str:
    """The text of the example case tests/cases/NAME."""
    return (CASES / name).read_text()


def copy_case(name: str, directory: Path) -> Path:
    """Copy the example case tests/cases/NAME into `directory`; return the copy's path."""
    path = directory / name
    path.write_text(case_text(name))
    return path


def settings_for(code: str, *, every_rule: bool = False) -> Settings | None:
    """Settings selecting `code` alone, or None (the default settings) for `every_rule`."""
    return None if every_rule else Settings(select=frozenset({code}))


def findings(
    text: str, code: str, *, path: str = "t.sh", command: bool = False, every_rule: bool = False
) -> list[Finding]:
    """The findings of rule `code` in `text`, read as a shell file (or a command line)."""
    settings = settings_for(code, every_rule=every_rule)
    return [f for f in check_shell(text, path, settings, command=command) if f.code == code]


def assert_single(found: Sequence[Finding], span: tuple[int, int], severity: Severity) -> Finding:
    """The only finding in `found`, checked to stand at `span` with `severity`."""
    assert len(found) == 1, found
    f = found[0]
    assert (f.start, f.end) == span
    assert f.severity is severity
    return f


def single_fix(found: Sequence[Finding], applicability: Applicability) -> Finding:
    """The only finding in `found`, checked to carry a fix of `applicability`."""
    (f,) = found
    assert f.fix is not None and f.fix.applicability is applicability
    return f


def fix_text(
    text: str, code: str, *, unsafe: bool = False, every_rule: bool = False, path: str = "t.sh"
) -> str:
    """`text` after `fix_shell` with the settings of `code` (and unsafe fixes with `unsafe`)."""
    settings = settings_for(code, every_rule=every_rule)
    return fix_shell(text, path, settings=settings, unsafe=unsafe).text


def assert_fixed_clean_and_idempotent(
    text: str, code: str, *, unsafe: bool, every_rule: bool = False
) -> str:
    """Fix `text` (a safe-only fix leaves an unsafe one); the result is clean and a fixpoint."""
    if unsafe:
        assert fix_text(text, code, every_rule=every_rule) == text  # not applied by --fix alone
    result = fix_text(text, code, unsafe=unsafe, every_rule=every_rule)
    assert findings(result, code, every_rule=every_rule) == []
    assert fix_text(result, code, unsafe=unsafe, every_rule=every_rule) == result
    return result


def apply_fix(text: str, finding: Finding) -> str:
    """`text` with the edits of `finding`'s fix applied by hand, the last one first."""
    assert finding.fix is not None
    edited = text
    for edit in sorted(finding.fix.edits, key=lambda e: e.start, reverse=True):
        edited = edited[: edit.start] + edit.content + edited[edit.end :]
    return edited


def assert_display_only(text: str, code: str, content: str, *, every_rule: bool = False) -> None:
    """One finding, whose display-only fix writes `content`: even --unsafe-fixes keeps `text`."""
    (f,) = findings(text, code, every_rule=every_rule)
    assert f.fix is not None and f.fix.applicability is Applicability.DISPLAY_ONLY
    assert f.fix.edits[0].content == content
    assert fix_text(text, code, unsafe=True, every_rule=every_rule) == text


def line_col(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of `offset` in `text`."""
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def span_of(text: str, needle: str, width: int | None = None) -> tuple[int, int]:
    """The span of the first `width` characters (default: the first word) of `needle` in `text`."""
    start = text.index(needle)
    return start, start + (len(needle.split()[0]) if width is None else width)


def heredoc_span(text: str, op: str = "<<EOF", nth: int = 0) -> tuple[int, int]:
    """The span of the `<<` (or `<<-`) of the nth occurrence of `op` in `text`."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(op, start + 1)
    return start, start + (3 if op.startswith("<<-") else 2)


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run `python -m heredoc_lint ARGS`, capturing its text output, whatever its status."""
    return run_cli(*args, timeout=120)


def cli_json(path: Path, *args: str, returncode: int | None = None) -> list[dict[str, Any]]:
    """The findings of `--format json ARGS PATH`, its exit status checked if `returncode`."""
    proc = cli("--format", "json", *args, path)
    if returncode is not None:
        assert proc.returncode == returncode, proc.stderr
    items: list[dict[str, Any]] = json.loads(proc.stdout)
    return items


def assert_json_position(
    item: Mapping[str, Any],
    text: str,
    span: tuple[int, int],
    start_at: tuple[int, int],
    end_at: tuple[int, int] | None = None,
) -> None:
    """The JSON finding spans `span` of `text`, starting at `start_at` (and ending at `end_at`)."""
    start, end = span
    assert (item["line"], item["column"]) == line_col(text, start) == start_at
    assert (item["end_line"], item["end_column"]) == line_col(text, end)
    assert end_at is None or (item["end_line"], item["end_column"]) == end_at


def cli_fix(path: Path, *args: str) -> str:
    """Run `--fix ARGS PATH`, check that it exits 0, and return the file's new text."""
    proc = cli("--fix", *args, path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return path.read_text()


def run_script(
    argv: Sequence[str],
    cwd: Path,
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Run `argv` in `cwd` with stdin from /dev/null, capturing its text output, any status."""
    return subprocess.run(
        list(argv),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
        check=False,
    )


def run_ok(
    script: str, server: SshServer, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """`run_local(script, server)`, checked to exit 0 (its stderr as the message)."""
    proc = run_local(script, server, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc


def findings_selected(text: str, code: str) -> list[Finding]:
    """All findings of `text` read as a shell file, with rule `code` alone selected."""
    return check_shell(text, "t.sh", Settings(select=frozenset({code})))


def occurrence_span(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """The span of the nth occurrence of `needle` in `text`."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return at, at + len(needle)


def fixed_without_error(text: str, settings: Settings, *, unsafe: bool = False) -> str:
    """`text` after `fix_shell` with `settings` (unsafe fixes too with `unsafe`), without error."""
    outcome = fix_shell(text, "t.sh", settings, unsafe=unsafe)
    assert outcome.error is None, outcome.error
    return outcome.text


def python_findings(text: str, code: str | None = None, path: str = "t.py") -> list[Finding]:
    """The findings (of rule `code`, or all) of `text` read as Python at `path`, by default."""
    found = check_text(text, "python", path, Settings())
    return [f for f in found if code is None or f.code == code]


def python_findings_with_settings(
    text: str, code: str | None = None, settings: Settings | None = None
) -> list[Finding]:
    """The findings (of rule `code`, or all) of `text` read as Python, with `settings`."""
    found = check_text(text, "python", "t.py", settings or Settings())
    return [f for f in found if code is None or f.code == code]


def code_severity_text(text: str, found: list[Finding]) -> list[tuple[str, str, str]]:
    """(code, severity, the text the finding points at) of each finding."""
    return [(f.code, f.severity.value, text[f.start : f.end]) for f in found]


def finding_codes(
    text: str, kind: SourceKind = "shell", settings: Settings | None = None
) -> list[str]:
    """The code of each finding of `text` read as `kind` (at t.py or t.sh)."""
    path = "t.py" if kind == "python" else "t.sh"
    return [f.code for f in check_text(text, kind, path, settings)]


def bash_as_sshd(script: str, stdin: str | None, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`bash -c SCRIPT` as sshd runs a remote command: with `stdin` piped, or /dev/null."""
    if stdin is None:
        return subprocess.run(
            ["bash", "-c", script],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
            cwd=cwd,
        )
    return subprocess.run(
        ["bash", "-c", script],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
        cwd=cwd,
    )


def bash_at_home(script: str, home: Path) -> subprocess.CompletedProcess[str]:
    """`bash -c SCRIPT` run from `home`, which is also its $HOME."""
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        ["bash", "-c", script], cwd=home, env=env, capture_output=True, text=True, check=False
    )


def bash_stdout(script: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> bytes:
    """The stdout of `bash -c SCRIPT` (stdin /dev/null), checked to exit 0."""
    proc = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


BASH = shutil.which("bash") or "/bin/bash"


def bash_with_path(script: str, path: str = "/usr/bin:/bin") -> subprocess.CompletedProcess[str]:
    """`bash --norc --noprofile -c SCRIPT` with only PATH=`path` and LC_ALL=C set."""
    return subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", script],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": path, "LC_ALL": "C"},
        check=False,
    )


UTF8 = {"LC_ALL": "C.UTF-8"}


def bash_bytes(script: Path | str, env: dict[str, str] | None = None) -> bytes:
    """The bytes bash prints running `script` (a file, or text given with -c)."""
    argv = ["bash", str(script)] if isinstance(script, Path) else ["bash", "-c", script]
    done = subprocess.run(
        argv,
        env={**(env or os.environ), **UTF8},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=True,
    )
    return done.stdout


FAKE_SSH = """\
#!/bin/bash
# ssh HOST CMD...: print the remote command, as the remote side would receive it
shift
printf 'remote: %s\\n' "$*"
"""


def run_with_pkill_printing_ssh(script: str, directory: Path) -> subprocess.CompletedProcess[bytes]:
    """`script` run by bash with an `ssh` that runs its remote command in a local bash where
    `pkill` only prints `<arg>` for each of its arguments."""
    bindir = directory / "bin"
    bindir.mkdir(exist_ok=True)
    ssh = bindir / "ssh"
    ssh.write_text(
        '#!/bin/bash\nshift\nexec bash -c "pkill() { printf \'<%s>\' \\"\\$@\\"; echo; }; $*"\n'
    )
    ssh.chmod(0o755)
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=30,
        check=False,
    )


SSH_RUNNING_BASH = """\
#!/bin/bash
# ssh HOST CMD...: the remote login shell runs the words joined by blanks
shift
exec bash -c "$*"
"""


def run_python_with_ssh(tmp_path: Path, program: str, ssh_script: str, env: dict[str, str]) -> str:
    """The output of `program`, run with `ssh_script` as the `ssh` first on PATH and `env`
    for the rest of its environment; it must succeed."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    ssh = bin_dir / "ssh"
    ssh.write_text(ssh_script)
    ssh.chmod(0o755)
    script = tmp_path / "prog.py"
    script.write_text(program)
    env = {**env, "PATH": f"{bin_dir}:{env['PATH']}"}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def run_python_with_fake_ssh(tmp_path: Path, program: str) -> str:
    """What the program's ssh is asked to run remotely (HOME and USER set to known values)."""
    env = {**os.environ, "HOME": "/home/local-user", "USER": "local-user"}
    return run_python_with_ssh(tmp_path, program, FAKE_SSH, env)


def delivered_bytes(script: str, server: SshServer, targets: tuple[Path, ...]) -> list[bytes]:
    """Run `script` locally (its ssh goes to the loopback sshd): the bytes of `targets`."""
    for target in targets:
        target.unlink(missing_ok=True)
    proc = run_local(script, server)
    assert proc.returncode == 0, proc.stderr
    return [target.read_bytes() for target in targets]


def line_of(text: str, finding: Finding) -> int:
    """The 1-based line of `text` where `finding` starts."""
    return text.count("\n", 0, finding.start) + 1
