"""The heredoc scanner, with bash as the oracle.

Each case states what the scanner must find; the same text is then parsed by bash
(inside a function definition that is never called, see test_oracle_bash.py), whose
`declare -f` listing must show the same bodies, and whose "delimited by end-of-file"
warnings must fall on the heredocs the scanner reports as unterminated (or ended by
`EOF)`).  Nothing here runs the texts.
"""

from __future__ import annotations

import random
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import rulekit as kit
from cli_process import run_cli
from test_oracle_bash import (
    HeredocQuery,
    bash_heredoc_bodies,
    eof_warning_lines,
    expected_body,
    function_listing,
    run_bash,
    warned_lines,
)

from heredoc_lint.engine import check_shell
from heredoc_lint.model import Severity
from heredoc_lint.shell.heredoc import Heredoc, mask_heredocs, scan_heredocs
from heredoc_lint.shell.syntax import parse_script


@dataclass(frozen=True)
class Case:
    text: str
    bodies: tuple[str, ...]  # what bash stores (`expected_body`), in source order
    delimiters: tuple[str, ...] = ()  # checked when given
    terminated: bool = True  # all of them
    bash_lists_it: bool = True  # declare -f can show the bodies (see `no_listing`)


CASES = {
    "strip tabs": Case("cat <<-EOF\n\t\tone\n\ttwo\n\t\tEOF\necho after\n", ("one\ntwo\n",)),
    "two on one line": Case("cat <<A <<B\na\nA\nb\nB\n", ("a\n", "b\n"), ("A", "B")),
    "rest of the line": Case("cat <<'EOF'; echo done\nbody\nEOF\n", ("body\n",)),
    "rest is a pipe": Case("cmd <<'EOF' 2>&1 | tee log\nx\nEOF\n", ("x\n",)),
    "single quoted": Case("cat <<'EOF'\n$x\nEOF\n", ("$x\n",), ("EOF",)),
    "double quoted": Case('cat <<"EOF"\n$x\nEOF\n', ("$x\n",), ("EOF",)),
    "backslash": Case("cat <<\\EOF\n$x\nEOF\n", ("$x\n",), ("EOF",)),
    "partly quoted": Case('cat <<E"O"F\n$x\nEOF\n', ("$x\n",), ("EOF",)),
    "ansi-c quoted": Case("cat <<$'E\\x4fF'\nx\nEOF\n", ("x\n",), ("EOF",)),
    "locale quoted": Case('cat <<$"EOF"\nx\nEOF\n', ("x\n",), ("EOF",)),
    "quoted blank": Case("cat <<'A B'\nx\nA B\n", ("x\n",), ("A B",)),
    "backtick delimiter": Case("cat <<`EOF`\nEOF\n`EOF`\n", ("EOF\n",), ("`EOF`",)),
    "substitution delimiter": Case("cat <<$(a b)\nx\n$(a b)\n", ("x\n",), ("$(a b)",)),
    "strip, spaced": Case("cat <<- 'EOF'\n\tx\n\tEOF\n", ("x\n",), ("EOF",)),
    "empty body": Case("cat <<EOF\nEOF\n", ("",)),
    "no final newline": Case("cat <<EOF\nbody\nEOF", ("body\n",)),
    "trailing blank is no terminator": Case("cat <<EOF\nEOF \nEOF\n", ("EOF \n",)),
    "inside $()": Case("x=$(cat <<EOF\nin\nEOF\n)\necho after\n", ("in\n",)),
    "inside $() in quotes": Case('x="$(cat <<EOF\nin\nEOF\n)"\n', ("in\n",)),
    "inside <()": Case("cat <(cat <<EOF\nbody\nEOF\n)\n", ("body\n",)),
    "EOF) closes": Case("x=$(cat <<EOF\nbody\nEOF)\necho after\n", ("body\n",)),
    "EOF) in a subshell": Case("x=$( (cat <<EOF\na\nEOF) )\n", ("a\n",)),
    "EOF and more )": Case("x=$(cat <<EOF\nb\nEOF echo )\n", ("b\n",)),
    "EOF) outside $()": Case("(cat <<EOF\nb\nEOF)\nEOF\n)\n", ("b\nEOF)\n",)),
    "$() closes first": Case("x=$(cat <<EOF)\nbody\nEOF\necho after\n", ("body\n",)),
    "backticks": Case("x=`cat <<EOF\nbody\nEOF`\necho after\n", ("body\n",)),
    "body line with backslash": Case("cat <<'EOF'\n\\n\n\\EOF\nEOF\n", ("\\n\n\\EOF\n",)),
    "unquoted: continuation": Case("cat <<EOF\na\\\nEOF\nEOF\n", ("aEOF\n",)),
    "unquoted: even backslashes": Case("cat <<EOF\na\\\\\nEOF\n", ("a\\\\\n",)),
    "quoted: no continuation": Case("cat <<'EOF'\na\\\nEOF\n", ("a\\\n",)),
    "strip after a continuation": Case("cat <<-EOF\n\ta\\\n\tb\n\tEOF\n", ("a\tb\n",)),
    "newline in quotes first": Case('cat <<EOF; echo "a\nb"\nbody\nEOF\n', ("body\n",)),
    "newline in $() first": Case("cat <<EOF; x=$(echo a\necho b)\nbody\nEOF\n", ("body\n",)),
    "case in $()": Case("x=$(case a in a) cat <<EOF;; esac\nbody )\nEOF\n)\n", ("body )\n",)),
    "dollar-quote in quotes": Case('cat <<EOF; echo "$\'"\nbody\nEOF\n', ("body\n",)),
    "comment with a quote": Case("cat <<EOF # it's\nbody\nEOF\n", ("body\n",)),
    "ansi-c string before": Case("echo $'it\\'s' <<EOF\nbody\nEOF\n", ("body\n",)),
    "descriptors": Case("cat 3<<EOF {fd}<<X\nbody\nEOF\nx\nX\n", ("body\n", "x\n")),
    "read order": Case("cat <<A; x=$(cat <<B\nbB\nB\n)\nbA\nA\n", ("bA\n", "bB\n")),
    "words after, listed first": Case("cat <<A $(cat <<B\nbB\nB\n)\nbA\nA\n", ("bA\n", "bB\n")),
    "heredoc text in a body": Case("cat <<'EOF'\ncat <<EOF2\nEOF\n", ("cat <<EOF2\n",)),
    "arithmetic over lines": Case("(( x = 1 <<\n 2 ))\ncat <<EOF\nb\nEOF\n", ("b\n",)),
    "CRLF": Case("cat <<EOF\r\nbody\r\nEOF\r\necho x\r\n", ("body\r\n",), ("EOF\r",)),
    "CRLF quoted": Case("cat <<'EOF'\r\nbody\r\nEOF\r\n", ("body\r\n",), ("EOF\r",)),
    "tab in the delimiter": Case('cat <<-"\tX"\n\tbody\n\tX\n', ("body\n",), ("\tX",)),
    "unterminated": Case("cat <<EOF\nbody\n", ("body\n",), terminated=False),
    "indented terminator": Case("cat <<EOF\n  EOF\n", ("  EOF\n",), terminated=False),
}


