"""HL109 through every Python channel it applies to, run as a caller without root.

`sudo echo x > f` opens f in the shell that runs the string, with that shell's rights:
the local `/bin/sh -c` of `shell=True`, `os.system` and `os.popen`, the `bash -c`/`sh -c`
of an argv list, and the remote login shell of an ssh argv, paramiko's `exec_command`
and fabric's `run`/`sudo` (fabric's `sudo(CMD)` runs `sudo -S -p PROMPT CMD` there). The
test makes a user with passwordless sudo and a directory only root may write to. The
local programs run as that user (the system python: the test's own is under /root); the
remote ones log in as that user to an sshd of this test's own. Each case checks the
finding (code, severity, line and column), shows the file not written ("Permission
denied"), and that `sudo sh -c '... > f'`, where root opens the file, writes it.
invoke's `run` is not run here: invoke is not installed for the system python.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import rulekit as kit
from sshd import (
    SSHD,
    _client_config,
    _free_port,
    _keygen,
    _sshd_config,
    _stop,
    _wait_for_port,
    _write,
    missing_tools,
)

from heredoc_lint.engine import check_text
from heredoc_lint.model import Severity

USER = "hl-channels-tester"
SUDOERS = Path("/etc/sudoers.d/heredoc-lint-channels")
SYSTEM_PYTHON = Path("/usr/bin/python3")


@dataclass(frozen=True)
class Box:
    """The unprivileged user, its directories, and an sshd that logs it in."""

    name: str
    uid: int
    root_dir: Path  # owned by root, mode 755: only root may create files here
    user_dir: Path  # the user's home, owned by it
    port: int
    key: Path
    config: Path


def _unavailable(message: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def _make_user(home: Path) -> bool:
    """The user, created unless it exists (left by a killed run: then set as this run
    needs it); whether this test created it. Password `*`: none that works, yet not a
    locked account, which sshd refuses."""
    options = ["-d", str(home), "-s", "/bin/bash", "-p", "*"]
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "-M", *options, USER], check=True)
        return True
    subprocess.run(["usermod", *options, USER], check=True)
    return False


@pytest.fixture(scope="module")
def box() -> Iterator[Box]:
    tools = ("sudo", "useradd", "usermod", "userdel", "runuser", "visudo")
    missing = [t for t in tools if shutil.which(t) is None] + missing_tools()
    if not SYSTEM_PYTHON.exists():
        missing.append(str(SYSTEM_PYTHON))
    if os.geteuid() != 0 or missing:
        _unavailable("HL109 channel tests need root and " + ", ".join(missing or ["root"]))
    base = Path(tempfile.mkdtemp(prefix="heredoc-lint-channels-", dir="/var/lib"))
    base.chmod(0o755)  # the user reaches its home and sshd (as the user) authorized_keys
    user_dir, root_dir, sshd_dir = base / "user", base / "root-only", base / "sshd"
    created = _make_user(user_dir)
    proc: subprocess.Popen[bytes] | None = None
    try:
        SUDOERS.write_text(f"{USER} ALL=(ALL:ALL) NOPASSWD: ALL\n")
        SUDOERS.chmod(0o440)
        subprocess.run(["visudo", "-c", "-f", str(SUDOERS)], check=True, capture_output=True)
        entry = pwd.getpwnam(USER)
        user_dir.mkdir()
        os.chown(user_dir, entry.pw_uid, entry.pw_gid)
        root_dir.mkdir(mode=0o755)
        sshd_dir.mkdir(mode=0o755)
        _keygen(sshd_dir / "ssh_host_ed25519_key", "heredoc-lint channels host")
        key = sshd_dir / "id_ed25519"
        _keygen(key, "heredoc-lint channels user")
        _write(sshd_dir / "authorized_keys", (sshd_dir / "id_ed25519.pub").read_text(), 0o644)
        port = _free_port()
        sshd_config = _write(sshd_dir / "sshd_config", _sshd_config(sshd_dir, port, USER))
        proc = subprocess.Popen(
            [str(SSHD), "-D", "-f", str(sshd_config), "-E", str(sshd_dir / "sshd.log")],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        assert _wait_for_port(proc, port, time.monotonic() + 15), "sshd did not start"
        config = _write(sshd_dir / "ssh_config", _client_config(port, USER, key, proxy=False))
        yield Box(USER, entry.pw_uid, root_dir, user_dir, port, key, config)
    finally:
        if proc is not None:
            _stop(proc)
        shutil.rmtree(base, ignore_errors=True)
        SUDOERS.unlink(missing_ok=True)
        if created:
            subprocess.run(["userdel", USER], check=False, capture_output=True)


CONNECT_PARAMIKO = """\
import paramiko

client = paramiko.SSHClient()
client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
client.connect("127.0.0.1", port={port}, username="{user}", key_filename="{key}",
               look_for_keys=False, allow_agent=False)
"""
CONNECT_FABRIC = """\
from fabric import Connection

c = Connection("127.0.0.1", port={port}, user="{user}",
               connect_kwargs={{"key_filename": "{key}", "look_for_keys": False,
                               "allow_agent": False}})
