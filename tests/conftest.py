from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import paramiko  # type: ignore[import-untyped]
import pytest
from sshd import SshdUnavailable, SshServer, start_sshd


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshServer]:
    """A real OpenSSH sshd on 127.0.0.1 for the whole session (see tests/sshd.py)."""
    try:
        with start_sshd(tmp_path_factory.mktemp("sshd")) as server:
            yield server
    except SshdUnavailable as exc:
        message = (
            f"a real sshd is needed for this test: {exc} "
            "(apt-get install openssh-server netcat-openbsd)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="module")
def client(sshd: SshServer) -> Iterator[paramiko.SSHClient]:
    """A paramiko client logged in to the test sshd: the Python `exec_command` channel."""
    ssh = paramiko.SSHClient()
    ssh.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    ssh.connect(
        "127.0.0.1",
        port=sshd.port,
        username=sshd.user,
        key_filename=str(sshd.key),
        look_for_keys=False,
        allow_agent=False,
        timeout=15,
    )
    yield ssh
    ssh.close()


@pytest.fixture
def system_dir() -> Iterator[Path]:
    """A fresh directory under /run, removed after the test: not under /tmp or /home,
    where a redundant `sudo echo` into the caller's own files is no HL109 finding."""
    path = Path(tempfile.mkdtemp(dir="/run"))
    yield path
    shutil.rmtree(path, ignore_errors=True)
