"""Pinned behaviours of the fixes, checked by the bytes they deliver through a real sshd.

Each test here kills a bug that once survived the suite (issue 20, bench/MUTATION.md):
the script is fixed through `heredoc_lint.engine.fix_shell`, both the original and the
fixed script run against the loopback sshd of tests/sshd.py, and what the remote side
received is compared byte for byte.  A fix may decline (then the text is unchanged and
the test still holds); it may never change what the command delivers.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from cli_process import run_cli
from sshd import SshServer, run_local

from heredoc_lint.engine import Settings, check_shell, fix_shell

STDIN = Settings(fix_strategy="stdin")
BASE64 = Settings(fix_strategy="base64")


def _remote_bytes(script: str, server: SshServer, target: Path) -> bytes:
    """Run `script` locally (its ssh goes to the test sshd); the bytes it left in `target`."""
    target.unlink(missing_ok=True)
    proc = run_local(script, server)
    assert proc.returncode == 0, proc.stderr
    return target.read_bytes()


def _fixed(text: str, settings: Settings, *, unsafe: bool = False) -> str:
    outcome = fix_shell(text, "t.sh", settings, unsafe=unsafe)
    assert outcome.error is None, outcome.error
    return outcome.text


# -- remote heredoc fixes ------------------------------------------------------------------


def test_unquoted_body_with_backslashes_keeps_its_bytes(sshd: SshServer, tmp_path: Path) -> None:
    """An unquoted heredoc body with `\\\\` is not literal: the remote shell turns `\\\\`
    into `\\`.  A fix that sent the body as written (base64) would deliver two backslashes."""
    target = tmp_path / "out.txt"
    # Layer 1 (the remote string) reads `a\\b`; the remote unquoted heredoc gives `a\b`.
    text = f'ssh h "cat > {target} << EOF\na\\\\\\\\b\nEOF"\n'
    original = _remote_bytes(text, sshd, target)
    assert original == b"a\\b\n"
    for settings in (BASE64, STDIN):
        fixed = _fixed(text, settings)
        assert _remote_bytes(fixed, sshd, target) == original, fixed


def test_stdin_fix_picks_a_delimiter_absent_from_the_body(sshd: SshServer, tmp_path: Path) -> None:
    """The body holds a line `EOF`: the local heredoc must end at another delimiter."""
    target = tmp_path / "out.txt"
    body = "first\nEOF\nEOF_1\nlast\n"
    text = f"ssh h \"cat > {target} << 'END'\n{body}END\necho done\"\n"
    fixed = _fixed(text, STDIN)
    assert fixed != text  # the stdin fix applies
    assert "<<'EOF_2'" in fixed, fixed
    assert _remote_bytes(fixed, sshd, target) == body.encode()
    assert _remote_bytes(text, sshd, target) == body.encode()


def test_stdin_fix_not_offered_to_ssh_n(sshd: SshServer, tmp_path: Path) -> None:
    """`ssh -n` reads /dev/null, not the script's stdin: a body fed there never arrives."""
    target = tmp_path / "out.txt"
    text = f"ssh -n h \"cat > {target} << 'EOF'\nhello\nEOF\"\n"
    fixed = _fixed(text, STDIN)
    assert _remote_bytes(fixed, sshd, target) == b"hello\n"
    assert [f.fix for f in check_shell(text, "t.sh", STDIN) if f.code == "HL101"] == [None]


def test_stdin_fix_in_a_crlf_file_ends_its_heredoc(sshd: SshServer, tmp_path: Path) -> None:
    """In a CRLF file the `\\r` is part of the new `<<'EOF'` delimiter word: the
    terminator line the fix writes must carry it, or the body runs to the end of file.
    The first line ends in a bare LF: the fixer does not convert the whole edit to CRLF."""
    target = tmp_path / "out.txt"
    text = f"echo start\nssh h \"cat > {target} << 'EOF'\r\nhello\r\nEOF\r\n\"\r\necho after\r\n"
    fixed = _fixed(text, STDIN)
    assert fixed != text
    assert fixed.count("EOF\r\n") == 1, fixed
    for script in (text, fixed):
        target.unlink(missing_ok=True)
        proc = run_local(script, sshd)
        assert proc.returncode == 0, proc.stderr
        assert target.read_bytes() == b"hello\r\n", script
        assert proc.stdout.split() == ["start", "after"], script  # text mode: \r\n read as \n


