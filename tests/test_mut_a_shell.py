"""Pinned behaviours of shell/bash.py, shell/evidence.py and shell/heredoc.py (issue 20,
run 4a): each test kills a mutant that survived `bench/mutation.py`'s sample of 10 points
a module, through the CLI or the engine, with bash as the oracle where a shell's reading
is claimed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

_SCRIPT = "ssh h \"cat > /tmp/f << 'EOF'\nhello\nEOF\"\n"


def _fix_with_path(script: Path, path: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path}
    argv = [sys.executable, "-m", "heredoc_lint", "--fix", "--no-cache", str(script)]
    return subprocess.run(argv, capture_output=True, text=True, env=env, check=False)


def test_fix_with_a_bash_that_cannot_start(tmp_path: Path) -> None:
    """bash is asked whether a fixed script still parses.  A `bash` on PATH that the
    kernel cannot run (its interpreter is missing: ENOENT from exec) counts as no bash:
    the fix is written all the same, nothing crashes (shell/bash.py's OSError branch)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "bash"
    fake.write_text("#!/nonexistent/interpreter\n")
    fake.chmod(0o755)
    with pytest.raises(FileNotFoundError):  # what exec of it does
        subprocess.run([str(fake)], capture_output=True, check=False)
    script = tmp_path / "deploy.sh"
    script.write_text(_SCRIPT)
    proc = _fix_with_path(script, str(bindir))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "base64 -d" in script.read_text()
