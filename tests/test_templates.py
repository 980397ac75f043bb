"""Runbook templates are not broken scripts: `<<PROJECT_ID>>`, `<path/to/job.yaml>`.

Documentation fills commands with fields for the reader to replace. bash would read
`--vars project_id=<<PROJECT_ID>>` as a heredoc that never ends and `-f <path/to/x.yaml>`
as a syntax error (both checked with bash here), but no one runs the text as it stands:
the tool says info, not an HL112 error or an HL001 warning. A real heredoc that only
looks the same (`cat <<EOF>> ~/.bashrc`) keeps its findings.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import rulekit as kit

from heredoc_lint.engine import check_shell
from heredoc_lint.model import Finding, Severity
from heredoc_lint.rules.base import Invalid
from heredoc_lint.rules.hl001_parse_error import INVALID as HL001_INVALID

FENCE = "```"


def _bash_n(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True, check=False)


def _all(text: str) -> list[Finding]:
    return [f for f in check_shell(text, "t.sh") if f.code in ("HL001", "HL112")]


@pytest.mark.parametrize(
    ("line", "field", "delimiter"),
    [
        (
            "gcluster create --vars project_id=<<PROJECT_ID>> cluster.yaml\n",
            "<<PROJECT_ID>>",
            "PROJECT_ID",
        ),
        (
            "gcluster deploy --vars project_id=<<bursting project>> \\\n  --auto-approve\n",
            "<<bursting project>>",
            "bursting",
        ),
        (
            "ansible-playbook x.yml --limit localhost <<DESTINATION>>\n",
            "<<DESTINATION>>",
            "DESTINATION",
        ),
    ],
)
def test_double_angle_field_is_a_template_not_a_heredoc(
    line: str, field: str, delimiter: str
) -> None:
    bash = _bash_n(line)
    assert f"delimited by end-of-file (wanted `{delimiter}')" in bash.stderr
    (found,) = _all(line)
    assert found.code == "HL112"
    assert found.severity is Severity.INFO
    assert (found.start, found.end) == kit.span_of(line, field, 2)
    assert f"`{field}` looks like a field of a template" in found.message
    assert f"bash reads a heredoc `<<{delimiter}` that is never terminated" in found.message


def test_append_after_a_real_heredoc_keeps_its_error() -> None:
    """`cat <<EOF>> ~/.bashrc` is a heredoc and an append: a terminator indented by
    mistake is HL112's bug, whatever the `>>` after the delimiter looks like."""
    script = "cat <<EOF>> ~/.bashrc\nexport A=1\n  EOF\necho done\n"
    assert "delimited by end-of-file" in _bash_n(script).stderr
    (found,) = _all(script)
    assert (found.code, found.severity) == ("HL112", Severity.ERROR)
    assert "line 3 `  EOF`" in found.message
    terminated = "cat <<EOF>> ~/.bashrc\nexport A=1\nEOF\n"
    assert _bash_n(terminated).returncode == 0 and _all(terminated) == []


# The templates with a path in an angle field: INVALID examples of HL001's module.
TEMPLATES = [e for e in HL001_INVALID if "looks like a template" in e.says]


@pytest.mark.parametrize("example", TEMPLATES, ids=[e.text.split()[0] for e in TEMPLATES])
def test_angle_field_with_a_path_is_a_template(example: Invalid) -> None:
    """bash refuses each of HL001's template examples; with every rule run, HL001 is its
    one finding (no HL112), at info, naming the field."""
    assert _bash_n(example.text).returncode != 0  # bash: syntax error
    (found,) = _all(example.text)
    assert (found.code, found.severity) == ("HL001", Severity.INFO)
    assert example.says in found.message


def test_hl001_has_its_two_template_examples() -> None:
    assert [e.text.split()[0] for e in TEMPLATES] == ["kubectl", "gcloud"]


def test_markdown_runbook_with_fields_is_clean_at_the_default_severity(tmp_path: Path) -> None:
    doc = tmp_path / "README.md"
    doc.write_text(
        "# Deploy\n\n"
        f"{FENCE}bash\n"
        "gcluster create --vars project_id=<<PROJECT_ID>> hpc.yaml\n"
        "kubectl apply -f <path/to/job.yaml>\n"
        f"{FENCE}\n"
    )
    assert kit.cli_json(doc, returncode=0) == []
    info = kit.cli_json(doc, "--severity", "info", returncode=1)
    assert [(i["code"], i["line"], i["column"]) for i in info] == [("HL112", 4, 35)]


# -- shell/templates.py: runbook templates and transcripts are not scripts to run ----------


def _bash_n_stderr(script: str) -> str:
    """bash's complaint about `script`, read and not run ("" when it parses)."""
    return subprocess.run(
        ["bash", "-n"], input=script, capture_output=True, text=True, check=False, timeout=30
    ).stderr


