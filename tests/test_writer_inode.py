"""`--fix` keeps what belongs to the file besides its bytes: hard links, extended
attributes; and cleans up the temp files a killed run left beside it.

Run through the real CLI on a file with a safe fix (HL103's bracket).
"""

from __future__ import annotations

import os
import stat
import subprocess
import time
from pathlib import Path

import pytest
from cli_process import CLI, run_cli

from heredoc_lint.run.writer import replace_atomically

BAD = '#!/bin/bash\nssh h "pkill -f sglang; ./restart"\n'
FIXED = "#!/bin/bash\nssh h \"pkill -f '[s]'glang; ./restart\"\n"


def fix(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "--no-cache", "--fix", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_hard_linked_file_keeps_its_links(tmp_path: Path) -> None:
    script = tmp_path / "deploy.sh"
    script.write_text(BAD)
    other = tmp_path / "also-deploy.sh"
    os.link(script, other)
    inode = script.stat().st_ino
    proc = fix(script)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert script.read_text() == FIXED
    assert other.read_text() == FIXED  # the same inode: the other name sees the fix
    assert script.stat().st_ino == inode and script.stat().st_nlink == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["also-deploy.sh", "deploy.sh"]


def test_a_single_link_file_is_still_replaced_by_rename(tmp_path: Path) -> None:
    script = tmp_path / "deploy.sh"
    script.write_text(BAD)
    inode = script.stat().st_ino
    assert fix(script).returncode == 0
    assert script.read_text() == FIXED
    assert script.stat().st_ino != inode  # atomic: a new inode renamed over the old


def test_extended_attributes_are_kept(tmp_path: Path) -> None:
    script = tmp_path / "deploy.sh"
    script.write_text(BAD)
    try:
        os.setxattr(script, "user.owner-note", b"ops team")
    except OSError as error:
        if os.environ.get("CI") == "true":
            pytest.fail(f"this file system refuses user xattrs: {error}")
        pytest.skip(f"no user xattrs here: {error}")
    assert fix(script).returncode == 0
    assert script.read_text() == FIXED
    assert os.getxattr(script, "user.owner-note") == b"ops team"


def test_temp_files_a_killed_run_left_are_removed(tmp_path: Path) -> None:
    script = tmp_path / "deploy.sh"
    script.write_text(BAD)
    stale = tmp_path / ".deploy.sh.k1ll3d.heredoc-lint"
    stale.write_text("half")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    fresh = tmp_path / ".deploy.sh.busy01.heredoc-lint"  # another run may be writing it
    fresh.write_text("in progress")
    backup = tmp_path / ".deploy.sh.backup-abc123.heredoc-lint"  # the only old copy
    backup.write_text(BAD)
    os.utime(backup, (old, old))
    unrelated = tmp_path / ".other.sh.k1ll3d.heredoc-lint"
    unrelated.write_text("x")
    os.utime(unrelated, (old, old))
    assert fix(script).returncode == 0
    assert not stale.exists()
    assert fresh.exists() and backup.exists() and unrelated.exists()


# -- a file rewritten in place, and the temp files a killed run left -----------------------


_SCRIPT = "ssh h \"cat > /tmp/f << 'EOF'\nhello\nEOF\"\n"


def _fix(script: Path, *options: str) -> str:
    proc = run_cli("--fix", "--severity", "info", "--no-cache", *options, str(script))
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


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


def _aged(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


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


# -- writer.py: a hard-linked file whose new bytes cannot be written ------------------------


def test_a_failed_in_place_rewrite_puts_the_old_bytes_back(tmp_path: Path) -> None:
    """A file with two links is rewritten in place.  Under a file size limit (bash's
    `ulimit -f 2`: 2048 bytes) that its 1,816 bytes fit and the base64 fix's bytes do
    not, the write stops half-way (EFBIG; Python ignores SIGXFSZ): the tool says so (exit
    2), and the file, under both names, holds its old bytes again, from the backup, which
    is then removed."""
    body = "".join(f"line {i} of the config, some text to make it long\n" for i in range(36))
    old = f"#!/bin/bash\nssh h \"cat > /etc/app.conf <<'EOF'\n{body}EOF\necho done\"\n"
    script = tmp_path / "deploy.sh"
    script.write_text(old)
    os.link(script, tmp_path / "link.sh")
    assert len(old) == 1816
    limited = ["bash", "-c", 'ulimit -f 2 && exec "$@"', "bash", *CLI]
    proc = subprocess.run(
        [*limited, "--no-cache", "--fix", "--severity", "info", str(script)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr == f"heredoc-lint: {script}: cannot write: File too large; left as it was\n"
    assert script.read_text() == (tmp_path / "link.sh").read_text() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deploy.sh", "link.sh"]
    # Without the limit the same fix is written: the limit was the only obstacle.
    assert run_cli("--no-cache", "--fix", "--severity", "info", str(script)).returncode == 0
    assert "base64 -d" in (tmp_path / "link.sh").read_text()


# -- writer: --fix keeps the file's mode ----------------------------------------------------


@pytest.mark.parametrize("mode", [0o755, 0o640, 0o700, 0o664])
def test_fix_keeps_the_file_mode(tmp_path: Path, mode: int) -> None:
    script = tmp_path / "deploy.sh"
    script.write_text("#!/bin/bash\nssh h \"cat > /tmp/f << 'EOF'\nhello\nEOF\"\n")
    script.chmod(mode)
    proc = run_cli("--fix", "--severity", "info", "--no-cache", str(script))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "base64 -d" in script.read_text()
    assert stat.S_IMODE(script.stat().st_mode) == mode
