from __future__ import annotations

import os
from collections.abc import Iterator

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
