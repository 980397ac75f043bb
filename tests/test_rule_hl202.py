"""HL202 runtime-heredoc-body: a heredoc in a Python-built shell string filled in at run time.

The finding stands on the `<<` with the value named; the fix sends the body as base64
computed at run time. Run for real through paramiko and the loopback sshd: a content
holding the delimiter line (or without a final newline, for a template that glues the
delimiter to the value) breaks the original, and the fixed code writes the intended bytes
for every content, the ones that worked before included.
"""

from __future__ import annotations

import re
import types
from pathlib import Path

import paramiko  # type: ignore[import-untyped]
import pytest

from heredoc_lint.engine import check_text, fix_kind
from heredoc_lint.model import Applicability, Finding, Severity
from heredoc_lint.rules.hl202_runtime_heredoc_body import RULE

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


POSITIVES = [
    # (call, the delimiter's words in the message, quoted)
    ("c.exec_command(f\"cat > /a << 'EOF'\\n{body}\\nEOF\")", "holding the line `EOF`", True),
    ("c.exec_command(f\"cat > /a << 'EOF'\\n{body}EOF\")", "unless the value ends", True),
    ('c.exec_command(f"cat > /a <<EOF\\n{body}\\nEOF")', "holding the line `EOF`", False),
    ('c.exec_command("tee /a << \'END\'\\n" + body + "\\nEND")', "the line `END`", True),
    ("subprocess.run(['ssh', h, f\"cat > /a << 'EOF'\\n{body}\\nEOF\"])", "`EOF`", True),
    ("subprocess.run(f\"cat > /a << 'EOF'\\n{body}\\nEOF\", shell=True)", "`EOF`", True),
]


@pytest.mark.parametrize(("call", "words", "quoted"), POSITIVES)
def test_positive(call: str, words: str, quoted: bool) -> None:
    text = f"import subprocess\ndef push(c, h, body):\n    {call}\n"
    (f,) = hl202(text)
    start = text.index("<<")
    assert (f.start, f.end, f.severity) == (start, start + 2, Severity.WARNING)
    assert "filled in at run time from `body`" in f.message and words in f.message
    assert ("are expanded" in f.message) is not quoted
    # HL202 replaces HL101 for that heredoc
    assert [g.code for g in check_text(text, "python", "t.py") if g.code == "HL101"] == []


NEGATIVES = [
    "c.exec_command(\"cat > /a << 'EOF'\\nconstant\\nEOF\")",  # nothing at run time
    "c.exec_command(f\"cat > {path} << 'EOF'\\nconstant\\nEOF\")",  # the value is outside
    'c.exec_command(f"printf %s {body} | base64 -d > /a")',  # no heredoc
    "subprocess.run(['ssh', h, 'cat > /a'], input=body, text=True)",  # stdin, locally
]


@pytest.mark.parametrize("call", NEGATIVES)
def test_negative(call: str) -> None:
    text = f"import subprocess\ndef push(c, h, body, path):\n    {call}\n"
    assert hl202(text) == []


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