def _sorted(text: str) -> list[Heredoc]:
    return sorted(scan_heredocs(text), key=lambda h: h.op_start)


def _bash_warnings(text: str) -> set[int]:
    """bash's EOF warnings for `text`, parsed only (`set -n` comes first)."""
    _, _, err = run_bash("set -n\n" + text)
    return eof_warning_lines(err, first_line=2)


@pytest.mark.parametrize("name", list(CASES))
def test_scanner(name: str) -> None:
    case = CASES[name]
    heredocs = _sorted(case.text)
    assert [expected_body(h, case.text) for h in heredocs] == list(case.bodies)
    if case.delimiters:
        assert tuple(h.delimiter for h in heredocs) == case.delimiters
    assert all(h.terminated == case.terminated for h in heredocs)


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c.terminated])
def test_bash_agrees(name: str) -> None:
    case = CASES[name]
    heredocs = _sorted(case.text)
    listing, err = function_listing(case.text)
    assert listing is not None, err
    bodies = bash_heredoc_bodies(listing, [HeredocQuery.of(h, case.text) for h in heredocs])
    assert bodies == [expected_body(h, case.text) for h in heredocs]


@pytest.mark.parametrize("name", list(CASES))
def test_bash_warns_where_the_scanner_sees_no_terminator(name: str) -> None:
    text = CASES[name].text
    assert _bash_warnings(text) == warned_lines(scan_heredocs(text), text)


