"""Pinned behaviours of the Python frontend (frontends/python/), through
`engine.check_text` and the CLI: exact spans, severities, what a message names.

Each test kills a mutant that survived `bench/mutation.py` (issue 20, run 4b,
bench/MUTATION-run4b.md); each was planted by hand, the test failed, and passes without.
"""

from __future__ import annotations

import pytest

from heredoc_lint.engine import Settings, check_text
from heredoc_lint.model import Finding


def _python(text: str, code: str | None = None) -> list[Finding]:
    found = check_text(text, "python", "t.py", Settings())
    return [f for f in found if code is None or f.code == code]


# -- callers.py: a parameter is judged by what the file's own calls pass -------------------

_RENDER = 'import os\n\n\ndef render(path, out="o.mp3"):\n    os.system(f"lame {path} {out}")\n\n\n'


@pytest.mark.parametrize(
    ("call", "severities"),
    [
        # `**opts` may hold `path`: the file does not show it, the parameter is evidence
        ("opts = {}\nrender(**opts)\n", ["warning", "warning"]),
        ('names = ["a.wav"]\nrender(*names)\n', ["warning", "warning"]),
        # a keyword for another parameter says nothing of `path`'s value
        ('import sys\nrender("a.wav", out=sys.argv[1])\n', ["info", "warning"]),
        ('import sys\nrender(sys.argv[1], out="b.mp3")\n', ["warning", "info"]),
        # `out` left to its default: only `path`'s own value counts
        ("import sys\nrender(sys.argv[1])\n", ["warning", "info"]),
        ('render("a.wav")\n', ["info", "info"]),
    ],
)
def test_parameters_are_judged_by_the_calls_in_the_file(call: str, severities: list[str]) -> None:
    """Each of `path` and `out` is outside data exactly when a call of the file passes it
    some (or may, through `**opts`); the findings stay at the two interpolations."""
    found = _python(_RENDER + call, "HL201")
    text = _RENDER + call
    assert [(f.start, f.end) for f in found] == [
        (text.index("{path}"), text.index("{path}") + 6),
        (text.index("{out}"), text.index("{out}") + 5),
    ]
    assert [f.severity.value for f in found] == severities