def test_base64_fix_stays_under_the_argument_limit(sshd: SshServer, tmp_path: Path) -> None:
    """Linux refuses one argument over 128 KiB: a body that fits as itself but not as
    base64 (4/3 longer) must not be rewritten into a command that cannot start."""
    target = tmp_path / "out.txt"
    body = ("x" * 99 + "\n") * 990  # 99,000 bytes: base64 makes 132,000
    text = f"ssh h \"cat > {target} << 'EOF'\n{body}EOF\"\n"
    assert _remote_bytes(text, sshd, target) == body.encode()
    fixed = _fixed(text, BASE64)
    assert "base64 -d" not in fixed
    assert _remote_bytes(fixed, sshd, target) == body.encode()


def test_base64_fix_applies_just_under_the_limit(sshd: SshServer, tmp_path: Path) -> None:
    """The other side of the bound: a body whose base64 fits is rewritten and delivered."""
    target = tmp_path / "out.txt"
    body = ("y" * 99 + "\n") * 700  # 70,000 bytes: base64 makes 93,336
    text = f"ssh h \"cat > {target} << 'EOF'\n{body}EOF\"\n"
    fixed = _fixed(text, BASE64)
    assert "base64 -d" in fixed
    assert _remote_bytes(fixed, sshd, target) == body.encode()


# -- HL106: the one-string fix -------------------------------------------------------------


def test_hl106_fix_escapes_backslashes_in_double_quotes(sshd: SshServer, tmp_path: Path) -> None:
    """The fix's string holds `'` so it is double-quoted for the local shell: every `\\`
    must be escaped there, or the remote side receives fewer backslashes."""
    show = tmp_path / "showargs"
    show.write_text('#!/bin/bash\nfor a; do printf "<%s>\\n" "$a"; done\n')
    show.chmod(show.stat().st_mode | stat.S_IXUSR)
    text = f"ssh h {show} \"a b\" 'x\\\\y' q\n"
    fixed = _fixed(text, Settings(select=frozenset({"HL106"})), unsafe=True)
    assert fixed == f"ssh h \"{show} 'a b' 'x\\\\\\\\y' q\"\n"
    proc = run_local(fixed, sshd)
    assert proc.returncode == 0, proc.stderr
    # The arguments the local words meant: `a b`, `x\\y`, `q`.
    assert proc.stdout == "<a b>\n<x\\\\y>\n<q>\n"


@pytest.mark.parametrize(
    ("text", "reported"),
    [
        ("ssh h cat log '|' grep \"a b\"\n", False),  # `'|'`: the words are remote shell text
        ("ssh h cat log '| grep' \"a b\"\n", False),
        ('ssh h cat log "a b"\n', True),
    ],
)
def test_hl106_remote_operator_turns_off_later_words(text: str, reported: bool) -> None:
    found = [f for f in check_shell(text, "t.sh") if f.code == "HL106"]
    assert [(f.start, f.end) for f in found] == ([(0, 3)] if reported else [])


# -- scp strategy: the string is cut around the heredoc ------------------------------------


@pytest.mark.parametrize(("join", "joined"), [("; ", "; "), (" && ", " && ")])
def test_scp_fix_keeps_the_commands_around_the_heredoc(
    sshd: SshServer, tmp_path: Path, join: str, joined: str
) -> None:
    """The commands before and after the heredoc stay in ssh calls of their own, joined
    as they were; the body goes to a file beside the script, byte for byte, and scp
    copies it."""
    remote = tmp_path / "remote"
    script = tmp_path / "push.sh"
    body = "key=$1 \\x it's\n"
    script.write_text(
        f"#!/bin/bash\nssh h \"mkdir -p {remote}{join}cat > {remote}/app.conf << 'EOF'\n"
        f'{body}EOF\necho done"\n'
    )
    proc = run_cli("--fix", "--fix-strategy", "scp", "--no-cache", str(script))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert script.read_text() == (
        f'#!/bin/bash\nssh h "mkdir -p {remote}"{joined}'
        f'scp "$(dirname "$0")/push.sh.d/app.conf" h:{remote}/app.conf; ssh h "echo done"\n'
    )
    local = tmp_path / "push.sh.d" / "app.conf"
    assert local.read_bytes() == body.encode()
    assert stat.S_IMODE(local.stat().st_mode) == 0o644
    proc = run_local(script, sshd)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"
    assert (remote / "app.conf").read_bytes() == body.encode()