@pytest.mark.parametrize(
    "text",
    [
        "echo $((1<<2))\n",
        "((x<<=1))\n",
        "for ((i=1<<2; i<1; i++)); do :; done\n",
        "echo $[1<<2]\n",
        'echo "<<EOF"\n',
        "echo '<<EOF'\n",
        "# <<EOF\n",
        "echo x # <<EOF\n",
        "cat <<<EOF\n",
        'cat <<< "$x"\nEOF\n',
        "read -r a <<<$x\n",
        "echo ${x/<<EOF/}\n",
        "echo \\<<EOF\n",
        "echo $'<<EOF'\n",
        'echo "$(echo "<<EOF")"\n',
        "echo `echo '<<EOF'`\n",
    ],
)
def test_not_a_heredoc(text: str) -> None:
    assert scan_heredocs(text) == ()
    # A heredoc would be unterminated here, and bash would say so.
    assert _bash_warnings(text) == set()


def test_heredoc_in_a_delimiter_like_word_is_plain_text() -> None:
    (h,) = scan_heredocs("cat <<EOF\n<<X\nEOF\n")
    assert h.literal_value("cat <<EOF\n<<X\nEOF\n") == "<<X\n"


def test_backtick_closing_on_the_operator_line() -> None:
    # bash ends the substitution at the backtick: the heredoc is empty and unterminated,
    # `body` and `EOF` are commands.
    text = "x=`cat <<EOF`\nbody\nEOF\n"
    (h,) = scan_heredocs(text)
    assert (h.terminated, h.body_start, h.body_end) == (False, 12, 12)
    listing, _ = function_listing(text)
    assert listing is not None and "    body;\n" in listing


def test_body_offsets() -> None:
    text = "cat <<-EOF\n\tone\n\t\ttwo\n\tEOF\n"
    (h,) = scan_heredocs(text)
    assert h.body_lines(text) == [(12, "one\n"), (18, "two\n")]
    assert (h.op_start, h.op_end, h.body_start, h.body_end, h.end) == (4, 10, 11, 22, 26)
    assert text[h.body_end : h.end] == "\tEOF"


def test_eof_paren_offsets() -> None:
    text = "x=$(cat <<EOF\nbody\nEOF)\n"
    (h,) = scan_heredocs(text)
    assert text[h.body_start : h.body_end] == "body\n"
    assert text[h.body_end : h.end] == "EOF"
    assert text[h.end] == ")"


def test_read_order() -> None:
    text = "cat <<A; x=$(cat <<B\nbB\nB\n)\nbA\nA\n"
    assert [h.delimiter for h in scan_heredocs(text)] == ["B", "A"]


def test_mask_keeps_offsets_and_lines() -> None:
    text = "cat <<'EOF' 2>&1 | tee log\nbody 'quote\nEOF\necho done\n"
    masked = mask_heredocs(text, scan_heredocs(text))
    assert len(masked) == len(text)
    assert [i for i, c in enumerate(masked) if c == "\n"] == [
        i for i, c in enumerate(text) if c == "\n"
    ]
    assert masked.startswith("cat <______ 2>&1 | tee log\n")
    assert "quote" not in masked and "EOF" not in masked


def test_parse_script_keeps_the_rest_of_the_line() -> None:
    text = "cat <<'EOF' 2>&1 | tee log; echo done\nbody\nEOF\ncat <<A <<B\na\nA\nb\nB\n"
    script = parse_script(text)
    assert not script.errors
    assert [c.words[0].value for c in script.commands] == ["cat", "tee", "echo", "cat"]
    first = script.commands[0]
    assert [r.heredoc.delimiter for r in first.redirects if r.heredoc] == ["EOF"]
    last = script.commands[-1]
    assert [r.heredoc.delimiter for r in last.redirects if r.heredoc] == ["A", "B"]
    assert script.commands[0].redirects[0].heredoc.literal_value(text) == "body\n"  # type: ignore[union-attr]


# -- random scripts ----------------------------------------------------------------------

