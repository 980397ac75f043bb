"""HL112 heredoc-terminator: a heredoc whose delimiter line never matches.

Anchors computed from the text, the likely terminator named in the message, negatives
that bash terminates, fixes (unsafe; safe only for `<<-` indented with spaces) re-checked
and applied twice, and real bash showing the commands after the heredoc swallowed with
its `here-document at line N delimited by end-of-file` warning.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import rulekit as kit

from heredoc_lint.model import Applicability, Finding, Severity

CODE = "HL112"
EOF_WARNING = re.compile(r"here-document at line (\d+) delimited by end-of-file")


def hl112(text: str) -> list[Finding]:
    return kit.findings(text, CODE, every_rule=True)


def bash(path: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return kit.run_script(["bash", "--norc", "--noprofile", str(path)], cwd, timeout=30)


# (script, the operator, what the message says about the likely terminator)
POSITIVES = [
    (
        "#!/bin/bash\ncat > /etc/motd <<EOF\nHello\n  EOF\necho done\n",
        "<<EOF",
        "line 4 `  EOF` is indented; without <<- the terminator must start the line",
    ),
    (
        "cat <<-EOF\n\thi\n    EOF\necho done\n",
        "<<-EOF",
        "line 3 `    EOF` is indented with spaces; <<- strips only leading tabs",
    ),
    ("cat <<EOF\nhi\n\tEOF\necho done\n", "<<EOF", "line 3 `\tEOF` is indented"),
    (
        "cat <<EOF\nhi\nEOF  \necho done\n",
        "<<EOF",
        "line 3 `EOF  ` has trailing whitespace after the delimiter",
    ),
    ("cat <<EOF\nhi\nEOF\r\necho done\n", "<<EOF", "line 3 `EOF\\r` ends in a carriage return"),
    (
        "cat <<EOF\nhi\nEOF; echo done\necho more\n",
        "<<EOF",
        "line 3 `EOF; echo done` has `; echo done` after the delimiter",
    ),
    (
        "cat << 'END' > f\nhi\nEND && echo ok\n",
        "<< 'END'",
        "line 3 `END && echo ok` has `&& echo ok` after the delimiter",
    ),
    ("cat <<EOF\nhi\nEOFX\necho done\n", "<<EOF", "no line is exactly `EOF`"),
    ("echo start\ncat <<EOF", "<<EOF", "no line is exactly `EOF`"),
]


@pytest.mark.parametrize(("text", "op", "says"), POSITIVES)
def test_positive_anchor_and_message(text: str, op: str, says: str) -> None:
    f = kit.assert_single(hl112(text), kit.heredoc_span(text, op), Severity.ERROR)
    assert says in f.message
    assert "never terminated" in f.message


def test_message_names_the_swallowed_commands() -> None:
    text = kit.case_text("motd.sh")
    (f,) = hl112(text)
    assert kit.line_col(text, f.start) == (2, 17)
    assert "here-document at line 2 delimited by end-of-file" in f.message
    assert "from `echo done` on" in f.message and "never run" in f.message


def test_in_an_ssh_string() -> None:
    text = 'ssh web-1 "cat > /etc/motd <<EOF\nHello\n  EOF\nsystemctl reload x"\necho local\n'
    (f,) = hl112(text)
    assert (f.start, f.end) == kit.heredoc_span(text, "<<EOF")
    assert f.depth == 1
    assert "line 3 `  EOF` is indented" in f.message  # the file's line
    assert "the end of the ssh command string" in f.message
    assert "`systemctl reload x`" in f.message


def test_cli_json_line_and_column(tmp_path: Path) -> None:
    text = "#!/bin/bash\nif true; then\n    cat > /tmp/motd <<EOF\nHello\n    EOF\nfi\n"
    path = tmp_path / "motd.sh"
    path.write_text(text)
    (item,) = [f for f in kit.cli_json(path) if f["code"] == CODE]
    kit.assert_json_position(item, text, kit.heredoc_span(text, "<<EOF"), (3, 21))


NEGATIVES = [
    "cat <<EOF\nhi\nEOF\necho done\n",
    "cat <<-EOF\n\thi\n\tEOF\necho done\n",
    "cat <<'EOF'\n  EOF is fine inside\nEOF\n",
    "cat <<EOF\r\nhi\r\nEOF\r\necho done\r\n",  # CRLF throughout: the word ends in \r too
    "x=$(cat <<EOF\nhi\nEOF\n)\n",
    "cat <<EOF\nhi\nEOF",  # no final newline
    "cat <<A <<B\na\nA\nb\nB\n",
    'ssh web-1 "cat > f <<EOF\nhi\nEOF"\n',
    "echo '<<EOF'\n",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_negative(text: str) -> None:
    assert hl112(text) == []


# -- fixes ------------------------------------------------------------------------------
FIXES = [
    ("cat <<EOF\nhi\n  EOF\necho done\n", "cat <<EOF\nhi\nEOF\necho done\n", Applicability.UNSAFE),
    ("cat <<EOF\nhi\nEOF \t\necho done\n", "cat <<EOF\nhi\nEOF\necho done\n", Applicability.UNSAFE),
    ("cat <<EOF\nhi\nEOF\r\necho done\n", "cat <<EOF\nhi\nEOF\necho done\n", Applicability.UNSAFE),
    ("cat <<EOF\nhi\nEOF; echo done\n", "cat <<EOF\nhi\nEOF\necho done\n", Applicability.UNSAFE),
    (
        "cat <<-EOF\n\thi\n    EOF\necho done\n",
        "cat <<-EOF\n\thi\nEOF\necho done\n",
        Applicability.SAFE,
    ),
    (
        "if true; then\n\tcat <<-EOF\n\thi\n  EOF\nfi\n",
        "if true; then\n\tcat <<-EOF\n\thi\n\tEOF\nfi\n",
        Applicability.SAFE,
    ),
    (
        'ssh h "cat > f <<EOF\nhi\n  EOF\necho ok"\n',
        'ssh h "cat > f <<EOF\nhi\nEOF\necho ok"\n',
        Applicability.UNSAFE,
    ),
]


@pytest.mark.parametrize(("text", "fixed", "applicability"), FIXES)
def test_fix(text: str, fixed: str, applicability: Applicability) -> None:
    f = kit.single_fix(hl112(text), applicability)
    edited = kit.apply_fix(text, f)
    assert edited == fixed
    assert hl112(edited) == []
    unsafe = applicability is Applicability.UNSAFE
    kit.assert_fixed_clean_and_idempotent(text, CODE, unsafe=unsafe, every_rule=True)


@pytest.mark.parametrize(
    "text",
    [
        "cat <<EOF\nhi\nEOF && echo done\n",  # where did the && belong?
        "cat <<EOF\nhi\nEOFX\n",  # no likely terminator
    ],
)
def test_no_fix_when_intent_is_unclear(text: str) -> None:
    (f,) = hl112(text)
    assert f.fix is None


def test_cli_unsafe_fix_of_the_case_file(tmp_path: Path) -> None:
    path = kit.copy_case("motd.sh", tmp_path)
    original = kit.case_text("motd.sh")
    kit.cli("--fix", path)
    assert path.read_text() == original
    fixed = kit.cli_fix(path, "--unsafe-fixes", "--select", CODE)
    assert fixed == original.replace("\n  EOF\n", "\nEOF\n")


# -- runtime: real bash -------------------------------------------------------------------
def test_runtime_commands_after_the_heredoc_are_swallowed(tmp_path: Path) -> None:
    motd = tmp_path / "motd"
    text = kit.case_text("motd.sh").replace("/etc/motd", str(motd))
    script = tmp_path / "motd.sh"
    script.write_text(text)
    (f,) = hl112(text)
    proc = bash(script, tmp_path)
    assert proc.returncode == 0  # bash only warns
    warning = EOF_WARNING.search(proc.stderr)
    assert warning is not None, proc.stderr
    assert f"here-document at line {warning.group(1)} " in f.message
    assert int(warning.group(1)) == kit.line_col(text, f.start)[0]
    assert "done" not in proc.stdout  # `echo done` never ran...
    assert motd.read_text() == "Hello\n  EOF\necho done\n"  # ...it is heredoc text

    script.write_text(kit.fix_text(text, CODE, unsafe=True, every_rule=True, path="motd.sh"))
    proc = bash(script, tmp_path)
    assert proc.returncode == 0
    assert EOF_WARNING.search(proc.stderr) is None
    assert proc.stdout == "done\n"
    assert motd.read_text() == "Hello\n"


def test_runtime_dash_heredoc_with_spaces(tmp_path: Path) -> None:
    """`<<-` strips tabs only: a space-indented terminator swallows the rest; the safe fix."""
    text = "if true; then\n\tcat <<-EOF\n\thi\n    EOF\n\techo done\nfi\n"
    script = tmp_path / "t.sh"
    script.write_text(text)
    proc = bash(script, tmp_path)
    assert EOF_WARNING.search(proc.stderr) is not None
    assert "done" not in proc.stdout.replace("echo done", "")
    fixed = kit.fix_text(text, CODE, every_rule=True)  # safe: applied by --fix
    assert fixed != text
    script.write_text(fixed)
    proc = bash(script, tmp_path)
    assert EOF_WARNING.search(proc.stderr) is None
    assert proc.stdout == "hi\ndone\n"


TWO_SWALLOWED = (
    "#!/bin/bash\ncat <<EOF\n  hello\n  EOF\necho mid\ncat <<END\n  world\n  END\necho after\n"
)


def test_a_heredoc_inside_the_swallowed_text_is_reported_too() -> None:
    """The second heredoc hides inside the body the first one swallows: mending only the
    first would leave a script that still swallows its last command."""
    first, second = hl112(TWO_SWALLOWED)
    assert (first.start, first.end) == kit.heredoc_span(TWO_SWALLOWED, "<<EOF")
    assert (second.start, second.end) == kit.heredoc_span(TWO_SWALLOWED, "<<END")
    assert "never terminated either" in second.message
    assert "inside the text that `<<EOF` of line 2 swallows" in second.message
    assert "line 8 `  END` is indented" in second.message
    assert "either" not in first.message


def test_runtime_both_fixes_make_every_command_run(tmp_path: Path) -> None:
    script = tmp_path / "two.sh"
    script.write_text(TWO_SWALLOWED)
    before = bash(script, tmp_path)
    # cat prints the rest of the script as text: no command after the heredoc ran.
    assert before.stdout == TWO_SWALLOWED.split("cat <<EOF\n", 1)[1]
    assert EOF_WARNING.search(before.stderr)
    only_first = kit.fix_text(TWO_SWALLOWED, CODE, unsafe=True, every_rule=True)
    script.write_text(only_first)
    after = bash(script, tmp_path)
    assert after.stdout == "  hello\nmid\n  world\nafter\n", after.stdout
    assert after.stderr == ""
    assert hl112(only_first) == []


def test_a_clean_heredoc_after_a_broken_one_is_not_reported() -> None:
    text = "cat <<EOF\n  hello\n  EOF\ncat <<END\nworld\nEND\necho after\n"
    (only,) = hl112(text)
    assert (only.start, only.end) == kit.heredoc_span(text, "<<EOF")
