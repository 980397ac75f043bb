"""`--fix` against what a checked repository may hold (issue 18, items 12 and 13)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_process import CLI, run_cli

from heredoc_lint.model import NewFile
from heredoc_lint.run.writer import WriteError, create_beside

# An scp-fixable remote heredoc: the body goes to `deploy.sh.d/app.conf`.
SCRIPT = "ssh h \"cat > /etc/app.conf << 'EOF'\nport=80\nEOF\"\n"
# Its heredoc arrives as written (HL101 at info): fixed where info is reported.
SCP_FIX = ("--no-cache", "--fix", "--severity", "info", "--fix-strategy", "scp")


def test_scp_fix_refuses_a_fifo_where_its_body_file_goes(tmp_path: Path) -> None:
    """Item 12: a FIFO at `<script>.d/<name>` made `--fix` wait forever for a writer.
    It is refused with one note, the script is left as it was, and the run ends at once."""
    script = tmp_path / "deploy.sh"
    script.write_text(SCRIPT)
    (tmp_path / "deploy.sh.d").mkdir()
    fifo = tmp_path / "deploy.sh.d" / "app.conf"
    os.mkfifo(fifo)
    result = run_cli(*SCP_FIX, script.name, cwd=tmp_path, timeout=30)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{fifo}: exists and is not a regular file; not overwritten" in result.stderr
    assert script.read_text() == SCRIPT
    assert fifo.is_fifo()


def test_scp_fix_refuses_a_symlink_loop_where_its_body_file_goes(tmp_path: Path) -> None:
    """`deploy.sh.d` a link to itself: resolving the body file's path loops.  One line
    naming the path (not an internal error), exit 2, the script left as it was."""
    script = tmp_path / "deploy.sh"
    script.write_text(SCRIPT)
    (tmp_path / "deploy.sh.d").symlink_to("deploy.sh.d")
    result = run_cli(*SCP_FIX, script.name, cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "internal error" not in result.stderr
    (line,) = [x for x in result.stderr.splitlines() if "deploy.sh.d/app.conf" in x]
    assert "cannot resolve" in line and "loop" in line.lower()
    assert script.read_text() == SCRIPT


def test_scp_fix_without_a_fifo_writes_the_body_file(tmp_path: Path) -> None:
    """The same run with nothing in the way: the fix is made (the test above is the FIFO's)."""
    script = tmp_path / "deploy.sh"
    script.write_text(SCRIPT)
    result = run_cli(*SCP_FIX, script.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "deploy.sh.d" / "app.conf").read_bytes() == b"port=80\n"
    assert script.read_text().startswith('scp "$(dirname "$0")/deploy.sh.d/app.conf" h:')


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_create_beside_refuses_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    script = tmp_path / "s.sh"
    script.write_text("x\n")
    (tmp_path / "s.sh.d").mkdir()
    target = tmp_path / "s.sh.d" / "f"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    with pytest.raises(WriteError, match="is not a regular file"):
        create_beside(script, NewFile("s.sh.d/f", b"body\n"))


def test_a_writer_between_the_check_and_the_rename_keeps_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The race test_robustness.py's 2000-file run once lost: another writer replaces the
    # file just after the fixer found it unchanged and before its rename.
    from heredoc_lint.run import writer

    target = tmp_path / "s.sh"
    target.write_bytes(b"old\n")
    checked = writer._check_unchanged

    def check_then_race(path: Path, expected: bytes | None) -> None:
        checked(path, expected)
        monkeypatch.setattr(writer, "_check_unchanged", checked)  # the race happens once
        other = tmp_path / ".other"
        other.write_bytes(b"theirs\n")
        os.replace(other, path)

    monkeypatch.setattr(writer, "_check_unchanged", check_then_race)
    with pytest.raises(writer.WriteError, match="changed by someone else"):
        writer.replace_atomically(target, b"fixed\n", b"old\n")
    assert target.read_bytes() == b"theirs\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sh"]  # no temp file left


# -- a fix checked by the bash on PATH, or by none -----------------------------------------


_SCRIPT = "ssh h \"cat > /tmp/f << 'EOF'\nhello\nEOF\"\n"


def _fix_with_path(script: Path, path: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path}
    argv = [
        sys.executable,
        "-m",
        "heredoc_lint",
        "--fix",
        "--severity",
        "info",
        "--no-cache",
        str(script),
    ]
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


def test_fix_with_no_bash_on_path(tmp_path: Path) -> None:
    """No bash at all: the fix is written all the same (tree-sitter alone decides)."""
    script = tmp_path / "deploy.sh"
    script.write_text(_SCRIPT)
    proc = _fix_with_path(script, str(tmp_path / "empty"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "base64 -d" in script.read_text()


def test_fix_with_bash_on_path(tmp_path: Path) -> None:
    """With bash there, the fixed script is the one bash accepts (`bash -n` exits 0)."""
    script = tmp_path / "deploy.sh"
    script.write_text(_SCRIPT)
    proc = _fix_with_path(script, os.environ["PATH"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "base64 -d" in script.read_text()
    assert subprocess.run(["bash", "-n", str(script)], check=False).returncode == 0


# -- Python frontend --------------------------------------------------------------------------


def test_fix_without_bash_on_path(tmp_path: Path) -> None:
    """bash is asked whether a fixed script still parses; without bash the fix is
    written all the same (tree-sitter alone decides), and nothing crashes."""
    script = tmp_path / "deploy.sh"
    script.write_text("ssh h \"cat > /tmp/f << 'EOF'\nhello\nEOF\"\n")
    env = {**os.environ, "PATH": str(tmp_path / "empty")}
    argv = [*CLI, "--fix", "--severity", "info", "--no-cache", str(script)]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "base64 -d" in script.read_text()
