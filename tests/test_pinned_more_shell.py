"""More pinned behaviours of `lift` (edits.py) and of the shell reader, checked against bash.

Each test kills a mutant that survived `bench/mutation.py` (issue 20, bench/MUTATION.md,
run 3): the fixed text is compared exactly, and what the remote shell runs is checked by
running it (a fake `ssh` that hands the remote command to a local bash whose `pkill`
only prints its arguments, or the real loopback sshd of tests/sshd.py).
"""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
from pathlib import Path

import pytest
from sshd import SshServer, run_local

from heredoc_lint.engine import Settings, check_shell, fix_shell
from heredoc_lint.shell.syntax import parse_script
from heredoc_lint.shell.words import Word, dequote

HL102 = Settings(select=frozenset({"HL102"}))
HL103 = Settings(select=frozenset({"HL103"}))


def _fixed(text: str, settings: Settings) -> str:
    outcome = fix_shell(text, "t.sh", settings, unsafe=True)
    assert outcome.error is None, outcome.error
    return outcome.text


def _remote_pkill(script: str, directory: Path) -> bytes:
    """What the remote shell passes to `pkill`: `script` run by bash with an `ssh` that
    runs its remote command in a local bash where pkill prints `<arg>` per argument."""
    bindir = directory / "bin"
    bindir.mkdir(exist_ok=True)
    ssh = bindir / "ssh"
    ssh.write_text(
        '#!/bin/bash\nshift\nexec bash -c "pkill() { printf \'<%s>\' \\"\\$@\\"; echo; }; $*"\n'
    )
    ssh.chmod(ssh.stat().st_mode | stat.S_IXUSR)
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# -- lift: an edit whose end lies in a $'...' part of the same word ------------------------


def test_fix_ending_in_an_ansi_string_reopens_it_with_dollar(tmp_path: Path) -> None:
    """`'pkill -f x'$'\\x41; echo y'`: the `[x]` edit starts in the single-quoted part and
    ends at the `$'...'` part; the text after the edit must still be read as `$'...'`
    (`\\x41` is `A`), so the edit reopens it with `$'`, not a plain `'`."""
    text = "ssh h 'pkill -f x'$'\\x41; echo y'\n"
    fixed = _fixed(text, HL103)
    assert fixed == "ssh h 'pkill -f \\[x]'$'\\x41; echo y'\n"
    assert _remote_pkill(text, tmp_path) == b"<-f><xA>\ny\n"
    assert _remote_pkill(fixed, tmp_path) == b"<-f><[x]A>\ny\n"


def test_fix_ending_in_an_ansi_string_from_double_quotes(tmp_path: Path) -> None:
    text = "ssh h \"pkill -f x\"$'\\x41; echo y'\n"
    fixed = _fixed(text, HL103)
    assert fixed == "ssh h \"pkill -f '[x]'\"$'\\x41; echo y'\n"
    assert _remote_pkill(fixed, tmp_path) == b"<-f><[x]A>\ny\n"


# -- lift: an edit that starts at the first character of an ssh word -----------------------


def test_fix_at_the_first_character_of_an_ssh_word(tmp_path: Path) -> None:
    """`ssh h pkill -f sglang\\; echo y`: the pattern is a word of its own; the `[s]` edit
    starts exactly where that word starts and must still be lifted into it."""
    text = "ssh h pkill -f sglang\\; echo y\n"
    fixed = _fixed(text, HL103)
    assert fixed == "ssh h pkill -f '\\[s]'glang\\; echo y\n"
    assert _remote_pkill(text, tmp_path) == b"<-f><sglang>\ny\n"
    assert _remote_pkill(fixed, tmp_path) == b"<-f><[s]glang>\ny\n"


def test_hl102_fix_of_a_whole_ssh_word(sshd: SshServer) -> None:
    """`$x` is a word of its own among the ssh words: the fix quotes exactly that word,
    and the remote shell then prints the value the same string assigned."""
    text = "ssh h echo go\\; x=1\\; echo $x\n"
    fixed = _fixed(text, HL102)
    assert fixed == "ssh h echo go\\; x=1\\; echo '$x'\n"
    before = run_local(text, sshd)
    after = run_local(fixed, sshd)
    assert before.returncode == after.returncode == 0, (before.stderr, after.stderr)
    assert before.stdout == "go\n\n"
    assert after.stdout == "go\n1\n"


