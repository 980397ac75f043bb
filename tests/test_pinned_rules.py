"""Pinned behaviours of the rules: exact spans and counts through `engine.check_shell`.

Each test kills a bug that once survived the suite (issue 20, bench/MUTATION.md).  The
inputs are chosen so that the expected result does not depend on severities that the
precision work may move (only error cases, or only the span and count are pinned).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_process import run_cli

from heredoc_lint.engine import check_shell
from heredoc_lint.model import Finding, Severity


def _found(text: str, code: str) -> list[Finding]:
    return [f for f in check_shell(text, "t.sh") if f.code == code]


def _span(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return at, at + len(needle)


# -- HL102: an expansion is reported once, by the shell that performs it ------------------


@pytest.mark.parametrize(
    "text",
    [
        'ssh h "bash -c \\"echo $x\\""\n',
        'bash -c "ssh h \\"echo $x\\""\n',
        'ssh h "ssh g \\"cat > f << \'EOF\'\n$x\nEOF\\""\n',
    ],
)
def test_hl102_nested_expansion_reported_once_at_depth_1(text: str) -> None:
    """The local shell expands `$x` before any inner shell sees it: the inner layers
    receive its value, not `$x`, and must not report it again."""
    found = _found(text, "HL102")
    assert [(f.start, f.end, f.depth) for f in found] == [(*_span(text, "$x"), 1)]
    assert "local shell" in found[0].message


def test_hl102_in_quoted_heredoc_of_ssh_string_is_error() -> None:
    text = "ssh h \"cat > f << 'EOF'\nport $1\nEOF\"\n"
    (f,) = _found(text, "HL102")
    assert (f.start, f.end, f.severity) == (*_span(text, "$1"), Severity.ERROR)


# -- HL103: pkill's options, the attached argument included ------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "pkill -f -uroot myserver",
        "pkill -f -u root myserver",
        "pkill -uroot -f myserver",
        "pkill -fuuser myserver",
        "pkill --uid=0 -f myserver",
        "pkill --uid 0 -f myserver",
    ],
)
def test_hl103_option_arguments_do_not_hide_the_pattern(command: str) -> None:
    """`-uroot` carries its argument: the next word is the pattern, not u's argument."""
    text = f'ssh h "{command}; echo done"\n'
    (f,) = _found(text, "HL103")
    assert (f.start, f.end, f.severity) == (*_span(text, "pkill"), Severity.ERROR)
    assert "`pkill -f myserver`" in f.message


def test_hl103_separate_option_argument_is_not_the_pattern() -> None:
    """`-u myserver` is the user: no pattern word is left, nothing to report."""
    assert _found('ssh h "pkill -f -u myserver; echo done"\n', "HL103") == []


def test_hl103_pkill_in_ssh_string_with_more_commands_is_error() -> None:
    text = 'ssh h "pkill -f x; y"\n'
    (f,) = _found(text, "HL103")
    assert (f.start, f.end, f.severity) == (7, 12, Severity.ERROR)


# -- HL109: a descriptor duplication is no file write ---------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "sudo echo x 2>&1\n",
        "sudo echo x >&2\n",
        "sudo echo x 1>&-\n",
        "sudo echo x 2>&1-\n",
        'ssh h "sudo echo x 2>&1"\n',
    ],
)
def test_hl109_descriptor_duplication_is_not_a_write(text: str) -> None:
    assert _found(text, "HL109") == []


def test_hl109_file_write_next_to_a_dup_is_reported_at_its_operator() -> None:
    text = "sudo echo x > /etc/foo 2>&1\n"
    (f,) = _found(text, "HL109")
    assert (f.start, f.end) == _span(text, ">")
    assert "/etc/foo" in f.message


# -- HL106: the operator the message names --------------------------------------------------


@pytest.mark.parametrize(
    ("word", "operator"),
    [("a || b", "||"), ("a && b", "&&"), ("a | b", "|"), ("a; b", ";"), ("a & b", "&")],
)
def test_hl106_names_the_remote_operator(word: str, operator: str) -> None:
    text = f'ssh h echo "{word}"\n'
    (f,) = _found(text, "HL106")
    assert (f.start, f.end) == (0, 3)
    assert f"the `{operator}` in `{word}` becomes an operator of the remote shell" in f.message


# -- --select through the CLI ----------------------------------------------------------------


@pytest.mark.parametrize(("select", "codes"), [("HL103", {"HL103"}), ("HL10", {"HL101", "HL103"})])
def test_cli_select_keeps_only_the_selected_codes(
    tmp_path: Path, select: str, codes: set[str]
) -> None:
    script = tmp_path / "s.sh"
    script.write_text("ssh h \"pkill -f x; cat > f << 'EOF'\nhi \\$USER\nEOF\"\n")
    proc = run_cli("--format", "json", "--no-cache", "--select", select, str(script))
    assert proc.returncode == 1, proc.stderr
    assert {item["code"] for item in json.loads(proc.stdout)} == codes


# -- more pinned spans and messages (survivors of bench/mutation.py) -----------------------


def test_hl101_names_the_expansions_of_the_body() -> None:
    text = 'ssh h "cat > f << EOF\n$x and \\$y\nEOF"\n'
    (f,) = _found(text, "HL101")
    assert (f.start, f.end) == _span(text, "<<")
    assert f.message.startswith("Heredoc inside the ssh command string: ")
    assert "the local shell expands $x in its body" in f.message
    (g,) = _found(text.replace("$x and ", ""), "HL101")
    assert "the local shell expands" not in g.message


