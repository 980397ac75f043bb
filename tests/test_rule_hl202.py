"""HL202 runtime-heredoc-body: a heredoc in a Python-built shell string filled in at run time.

The finding stands on the `<<` with the value named; the fix sends the body as base64
computed at run time. Run for real through paramiko and the loopback sshd: a content
holding the delimiter line (or without a final newline, for a template that glues the
delimiter to the value) breaks the original, and the fixed code writes the intended bytes
for every content, the ones that worked before included.
"""

from __future__ import annotations

import os
import re
import subprocess
import types
from pathlib import Path

import paramiko  # type: ignore[import-untyped]
import pytest
from rulekit import python_findings

from heredoc_lint.engine import Settings, check_text, fix_kind
from heredoc_lint.model import Applicability, Finding, Severity
from heredoc_lint.rules.hl202_runtime_heredoc_body import INVALID, RULE, VALID

CODE = "HL202"


def hl202(text: str) -> list[Finding]:
    return [f for f in check_text(text, "python", "t.py") if f.code == CODE]


def _block(doc: str, section: str) -> str:
    match = re.search(rf"## {section}\n```python\n(.*?)```", doc, re.DOTALL)
    assert match is not None, section
    return match.group(1)


def test_documented_example_is_found_and_its_use_instead_is_clean() -> None:
    example = _block(RULE.doc, "Example")
    (f,) = hl202(example)
    assert (example[f.start : f.end], f.severity) == ("<<", Severity.WARNING)
    clean = _block(RULE.doc, "Use instead")
    assert [f for f in check_text(clean, "python", "t.py") if f.severity.rank >= 1] == []


# Positives and negatives: INVALID and VALID in the rule's module.
def test_invalid_examples_with_every_rule() -> None:
    """With every rule run (the module's lists run HL202 alone): the one finding on the
    `<<`; `$`, backticks and backslashes are said to be expanded exactly where the
    delimiter is unquoted; and HL202 replaces HL101 for a heredoc that the Python string
    itself holds (one in the quoted command of an `ssh` inside that string has HL101's
    finding too, which nothing here asserts)."""
    for example in INVALID:
        (f,) = hl202(example.text)
        start = example.text.index(example.at)
        assert (f.start, f.end, f.severity) == (start, start + 2, Severity.WARNING)
        assert example.says in f.message
        quoted = re.search(r"<< ?'", example.text) is not None
        assert ("are expanded" in f.message) is not quoted, example.text
        if "ssh h 'cat" not in example.text:
            found = check_text(example.text, "python", "t.py")
            assert [g.code for g in found if g.code == "HL101"] == [], example.text


def test_valid_examples_have_no_finding_with_every_rule() -> None:
    for text in VALID:
        assert hl202(text) == [], text


# Values whose text never holds a line break, `$`, backtick or backslash: the body can
# neither end early nor expand them (bench/corpus: mit-pdos/gokv's `{str(ncores)}`).
_ARGUMENTS = "args = parser.parse_args()\nn = args.cores\n"
PLAIN = [
    "str(n)",  # `--cores` is declared type=int
    "n + 1",
    'f"10.10.1.{n + 1}:12000"',
    '" ".join(["--port", str(n)])',
]


@pytest.mark.parametrize("value", PLAIN)
@pytest.mark.parametrize("delimiter", ["EOF", "'EOF'"])
def test_a_value_that_cannot_hold_a_line_or_an_expansion_is_left_alone(
    value: str, delimiter: str
) -> None:
    head = "import argparse, os\nparser = argparse.ArgumentParser()\n"
    declare = "parser.add_argument('--cores', type=int, default=8)\n"
    call = f'os.system(f"""ssh h <<{delimiter}\n./set-cores {{{value}}}\nEOF\n""")\n'
    assert hl202(head + declare + _ARGUMENTS + call) == []
    # The same value without the type: any text, reported.
    (f,) = hl202(head + "parser.add_argument('--cores')\n" + _ARGUMENTS + call)
    assert f"filled in at run time from `{value}`" in f.message
    # Glued to the delimiter, no value ends with the line break the body needs.
    glued = call.replace("}\nEOF", "}EOF")
    assert len(hl202(head + declare + _ARGUMENTS + glued)) == 1


