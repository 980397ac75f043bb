"""The heredoc-lint CLI run as its users run it: a subprocess, output captured as text."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_cli(
    *args: str, stdin: str | None = None, cwd: Path | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """`python -m heredoc_lint ARGS` (without NO_COLOR: colour stays decided by the tty)."""
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return subprocess.run(
        [sys.executable, "-m", "heredoc_lint", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
        check=False,
    )
