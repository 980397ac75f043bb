"""A real OpenSSH sshd on loopback for the test-suite.

`start_sshd(workdir)` starts `/usr/sbin/sshd -D` on 127.0.0.1 with its own host key, user
key, config and log in `workdir`, checks that an ssh round trip works, and yields an
`SshServer`. `run_local(script, server)` runs a bash script unmodified with the server's
`ssh`/`scp` wrappers first on PATH, so every `user@host -p N` in it reaches the server.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

SSHD = Path("/usr/sbin/sshd")
SSH = Path("/usr/bin/ssh")
SCP = Path("/usr/bin/scp")
SSH_KEYGEN = Path("/usr/bin/ssh-keygen")
SFTP_SERVER = Path("/usr/lib/openssh/sftp-server")
NC = "nc"


class SshdUnavailable(RuntimeError):
    """A tool the server needs is not installed (skip locally, fail on CI)."""


@dataclass(frozen=True)
class SshServer:
    port: int
    user: str
    key: Path
    """Private key (ed25519) accepted by the server."""
    config: Path
    """ssh_config: `Host *` → HostName 127.0.0.1, Port, User, IdentityFile, batch options."""
    proxy_config: Path
    """Like `config`, plus `ProxyCommand nc 127.0.0.1 PORT`: any host and -p reach us."""
    bin_dir: Path
    """`ssh` and `scp` wrappers that exec the real ones with `-F proxy_config`."""
    workdir: Path
    log: Path
    """The sshd log (`-E`)."""

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ if base is None else base)
        env["PATH"] = f"{self.bin_dir}{os.pathsep}{env.get('PATH', os.defpath)}"
        env.pop("SSH_AUTH_SOCK", None)
        return env

    def ssh_argv(self, *args: str) -> list[str]:
        """argv for the real ssh client with the direct config: `ssh -F config ARGS`."""
        return [str(SSH), "-F", str(self.config), *args]


def missing_tools() -> list[str]:
    missing = [str(p) for p in (SSHD, SSH, SCP, SSH_KEYGEN, SFTP_SERVER) if not p.exists()]
    if shutil.which(NC) is None:
        missing.append(NC)
    return missing


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _keygen(path: Path, comment: str) -> None:
    subprocess.run(
        [str(SSH_KEYGEN), "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
        check=True,
        capture_output=True,
    )


def _write(path: Path, text: str, mode: int = 0o600) -> Path:
    path.write_text(text)
    path.chmod(mode)
    return path


def _client_config(port: int, user: str, key: Path | None, proxy: str | None) -> str:
    """`Host *` reaching the server; with `proxy`, through that ProxyCommand."""
    lines = [
        "Host *",
        "  HostName 127.0.0.1",
        f"  Port {port}",
        f"  User {user}",
        *([f"  IdentityFile {key}"] if key else []),
        "  IdentitiesOnly yes",
        "  StrictHostKeyChecking no",
        "  UserKnownHostsFile /dev/null",
        "  GlobalKnownHostsFile /dev/null",
        "  LogLevel ERROR",
        "  BatchMode yes",
        "  ControlMaster no",
        "  ControlPath none",
        "  ConnectTimeout 10",
    ]
    if proxy:
        lines.append(f"  ProxyCommand {proxy}")
    return "\n".join(lines) + "\n"


def _sshd_config(workdir: Path, port: int, user: str) -> str:
    root_login = "prohibit-password" if user == "root" else "no"
    return "\n".join(
        [
            f"Port {port}",
            "ListenAddress 127.0.0.1",
            f"HostKey {workdir / 'ssh_host_ed25519_key'}",
            f"PidFile {workdir / 'sshd.pid'}",
            f"AuthorizedKeysFile {workdir / 'authorized_keys'}",
            f"AllowUsers {user}",
            f"PermitRootLogin {root_login}",
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "UsePAM no",
            "StrictModes no",
            "PrintMotd no",
            "PrintLastLog no",
            f"Subsystem sftp {SFTP_SERVER}",
            "LogLevel VERBOSE",
            "",
        ]
    )


def _wait_for_port(proc: subprocess.Popen[bytes], port: int, deadline: float) -> bool:
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return True
        time.sleep(0.05)
    return False


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@contextlib.contextmanager
def start_sshd(workdir: Path, startup_timeout: float = 15.0) -> Iterator[SshServer]:
    """Start sshd in `workdir` (which must not be shared); stop it on exit.

    Raises SshdUnavailable when a tool is missing, RuntimeError when sshd or the
    client round trip fails (that is a real error, never a skip).
    """
    missing = missing_tools()
    if missing:
        raise SshdUnavailable("missing: " + ", ".join(missing))
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(mode=0o755, parents=True, exist_ok=True)
    user = "root" if os.geteuid() == 0 else os.environ.get("USER") or os.getlogin()

    workdir.mkdir(parents=True, exist_ok=True)
    _keygen(workdir / "ssh_host_ed25519_key", "heredoc-lint test host")
    key = workdir / "id_ed25519"
    _keygen(key, "heredoc-lint test user")
    # Read after sshd drops privileges to `user`: keep it world-readable.
    _write(workdir / "authorized_keys", (workdir / "id_ed25519.pub").read_text(), 0o644)
    log = workdir / "sshd.log"

    proc: subprocess.Popen[bytes] | None = None
    port = 0
    for _attempt in range(3):  # a free port can be taken between probe and bind
        port = _free_port()
        sshd_config = _write(workdir / "sshd_config", _sshd_config(workdir, port, user))
        check = subprocess.run(
            [str(SSHD), "-t", "-f", str(sshd_config)], capture_output=True, text=True
        )
        if check.returncode != 0:
            raise RuntimeError(f"sshd -t rejected the config: {check.stderr.strip()}")
        proc = subprocess.Popen(
            [str(SSHD), "-D", "-f", str(sshd_config), "-E", str(log)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if _wait_for_port(proc, port, time.monotonic() + startup_timeout):
            break
        _stop(proc)
        proc = None
    if proc is None:
        log_text = log.read_text() if log.exists() else "(no log)"
        raise RuntimeError(f"sshd did not start on 127.0.0.1:\n{log_text}")

    try:
        config = _write(workdir / "ssh_config", _client_config(port, user, key, None))
        proxy_config = _write(
            workdir / "ssh_config.proxy",
            _client_config(port, user, key, f"{NC} 127.0.0.1 {port}"),
        )
        bin_dir = workdir / "bin"
        bin_dir.mkdir(exist_ok=True)
        for name, real in (("ssh", SSH), ("scp", SCP)):
            _write(
                bin_dir / name,
                f'#!/bin/sh\nexec {real} -F {shlex.quote(str(proxy_config))} "$@"\n',
                0o755,
            )
        server = SshServer(port, user, key, config, proxy_config, bin_dir, workdir, log)
        _check_round_trip(server)
        yield server
    finally:
        _stop(proc)


@contextlib.contextmanager
def multiplexed(server: SshServer, directory: Path) -> Iterator[SshServer]:
    """`server` behind ssh master connections (ControlMaster auto, ControlPersist): every
    command is still its own session and its own remote shell, only faster.  The masters
    end with the block (`ssh -O exit` on each control socket)."""
    text = server.proxy_config.read_text()
    assert "ControlMaster no" in text and "ControlPath none" in text
    config = _write(
        directory / "ssh_config",
        text.replace("ControlPath none", f"ControlPath {directory / 'cm-%C'}").replace(
            "ControlMaster no", "ControlMaster auto\n  ControlPersist 120"
        ),
    )
    bin_dir = directory / "bin"
    bin_dir.mkdir()
    for name, real in (("ssh", SSH), ("scp", SCP)):
        script = f'#!/bin/sh\nexec {real} -F {shlex.quote(str(config))} "$@"\n'
        _write(bin_dir / name, script, 0o755)
    try:
        yield replace(server, bin_dir=bin_dir)
    finally:
        for control in directory.glob("cm-*"):
            subprocess.run(
                [str(SSH), "-F", str(config), "-S", str(control), "-O", "exit", "master"],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=30,
                check=False,
            )


# What a user's network and sshd check that the shared server's config fills in for any
# command: the port (only those the server listens on answer), the user and the key.
NO_SUCH_USER = "heredoc-lint-nobody"


def strict(server: SshServer, directory: Path, ports: Sequence[int]) -> SshServer:
    """`server` as a real network and sshd see a command: a connection answers only on
    `ports` (any other, 22 included unless listed, is refused as by a closed port), the
    login is the user the command names (the default is a user sshd does not know), and
    the key is the one it names with `-i` or IdentityFile (there is no default key)."""
    listening = " ".join(map(str, ports))
    gate = _write(
        directory / "port-gate",  # the ProxyCommand, given the port and host ssh dials
        "#!/bin/sh\n"
        f'case " {listening} " in *" $1 "*) exec {NC} 127.0.0.1 {server.port} ;; esac\n'
        'echo "ssh: connect to host $2 port $1: Connection refused" >&2\n'
        "exit 1\n",
        0o755,
    )
    config = _write(
        directory / "ssh_config", _client_config(22, NO_SUCH_USER, None, f"{gate} %p %h")
    )
    bin_dir = directory / "bin"
    bin_dir.mkdir()
    for name, real in (("ssh", SSH), ("scp", SCP)):
        script = f'#!/bin/sh\nexec {real} -F {shlex.quote(str(config))} "$@"\n'
        _write(bin_dir / name, script, 0o755)
    return replace(server, bin_dir=bin_dir, proxy_config=config)


def _check_round_trip(server: SshServer) -> None:
    probes = [
        server.ssh_argv("anyhost", "true"),
        # The wrapper on PATH, with a host and port that exist only in some script.
        ["ssh", "-p", "19248", f"{server.user}@198.51.100.7", "true"],
    ]
    for argv in probes:
        proc = subprocess.run(
            argv,
            env=server.env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=30,
        )
        if proc.returncode != 0:
            raise RuntimeError(
                f"{shlex.join(argv)} exited {proc.returncode}: {proc.stderr.strip()}\n"
                f"sshd log:\n{server.log.read_text()}"
            )


def run_local(
    script: str | os.PathLike[str],
    server: SshServer,
    cwd: os.PathLike[str] | str | None = None,
    timeout: float = 120.0,
    args: Sequence[str] = (),
) -> subprocess.CompletedProcess[str]:
    """Run a bash script with the server's ssh/scp wrappers first on PATH.

    `script` is the script text (a `str`) or the path of a script file (a `PathLike`).
    Text is written to a file first: `bash -c TEXT` would put the script into the local
    bash's own command line, where `pgrep -f` would see it. stdin is /dev/null.
    """
    if isinstance(script, str):
        scripts = server.workdir / "scripts"
        scripts.mkdir(exist_ok=True)
        fd, name = tempfile.mkstemp(suffix=".sh", prefix="run_", dir=scripts)
        with os.fdopen(fd, "w") as f:
            f.write(script)
        path = Path(name)
    else:
        path = Path(script)
    return subprocess.run(
        ["bash", str(path), *args],
        cwd=cwd,
        env=server.env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# A run that must return at once gets a remote job of LONG_JOB seconds: returning at once
# (a Python start and an ssh login, seconds at most on a loaded machine) and waiting for
# the job stay far apart, and only a run that wrongly waits pays for the long job.
LONG_JOB = 30
AT_ONCE = LONG_JOB / 2  # seconds: a run shorter than this did not wait for the job


def long_job(text: str, seconds: int) -> str:
    """`text` with its `sleep SECONDS` job lasting LONG_JOB seconds instead."""
    old = f"sleep {seconds} "
    assert text.count(old) == 1, text
    return text.replace(old, f"sleep {LONG_JOB} ")
