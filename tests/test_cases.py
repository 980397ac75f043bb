"""The example cases of the product contract, with their expected findings.

`tests/cases/expect.json` lists, per case, [code, a substring of the anchor
line] at the default severity; every other finding is a false positive.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heredoc_lint.engine import check_shell
from heredoc_lint.model import Severity
from heredoc_lint.report.lines import LineIndex

CASES = Path(__file__).parent / "cases"
EXPECT = json.loads((CASES / "expect.json").read_text())["cases"]
SHELL_CASES = sorted(name for name in EXPECT if name.endswith(".sh"))


def _anchor_line(text: str, needle: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} is on no line")


@pytest.mark.parametrize("name", SHELL_CASES)
def test_case_findings(name: str) -> None:
    text = (CASES / name).read_text()
    spec = EXPECT[name]
    index = LineIndex(text)
    found = sorted(
        (f.code, index.position(f.start)[0])
        for f in check_shell(text, name)
        if f.severity.rank >= Severity.WARNING.rank and f.code not in spec.get("allow", [])
    )
    expected = sorted((code, _anchor_line(text, needle)) for code, needle in spec["expect"])
    assert found == expected


def test_every_shell_case_is_covered() -> None:
    on_disk = {p.name for p in CASES.glob("*.sh")}
    assert on_disk == set(SHELL_CASES)