@pytest.mark.parametrize("word", ["'x'", '"x"', "x"])
def test_fix_in_a_word_after_the_ssh_words_stays_in_its_word(word: str, tmp_path: Path) -> None:
    """A pattern word after a `;`-joined word: the edit lands inside that later word."""
    text = f"ssh h pkill -f a{word}\\; echo y\n"
    fixed = _fixed(text, HL103)
    assert fixed != text
    assert _remote_pkill(fixed, tmp_path) == b"<-f><[a]x>\ny\n"


# -- the bytes a text stands for: undecodable bytes and lone surrogates --------------------


def test_base64_fix_delivers_undecodable_bytes_and_lone_surrogates(
    sshd: SshServer, tmp_path: Path
) -> None:
    """A body read from a non-UTF-8 file holds U+DCFF for the byte 0xff; a JSON command
    may hold a lone U+D800, which Python writes as the three bytes ED A0 80.  The base64
    fix encodes exactly those bytes, and the remote file receives them."""
    target = tmp_path / "out"
    text = f"ssh h \"cat > {target} <<'EOF'\n\udcff\ud800x\nEOF\"\n"
    fixed = _fixed(text, Settings(fix_strategy="base64"))
    assert fixed == f'ssh h "printf %s /+2ggHgK | base64 -d > {target}"\n'
    proc = run_local(fixed, sshd)
    assert proc.returncode == 0, proc.stderr
    assert target.read_bytes() == b"\xff\xed\xa0\x80x\n"


# -- dequote without parser nodes: the expansions it finds are the ones bash runs ----------


