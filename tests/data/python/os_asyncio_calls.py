"""os.system, os.popen, subprocess.getoutput/getstatusoutput, asyncio's subprocess calls."""

import asyncio
import os
import subprocess
from os import system as run_shell


def os_calls(path: str) -> None:
    os.system("pkill -f backup_job; rm -rf /tmp/backup")
    run_shell(f"rm -rf {path}")
    os.popen("pgrep -f os_popen_job | wc -l")
    subprocess.getoutput(f"wc -l {path}")
    subprocess.getstatusoutput("pkill -f status_job || true")


async def asyncio_calls(host: str, body: str) -> None:
    await asyncio.create_subprocess_shell("pkill -f async_job; echo gone")
    await asyncio.create_subprocess_exec("ssh", host, f"cat > /srv/a << 'EOF'\n{body}\nEOF")
    await asyncio.create_subprocess_exec("bash", "-c", "pkill -f exec_job; sleep 1")
