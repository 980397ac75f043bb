"""A command given to the file's own helper, which passes it as it is to the call that
runs it (`def run(client, cmd): client.exec_command(cmd)`, then `run(c, "pkill -f app;
./start")`): the command at the helper's call is what runs, and is checked there.  Most
real remote Python goes through such a helper (WILD.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sshd import SshServer

from heredoc_lint.engine import check_text, fix_kind
from heredoc_lint.frontends import fragments

MARK = "zz-hl103-helper-mark"
COMMAND = f"pkill -f {MARK}; echo after-pkill"


def _found(text: str) -> list[tuple[str, int]]:
    """(code, line) of each finding of `text` read as Python."""
    return [(f.code, text.count("\n", 0, f.start) + 1) for f in check_text(text, "python", "t.py")]


CONNECT = """\
import paramiko
client = paramiko.SSHClient()
client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
client.connect("127.0.0.1", port={port}, username="{user}", key_filename="{key}",
               look_for_keys=False, allow_agent=False)
"""

HELPERS = {
    "module function": (
        "def run(c, cmd):\n"
        "    _, out, _ = c.exec_command(cmd)\n"
        "    return out.read().decode()\n"
        "print(run(client, {command!r}))\n"
    ),
    "helper of a helper, by keyword": (
        "def _exec(c, command):\n"
        "    _, out, _ = c.exec_command(command)\n"
        "    return out.read().decode()\n"
        "def run(cmd, c=client):\n"
        "    return _exec(c, command=cmd)\n"
        "print(run({command!r}))\n"
    ),
    "method called through self": (
        "class Remote:\n"
        "    def __init__(self, c):\n"
        "        self.c = c\n"
        "    def exec(self, cmd):\n"
        "        _, out, _ = self.c.exec_command(cmd)\n"
        "        return out.read().decode()\n"
        "    def restart(self):\n"
        "        return self.exec({command!r})\n"
        "print(Remote(client).restart())\n"
    ),
}


@pytest.mark.parametrize("helper", sorted(HELPERS))
def test_the_command_given_to_a_helper_kills_its_shell(
    helper: str, sshd: SshServer, tmp_path: Path
) -> None:
    head = CONNECT.format(port=sshd.port, user=sshd.user, key=sshd.key)
    program = head + HELPERS[helper].format(command=COMMAND)
    (finding,) = [f for f in check_text(program, "python", "p.py") if f.code == "HL103"]
    assert (finding.start, finding.end) == (program.index("pkill"), program.index("pkill") + 5)
    script = tmp_path / "p.py"
    script.write_text(program)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "after-pkill" not in done.stdout, done.stdout + done.stderr
    # The tool's own fix, at the helper's call: the rest of the command runs.
    fixed = fix_kind(program, "python", "p.py").text
    assert fixed.count("\n") == program.count("\n") and f"pkill -f {MARK}" not in fixed
    assert check_text(fixed, "python", "p.py") == []
    script.write_text(fixed)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert "after-pkill" in done.stdout, done.stdout + done.stderr


def test_a_helper_passing_to_ssh_in_an_argv() -> None:
    text = (
        "import subprocess\n\n"
        "def on(host, cmd):\n"
        '    subprocess.run(["ssh", host, cmd], check=True)\n\n'
        'on("gpu-1", "pkill -f server; ./server")\n'
        "on(\"gpu-1\", 'ls \"$HOME\"')\n"
    )
    assert _found(text) == [("HL103", 6)]


def test_a_helper_taking_the_whole_argv() -> None:
    text = (
        "import subprocess\n\n"
        "def call(argv):\n    return subprocess.run(argv)\n\n"
        'call(["scp", "-p", "2222", "f", "h:/tmp"])\n'
    )
    assert _found(text) == [("HL108", 6)]


def test_a_local_shell_helper() -> None:
    text = (
        "import subprocess\n\n"
        "def sh(cmd, check=True):\n"
        "    return subprocess.run(cmd, shell=True, check=check)\n\n"
        'sh("pkill -f myapp; ./myapp &")\n'
    )
    assert _found(text) == [("HL103", 6)]


@pytest.mark.parametrize(
    "body",
    [
        # The parameter is not what runs: it is bound again, or changed on the way.
        "    cmd = 'ls'\n    c.exec_command(cmd)\n",
        "    c.exec_command('echo ' + shlex.quote(cmd))\n",
        # It does not reach a call that runs a shell at all.
        "    print(cmd)\n",
    ],
)
def test_a_helper_that_does_not_run_its_parameter_as_it_is(body: str) -> None:
    text = (
        "import shlex\nimport paramiko\n\n"
        f"def run(c: paramiko.SSHClient, cmd):\n{body}\n"
        "run(paramiko.SSHClient(), 'pkill -f app; ./start')\n"
    )
    assert [code for code, _ in _found(text)] == []


@pytest.mark.parametrize(
    "call",
    [
        "other.run(client, 'pkill -f app; ./start')",  # another object's `run`
        "run(*['pkill -f app; ./start'])",  # through *args: not read
        "Remote().exec('pkill -f app; ./start')",  # not through self: not followed
    ],
)
def test_calls_that_are_not_the_helpers(call: str) -> None:
    text = (
        "import paramiko\nimport other\nclient = paramiko.SSHClient()\n\n"
        "def run(cmd):\n    client.exec_command(cmd)\n\n"
        "class Remote:\n    def exec(self, cmd):\n        client.exec_command(cmd)\n\n"
        f"{call}\n"
    )
    assert _found(text) == []


def test_a_name_bound_twice_is_not_followed_to_its_calls() -> None:
    """`run` is the helper and also something else: which one a call reaches is not
    known."""
    text = (
        "import paramiko\nclient = paramiko.SSHClient()\n\n"
        "def run(cmd):\n    client.exec_command(cmd)\n\n"
        "if client:\n    from other import run\n\n"
        "run('pkill -f app; ./start')\n"
    )
    assert _found(text) == []


def test_a_cycle_of_helpers_ends() -> None:
    text = (
        "import paramiko\nclient = paramiko.SSHClient()\n\n"
        "def a(cmd, n):\n    client.exec_command(cmd)\n    return b(cmd, n)\n\n"
        "def b(cmd, n):\n    return a(cmd, n - 1)\n\n"
        "a('pkill -f app; ./start', 3)\n"
    )
    assert _found(text) == [("HL103", 11)]


def test_helpers_are_followed_four_deep() -> None:
    """`h1` -> `h2` -> `h3` -> `h4` -> exec_command: a command four helpers away is read,
    one five away is not (a bound on the work per call)."""
    chain = "".join(f"def h{k}(cmd):\n    return h{k + 1}(cmd)\n\n" for k in range(1, 5))
    text = (
        "import paramiko\nclient = paramiko.SSHClient()\n\n"
        f"{chain}def h5(cmd):\n    client.exec_command(cmd)\n\n"
        "h2('pkill -f app; ./start')\nh1('pkill -f web; ./start')\n"
    )
    assert _found(text) == [("HL103", text[: text.index("h2('")].count("\n") + 1)]


def test_each_value_is_read_once_whatever_the_paths() -> None:
    """Helpers that call each other n times each: the n commands at the top reach the call
    through n**3 paths, and each is read once (one fragment each, not n**3)."""
    n = 6
    text = (
        "import paramiko\nc = paramiko.SSHClient()\ndef h4(cmd):\n    c.exec_command(cmd)\n"
        + "".join(f"def h{k}(cmd):\n" + f"    h{k + 1}(cmd)\n" * n for k in (3, 2, 1))
        + "".join(f"h1('pkill -f app{i}; ./start')\n" for i in range(n))
    )
    read = [f.text for f in fragments("python", text, "t.py")]
    assert sorted(read) == sorted(f"pkill -f app{i}; ./start" for i in range(n))
    assert len(_found(text)) == n


def test_a_helper_reached_by_a_short_and_a_long_path_is_read_at_the_short() -> None:
    """`p` calls the helper `s` straight and through `x2` -> `x1`: read at one hop, the
    command four hops away (`r` -> `q` -> `p` -> `s`) is still within reach."""
    text = (
        "import paramiko\nc = paramiko.SSHClient()\n"
        "def s(cmd):\n    c.exec_command(cmd)\n"
        "def x1(cmd):\n    s(cmd)\n"
        "def x2(cmd):\n    x1(cmd)\n"
        "def p(cmd):\n    x2(cmd)\n    s(cmd)\n"
        "def q(cmd):\n    p(cmd)\n"
        "def r(cmd):\n    q(cmd)\n"
        "r('pkill -f app; ./start')\n"
    )
    assert _found(text) == [("HL103", text.count("\n"))]