_DELIMITERS = {
    "EOF": "EOF",
    "'EOF'": "EOF",
    '"EOF"': "EOF",
    "\\EOF": "EOF",
    'E"O"F': "EOF",
    "A": "A",
    "'A B'": "A B",
    "$'E\\x4fF'": "EOF",
    "END": "END",
}
_BODY_LINES = ["x", "$y", "a\\", "\\b", "\t\tz", "`q`", "it's", '"', "<<EOF", ")", "\tx\\", "\\\\"]
_OTHER_COMMANDS = [
    "echo 'a\nb'",
    'echo "$(echo a\necho b)"',
    "echo $((1<<2)) <<<x",
    "x=$(cat <<Q\nq1\nQ\n)",
    'echo "<<N"',
    "echo `echo '<<R'`",
    "x=$(cat <<EOF\nin\nEOF)",
    "x=$(cat <<EOF\nin\nEOF )",
    "y=$(case a in a) cat <<P;; esac\np )\nP\n)",
    "(( z = 1 <<\n 2 ))",
    "w=`cat <<'W'\nw $x\nW`",
]


def _random_script(rng: random.Random) -> str:
    """Lines of commands with heredoc operators, then bodies with near-miss lines."""
    out = []
    for _ in range(rng.randrange(1, 5)):
        pending: list[tuple[str, bool]] = []
        commands = []
        for _ in range(rng.randrange(1, 4)):
            if rng.randrange(5) < 2:
                written = rng.choice(list(_DELIMITERS))
                strip = rng.randrange(3) == 0
                pending.append((_DELIMITERS[written], strip))
                commands.append(f"cat <<{'-' if strip else ''}{rng.choice(['', ' '])}{written}")
            else:
                commands.append(rng.choice(_OTHER_COMMANDS))
        line = rng.choice(["; ", " | ", " && "]).join(commands)
        out.append(line + (" # <<M 'x" if rng.randrange(5) == 0 else ""))
        for delimiter, strip in pending:
            near = [delimiter + " ", " " + delimiter, delimiter + "x"]
            out.extend(rng.choice(_BODY_LINES + near) for _ in range(rng.randrange(4)))
            out.append(("\t" if strip and rng.randrange(2) else "") + delimiter)
    return "\n".join(out) + "\n"


def test_random_scripts_agree_with_bash() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(400):
        text = _random_script(rng)
        listing, err = function_listing(text)
        if listing is None:
            continue  # the generator can write what bash rejects (`)` alone on a line)
        checked += 1
        heredocs = _sorted(text)
        bodies = bash_heredoc_bodies(listing, [HeredocQuery.of(h, text) for h in heredocs])
        assert bodies == [expected_body(h, text) for h in heredocs], text
        assert eof_warning_lines(err) == warned_lines(heredocs, text), text
    assert checked > 300


# -- shell/heredoc.py ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "last", ["echo 'a'", 'echo "a"', "echo a\\\\", "echo $'a'", "echo `echo a`"]
)
def test_heredoc_scan_starts_at_the_first_character(last: str) -> None:
    """A script that ends in a quote (a remote string: no newline at its end) still has
    its heredoc: bash reads the body, and so does the scanner."""
    text = f"cat <<EOF\nx\nEOF\n{last}"
    done = subprocess.run(["bash", "-c", text], capture_output=True, text=True, check=False)
    assert done.stdout.startswith("x\n"), done
    (heredoc,) = scan_heredocs(text)
    assert (heredoc.op_start, heredoc.delimiter, heredoc.terminated) == (4, "EOF", True)
    assert text[heredoc.body_start : heredoc.body_end] == "x\n"
    # The same script as an ssh string: double quotes, `\\ $ " ` escaped for them.
    escaped = "".join("\\" + c if c in '\\$"`' else c for c in text)
    ssh = f'ssh h "{escaped}"\n'
    (found,) = [f for f in check_shell(ssh, "t.sh") if f.code == "HL101"]
    assert ssh[found.start : found.end] == "<<"