def test_fix_is_safe_for_a_quoted_delimiter_and_unsafe_otherwise() -> None:
    quoted = "def push(c, body):\n    c.exec_command(f\"cat > /a << 'EOF'\\n{body}\\nEOF\")\n"
    unquoted = quoted.replace("'EOF'", "EOF")
    for text, applicability in ((quoted, Applicability.SAFE), (unquoted, Applicability.UNSAFE)):
        (f,) = hl202(text)
        assert f.fix is not None and f.fix.applicability is applicability


def test_no_fix_in_a_python2_file() -> None:
    text = (
        "from __future__ import print_function\n"
        'def push(c, body):\n    c.exec_command("cat > /a << \'EOF\'\\n" + body + "\\nEOF")\n'
    )
    (f,) = hl202(text)
    assert f.fix is None


# -- runtime -------------------------------------------------------------------------------------

PUSH = """def push_lines(client, path, content):
    _, out, _ = client.exec_command(f"cat > {path} << 'EOF'\\n{content}\\nEOF")
    out.channel.recv_exit_status()


def push_glued(client, path, content):
    _, out, _ = client.exec_command("cat > " + path + " << 'EOF'\\n" + content + "EOF")
    out.channel.recv_exit_status()
"""


def _load(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(source, name, "exec"), module.__dict__)
    return module


def test_fixed_code_writes_the_intended_bytes(tmp_path: Path, client: paramiko.SSHClient) -> None:
    assert [PUSH[f.start : f.end] for f in hl202(PUSH)] == ["<<", "<<"]
    outcome = fix_kind(PUSH, "python", "push.py", unsafe=True)
    assert outcome.error is None and hl202(outcome.text) == []
    original, fixed = _load(PUSH, "original"), _load(outcome.text, "fixed")
    contents = {
        "plain": "a = 1\n",
        "delimiter line": "a = 1\nEOF\nrm -f keep\n",
        "no final newline": "a = 1",
        "quotes": 'it\'s "q" $HOME `id` \\n\n',
    }
    for label, content in contents.items():
        name = label.replace(" ", "-")  # the paths need no quoting here: HL201's matter
        for function, meant in (("push_lines", content + "\n"), ("push_glued", content)):
            before, after = tmp_path / f"{function}-{name}-1", tmp_path / f"{function}-{name}-2"
            getattr(original, function)(client, str(before), content)
            getattr(fixed, function)(client, str(after), content)
            assert after.read_text() == meant, (function, name)
            breaks = label == "delimiter line" or (
                function == "push_glued" and label != "plain" and not content.endswith("\n")
            )
            if breaks:
                assert not before.exists() or before.read_text() != meant, (function, name)
            else:
                assert before.read_text() == meant, (function, name)


# -- fixes/python_fixes.py ---------------------------------------------------------------


class _Recorder:
    """A stand-in for a paramiko client: keeps the command it is asked to run."""

    def __init__(self) -> None:
        self.commands: list[str] = []

    def exec_command(self, command: str) -> None:
        self.commands.append(command)


def _command_of(program: str, body: str) -> str:
    namespace: dict[str, object] = {}
    exec(compile(program, "t.py", "exec"), namespace)  # noqa: S102 - the fixed test program
    client = _Recorder()
    push = namespace["push"]
    assert callable(push)
    push(client, body)
    (command,) = client.commands
    return command


