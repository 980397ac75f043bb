"""Text the parser and the de-quoter could not take must not crash the process.

A wide character after `{`:

tree-sitter-bash 0.25.1 hands the character after `{`, `{12` and `{1..2` to C's isdigit(),
whose table stops at 255; U+5353B or U+100000 there read unmapped memory and the whole
process died with SIGSEGV (CI, tests/test_fuzz.py). `syntax.parse_script` hands such a
character to the parser as ASCII bytes of the same length. These tests run the CLI in a
child process, so a crash is an exit status, not a lost test run.
"""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path

import pytest
from cli_process import CLI

from heredoc_lint.shell.syntax import parse_script

WIDE = ["\U0005353b", "\U00100000", "\u0100", "\uffff", "é"]


def _run(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "--no-cache", "--format", "json", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("char", WIDE)
def test_wide_character_after_brace_is_linted_not_fatal(tmp_path: Path, char: str) -> None:
    script = tmp_path / "s.sh"
    script.write_text(
        f"echo {{{char}\nx={{12{char}}}\ny={{1..2{char}}}\n"
        f'ssh host "pkill -f {{{char}app; echo hi"\n',
        encoding="utf-8",
    )
    done = _run(script)
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)
    assert [(f["code"], f["line"]) for f in findings] == [("HL103", 4)]
    # The message quotes the file's own character, not the bytes the parser was given.
    assert char in findings[0]["message"]


def test_words_keep_their_characters_and_offsets() -> None:
    text = "echo {\U00100000} b\ncat <<E{\u0101\nbody\nE{\u0101\necho after\n"
    script = parse_script(text)
    heads = [text[c.start : c.end] for c in script.commands]
    # The parser's heredoc still ends at its delimiter (else `echo after` were body): the
    # guard maps a character the same way wherever it stands.
    assert heads == ["echo {\U00100000} b", "cat", "echo after"]


def test_lone_surrogate_in_an_agent_command_is_checked_not_allowed_unchecked() -> None:
    # json.loads makes "\ud800" a lone surrogate, which no file decoding ever does; in
    # `$'...'` it once raised UnicodeEncodeError and the hook let the command through.
    # The heredoc (never terminated: info) sits in an ssh string whose pkill kills its shell.
    command = "ssh h \"pkill -f x; cat <<$'\ud800'\nx\n\""
    event = {"tool_name": "Bash", "tool_input": {"command": command}}
    done = subprocess.run(
        [*CLI, "hook", "claude"],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "internal error" not in done.stderr
    decision = json.loads(done.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "HL103" in decision["permissionDecisionReason"]


def test_lone_surrogates_reach_bash_and_the_fixes_without_error() -> None:
    from heredoc_lint.engine import fix_kind
    from heredoc_lint.shell.bash import bash_accepts

    assert bash_accepts("echo \ud800 ok\n") is True
    assert bash_accepts("echo \ud800 'unclosed\n") is False
    # The base64 fix encodes the body: the surrogate goes as the three bytes Python
    # writes for it, the escaped byte U+DCE9 as the byte 0xE9 it stands for.
    text = "ssh h \"cat > f <<'EOF'\n\ud800 \udce9\nEOF\n\"\n"
    outcome = fix_kind(text, "shell", unsafe=True)
    assert outcome.error is None and outcome.fixed == 1
    assert base64.b64encode(b"\xed\xa0\x80 \xe9\n").decode() in outcome.text


def test_a_parse_error_at_the_end_of_a_remote_command_is_not_read_past_it() -> None:
    from heredoc_lint.engine import check_text

    # tree-sitter's error for the unclosed backquote is one character past the text's
    # end (an empty error gets a width of one): HL106 read that character.  The error is
    # reported at the text's last character, bash's "unexpected EOF" (`$<` is a plain `$`
    # and an input redirection, no error of its own).
    text = "ssh h f $<}h`6"  # minimised from a fuzz run
    bash = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True)
    assert "unexpected EOF while looking for matching ``'" in bash.stderr
    findings = check_text(text, "shell")
    assert {(f.code, f.start) for f in findings if f.code == "HL001"} == {("HL001", len(text) - 1)}
