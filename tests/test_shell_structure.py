"""shell/structure.py: the jobs, pipelines, lists, subshells and groups of a layer as
frozen dataclasses, read once per parse; HL104 reads them instead of tree-sitter nodes.

Spans are computed from the text.  The claims about bash (`|&` pipes stderr too; the
target of `>&\\2` is de-quoted before bash reads it as a descriptor) are checked against
real bash, and the one finding that changed (`>&\\2`) against the real sshd.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.shell.structure import (
    AndOr,
    Compound,
    Group,
    Other,
    Pipeline,
    Redirected,
    Simple,
    Statement,
    Subshell,
    structure,
)
from heredoc_lint.shell.syntax import parse_script

RULES = Path(__file__).resolve().parent.parent / "heredoc_lint" / "rules"


def _jobs(text: str) -> list[tuple[Statement, int]]:
    return [(job.statement, job.amp) for job in structure(parse_script(text)).jobs]


def _span(text: str, needle: str) -> tuple[int, int]:
    start = text.index(needle)
    return start, start + len(needle)


def test_each_kind_of_job() -> None:
    text = (
        "a > f &\nb | c |& d &\ne && f || g &\n( h; i ) 2>&1 &\n{ j; } &\n"
        "while x; do k; done &\nexport A=1 &\nl\n"
    )
    found = _jobs(text)
    assert [type(s).__name__ for s, _ in found] == [
        "Redirected",
        "Pipeline",
        "AndOr",
        "Redirected",
        "Group",
        "Compound",
        "Other",
    ]
    # each `&` where it stands, each statement from its first character to before the `&`
    amps = [m.start() for m in re.finditer(r"&$", text, re.MULTILINE)]
    assert [at for _, at in found] == amps
    assert [text[s.start : at].rstrip() for s, at in found] == [
        "a > f",
        "b | c |& d",
        "e && f || g",
        "( h; i ) 2>&1",
        "{ j; }",
        "while x; do k; done",
        "export A=1",
    ]


def test_pipeline_members_and_stderr() -> None:
    text = "b | c |& d &\n"
    ((pipeline, _),) = _jobs(text)
    assert isinstance(pipeline, Pipeline)
    assert [text[m.start : m.end] for m in pipeline.members] == ["b", "c", "d"]
    assert pipeline.stderr_piped == (False, True, False)
    assert all(isinstance(m, Simple) and m.command is not None for m in pipeline.members)


def test_bash_pipes_stderr_with_pipe_ampersand() -> None:
    script = "{ echo out; echo err >&2; } | cat > /dev/null; { echo o2; echo e2 >&2; } |& cat"
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=False)
    assert (done.stdout, done.stderr) == ("o2\ne2\n", "err\n")


def test_subshell_body_and_redirections_dequoted() -> None:
    text = "( h; i ) >'x.log' 2>&1 &\n"
    ((statement, _),) = _jobs(text)
    assert isinstance(statement, Redirected)
    body = statement.body
    assert isinstance(body, Subshell)
    assert body.opener == _span(text, "(")
    assert [text[s.start : s.end] for s in body.body] == ["h", "i"]
    assert [(r.op, r.fd, r.target and r.target.value) for r in statement.redirects] == [
        (">", None, "x.log"),
        (">&", 2, "1"),
    ]


def test_simple_commands_are_the_scripts_commands() -> None:
    text = "x; nohup ./srv --p 1 > log &\n"
    script = parse_script(text)
    ((statement, _),) = [(j.statement, j.amp) for j in structure(script).jobs]
    assert isinstance(statement, Redirected) and isinstance(statement.body, Simple)
    assert statement.body.command is script.commands[1]
    assert [w.value for w in statement.body.command.words] == ["nohup", "./srv", "--p", "1"]


def test_compounds_and_groups() -> None:
    text = "if a; then b; fi &\nfor i in 1; do c; done &\ncase x in y) d;; esac &\n{ e; f; } &\n"
    found = [s for s, _ in _jobs(text)]
    assert [(type(s).__name__, text[s.start : s.end]) for s in found] == [
        ("Compound", "if a; then b; fi"),
        ("Compound", "for i in 1; do c; done"),
        ("Compound", "case x in y) d;; esac"),
        ("Group", "{ e; f; }"),
    ]
    assert [s.opener for s in found] == [
        _span(text, "if"),
        _span(text, "for"),
        _span(text, "case"),
        _span(text, "{"),
    ]
    group = found[3]
    assert isinstance(group, Group) and len(group.body) == 2


def test_list_items_and_the_redirections_after_them() -> None:
    # tree-sitter puts `> log 2>&1` on the whole list; bash gives it to the last command,
    # and that command's Command holds it.
    text = "cd /srv && ./run > log 2>&1 &\n"
    ((statement, _),) = _jobs(text)
    assert isinstance(statement, Redirected)
    body = statement.body
    assert isinstance(body, AndOr)
    assert [text[s.start : s.end] for s in body.items] == ["cd /srv", "./run"]
    last = body.items[1]
    assert isinstance(last, Simple) and last.command is not None
    assert [r.op for r in last.command.redirects] == [">", ">&"]
    assert [r.op for r in statement.redirects] == [">", ">&"]


def test_no_job_inside_substitutions_or_arithmetic() -> None:
    text = "echo $(a &) <(b &) $(( 1 & 3 )); [[ a ]]; c &\n"
    found = _jobs(text)
    assert [text[s.start : at] for s, at in found] == ["c "]
    assert isinstance(found[0][0], Simple)


def test_jobs_inside_loops_are_their_own() -> None:
    text = "while x; do a & done\n"
    ((statement, at),) = _jobs(text)
    assert isinstance(statement, Simple) and text[statement.start : at] == "a "


def test_read_once_per_parse() -> None:
    script = parse_script("a &\n")
    assert structure(script) is structure(script)
    assert structure(parse_script("a &\n")) is not structure(script)


def test_nesting_thousands_deep_is_read_without_recursion() -> None:
    n = 5000
    text = "( " * n + "a" + " )" * n + " &\n"
    ((statement, _),) = _jobs(text)
    depth = 0
    while isinstance(statement, Subshell):
        depth += 1
        (statement,) = statement.body
    assert depth == n and isinstance(statement, Simple)
    other = _jobs("! a &\n")[0][0]
    assert isinstance(other, Other)
    assert not isinstance(other, Compound)


# -- HL104 on the model -----------------------------------------------------------------


def test_rules_touch_no_tree_sitter_node() -> None:
    pattern = re.compile(r"tree_sitter|\bNode\b|\.children\b|\bnode\.type\b|script\.tree")
    touched = {
        path.name: pattern.findall(path.read_text())
        for path in sorted(RULES.glob("*.py"))
        if pattern.search(path.read_text())
    }
    assert touched == {}


def test_bash_dequotes_a_dup_target() -> None:
    # `>&\2` is `>&2`: bash removes the backslash, then reads a descriptor (no file "2").
    done = subprocess.run(
        ["bash", "-c", 'cd "$1" && { echo out; } >&\\2; ls', "_", "/tmp"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stderr == "out\n"
    assert "\n2\n" not in "\n" + done.stdout


def test_hl104_dequoted_dup_target_is_the_session(sshd: SshServer) -> None:
    # Read as a file "\2" before (the target was de-quoted by stripping quote marks):
    # the job was taken for detached and not reported.  Both streams are the session's.
    text = "#!/bin/bash\nssh h '( sleep 6; echo x ) >&\\2 &'\n"
    found = kit.findings(text, "HL104")
    assert [(f.severity.name, text[f.start : f.end]) for f in found] == [("WARNING", "(")]
    assert "as its stdout and stderr" in found[0].message
    began = time.monotonic()
    proc = run_local(text, sshd, timeout=60)
    held = time.monotonic() - began
    assert proc.returncode == 0, proc.stderr
    assert held >= 5.5, f"ssh returned after {held:.2f}s: it did not wait for the job"


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
