"""`--fix` keeps what belongs to the file besides its bytes: hard links, extended
attributes; and cleans up the temp files a killed run left beside it.

Run through the real CLI on a file with a safe fix (HL103's bracket).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from cli_process import CLI

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