def test_an_unterminated_double_angle_field_is_a_template() -> None:
    """`<<PROJECT_ID>>` in a runbook: bash reads a heredoc that never ends; HL112 says info
    at the `<<`, naming the field, not its error (templates `field_heredoc`: the
    unterminated heredoc, the field's match and its text)."""
    text = "gcluster create --vars project_id=<<PROJECT_ID>> cluster.yaml\n"
    assert "delimited by end-of-file (wanted `PROJECT_ID')" in _bash_n_stderr(text)
    (f,) = [f for f in check_shell(text, "t.sh") if f.code in ("HL001", "HL112")]
    at = text.index("<<")
    assert (f.code, f.start, f.end, f.severity) == ("HL112", at, at + 2, Severity.INFO)
    assert f.message.startswith("`<<PROJECT_ID>>` looks like a field of a template")


def test_an_unterminated_plain_heredoc_is_still_never_terminated() -> None:
    """`cat <<EOF` that never ends is no template (no `>>` after the delimiter): HL112's
    `never-terminated`, as bash warns."""
    text = "cat <<EOF\nhi\n"
    assert "delimited by end-of-file (wanted `EOF')" in _bash_n_stderr(text)
    (f,) = [f for f in check_shell(text, "t.sh") if f.code in ("HL001", "HL112")]
    assert (f.code, f.start, f.end, f.evidence) == ("HL112", 4, 6, "never-terminated")
    assert f.message.startswith("The heredoc `<<EOF` is never terminated")


BROKEN = 'ssh h "echo $(( 1 + "\n'  # bash -n: unexpected EOF; tree-sitter fails at the `"`


def test_a_console_transcript_is_not_checked() -> None:
    """A line that starts with a shell prompt is a transcript: HL001 says info and names
    the prompt (templates `not_a_script`'s `_PROMPT`)."""
    for prompt in ("user@web01:~$", "[root@web01 ~]#"):
        text = f"{prompt} {BROKEN}"
        assert "unexpected EOF" in _bash_n_stderr(text)
        (f,) = [f for f in check_shell(text, "t.sh") if f.code == "HL001"]
        assert (f.start, f.end, f.severity) == (0, 1, Severity.INFO)
        assert f"looks like a console transcript (the prompt `{prompt}`)" in f.message


def test_a_placeholder_makes_a_template() -> None:
    """`<path/to/job.yaml>`: bash sees a syntax error, the tool a field to fill in."""
    text = "kubectl apply -f <path/to/job.yaml>\n"
    assert "syntax error" in _bash_n_stderr(text)
    (f,) = [f for f in check_shell(text, "t.sh") if f.code == "HL001"]
    assert (f.start, f.end, f.severity) == (len(text) - 1, len(text), Severity.INFO)
    assert "looks like a template (the field `<path/to/job.yaml>`)" in f.message


def test_a_heredoc_body_is_data_not_a_template(tmp_path: Path) -> None:
    """A placeholder or a prompt inside a heredoc's body is text the command reads (bash
    prints it as it is): the script's own syntax error after it stays a syntax error at
    its place, `script-refused` (info by default since its first look on real code), not
    a template's or a transcript's (templates `not_a_script` blanks the bodies, keeping
    their newlines)."""
    for line in ("<path/to/job.yaml>", "user@web01:~$ ls"):
        body = f"cat <<EOF\n{line}\nEOF\n"
        ran = subprocess.run(
            ["bash", "-c", body], capture_output=True, text=True, check=True, timeout=30
        )
        assert ran.stdout == line + "\n"
        text = body + BROKEN
        assert "unexpected EOF" in _bash_n_stderr(text)
        (f,) = [f for f in check_shell(text, "t.sh") if f.code == "HL001"]
        at = len(body) + BROKEN.index('"')
        assert (f.start, f.end, f.severity, f.evidence) == (
            at,
            at + 1,
            Severity.INFO,
            "script-refused",
        )
        assert "template" not in f.message and "transcript" not in f.message


@pytest.mark.parametrize(
    "string",
    [
        'echo "Usage: $0 <query>"',  # a field's look in a usage message (dotfiles' scripts)
        "stamp=`date +%d-%m-%Y_%H-%M-%S`",  # `%Y_%` is a date format, followed by a letter
    ],
)
def test_a_script_bash_parses_is_no_template(string: str) -> None:
    """Round x: valid scripts were called templates where tree-sitter failed elsewhere
    (`do {` ... `} done`); bash, asked, parses them: tree-sitter's failure it is."""
    text = f'#!/bin/bash\n{string}\nfor v in a b\ndo {{\nssh h "echo $v"\n}} done\n'
    assert _bash_n(text).returncode == 0
    (found,) = [f for f in _all(text) if f.code == "HL001"]
    assert found.evidence == "bash-accepts"
    assert "(bash can)" in found.message


@pytest.mark.parametrize(("text", "field"), [("date +%Y_%H\n", None), ("cd %APPDATA%\n", True)])
def test_a_percent_field_has_no_letter_after_it(text: str, field: bool | None) -> None:
    from heredoc_lint.shell.templates import not_a_script

    found = not_a_script(text, ())
    assert (found and found.field) == field
