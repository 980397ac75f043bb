"""HL202 through asyncssh's `conn.run`: a heredoc body filled in at run time.

A value that holds the delimiter line ends the body early, and the remote login shell
runs what follows it as commands: shown against the test sshd.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sshd import SshServer

from heredoc_lint.engine import check_text
from heredoc_lint.model import Severity

PROGRAM = """\
import asyncio
import sys

import asyncssh


async def main() -> None:
    async with asyncssh.connect("127.0.0.1", port={port}, username="{user}",
                                client_keys=["{key}"], known_hosts=None,
                                agent_path=None) as conn:
        body = sys.argv[1]
        await conn.run(f"cat > {out} << 'EOF'\\n{{body}}\\nEOF\\n")


asyncio.run(main())
"""


def test_a_value_holding_the_delimiter_ends_the_body_hl202(sshd: SshServer, tmp_path: Path) -> None:
    out = tmp_path / "out"
    program = PROGRAM.format(port=sshd.port, user=sshd.user, key=sshd.key, out=out)
    (finding,) = [f for f in check_text(program, "python", "p.py") if f.code == "HL202"]
    assert finding.severity is Severity.WARNING
    assert program[finding.start : finding.end] == "<<"
    line = program.count("\n", 0, finding.start) + 1
    assert (
        line
        == program.splitlines().index(next(x for x in program.splitlines() if "conn.run" in x)) + 1
    )
    script = tmp_path / "p.py"
    script.write_text(program)
    body = f"a=1\nEOF\ntouch {tmp_path}/pwned"
    done = subprocess.run(
        [sys.executable, str(script), body], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text() == "a=1\n"  # the value's `EOF` line ended the body
    assert (tmp_path / "pwned").exists()  # and the line after it ran as a command