def test_hl109_inside_bash_c_string() -> None:
    """A `bash -c` layer has no ssh call (and so no login user): still reported."""
    text = 'bash -c "sudo echo x > /etc/f"\n'
    (f,) = _found(text, "HL109")
    assert (f.start, f.end) == _span(text, ">")


def test_hl106_names_a_redirection_with_its_descriptor() -> None:
    text = 'ssh h cat "x 0<&3"\n'
    (f,) = _found(text, "HL106")
    assert "the `0<&` in `x 0<&3` becomes a redirection of the remote shell" in f.message


@pytest.mark.parametrize(
    ("text", "reported"),
    [
        ("while sleep 1; do ssh h uptime; done\n", False),  # the condition reads nothing
        ("while true; do ssh h uptime; done < hosts\n", False),
        ("while read -r h; do ssh h uptime; done < hosts\n", True),
        ("while read x < file; do ssh h uptime; done\n", False),  # read has its own stdin
        ("while read x 2>/dev/null; do ssh h uptime; done < hosts\n", True),
    ],
)
def test_hl105_only_loops_whose_condition_reads_stdin(text: str, reported: bool) -> None:
    found = _found(text, "HL105")
    assert [(f.start, f.end) for f in found] == ([_span(text, "ssh")] if reported else [])


def test_cli_rules_lists_which_rules_fix() -> None:
    proc = run_cli("rules")
    assert proc.returncode == 0, proc.stderr
    fix_column = {line.split()[0]: line.split()[3] for line in proc.stdout.splitlines()[1:]}
    assert fix_column["HL001"] == "no" and fix_column["HL002"] == "no"
    assert fix_column["HL101"] == "yes" and fix_column["HL103"] == "yes"


def test_hl101_counts_the_deleted_backslash_newlines() -> None:
    text = 'ssh h "cat > f << EOF\na \\\nb\nEOF"\n'
    (f,) = _found(text, "HL101")
    assert f.message.endswith("; deletes 1 backslash-newline(s)")


def test_hl109_dup_like_file_target_is_a_write() -> None:
    """`>& /etc/log-` ends in `-` but is no descriptor: a file written for both streams."""
    text = "sudo echo x >& /etc/log-\n"
    (f,) = _found(text, "HL109")
    assert (f.start, f.end) == _span(text, ">&")


@pytest.mark.parametrize(
    ("options", "codes"),
    [(("--ignore", "HL103"), {"HL101"}), (("--ignore", "HL1"), set()), ((), {"HL101", "HL103"})],
)
def test_cli_ignore_drops_the_ignored_codes(
    tmp_path: Path, options: tuple[str, ...], codes: set[str]
) -> None:
    script = tmp_path / "s.sh"
    script.write_text("ssh h \"pkill -f x; cat > f << 'EOF'\nhi \\$USER\nEOF\"\n")
    proc = run_cli("--format", "json", "--no-cache", *options, str(script))
    assert proc.returncode == (1 if codes else 0), proc.stderr
    assert {item["code"] for item in json.loads(proc.stdout)} == codes


@pytest.mark.parametrize(
    ("code", "text"),
    [
        ("HL002", "x=1  # heredoc-lint: disable=HL103\n"),
        ("HL101", "ssh h \"cat > f << 'EOF'\nhi \\$USER\nEOF\"\n"),
        ("HL103", 'ssh h "pkill -f x; y"\n'),
        ("HL107", "ssh h bash << EOF\ncd /srv && x=1 && echo $x\nEOF\n"),
        ("HL112", "cat <<EOF\nhi\n"),
    ],
)
def test_a_finding_code_is_a_listed_selectable_rule(tmp_path: Path, code: str, text: str) -> None:
    """The code a finding carries is the code of a rule: listed by `rules`, and
    `--select CODE` gives exactly that finding."""
    listed = run_cli("rules")
    assert code in [line.split()[0] for line in listed.stdout.splitlines()[1:]]
    script = tmp_path / "s.sh"
    script.write_text(text)
    argv = ("--format", "json", "--no-cache", "--warn-unused-suppressions", "--select", code)
    proc = run_cli(*argv, str(script))
    assert proc.returncode == 1, proc.stderr
    assert [item["code"] for item in json.loads(proc.stdout)] == [code]


def test_hl106_long_word_is_shown_cut_to_30_characters() -> None:
    word = "a " + "b" * 40
    text = f'ssh h touch "{word}"\n'
    (f,) = _found(text, "HL106")
    shown = word[:27] + "..."
    assert len(shown) == 30
    assert f"`{shown}` arrives as 2 separate arguments (`a`, `{'b' * 17}...`)" in f.message


@pytest.mark.parametrize(
    ("text", "span_of", "near"),
    [('ssh h "echo )"\n', ")", ")"), ('ssh h "echo (x"\n', "x", "end of text")],
)
def test_hl001_shows_where_the_inner_string_stops_parsing(
    text: str, span_of: str, near: str
) -> None:
    (f,) = _found(text, "HL001")
    assert (f.start, f.end) == _span(text, span_of)
    assert f.message.startswith(f"The ssh command string does not parse near `{near}`")


def test_hl110_fix_message_cuts_the_moved_command_to_40_characters() -> None:
    moved = "./build-the-whole-thing --with-flag-one --with-flag-two"
    text = f"ssh h cd /srv && {moved}\n"
    (f,) = _found(text, "HL110")
    assert (f.start, f.end) == _span(text, "&&")
    assert f.fix is not None
    assert f.fix.message == f"Run `{moved[:37]}...` in the remote shell too: 'cd /srv && {moved}'"
