"""Pinned behaviours of writer.py and cache.py (issue 20, run 4a): each test kills a
mutant that survived `bench/mutation.py`'s sample of 10 points a module.  Through the
CLI (`--fix` on real files) where the timing allows, else through the writer's own entry
point `replace_atomically`."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from cli_process import run_cli

from heredoc_lint.writer import replace_atomically

_SCRIPT = "ssh h \"cat > /tmp/f << 'EOF'\nhello\nEOF\"\n"


def _fix(script: Path, *options: str) -> str:
    proc = run_cli("--fix", "--no-cache", *options, str(script))
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def _aged(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_fix_keeps_hard_links(tmp_path: Path) -> None:
    """A file with two names is rewritten in place: both names see the fix, the inode
    stays, and no backup is left behind."""
    script = tmp_path / "deploy.sh"
    script.write_text(_SCRIPT)
    other = tmp_path / "link.sh"
    os.link(script, other)
    inode = script.stat().st_ino
    _fix(script)
    assert "base64 -d" in script.read_text()
    assert other.read_text() == script.read_text()
    assert script.stat().st_ino == inode and script.stat().st_nlink == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deploy.sh", "link.sh"]


def test_fix_keeps_extended_attributes(tmp_path: Path) -> None:
    script = tmp_path / "deploy.sh"
    script.write_text(_SCRIPT)
    os.setxattr(script, "user.reviewed", b"by ops")
    _fix(script)
    assert "base64 -d" in script.read_text()
    assert os.getxattr(script, "user.reviewed") == b"by ops"


def test_only_the_files_own_stale_temps_are_removed(tmp_path: Path) -> None:
    """A temp file of this script that a killed run left (a minute old) goes; an old file
    of another name, or a temp of another script, stays."""
    script = tmp_path / "deploy.sh"
    script.write_text(_SCRIPT)
    stale = tmp_path / ".deploy.sh.k3j2.heredoc-lint"
    others = [
        tmp_path / "notes.txt",
        tmp_path / ".deploy.sh.swp",
        tmp_path / ".other.sh.k3j2.heredoc-lint",
        tmp_path / ".deploy.sh.backup-k3j2.heredoc-lint",
    ]
    for path in (stale, *others):
        path.write_text("old\n")
        _aged(path, 3600)
    _fix(script)
    assert "base64 -d" in script.read_text()
    assert not stale.exists()
    assert all(p.read_text() == "old\n" for p in others)


@pytest.mark.parametrize(("age", "removed"), [(60.5, True), (59.5, False)])
def test_stale_temp_age_is_a_minute(tmp_path: Path, age: float, removed: bool) -> None:
    """A temp file beside the target is left by a killed run once it is a minute old."""
    target = tmp_path / "deploy.sh"
    target.write_bytes(b"old\n")
    temp = tmp_path / ".deploy.sh.k3j2.heredoc-lint"
    temp.write_text("left by a killed run\n")
    _aged(temp, age)
    replace_atomically(target, b"new\n", b"old\n")
    assert target.read_bytes() == b"new\n"
    assert temp.exists() is not removed