def _bash_value(word_source: str) -> bytes:
    proc = subprocess.run(
        ["bash", "-c", f"a=A; set -- p1 p2 p3; printf '<%s>' {word_source}"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize(
    "source",
    [
        "x$(echo a)y",
        "x$(echo $(echo b)c)y",
        "x$(echo \\))y",
        '"x$(echo a)"y',
        "x${a}y",
        "x${a:-(b)}y",
        "x$((1+(2*3)))y",
        "x$[1+(2)]y",
        "x`echo a`y",
        "x`echo \\`echo a\\``y",
        '"x`echo a`"y',
    ],
)
def test_fallback_expansion_spans_are_what_bash_expands(source: str) -> None:
    """Without parser nodes `dequote` finds each expansion itself.  Re-assembling the word
    from its literal characters (single-quoted) and each expansion's exact source text
    (double-quoted) must make bash print what the word itself prints."""
    _assert_reassembles(source, dequote(source, 0, len(source)))


def _assert_reassembles(source: str, word: Word) -> None:
    assert word.expansions
    parts: list[str] = []
    k = 0
    for e in word.expansions:
        parts.append(shlex.quote(word.value[k : e.start]))
        a, b = word.offsets[e.start], word.offsets[e.end - 1] + 1
        assert source[a:b] == word.value[e.start : e.end]
        parts.append(f'"{source[a:b]}"')
        if source[a:b] in (f"${e.name}", f"${{{e.name}}}"):
            # The name is the one bash reads: `${NAME}` gives the same value.
            assert _bash_value(f'"${{{e.name}}}"') == _bash_value(f'"{source[a:b]}"')
        k = e.end
    parts.append(shlex.quote(word.value[k:]))
    assert _bash_value("".join(parts)) == _bash_value(source[word.start : word.end])


@pytest.mark.parametrize("source", ["x$10y", "$1y", "${10}", '"$12"', "$0$1", "${a}$2$a"])
def test_parsed_expansion_spans_are_what_bash_expands(source: str) -> None:
    """The same through the parser: `$10` is `$1` and a `0` (bash takes one digit)."""
    (command,) = parse_script(f"echo {source}\n").commands
    _assert_reassembles(f"echo {source}\n", command.words[1])


@pytest.mark.parametrize("after", ["", "$", '"', "\\"])
def test_dequote_reads_nothing_past_the_end_of_its_word(after: str) -> None:
    """A word cut inside double quotes right after a backslash (an unfinished line in an
    editor): the backslash stays, and the character after the word is never read."""
    text = '"a\\' + after
    word = dequote(text, 0, 3)
    assert (word.value, word.offsets) == ("a\\", (1, 2, 3))


@pytest.mark.parametrize(
    ("source", "prefix"),
    [
        ("~root~x", "~root~x"),  # one login name `root~x`: no such user, kept
        ("~root=~x", "~root"),  # the login name ends at `=~`
        ("~root:x", "~root"),
        ("~root/x", "~root"),
        ("~nosuchuser/x", "~nosuchuser"),
    ],
)
def test_tilde_prefix_ends_where_bash_ends_the_login_name(source: str, prefix: str) -> None:
    """The tilde expansion dequote finds, expanded by bash on its own and followed by the
    rest of the word, is what bash makes of the whole word."""
    word = dequote(source, 0, len(source))
    (tilde,) = word.expansions
    assert (tilde.kind, tilde.start) == ("tilde", 0)
    found = source[: word.offsets[tilde.end - 1] + 1]
    assert found == prefix
    rest = source[len(found) :].encode()
    assert _bash_value(source) == b"<" + _bash_value(found)[1:-1] + rest + b">"


# -- parse_script: a redirection after `a && b` belongs to `b` -----------------------------


@pytest.mark.parametrize(
    ("script", "writer"),
    [
        ("echo a && echo b > f", "echo b"),
        ("false || echo b > f", "echo b"),
        ("echo a && echo b && echo c > f", "echo c"),
        ("echo a; echo b > f", "echo b"),
    ],
)
def test_redirect_after_a_list_belongs_to_its_last_command(
    script: str, writer: str, tmp_path: Path
) -> None:
    """tree-sitter-bash hangs `> f` on the whole `a && b`; bash gives it to the last
    command only, which is the one `Command.redirects` must show it on."""
    (tmp_path / "f").unlink(missing_ok=True)
    proc = subprocess.run(
        ["bash", "-c", script], capture_output=True, cwd=tmp_path, timeout=30, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "f").read_text() == writer.split()[-1] + "\n"  # only its output
    redirected = [
        script[c.start : c.end]
        for c in parse_script(script).commands
        if any(r.op == ">" and r.target is not None and r.target.value == "f" for r in c.redirects)
    ]
    assert redirected == [writer]


def test_base64_fix_after_a_list_writes_the_file(sshd: SshServer, tmp_path: Path) -> None:
    """`mkdir -p D && cat > D/f << 'EOF'`: the heredoc is `cat`'s, so the base64 fix
    replaces `cat`, and the remote file gets the body."""
    target = tmp_path / "d" / "f"
    text = f"ssh h \"mkdir -p {target.parent} && cat > {target} << 'EOF'\nbody\nEOF\necho post\"\n"
    fixed = _fixed(text, Settings(fix_strategy="base64"))
    assert fixed == (
        f'ssh h "mkdir -p {target.parent} && printf %s Ym9keQo= | base64 -d > {target}\n'
        'echo post"\n'
    )
    for script in (text, fixed):
        target.unlink(missing_ok=True)
        proc = run_local(script, sshd)
        assert (proc.returncode, proc.stdout) == (0, "post\n"), proc.stderr
        assert target.read_bytes() == b"body\n"


def test_hl102_names_the_array_of_a_subscript(sshd: SshServer) -> None:
    """`${ids[1]}` reads the array `ids` that the same string assigns: the finding names
    `ids`, and its fix makes the remote shell print the element."""
    text = 'ssh h "ids=(v w); echo ${ids[1]}"\n'
    (finding,) = check_shell(text, "t.sh", HL102)
    assert (finding.start, finding.end) == (23, 32)
    assert "binding of `ids` in the same string" in finding.message
    fixed = _fixed(text, HL102)
    assert fixed == 'ssh h "ids=(v w); echo \\${ids[1]}"\n'
    assert run_local(text, sshd).stdout == "\n"
    assert run_local(fixed, sshd).stdout == "w\n"
