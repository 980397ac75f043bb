"""The heredoc-lint CLI run as its users run it: a subprocess, output captured as text."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# How every test starts the CLI; tests that need a Popen, bytes or a special stdout build
# their own call around it.
CLI = (sys.executable, "-m", "heredoc_lint")


def run_cli(
    *args: str | Path,
    stdin: str | None = None,
    cwd: Path | None = None,
    timeout: float = 60,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`python -m heredoc_lint ARGS` (without NO_COLOR: colour stays decided by the tty),
    in the test's environment updated with `env`."""
    merged = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | (env or {})
    return subprocess.run(
        [*CLI, *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=merged,
        timeout=timeout,
        check=False,
    )


def fix_file(path: Path, text: str) -> str:
    """`path` written with `text`, fixed by `--fix --unsafe-fixes`: its text afterwards."""
    path.write_text(text)
    subprocess.run(
        [*CLI, "--no-cache", "--fix", "--unsafe-fixes", path], capture_output=True, check=False
    )
    return path.read_text()
