"""Pinned behaviours of writer.py and cache.py (issue 20, run 4a): each test kills a
mutant that survived `bench/mutation.py`'s sample of 10 points a module.  Through the
CLI (`--fix` on real files) where the timing allows, else through the writer's own entry
point `replace_atomically`."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_process import run_cli
from probe import loaded_modules

from heredoc_lint.writer import replace_atomically

_SCRIPT = "ssh h \"cat > /tmp/f << 'EOF'\nhello\nEOF\"\n"


def _fix(script: Path, *options: str) -> str:
    proc = run_cli("--fix", "--severity", "info", "--no-cache", *options, str(script))
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


# -- cache.py ----------------------------------------------------------------------------

_PKILL = "ssh h 'pkill -f sglang; echo done'\n"


def _cached_run(tmp_path: Path, env: dict[str, str]) -> str:
    script = tmp_path / "s.sh"
    script.write_text(_PKILL)
    argv = [sys.executable, "-m", "heredoc_lint", "--cache-dir", str(tmp_path / "c"), str(script)]
    # From tmp_path, as the probe runs: `-m` imports a package from the working directory
    # first, and a checkout there would be another build, with another cache key.
    proc = subprocess.run(
        argv, capture_output=True, text=True, env=env, cwd=tmp_path, check=False
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "HL103" in proc.stdout
    return proc.stdout


def test_first_run_makes_the_cache_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no cache key yet, the first run makes one (32 bytes, this user's alone) and
    keys its pack with it: the next run is answered from that pack (it never loads the
    parser) and says the same."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    first = _cached_run(tmp_path, dict(os.environ))
    key = tmp_path / "xdg" / "heredoc-lint" / "cache-key"
    assert len(key.read_bytes()) == 32
    assert stat.S_IMODE(key.stat().st_mode) & 0o077 == 0
    args = ["--cache-dir", str(tmp_path / "c"), str(tmp_path / "s.sh")]
    assert loaded_modules(args, ("tree_sitter",), tmp_path) == ([], 1)
    assert _cached_run(tmp_path, dict(os.environ)) == first


def test_a_new_yaml_install_starts_a_new_pack(tmp_path: Path) -> None:
    """The findings depend on the parsers (PyYAML reads workflow files): installing
    another version of one (its files' sizes or mtimes change) must not reuse the pack."""
    import yaml

    lib = tmp_path / "lib"
    shutil.copytree(
        Path(yaml.__file__).parent, lib / "yaml", ignore=shutil.ignore_patterns("__pycache__")
    )
    path = os.pathsep.join(p for p in (str(lib), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1"}
    first = _cached_run(tmp_path, env)
    (before,) = (tmp_path / "c").glob("findings-*.json")
    init = lib / "yaml" / "__init__.py"
    mtime = init.stat().st_mtime_ns + 2_000_000_000
    os.utime(init, ns=(mtime, mtime))
    assert _cached_run(tmp_path, env) == first
    (after,) = (tmp_path / "c").glob("findings-*.json")
    assert after.name != before.name