@pytest.mark.parametrize(
    "before",
    [
        "echo $'it\\'s'",  # an ANSI-C string: `\'` does not close it
        "echo $'a\\n'",  # an escape right before the closing quote
        "echo \"a\"'b'",  # a single-quoted part right after a double-quoted one
        "cat <<<'a'",  # a here-string is no heredoc, and its word is quoted
        "echo \"$'x'\"",  # `$'` inside double quotes is a `$` and a plain quote
    ],
)
def test_heredoc_after_quoted_words_is_found(before: str) -> None:
    """The scanner reads the quoting before a heredoc as bash does: bash runs the line,
    then reads the body; the scanner finds the same heredoc and body."""
    text = f"{before}; cat <<EOF\nbody\nEOF\n"
    done = subprocess.run(["bash", "-c", text], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.endswith("body\n"), done
    (heredoc,) = scan_heredocs(text)
    assert text[heredoc.op_start : heredoc.op_end] == "<<EOF"
    assert text[heredoc.body_start : heredoc.body_end] == "body\n"
    assert heredoc.terminated


# -- shell/heredoc.py: deep nesting ----------------------------------------------------------


def _nested(depth: int) -> str:
    return "echo " + "$(echo " * depth + "x" + ")" * depth + "\n"


_AFTER = 'ssh h "pkill -f hlmutf; echo after"\n'


def test_a_heredoc_beside_deep_substitutions_is_scanned(tmp_path: Path) -> None:
    """300 nested `$(`, bash runs them (prints `hi`, then `x`); the heredoc scanner follows
    each level, and the script is checked: HL103 at the `pkill` after it (a fix: it
    was an internal error, RecursionError, at the default recursion limit)."""
    head = "cat <<EOF\nhi\nEOF\n" + _nested(300)
    script = tmp_path / "deep.sh"
    script.write_text(head)
    ran = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=60)
    assert (ran.returncode, ran.stdout) == (0, "hi\nx\n")
    text = head + _AFTER
    at = text.index("pkill")
    (f,) = kit.findings(text, "HL103")
    assert (f.start, f.end, f.severity) == (at, at + len("pkill"), Severity.ERROR)
    script.write_text(text)
    done = run_cli("check", "--no-cache", "deep.sh", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.startswith("deep.sh:5:8: HL103 [error] ")


def test_a_script_without_heredocs_is_not_scanned_for_them() -> None:
    """No `<<`, no heredoc: the scanner is not run, at any depth of nesting (6,000
    `$(` here, deeper than bash's own stack: it dies with SIGSEGV), and the rest of
    the script is still checked (heredoc `scan_heredocs`' early return)."""
    text = _nested(6000) + _AFTER
    at = text.index("pkill")
    (f,) = kit.findings(text, "HL103")
    assert (f.start, f.end) == (at, at + len("pkill"))


# -- shell/words.py: a backslash that ends a word stays, and the reading moves past it -----


def test_a_delimiter_ending_in_a_lone_backslash_is_read(tmp_path: Path) -> None:
    """`bash -c 'cat <<E\\'`: in the string, the delimiter word ends with a backslash that
    escapes nothing; bash keeps it (its warning wants `E\\`), and the heredoc is never
    terminated: HL112 names `E\\`.  The CLI answers within its time.  (Run 7: the reader
    stayed on that backslash and never returned.)"""
    script = tmp_path / "t.sh"
    script.write_text("bash -c 'cat <<E\\'\n")
    ran = subprocess.run(
        ["bash", str(script)], capture_output=True, text=True, check=False, timeout=30
    )
    assert "delimited by end-of-file (wanted `E\\')" in ran.stderr
    done = run_cli("--no-cache", "--severity", "info", script, timeout=30)
    assert done.returncode == 1, done.stderr  # findings shown: 1, whatever their severity
    assert f"{script}:1:14: HL112 [info] The heredoc `<<E\\` is never terminated" in done.stdout
    assert "no line is exactly `E\\`" in done.stdout


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
    assert heredoc.read_value(text) == kit.bash_stdout(text).decode()
    quoted = f"cat <<'EOF'\n{body}EOF\n"
    (literal,) = scan_heredocs(quoted)
    assert literal.read_value(quoted) == body == kit.bash_stdout(quoted).decode()


def test_joined_line_can_be_the_terminator() -> None:
    """`E\\<newline>OF` joins to `EOF` before the terminator test: the heredoc ends there
    and the next line is a command again."""
    text = "cat <<EOF\nE\\\nOF\necho after\n"
    assert kit.bash_stdout(text) == b"after\n"
    (heredoc,) = scan_heredocs(text)
    assert heredoc.terminated
    assert heredoc.body_start == heredoc.body_end == len("cat <<EOF\n")
    assert text[heredoc.end :] == "\necho after\n"


def test_quoted_delimiter_keeps_the_backslash_line() -> None:
    text = "cat <<'EOF'\nE\\\nOF\nEOF\n"
    assert kit.bash_stdout(text) == b"E\\\nOF\n"
    (heredoc,) = scan_heredocs(text)
    assert heredoc.terminated and heredoc.read_value(text) == "E\\\nOF\n"
