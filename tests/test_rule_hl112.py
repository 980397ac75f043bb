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

from heredoc_lint import severities
from heredoc_lint.engine import Settings, fix_shell
from heredoc_lint.model import Applicability, Finding
from heredoc_lint.rules.hl112_heredoc_terminator import INVALID, VALID

CODE = "HL112"
EOF_WARNING = re.compile(r"here-document at line (\d+) delimited by end-of-file")


def hl112(text: str) -> list[Finding]:
    return kit.findings(text, CODE, every_rule=True)


def bash(path: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return kit.run_script(["bash", "--norc", "--noprofile", str(path)], cwd, timeout=30)


# Positives, negatives and fixes: INVALID and VALID in the rule's module, run there with
# HL112 alone selected; here with every rule on, and each fix's applicability.
def test_every_rule_on_each_invalid_example_is_reported_at_the_tables_severity() -> None:
    for example in INVALID:
        (f,) = hl112(example.text)
        assert (f.start, f.end) == kit.occurrence_span(example.text, example.at)
        # near-miss-terminator or never-terminated, at the measured table's severity
        assert f.severity is severities.TABLE[("HL112", f.evidence)].severity
        assert example.says in f.message
        assert "never terminated" in f.message


def test_every_rule_on_each_valid_example_is_clean() -> None:
    for text in VALID:
        assert hl112(text) == []


def test_fix_applicability_and_every_rule_on() -> None:
    """Safe only for `<<-` indented with spaces (the Fix safety section), else unsafe."""
    for example in INVALID:
        if example.fixed is None:
            continue
        safe = "<<-" in example.text
        f = kit.single_fix(
            hl112(example.text), Applicability.SAFE if safe else Applicability.UNSAFE
        )
        edited = kit.apply_fix(example.text, f)
        assert edited == example.fixed
        assert hl112(edited) == []
        kit.assert_fixed_clean_and_idempotent(example.text, CODE, unsafe=not safe, every_rule=True)


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


# -- HL112 --------------------------------------------------------------------------------


def _bash_output(script: str) -> bytes:
    proc = subprocess.run(["bash", "-c", script], capture_output=True, timeout=30, check=False)
    return proc.stdout


@pytest.mark.parametrize(
    ("line", "parts"),
    [
        ("EOF\r", ["ends in a carriage return (CRLF line end)"]),
        ("EOF \r", ["ends in a carriage return", "has trailing whitespace after"]),
        ("EOF ", ["has trailing whitespace after the delimiter"]),
    ],
)
def test_hl112_says_what_follows_the_delimiter(line: str, parts: list[str]) -> None:
    """A carriage return alone is a CRLF line end, not "trailing whitespace"; a blank
    before it is both.  bash reads none of these lines as the terminator: the rest of the
    script is heredoc text, which cat prints."""
    script = f"cat <<EOF\nx\n{line}\necho after\n"
    assert _bash_output(script) == f"x\n{line}\necho after\n".encode()
    (one,) = kit.findings_selected(script, "HL112")
    assert (one.start, one.end) == (4, 6)
    assert all(part in one.message for part in parts)
    assert ("trailing whitespace" in one.message) is (" " in line)


@pytest.mark.parametrize("gap", ["", " ", "\t "])
def test_hl112_fix_puts_the_delimiter_alone_before_a_semicolon(gap: str) -> None:
    """`EOF ; echo done`: the fix puts `EOF` on its own line and the rest after it, blanks
    before the `;` or not; bash then runs the body and `echo done`."""
    script = f"cat <<EOF\nx\nEOF{gap}; echo done\n"
    assert _bash_output(script) == f"x\nEOF{gap}; echo done\n".encode()
    fixed = fix_shell(script, "t.sh", Settings(select=frozenset({"HL112"})), unsafe=True).text
    assert fixed == "cat <<EOF\nx\nEOF\necho done\n"
    assert _bash_output(fixed) == b"x\ndone\n"


@pytest.mark.parametrize("lead", ["", "\n", "\n\n# c\n"])
def test_hl112_names_the_line_of_the_heredoc_as_bash_does(lead: str) -> None:
    """The message quotes bash's warning with the line of the `<<`, also below blank
    lines at the top of the file: the same line number bash prints."""
    script = f"{lead}cat <<EOF\nx\n"
    proc = subprocess.run(["bash", "-c", script], capture_output=True, timeout=30, check=False)
    warning = proc.stderr.decode().split("warning: ")[1].split(" (wanted")[0]
    (one,) = kit.findings_selected(script, "HL112")
    assert f'("warning: {warning}")' in one.message


# -- HL112: a chain of swallowed heredocs is followed 16 levels deep -----------------------------


def _indented_terminators(count: int, mended: int) -> str:
    """`count` heredocs whose terminators are indented (so each swallows the next), the
    first `mended` of them with the terminator written right."""
    return "".join(
        f"cat <<E{k}\nbody {k}\n{'' if k <= mended else ' '}E{k}\n" for k in range(1, count + 1)
    )


def test_hl112_follows_swallowed_heredocs_sixteen_deep(tmp_path: Path) -> None:
    """Each indented terminator breaks the script again once those before it are mended
    (bash warns at the first broken one); HL112 reports the first 16 of a chain of 17 and
    stops there (hl112 `_NESTING` 16 -> 17)."""
    for mended in (0, 15):
        ran = kit.bash_as_sshd(_indented_terminators(17, mended), None, tmp_path)
        line = 3 * mended + 1
        assert f"warning: here-document at line {line} delimited by end-of-file" in ran.stderr
    text = _indented_terminators(17, 0)
    found = kit.findings_selected(text, "HL112")
    assert [text[f.start : f.end] for f in found] == ["<<"] * 16
    assert [text[f.start :].split("\n", 1)[0] for f in found] == [f"<<E{k}" for k in range(1, 17)]
    assert "never terminated either (it is inside the text that `<<E15` of line 43" in (
        found[-1].message
    )


# -- HL112: the line of a broken terminator is the line in the file --------------------------


def test_hl112_terminator_line_is_counted_in_the_file_not_in_the_ssh_string() -> None:
    """An ssh string that starts on line 2 of the file holds `cat <<EOF` and a terminator
    indented by two blanks.  The message names the terminator's line in the FILE (4,
    where the user finds it), while bash's own warning, quoted in the message, counts
    lines of the remote script (1: checked by running the string's text in bash, whose
    `echo next` then never runs).  (Run 7: the file's count and the string's count
    swapped in `_line_number`.)"""
    script = "cat <<EOF\nhi\n  EOF\necho next\n"
    ran = kit.bash_with_path(script)
    assert "here-document at line 1 delimited by end-of-file" in ran.stderr
    assert ran.stdout == "hi\n  EOF\necho next\n"
    text = f"echo start\nssh h '{script}'\n"
    assert text.split("\n")[3] == "  EOF"
    found = kit.findings(text, "HL112", every_rule=True)
    assert [(text[f.start : f.end], f.severity.value) for f in found] == [("<<", "error")]
    assert "line 4 `  EOF` is indented; without <<- the terminator must start" in (found[0].message)
    assert '"warning: here-document at line 1 delimited by end-of-file"' in found[0].message


def test_hl112_swallowed_heredoc_names_the_file_line_of_the_outer_one() -> None:
    """Two heredocs in an ssh string on line 2: `<<A`'s terminator has `)` after it, so
    bash reads `cat <<B` and its body as `<<A`'s text; `<<B`'s own terminator is indented
    too.  The second finding names `<<A` by its line in the file (2) and its own
    terminator by the file's line 7, and quotes bash's warning for `<<B` with the line bash
    gives once `<<A` is mended (4, a line of the string).  (Run 7: hl112:246, the count of
    that line from `-1`, was in the sample too.)"""
    script = "cat <<A\nx\nA)\n cat <<B\ny\n B\n"
    ran = kit.bash_with_path(script)
    assert "here-document at line 1 delimited by end-of-file" in ran.stderr
    assert ran.stdout == "x\nA)\n cat <<B\ny\n B\n"
    text = f"echo start\nssh h '{script}'\n"
    lines = text.split("\n")
    assert (lines[1][7:], lines[6]) == ("cat <<A", " B")
    found = kit.findings(text, "HL112", every_rule=True)
    assert [text[f.start : f.end] for f in found] == ["<<", "<<"]
    assert "line 4 `A)` has `)` after the delimiter" in found[0].message
    assert "inside the text that `<<A` of line 2 swallows" in found[1].message
    assert "line 7 ` B` is indented" in found[1].message
    # bash's own warning for `<<B` once `A)` is mended counts the string's lines: 4.
    mended = kit.bash_with_path(script.replace("A)", "A"))
    assert "here-document at line 4 delimited by end-of-file (wanted `B')" in mended.stderr
    assert '"warning: here-document at line 4 delimited by end-of-file"' in found[1].message


# -- HL112: a template's field is reported on its `<<` ------------------------------------------


def test_hl112_template_field_is_reported_on_its_two_angle_brackets() -> None:
    """`ssh <<HOST>> uptime` (a runbook's placeholder): bash reads `<<HOST` as a heredoc
    that is never terminated (checked: bash warns, wanting `HOST`).  HL112 says so at info,
    on the two characters of the `<<` of each field.  (Run 7: the span's `+ 2` made `+ 1`
    pointed at one `<`.)"""
    ran = kit.bash_with_path("set -n\nssh <<HOST>> uptime\n")
    assert "here-document at line 2 delimited by end-of-file (wanted `HOST')" in ran.stderr
    text = "ssh <<HOST>> uptime\nscp app.tar <<USER>>@<<HOST>>:/srv/\n"
    found = kit.findings(text, "HL112", every_rule=True)
    assert [(f.start, f.end, f.severity.value) for f in found] == [
        (4, 6, "info"),
        (32, 34, "info"),
        (41, 43, "info"),
    ]
    assert {text[f.start : f.end] for f in found} == {"<<"}
    assert [f.message.split("`")[1] for f in found] == ["<<HOST>>", "<<USER>>", "<<HOST>>"]
