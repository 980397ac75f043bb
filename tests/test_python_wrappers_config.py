"""`python-wrappers`: the project's own Python callables that run a shell command.

A real pyproject.toml, the real CLI (`python -m heredoc_lint`, JSON output), and the
wrapper's own code run for real: the local `sh -c` one shows HL103's self-kill, the ssh
one (through the test sshd) HL202's body that runs as commands.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_process import run_cli
from sshd import SshServer

from heredoc_lint.engine import Settings, check_text, fix_kind
from heredoc_lint.layers.pywrappers import PyWrapper, matches, parse_entries

CONFIG = """\
[tool.heredoc-lint]
python-wrappers = {{ "myproj.remote.run" = {{ arg = 0, runs = "ssh" }}, \
"self.node.push" = {{ arg = "cmd", runs = "ssh" }}, "*.shell" = {{ arg = 0, runs = "sh" }}, \
"myproj.remote.argv" = {{ arg = 0, runs = "argv" }} }}
"""

REMOTE = """\
import subprocess

SSH = ["ssh", "-F", {config!r}, "h"]


def run(cmd):
    return subprocess.run(SSH + [cmd]).returncode


def argv(args):
    return subprocess.run(args).returncode


class Box:
    def shell(self, cmd):
        done = subprocess.run(["/bin/sh", "-c", cmd], capture_output=True, text=True)
        return done.returncode, done.stdout
"""

DEPLOY = """\
from myproj import remote
from myproj.remote import Box


class Node:
    def push(self, cmd):
        return remote.run(cmd)


class Deploy:
    node = Node()

    def conf(self, path, body):
        return self.node.push(cmd=f"cat > {path} << 'EOF'\\n{body}\\nEOF\\n")

    def restart(self):
        return Box().shell("pkill -f zz-worker-marker; echo restarted")

    def listing(self):
        return remote.argv(["ls", "-d", "/srv/my dir"])


def unrelated(other):
    other.run("nohup x &")  # not a configured name
    exec_remote("nohup x &")
