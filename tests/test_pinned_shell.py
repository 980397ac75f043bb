"""Pinned behaviours of the shell reader (de-quoter, heredoc scanner) and of `lift`,
each checked against real bash.

Each test kills a bug that once survived the suite (issue 20, bench/MUTATION.md).
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from heredoc_lint.engine import Settings, check_shell, fix_shell
from heredoc_lint.shell.heredoc import scan_heredocs
from heredoc_lint.shell.words import dequote


def _bash(script: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> bytes:
    proc = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _word(source: str) -> str:
    return dequote(source, 0, len(source)).value


# -- $'...': an octal escape takes at most three digits -----------------------------------


@pytest.mark.parametrize(
    "source", ["$'\\1234'", "$'a\\0404'", "$'\\101\\1011'", "$'\\7'", "$'\\77x'", "$'\\0777'"]
)
def test_ansi_octal_escape_reads_three_digits_like_bash(source: str) -> None:
    expected = _bash(f"printf %s {source}").decode("utf-8", "surrogateescape")
    assert _word(source) == expected


def test_ansi_octal_space_splits_on_the_remote_side() -> None:
    """`$'a\\0404'` is `a 4` (octal 040 is a space): ssh joins it and the remote shell
    splits it into two arguments, which HL106 reports at `ssh`."""
    text = "ssh h touch $'a\\0404'\n"
    (f,) = [f for f in check_shell(text, "t.sh") if f.code == "HL106"]
    assert (f.start, f.end) == (0, 3)
    assert "arrives as 2 separate arguments (`a`, `4`)" in f.message


# -- pathname expansion: which words does bash glob? ----------------------------------------


@pytest.mark.parametrize(
    "source",
    ["a[b]", "'a[b]'", "a\\[b]", '"a[b]"', "a*", "'a*'", "a?b", "x[b]y", "x'['b]y", "ab"],
)
def test_globbing_flag_agrees_with_bash(source: str, tmp_path: Path) -> None:
    """In a directory where each pattern matches a file, bash expands exactly the words
    whose `[`, `*` or `?` is unquoted."""
    for name in ("ab", "axb", "xby"):
        (tmp_path / name).write_text("")
    globbed = _bash(f"printf '%s\\n' {source}", cwd=tmp_path)
    literal = _bash(f"set -f; printf '%s\\n' {source}", cwd=tmp_path)
    assert dequote(source, 0, len(source)).globbing is (globbed != literal)


# -- heredocs with an unquoted delimiter: backslash-newline is removed --------------------


@pytest.mark.parametrize(
    "body",
    ["one \\\ntwo\n", "x\\\n\\\ny\n", "plain\n", "tail\\\n"],
)
def test_unquoted_heredoc_body_joins_continuations_like_bash(body: str) -> None:
    """`read_value` is the body as bash stores it; with no `$`, backtick or other
    backslash, that is also what `cat` prints."""
    text = f"cat <<EOF\n{body}EOF\n"
    (heredoc,) = scan_heredocs(text)
    assert heredoc.read_value(text) == _bash(text).decode()
    quoted = f"cat <<'EOF'\n{body}EOF\n"
    (literal,) = scan_heredocs(quoted)
    assert literal.read_value(quoted) == body == _bash(quoted).decode()


def test_joined_line_can_be_the_terminator() -> None:
    """`E\\<newline>OF` joins to `EOF` before the terminator test: the heredoc ends there
    and the next line is a command again."""
    text = "cat <<EOF\nE\\\nOF\necho after\n"
    assert _bash(text) == b"after\n"
    (heredoc,) = scan_heredocs(text)
    assert heredoc.terminated
    assert heredoc.body_start == heredoc.body_end == len("cat <<EOF\n")
    assert text[heredoc.end :] == "\necho after\n"


def test_quoted_delimiter_keeps_the_backslash_line() -> None:
    text = "cat <<'EOF'\nE\\\nOF\nEOF\n"
    assert _bash(text) == b"E\\\nOF\n"
    (heredoc,) = scan_heredocs(text)
    assert heredoc.terminated and heredoc.read_value(text) == "E\\\nOF\n"


# -- lift: an edit that ends just before an escaped character -------------------------------


def _fake_ssh(directory: Path) -> dict[str, str]:
    """PATH with an `ssh` that runs the remote command in a local bash where pkill only
    prints its arguments: what the remote shell would have run."""
    ssh = directory / "ssh"
    ssh.write_text(
        '#!/bin/bash\nshift\nexec bash -c "pkill() { printf \'<%s>\' \\"\\$@\\"; echo; }; $*"\n'
    )
    ssh.chmod(ssh.stat().st_mode | stat.S_IXUSR)
    return {**os.environ, "PATH": f"{directory}{os.pathsep}{os.environ['PATH']}"}


def test_split_fix_ends_before_an_escaped_backslash(tmp_path: Path) -> None:
    """In `"pkill -f a\\\\\\\\b"` the pattern's first character is followed by an escaped
    backslash: the `[a]` edit must end at the escaping backslash, not inside the pair."""
    text = 'ssh h "pkill -f a\\\\\\\\b; echo y"\n'
    outcome = fix_shell(text, "t.sh", Settings(select=frozenset({"HL103"})), unsafe=True)
    assert outcome.text == "ssh h 'pkill -f \\[a]\\\\b'; ssh h \"echo y\"\n"
    env = _fake_ssh(tmp_path)
    # The remote pattern was `a\b` (regex: `a` then `\b`) and stays so, bracketed.
    assert _bash(text, env=env) == b"<-f><a\\b>\ny\n"
    assert _bash(outcome.text, env=env) == b"<-f><[a]\\b>\ny\n"
