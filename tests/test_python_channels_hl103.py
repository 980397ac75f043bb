"""HL103 through the Python channels that run a shell: the shell kills itself.

`pkill -f P; echo after` run by `/bin/sh -c` (subprocess with shell=True) or by the remote
`bash -c` of paramiko's exec_command and fabric's run: the shell's own command line holds
P, pkill kills it, and `echo after` never runs. Each program runs for real (the remote
ones against the test sshd), and the finding is checked at the `pkill` it names.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sshd import SshServer

from heredoc_lint.engine import check_text
from heredoc_lint.model import Severity

MARK = "zz-hl103-channel-mark"
COMMAND = f"pkill -f {MARK}; echo after-pkill"

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

CHANNELS = {
    "subprocess shell=True": (
        "import subprocess\n",
        f'print(subprocess.run("{COMMAND}", shell=True, capture_output=True, text=True).stdout)',
    ),
    "os.popen": ("import os\n", f'print(os.popen("{COMMAND}").read())'),
    "paramiko exec_command": (
        CONNECT_PARAMIKO,
        f'_, out, _ = client.exec_command("{COMMAND}")\nprint(out.read().decode())',
    ),
    "fabric Connection.run": (
        CONNECT_FABRIC,
        f'print(c.run("{COMMAND}", warn=True, hide=True).stdout)',
    ),
}


@pytest.mark.parametrize("channel", sorted(CHANNELS))
def test_the_shell_of_the_channel_kills_itself(
    channel: str, sshd: SshServer, tmp_path: Path
) -> None:
    head, body = CHANNELS[channel]
    program = head.format(port=sshd.port, user=sshd.user, key=sshd.key) + body + "\n"
    (finding,) = [f for f in check_text(program, "python", "p.py") if f.code == "HL103"]
    assert finding.severity is Severity.ERROR
    assert (finding.start, finding.end) == (program.index("pkill"), program.index("pkill") + 5)
    script = tmp_path / "p.py"
    script.write_text(program)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert "after-pkill" not in done.stdout, done.stdout + done.stderr
    # The bracket fix makes the pattern miss its own shell: the rest runs.
    fixed = program.replace(f"pkill -f {MARK}", f"pkill -f '[{MARK[0]}]{MARK[1:]}'")
    assert [f for f in check_text(fixed, "python", "p.py") if f.code == "HL103"] == []
    script.write_text(fixed)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert "after-pkill" in done.stdout, done.stdout + done.stderr