"""


def _project(tmp_path: Path, sshd: SshServer | None = None) -> Path:
    (tmp_path / "pyproject.toml").write_text(CONFIG.format())
    package = tmp_path / "myproj"
    package.mkdir()
    (package / "__init__.py").write_text("")
    config = str(sshd.config) if sshd is not None else "/dev/null"
    (package / "remote.py").write_text(REMOTE.format(config=config))
    (package / "deploy.py").write_text(DEPLOY)
    return package / "deploy.py"


def _findings(tmp_path: Path) -> list[tuple[str, int, int, str]]:
    # At info too: `path` (a parameter named as a path) is HL201 info by default.
    done = run_cli(
        "check",
        "--no-cache",
        "--severity",
        "info",
        "--format",
        "json",
        "myproj/deploy.py",
        cwd=tmp_path,
    )
    assert done.returncode in (0, 1), done.stderr
    return [(f["code"], f["line"], f["column"], f["message"]) for f in json.loads(done.stdout)]


def test_configured_wrappers_are_channels_in_a_cli_run(tmp_path: Path) -> None:
    _project(tmp_path)
    found = _findings(tmp_path)
    lines = DEPLOY.splitlines()
    path = (14, lines[13].index("{path}") + 1)
    heredoc = (14, lines[13].index("<<") + 1)
    pkill = (17, lines[16].index("pkill") + 1)
    assert [(code, row, col) for code, row, col, _ in found] == [
        ("HL201", *path),
        ("HL202", *heredoc),
        ("HL103", *pkill),
    ]
    assert "into the `self.node.push` command string as an unquoted shell word" in found[0][3]
    assert "filled in at run time from `body`" in found[1][3]
    assert "`/bin/sh -c pkill -f zz-worker-marker; echo restarted`" in found[2][3]


def test_without_the_setting_nothing_is_read(tmp_path: Path) -> None:
    _project(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.heredoc-lint]\n")
    assert _findings(tmp_path) == []


def _python(tmp_path: Path, code: str, sshd: SshServer | None = None) -> str:
    env = sshd.env() if sshd is not None else None
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=True,
    )
    return done.stdout


def test_the_local_wrapper_kills_its_own_shell_hl103(tmp_path: Path) -> None:
    _project(tmp_path)
    out = _python(tmp_path, "from myproj.deploy import Deploy; print(Deploy().restart())")
    # `sh -c` matched its own command line: killed (SIGTERM), `echo restarted` never ran.
    assert out.strip() == "(-15, '')"


def test_the_ssh_wrapper_runs_a_body_line_as_a_command_hl202(
    tmp_path: Path, sshd: SshServer
) -> None:
    _project(tmp_path, sshd)
    target, pwned = tmp_path / "app.conf", tmp_path / "pwned"
    body = f"a=1\nEOF\ntouch {pwned}"
    _python(
        tmp_path,
        f"from myproj.deploy import Deploy; Deploy().conf({str(target)!r}, {body!r})",
        sshd,
    )
    assert target.read_text() == "a=1\n"
    assert pwned.exists()  # the rest of the value ran as a remote command


def test_an_argv_wrapper_is_read_by_the_wrapper_table() -> None:
    from heredoc_lint.engine import Settings, check_text

    text = "from myproj import remote\nremote.argv(['ssh', h, 'ls', '/srv/my dir'])\n"
    wrappers = (PyWrapper("myproj.remote.argv", 0, "argv"),)
    (f,) = check_text(text, "python", "p.py", Settings(python_wrappers=wrappers))
    assert (f.code, text[f.start : f.end], f.start) == ("HL106", "ssh", text.index("ssh"))
    assert check_text(text, "python", "p.py") == []


@pytest.mark.parametrize(
    ("pattern", "name", "hit"),
    [
        ("myproj.remote.run", "myproj.remote.run", True),
        ("myproj.remote.run", "remote.run", False),  # the written name is not the import path
        ("self.node.ssh", "self.node.ssh", True),
        ("self.*.ssh", "self.box.ssh", True),
        ("self.*.ssh", "self.ssh", False),
        ("*.exec_remote", "client.exec_remote", True),
        ("*.exec_remote", "self.pool.client.exec_remote", True),
        ("*.exec_remote", "exec_remote", False),  # a bare function is not a method
        ("*.exec_remote", "client.exec_remote_async", False),
        ("*.shell", "().shell", True),  # `Box().shell(...)`: any receiver
        ("Box.shell", "().shell", False),
    ],
)
def test_patterns(pattern: str, name: str, hit: bool) -> None:
    assert matches(pattern, name) is hit


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ({"a.b": {"arg": 0, "runs": "telnet"}}, "`runs` must be one of ssh, sh, bash, argv"),
        ({"a.b": {"arg": -1, "runs": "ssh"}}, "`arg` is a position"),
        ({"a.b": {"arg": True, "runs": "ssh"}}, "`arg` is a position"),
        ({"a b": {"arg": 0, "runs": "ssh"}}, "a pattern is a dotted name"),
        ({"*": {"arg": 0, "runs": "ssh"}}, "a pattern is a dotted name"),
        ({"a.b": {"arg": 0, "runs": "ssh", "shell": "x"}}, "must be a table with"),
        (["a.b"], "must be a table of pattern"),
    ],
)
def test_bad_entries_name_the_key(value: object, says: str) -> None:
    with pytest.raises(ValueError, match="python-wrappers") as error:
        parse_entries("pyproject.toml", value)
    assert says in str(error.value)


def test_a_bad_entry_is_exit_2_from_the_cli(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.heredoc-lint]\npython-wrappers = { "a.b" = { arg = 0, runs = "rsh" } }\n'
    )
    (tmp_path / "a.py").write_text("print(1)\n")
    done = run_cli("check", "--no-cache", "a.py", cwd=tmp_path)
    assert done.returncode == 2
    assert "python-wrappers.a.b" in done.stderr and "Traceback" not in done.stderr


# -- calls.py: a project wrapper that runs its string with sh -------------------------------


_SH_WRAPPER = Settings(python_wrappers=(PyWrapper("*.shell", 0, "sh"),))


_SH_COMMANDS = [
    ("ssh h echo $HOME", [("HL102", "info", 1, "$HOME")]),
    ("ssh h 'sleep 10 &'", [("HL104", "warning", 1, "sleep")]),
    ("sudo echo hi > /etc/motd", [("HL109", "error", 0, ">")]),
    (
        'ssh h "bash -c \\"echo \\$x\\""',
        [("HL111", "info", 1, "ssh"), ("HL102", "info", 2, "$x")],
    ),
]


@pytest.mark.parametrize(("command", "expected"), _SH_COMMANDS)
def test_a_wrapper_that_runs_sh_is_read_as_subprocess_with_shell_true(
    command: str, expected: list[tuple[str, str, int, str]]
) -> None:
    """`python-wrappers = {"*.shell" = {arg = 0, runs = "sh"}}`: `box.shell(CMD)` runs CMD
    with `/bin/sh -c`, the local shell, as `subprocess.run(CMD, shell=True)` does: the
    same findings at the same depths (the local shell is depth 0, ssh's remote shell 1),
    and the same fixes.  (Run 7: the wrapper's string was given depth -1, so the remote
    shell was depth 0, taken for the file's own shell: HL102's and HL104's remote
    findings were lost, HL111 counted one shell less.)"""
    literal = repr(command)
    wrapped = f"def f(box):\n    box.shell({literal})\n"
    direct = f"import subprocess\nsubprocess.run({literal}, shell=True)\n"

    def found(text: str) -> list[tuple[str, str, int, str]]:
        return [
            (f.code, f.severity.value, f.depth, text[f.start : f.end])
            for f in check_text(text, "python", "t.py", _SH_WRAPPER)
        ]

    assert found(wrapped) == found(direct) == expected
    fixed = fix_kind(wrapped, "python", "t.py", _SH_WRAPPER, unsafe=True).text
    fixed_direct = fix_kind(direct, "python", "t.py", _SH_WRAPPER, unsafe=True).text
    assert fixed.split("box.shell(", 1)[1] == fixed_direct.split("subprocess.run(", 1)[1].replace(
        ", shell=True", ""
    )


# -- decoding.py: where a coding line that Python refuses is reported ------------------------


def test_a_call_whose_name_matches_no_wrapper_pattern_is_not_read() -> None:
    """With only `*.shell` configured, `box.run(CMD)`, `log.info(CMD)` and a bare
    `execute(CMD)` are not the wrapper: nothing says they run CMD, so CMD is not read
    (no finding), while `box.shell(CMD)` is (HL104 at `sleep`).  (Run 7: any named call
    was taken for the first configured wrapper.)"""
    command = "ssh h 'sleep 10 &'"
    text = (
        "def f(box, log):\n"
        f"    box.run({command!r})\n"
        f"    log.info({command!r})\n"
        f"    execute({command!r})\n"
        f"    box.shell({command!r})\n"
    )
    found = check_text(text, "python", "t.py", _SH_WRAPPER)
    assert [(f.code, f.start) for f in found] == [("HL104", text.rindex("sleep"))]
