"""tree-sitter-bash 0.25 reads the `0` of `cmd x 0<f` as an argument; bash reads it as
the redirection's descriptor. The shell model follows bash (checked with bash itself)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import rulekit as kit

from heredoc_lint.shell.syntax import parse_script

CASES = [
    "args x 0</dev/null",
    "args x 0<&0",
    "args x 2>&1",
    "args 0 </dev/null",
    "args x 10>/dev/null",
]


def bash_argv(line: str) -> list[str]:
    script = "args() { printf '<%s>' \"$@\"; }\n" + line + "\n"
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    return out.stdout[1:-1].split("><") if out.stdout else []


@pytest.mark.parametrize("line", CASES)
def test_words_and_descriptors_are_what_bash_uses(line: str) -> None:
    (command,) = parse_script(line + "\n").commands
    assert [w.value for w in command.words[1:]] == bash_argv(line)
    (redirect,) = command.redirects
    before_op = line[redirect.start : redirect.start + len(str(redirect.fd))]
    if redirect.fd is not None:
        assert before_op == str(redirect.fd)
    else:
        assert line[redirect.start] in "<>"


# -- shell/syntax.py: a number touching a redirection --------------------------------------


_AFTER = 'ssh h "pkill -f hlmutf; echo after"\n'


def test_a_hex_or_based_number_before_a_redirection_is_an_argument(tmp_path: Path) -> None:
    """`echo 0x1>out`: tree-sitter reads `0x1` as a number touching the `>`, but only
    digits make a descriptor: bash writes `0x1` into `out` (and `64#z`); the script is
    checked as usual, HL103 at the `pkill` after it (syntax `glue_descriptor`'s
    digits test)."""
    head = "echo 0x1>out\necho 64#z>>out\n"
    subprocess.run(["bash", "-c", head], cwd=tmp_path, check=True, timeout=30)
    assert (tmp_path / "out").read_text() == "0x1\n64#z\n"
    text = head + _AFTER
    at = text.index("pkill")
    (f,) = kit.findings(text, "HL103")
    assert (f.start, f.end) == (at, at + len("pkill"))
