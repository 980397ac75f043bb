"""Pinned behaviours of the rules, through `engine.check_text`/`check_shell` and the CLI.

Each test kills a mutant that survived `bench/mutation.py` (issue 20, run 5e,
bench/MUTATION.md, section 11); each was planted by hand in a scratch copy of the tree, the
test failed there, and passes without it.  Bash is the oracle of every shell claim.
"""

from __future__ import annotations

import subprocess

import pytest

from heredoc_lint.engine import Settings, check_text
from heredoc_lint.model import Finding


def _python(text: str, code: str | None = None) -> list[Finding]:
    found = check_text(text, "python", "t.py", Settings())
    return [f for f in found if code is None or f.code == code]


def _bash(command: str) -> str:
    return subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, check=False, timeout=30
    ).stdout


# -- HL201: a value that escapes by hand what matters in its quotes ---------------------------

# Text read with input(): free text, so a value that carries its own quoting is still
# judged by what it escapes (hl201 `_escaped_for`).
_HOSTILE = (
    "x'; echo INJECTED; '",
    '"; echo INJECTED; "',
    "$(echo INJECTED)",
    "`echo INJECTED`",
    "a\\",
)
_REPLACED_QUOTE = """.replace("'", "'\\\\''")"""
_ALL_DOUBLE = (
    """.replace("\\\\", "\\\\\\\\").replace('"', '\\\\"')"""
    """.replace("$", "\\\\$").replace("`", "\\\\`")"""
)


def _python_command(template: str, chain: str, value: str) -> str:
    """The command Python builds with `template % p<chain>` for `value`."""
    namespace: dict[str, str] = {"p": value}
    return str(eval(f"{template!r} % p{chain}", namespace))  # noqa: S307 - our own text


@pytest.mark.parametrize(
    ("template", "chain", "reported"),
    [
        # `'` replaced by `'\''` inside single quotes: bash prints the value as it is.
        ("echo '%s'", _REPLACED_QUOTE, False),
        # the same value inside double quotes: `$(...)`, backticks and `"` still work.
        ('echo "%s"', _REPLACED_QUOTE, True),
        # every character that matters inside double quotes escaped: one word again.
        ('echo "%s"', _ALL_DOUBLE, False),
        # `"` escaped, but the value is inside single quotes, where `'` ends them.
        ("echo '%s'", """.replace('"', '\\\\"')""", True),
        # a replace chain that escapes nothing of the shell's.
        ("echo '%s'", """.replace("x", "y")""", True),
    ],
)
def test_hl201_value_escaped_by_hand_for_its_quotes(
    template: str, chain: str, reported: bool
) -> None:
    """HL201 stays silent exactly when bash, given the command Python builds for a hostile
    input, runs nothing of it (hl201 `_escaped_for`: `state is Quote.SINGLE` flipped, and
    `or` -> `and` in the test that skips a value)."""
    text = f"import os\n\n\ndef run():\n    p = input()\n    os.system({template!r} % p{chain})\n"
    found = _python(text, "HL201")
    outputs = [_bash(_python_command(template, chain, value)) for value in _HOSTILE]
    if not reported:
        assert outputs == [f"{value}\n" for value in _HOSTILE]
        assert found == []
        return
    assert any("INJECTED" in output for output in outputs), outputs
    start = text.index("%s")  # the finding marks the placeholder the value goes into
    # input() is `input` evidence: info by default since its first look on real code.
    assert [(f.start, f.end, f.severity.value, f.evidence) for f in found] == [
        (start, start + 2, "info", "input")
    ]
    assert "it is read from" in found[0].message


# -- HL111: a string two shells down an argv -------------------------------------------------


def test_hl111_two_shells_below_an_argv() -> None:
    """`subprocess.run(["ssh", host, "bash -c '...'"])`: no local shell reads the argv, so
    the `bash -c` string is parsed by two shells (the remote login shell, bash): no
    HL111, and the string's layer, two deep under a root that no wrapper word made, is
    read without error (hl111: the depth-2 check stops where the outer layer has no
    wrapper word)."""
    text = r"""import subprocess
import sys

host = sys.argv[1]
subprocess.run(["ssh", host, "bash -c 'echo $HOME'"])
subprocess.run(["ssh", host, "sudo sh -c 'echo \"$HOME\" > /tmp/x'"])
"""
    compile(text, "t.py", "exec")  # the file is Python
    found = _python(text)
    assert [f.code for f in found if f.code == "HL111"] == []
