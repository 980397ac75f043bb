"""edits.py: a fix's edit lifted from an inner layer to the file's own text (`lift`), checked
by the exact fixed text and by what the fixed command does."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
from rulekit import (
    bash_at_home,
    bash_stdout,
    delivered_bytes,
    fixed_without_error,
    run_with_pkill_printing_ssh,
)
from sshd import SshServer, run_local

from heredoc_lint.engine import check_shell, fix_shell
from heredoc_lint.run.settings import Settings

# -- a fix appended at the end of a remote string ------------------------------------------


def _fixed(text: str) -> str:
    outcome = fix_shell(text, "t.sh", unsafe=True)
    assert outcome.error is None, outcome.error
    return outcome.text


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        (
            "ssh h 'sudo echo hi > {t} 2>/dev/null'\n",
            "ssh h 'echo hi 2>/dev/null | sudo tee {t} > /dev/null'\n",
        ),
        (
            'ssh h "sudo echo hi > {t} 2>/dev/null"\n',
            'ssh h "echo hi 2>/dev/null | sudo tee {t} > /dev/null"\n',
        ),
        # Two layers: the append at the end of the `bash -c` string becomes an insertion
        # before its closing `'` in the ssh string, then in the file.
        (
            "ssh h \"bash -c 'sudo echo hi > {t} 2>/dev/null'\"\n",
            "ssh h \"bash -c 'echo hi 2>/dev/null | sudo tee {t} > /dev/null'\"\n",
        ),
    ],
)
def test_append_at_the_end_of_a_remote_string(
    template: str, expected: str, sshd: SshServer, system_dir: Path
) -> None:
    target = system_dir / "motd"  # this test is about the fix's edit: HL109 must report it
    text = template.format(t=target)
    codes = [f.code for f in check_shell(text, "t.sh")]
    assert "HL109" in codes
    fixed = _fixed(text)
    assert fixed == expected.format(t=target)
    assert "HL109" not in [f.code for f in check_shell(fixed, "t.sh")]
    # Both write `hi` through the real sshd (the remote user is root: sudo needs no
    # password).
    for script in (text, fixed):
        target.unlink(missing_ok=True)
        proc = run_local(script, sshd)
        assert proc.returncode == 0, proc.stderr
        assert target.read_bytes() == b"hi\n"


# -- edits.py: many edits lifted through one long word -----------------------------------


def test_many_heredocs_in_one_ssh_string_are_each_fixed_in_place() -> None:
    """200 `ssh b <<EOF` in one double-quoted ssh string: each HL107 fix (quote the
    delimiter) is lifted through the same long word to its own `EOF`.  (That the lexer
    states of the word are computed once, not per edit, is a matter of time: measured by
    bench/bench_shapes.py's "unquoted heredocs to ssh in one ssh string", not here.)"""
    n = 200
    text = 'ssh a "' + "".join(f"ssh b <<EOF\necho \\$USER{i}\nEOF\n" for i in range(n)) + '"\n'
    findings = [f for f in check_shell(text, "t.sh") if f.code == "HL107"]
    assert len(findings) == n
    operators = [m.start() for m in re.finditer("<<EOF", text)]
    for finding, at in zip(findings, operators, strict=True):
        assert finding.fix is not None
        (edit,) = finding.fix.edits
        # The delimiter quoted in place: `'EOF'` reads the same inside the double quotes.
        assert (edit.start, edit.end, edit.content) == (at + 2, at + 5, "'EOF'")


# -- edits.py: an edit inside an unquoted heredoc body sent to ssh ---------------------------


def test_fix_inside_an_unquoted_remote_heredoc_body(sshd: SshServer, system_dir: Path) -> None:
    """`ssh h bash <<EOF` with `sudo echo hi > F` in the body: the body is expanded
    locally, but the HL109 fix writes no `$`, backtick or backslash and touches no
    expansion, so it is lifted into the body as it is; both scripts write `hi`."""
    target = system_dir / "motd"
    text = f"ssh h bash <<EOF\nsudo echo hi > {target} 2>/dev/null\nEOF\n"
    (finding,) = [f for f in check_shell(text, "t.sh") if f.code == "HL109"]
    assert finding.fix is not None
    outcome = fix_shell(text, "t.sh", unsafe=True)
    assert outcome.error is None
    assert (
        outcome.text
        == f"ssh h bash <<EOF\necho hi 2>/dev/null | sudo tee {target} > /dev/null\nEOF\n"
    )
    for script in (text, outcome.text):
        assert delivered_bytes(script, sshd, (target,)) == [b"hi\n"]


# -- edits.py: an edit that runs to the end of a string ending in an escape -----------------


@pytest.mark.parametrize("escape", ["\\x41", "\\101"])
def test_fix_through_an_ansi_string_ending_in_an_escape(
    sshd: SshServer, system_dir: Path, escape: str
) -> None:
    """`ssh h $'sudo echo hi > DIR/\\x41'`: the target's last character `A` is written as
    an escape of several characters.  HL109's fix replaces the redirection up to the end
    of the remote string: its file edit must take the whole escape (up to the closing
    quote), or the escape's tail stays behind the new text.  Both scripts write `hi`."""
    home = system_dir
    target = home / "A"
    text = f"ssh h $'sudo echo hi > {home}/{escape}'\n"
    outcome = fix_shell(text, "t.sh", unsafe=True)
    assert outcome.error is None
    assert outcome.text == f"ssh h $'echo hi | sudo tee {target} > /dev/null'\n"
    for script in (text, outcome.text):
        assert delivered_bytes(script, sshd, (target,)) == [b"hi\n"]


# -- edits.py: an escaped quote in an unquoted word ------------------------------------------


def test_bracket_fix_after_an_escaped_quote_in_an_unquoted_word(tmp_path: Path) -> None:
    """`ssh h pkill -f \\'sglang\\'\\; ./restart`: the parent word is unquoted, `\\'` is an
    escaped quote, not an opening one, so the `[s]` the fix writes there is quoted for an
    unquoted word (`'[s]'`).  Bash shows why: in a directory holding a file named
    `'sglang';`, a bare `[s]` makes the word a glob that turns back into `'sglang';`, the
    self-matching pattern; the fixed line still sends `'[s]glang'`."""
    text = "ssh h pkill -f \\'sglang\\'\\; ./restart\n"
    outcome = fix_shell(text, "t.sh", Settings(), unsafe=True)
    assert outcome.text == "ssh h pkill -f \\''[s]'glang\\'\\; ./restart\n"
    (tmp_path / "'sglang';").write_text("")
    show = "ssh() { shift; printf '%s\\n' \"$*\"; }\n"
    assert bash_at_home(show + text, tmp_path).stdout == "pkill -f 'sglang'; ./restart\n"
    assert bash_at_home(show + outcome.text, tmp_path).stdout == "pkill -f '[s]glang'; ./restart\n"
    bare = outcome.text.replace("'[s]'", "[s]")
    assert bash_at_home(show + bare, tmp_path).stdout == "pkill -f 'sglang'; ./restart\n"


# -- lift: an edit whose end lies in a $'...' part of the same word ------------------------


HL103 = Settings(select=frozenset({"HL103"}))


def _remote_pkill(script: str, directory: Path) -> bytes:
    """What the remote shell passes to `pkill` when bash runs `script`."""
    proc = run_with_pkill_printing_ssh(script, directory)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_fix_ending_in_an_ansi_string_reopens_it_with_dollar(tmp_path: Path) -> None:
    """`'pkill -f x'$'\\x41; echo y'`: the `[x]` edit starts in the single-quoted part and
    ends at the `$'...'` part; the text after the edit must still be read as `$'...'`
    (`\\x41` is `A`), so the edit reopens it with `$'`, not a plain `'`."""
    text = "ssh h 'pkill -f x'$'\\x41; echo y'\n"
    fixed = fixed_without_error(text, HL103, unsafe=True)
    assert fixed == "ssh h 'pkill -f \\[x]'$'\\x41; echo y'\n"
    assert _remote_pkill(text, tmp_path) == b"<-f><xA>\ny\n"
    assert _remote_pkill(fixed, tmp_path) == b"<-f><[x]A>\ny\n"


def test_fix_ending_in_an_ansi_string_from_double_quotes(tmp_path: Path) -> None:
    text = "ssh h \"pkill -f x\"$'\\x41; echo y'\n"
    fixed = fixed_without_error(text, HL103, unsafe=True)
    assert fixed == "ssh h \"pkill -f '[x]'\"$'\\x41; echo y'\n"
    assert _remote_pkill(fixed, tmp_path) == b"<-f><[x]A>\ny\n"


# -- lift: an edit that starts at the first character of an ssh word -----------------------


def test_fix_at_the_first_character_of_an_ssh_word(tmp_path: Path) -> None:
    """`ssh h pkill -f sglang\\; echo y`: the pattern is a word of its own; the `[s]` edit
    starts exactly where that word starts and must still be lifted into it."""
    text = "ssh h pkill -f sglang\\; echo y\n"
    fixed = fixed_without_error(text, HL103, unsafe=True)
    assert fixed == "ssh h pkill -f '\\[s]'glang\\; echo y\n"
    assert _remote_pkill(text, tmp_path) == b"<-f><sglang>\ny\n"
    assert _remote_pkill(fixed, tmp_path) == b"<-f><[s]glang>\ny\n"


@pytest.mark.parametrize("word", ["'x'", '"x"', "x"])
def test_fix_in_a_word_after_the_ssh_words_stays_in_its_word(word: str, tmp_path: Path) -> None:
    """A pattern word after a `;`-joined word: the edit lands inside that later word."""
    text = f"ssh h pkill -f a{word}\\; echo y\n"
    fixed = fixed_without_error(text, HL103, unsafe=True)
    assert fixed != text
    assert _remote_pkill(fixed, tmp_path) == b"<-f><[a]x>\ny\n"


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
    assert bash_stdout(text, env=env) == b"<-f><a\\b>\ny\n"
    assert bash_stdout(outcome.text, env=env) == b"<-f><[a]\\b>\ny\n"