"""

# channel: (program with `{cmd}`, whether it runs locally as the user, whether the
# channel adds the `sudo` itself)
CHANNELS = {
    "subprocess shell=True": ('import subprocess\nsubprocess.run("{cmd}", shell=True)\n', True),
    "os.system": ('import os\nos.system("{cmd}")\n', True),
    "os.popen": ('import os\nprint(os.popen("{cmd}").read(), end="")\n', True),
    "bash -c argv": ('import subprocess\nsubprocess.run(["bash", "-c", "{cmd}"])\n', True),
    "sh -c argv": ('import subprocess\nsubprocess.run(["sh", "-c", "{cmd}"])\n', True),
    "ssh argv": (
        'import subprocess\nsubprocess.run(["ssh", "-F", "{config}", "h", "{cmd}"])\n',
        False,
    ),
    "paramiko exec_command": (
        CONNECT_PARAMIKO
        + '_, out, err = client.exec_command("{cmd}")\n'
        + "print(out.read().decode(), err.read().decode())\n",
        False,
    ),
    "fabric run": (CONNECT_FABRIC + 'c.run("{cmd}", warn=True)\n', False),
    "fabric sudo": (CONNECT_FABRIC + 'c.sudo("{cmd}", warn=True)\n', False),
}


def _command(channel: str, target: Path, fixed: bool) -> str:
    """`sudo echo x > target`, or with root opening the file; fabric's sudo adds `sudo`."""
    sudo = "" if channel == "fabric sudo" else "sudo "
    return f"{sudo}sh -c 'echo x > {target}'" if fixed else f"{sudo}echo x > {target}"


def _program(channel: str, cmd: str, box: Box) -> str:
    template, _ = CHANNELS[channel]
    fields = {"port": box.port, "user": box.name, "key": box.key, "config": box.config}
    return template.format(cmd=cmd, **fields)


def _run(channel: str, program: str, box: Box) -> str:
    """The program's output: run as the user (local channels) or as root (the clients)."""
    script = box.user_dir / "p.py"
    script.write_text(program)
    os.chown(script, box.uid, -1)
    local = CHANNELS[channel][1]
    # runuser: the user's own python; the clients run as root, logging in as the user.
    as_user = ["runuser", "-u", box.name, "--", str(SYSTEM_PYTHON), str(script)]
    argv = as_user if local else [sys.executable, str(script)]
    done = subprocess.run(
        argv,
        cwd=box.user_dir,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.stdout + done.stderr


def test_the_remote_shell_is_the_users(box: Box) -> None:
    program = _program("ssh argv", "id -u; sudo id -u", box)
    assert _run("ssh argv", program, box).split() == [str(box.uid), "0"]


@pytest.mark.parametrize("channel", sorted(CHANNELS))
def test_the_calling_shell_opens_the_file(channel: str, box: Box) -> None:
    target = box.root_dir / channel.replace(" ", "-")
    program = _program(channel, _command(channel, target, fixed=False), box)
    (finding,) = [f for f in check_text(program, "python", "p.py") if f.code == "HL109"]
    at = program.index(f"> {target}")
    assert (finding.start, finding.end) == (at, at + 1)
    line, column = kit.line_col(program, at)
    assert program.splitlines()[line - 1][column - 1 :].startswith(f"> {target}")
    assert kit.line_col(program, finding.start) == (line, column)
    assert finding.severity is Severity.ERROR
    assert "is opened by the calling shell, with the caller's rights" in finding.message
    out = _run(channel, program, box)
    assert "Permission denied" in out, out
    assert not target.exists()
    # Root opens the file: it is written, and HL109 has nothing to say.
    fixed = _program(channel, _command(channel, target, fixed=True), box)
    assert [f for f in check_text(fixed, "python", "p.py") if f.code == "HL109"] == []
    out = _run(channel, fixed, box)
    assert target.read_text() == "x\n", out
    assert target.stat().st_uid == 0


# `["sudo", "sh", "-c", S]`: the shell that parses S is root's, so a `sudo CMD > f` in S
# has its file opened by root. The rule says nothing for the same shape in a shell script
# (`sudo sh -c '...'`: `_caller_is_root`), but reports it in a Python argv list.
SUDO_SHELL = 'import subprocess\nsubprocess.run(["sudo", "sh", "-c", "sudo echo x > {target}"])\n'


def test_sudo_sh_c_argv_opens_the_file_as_root(box: Box) -> None:
    target = box.root_dir / "sudo-sh-c"
    script = box.user_dir / "p.py"
    script.write_text(SUDO_SHELL.format(target=target))
    as_user = ["runuser", "-u", box.name, "--", str(SYSTEM_PYTHON), str(script)]
    done = subprocess.run(as_user, cwd=box.user_dir, capture_output=True, text=True, timeout=60)
    assert target.read_text() == "x\n", done.stderr
    assert target.stat().st_uid == 0
    assert "Permission denied" not in done.stderr


def test_sudo_sh_c_argv_is_not_reported() -> None:
    """The shell of `["sudo", "sh", "-c", S]` is root's, as it is in a script."""
    assert check_text("sudo sh -c 'sudo echo x > /var/lib/x/f'\n", "shell", "p.sh") == []
    text = SUDO_SHELL.format(target="/var/lib/x/f")
    assert [f.code for f in check_text(text, "python", "p.py")] == []
    as_bob = text.replace('["sudo", "sh"', '["sudo", "-u", "bob", "sh"')
    assert [f.code for f in check_text(as_bob, "python", "p.py")] == ["HL109"]