@pytest.mark.parametrize(
    ("delimiter", "line", "fixed"),
    [
        ("'EOF'", "port=$PORT", True),  # quoted: the `$` is text, base64 keeps it
        ("'EOF'", "port=1", True),
        ("EOF", "port=1", True),  # unquoted, but nothing in it for the shell to expand
        ("EOF", "port=$PORT", False),  # the remote shell would expand it: no fix
    ],
)
def test_hl202_fix_delivers_the_body_bash_would(
    tmp_path: Path, delimiter: str, line: str, fixed: bool
) -> None:
    target = tmp_path / "out"
    program = (
        "def push(c, body: str):\n"
        f'    c.exec_command(f"cat > {target} << {delimiter}\\n{line}\\n{{body}}EOF\\n")\n'
    )
    outcome = fix_kind(program, "python", "t.py", unsafe=True)
    assert outcome.error is None
    assert (outcome.text != program) is fixed
    if not fixed:
        return
    assert "base64 -d" in outcome.text
    # An unquoted heredoc expands a `$` of the run-time value too: that fix is unsafe, and
    # delivers the same bytes only for a value without one.
    body = "it's $HOME\n" if delimiter.startswith("'") else "it's home\n"
    delivered = []
    for source in (program, outcome.text):
        target.unlink(missing_ok=True)
        command = _command_of(source, body)
        env = {"PATH": os.environ["PATH"], "PORT": "22", "HOME": "/home/x"}
        done = subprocess.run(["bash", "-c", command], env=env, capture_output=True, check=False)
        assert done.returncode == 0, done.stderr
        delivered.append(target.read_bytes())
    assert delivered[0] == delivered[1]


# -- HL202: a heredoc body filled in at run time --------------------------------------------


def test_runtime_heredoc_body_is_reported_at_its_operator(tmp_path: Path) -> None:
    """HL202 marks the whole operator, `<<-` (three characters) or `<<` (two); bash shows
    what it warns of: a value holding the line `EOF` ends the body and runs the rest."""
    text = (
        "import paramiko\n\n\ndef push(c, body):\n"
        '    c.exec_command(f"cat <<-EOF > /a\\n{body}\\nEOF\\n")\n'
        '    c.exec_command(f"cat <<EOF > /a\\n{body}\\nEOF\\n")\n'
    )
    found = python_findings(text)
    first = text.index("<<-EOF")
    second = text.index("<<EOF")
    assert [(f.code, f.start, f.end) for f in found] == [
        ("HL202", first, first + 3),
        ("HL202", second, second + 2),
    ]
    body = "x\nEOF\necho ran"
    target = tmp_path / "a"
    for strip in ("-", ""):
        command = f"cat <<{strip}EOF > {target}\n{body}\nEOF\n"
        proc = subprocess.run(["bash", "-c", command], capture_output=True, timeout=30)
        assert proc.stdout == b"ran\n"
        assert target.read_bytes() == b"x\n"


def test_hl202_leaves_a_value_after_the_operator_on_its_line_to_hl201() -> None:
    """`cat <<EOF; echo {x}` with nothing after: the heredoc's body is empty and the value
    is a word of the `echo` command on the operator's line (bash runs it as one), not
    body text; HL201 reports it, HL112 the missing terminator, HL202 nothing."""
    done = subprocess.run(
        ["bash", "-c", "cat <<EOF; echo VALUE"], capture_output=True, text=True, timeout=30
    )
    assert done.stdout == "VALUE\n"
    text = 'def push(c, x):\n    c.exec_command(f"cat <<EOF; echo {x}")\n'
    found = python_findings(text)
    assert [(f.code, text[f.start : f.end]) for f in found] == [("HL112", "<<"), ("HL201", "{x}")]


# -- HL202: run-time values of a workflow are not a Python fragment's ------------------------


_WORKFLOW = """\
on: push
jobs:
  notes:
    runs-on: ubuntu-latest
    steps:
      - run: |
          cat > notes.txt <<EOF
          ${{ github.event.head_commit.message }}
          EOF
          ssh h cd /srv && make
"""


def test_hl202_leaves_a_workflow_expression_in_a_heredoc_body_to_others() -> None:
    """A GitHub Actions `run:` block whose heredoc body holds `${{ ... }}`: the frontend
    marks the expression as a value known only at run time, as the Python frontend marks
    an f-string's `{...}`, but HL202 names and fixes Python values only, so with every rule
    run on every layer (no prefilter) it says nothing there and the block's other finding
    (HL110 on `&&`) is still made.  (Run 7: `return` when the layer has no Python fragment
    made `pass`: HL202 unpacked None and the check crashed.)"""
    for settings in (Settings(prefilter=False), Settings()):
        found = check_text(_WORKFLOW, "actions", ".github/workflows/notes.yml", settings)
        assert [(f.code, _WORKFLOW[f.start : f.end], f.severity.value) for f in found] == [
            ("HL110", "&&", "error")
        ]
        assert "`cd /srv` only changes the state of the remote shell on h" in found[0].message
