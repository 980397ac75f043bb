"""Stated input bounds (issue 18 item 8): no input makes memory grow without limit or a
read wait forever, and one bad transcript line (item 17) does not end the scan.

`heredoc-lint -` reads at most 10 MiB of stdin (tests/test_robustness.py covers it); a
`transcript` session line is held up to sessions.MAX_LINE bytes, a longer one read past
in chunks; a FIFO or a device named as a file is refused with exit 2, never waited on.
Memory is measured as the child's peak RSS (`ru_maxrss`) through a fresh interpreter
that runs only the CLI.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

from cli_process import CLI

from heredoc_lint.agents.sessions import bounded_lines

BAD = 'ssh h "pkill -f sglang; ./restart"'
CLAUDE_LINE = json.dumps(
    {
        "type": "assistant",
        "sessionId": "s1",
        "message": {
            "id": "m1",
            "content": [
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": BAD}}
            ],
        },
    }
)


def transcript(
    *args: str | Path, cwd: Path, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "transcript", "--format", "json", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def peak_rss_mb(argv: list[str], cwd: Path) -> tuple[int, float]:
    """(exit status, peak resident MB) of a command run alone in a fresh interpreter."""
    probe = (
        "import resource, subprocess, sys\n"
        "quiet = {'stdout': subprocess.DEVNULL, 'stderr': subprocess.DEVNULL}\n"
        "done = subprocess.run(sys.argv[1:], **quiet)\n"
        "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, *argv], cwd=cwd, capture_output=True, text=True,
        timeout=300, check=True,
    ).stdout.split()  # fmt: skip
    return int(out[0]), int(out[1]) / 1024


def test_one_bad_line_is_a_note_and_the_scan_goes_on(tmp_path: Path) -> None:
    """A Codex line whose `arguments` string nests 100,000 deep raised RecursionError out of
    the reader and ended the whole scan (exit 2, nothing checked)."""
    deep = json.dumps(
        {"type": "function_call", "name": "shell", "call_id": "c", "arguments": "[" * 100_000}
    )
    lines = ["[" * 100_000, deep, CLAUDE_LINE]
    (tmp_path / "s.jsonl").write_text("\n".join(lines) + "\n")
    result = transcript("s.jsonl", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert [f["code"] for f in json.loads(result.stdout)] == ["HL103"]
    notes = result.stderr.splitlines()
    assert notes[0] == "heredoc-lint: transcript: s.jsonl: skipped 1 line that is not JSON"
    assert notes[1].startswith("heredoc-lint: transcript: s.jsonl: line 2: RecursionError: ")
    assert notes[1].endswith(", skipped") and len(notes) == 2


def test_a_fifo_named_as_a_session_is_refused_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "s.jsonl")
    (tmp_path / "good.jsonl").write_text(CLAUDE_LINE + "\n")
    result = transcript("s.jsonl", "good.jsonl", cwd=tmp_path, timeout=30)
    assert result.returncode == 2
    assert result.stderr == (
        "heredoc-lint: transcript: error: s.jsonl: not a regular file "
        "(a FIFO or a device is not read)\n"
    )
    assert [f["code"] for f in json.loads(result.stdout)] == ["HL103"]


def test_a_fifo_in_a_walked_directory_is_passed_over(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    os.mkfifo(tmp_path / "d" / "a.jsonl")
    (tmp_path / "d" / "b.jsonl").write_text(CLAUDE_LINE + "\n")
    result = transcript("d", cwd=tmp_path, timeout=30)
    assert result.returncode == 1 and result.stderr == ""


def test_dev_zero_is_refused(tmp_path: Path) -> None:
    result = transcript("/dev/zero", cwd=tmp_path, timeout=30)
    assert result.returncode == 2
    assert "/dev/zero: not a regular file" in result.stderr


def test_a_line_without_end_is_read_in_bounded_memory(tmp_path: Path) -> None:
    """200 MB of zeros without a line end (sparse): the reader held it whole before."""
    with (tmp_path / "zeros.jsonl").open("wb") as handle:
        handle.truncate(200 * 1024 * 1024)
    with (tmp_path / "zeros.jsonl").open("ab") as handle:
        handle.write(b"\n" + CLAUDE_LINE.encode() + b"\n")
    argv = [*CLI, "transcript", "zeros.jsonl"]
    status, peak = peak_rss_mb(argv, tmp_path)
    assert status == 1  # the line after the long one is still checked
    assert peak < 64 + 120, peak  # one MAX_LINE buffer and the interpreter
    result = transcript("zeros.jsonl", cwd=tmp_path, timeout=120)
    assert "skipped 1 line longer than 64 MiB" in result.stderr
    assert [f["code"] for f in json.loads(result.stdout)] == ["HL103"]


def test_bounded_lines() -> None:
    data = b"ab\n" + b"x" * 25 + b"\nlast"
    assert list(bounded_lines(io.BytesIO(data), limit=10)) == [b"ab\n", None, b"last"]
    assert list(bounded_lines(io.BytesIO(b"0123456789\n"), limit=10)) == [None]
    assert list(bounded_lines(io.BytesIO(b"012345678\n"), limit=10)) == [b"012345678\n"]


def test_stdin_memory_is_bounded(tmp_path: Path) -> None:
    """`head -c 2G /dev/zero | heredoc-lint -` held all 2 GB; now it stops at 10 MiB."""
    argv = ["bash", "-c", f"head -c 300M /dev/zero | {sys.executable} -m heredoc_lint -"]
    status, peak = peak_rss_mb(argv, tmp_path)
    assert status == 2
    assert peak < 150, peak


def test_a_deep_opencode_row_does_not_end_the_scan(tmp_path: Path) -> None:
    import sqlite3

    good = {
        "type": "tool",
        "tool": "bash",
        "callID": "c1",
        "state": {"input": {"command": BAD}},
    }
    deep = {"id": "r0", "content": "x"}
    with contextlib.closing(sqlite3.connect(tmp_path / "opencode.db")) as db:
        db.execute("CREATE TABLE part (id, message_id, session_id, data)")
        db.execute("CREATE TABLE session_message (id, session_id, type, data)")
        db.execute("INSERT INTO part VALUES ('p0', 'm', 's', ?)", ("[" * 100_000 + "bash",))
        db.execute("INSERT INTO part VALUES ('p1', 'm', 's', ?)", (json.dumps(good),))
        db.execute(
            "INSERT INTO session_message VALUES ('r0', 's', 'assistant', ?)",
            ("[" * 100_000 + json.dumps(deep) + "bash",),
        )
        db.commit()
    result = transcript("opencode.db", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert [f["code"] for f in json.loads(result.stdout)] == ["HL103"]
