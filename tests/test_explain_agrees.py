"""`explain` shows the verdicts `check` reports, and no verdict of its own.

Every shell text written in the rule tests (positives and negatives alike) and every
example case is explained and checked; each verdict the layer view prints (HL103's
self-match, HL102 beside an expansion) must be a finding of the check, with the same
severity and message, and each HL103 finding must be shown by the layer view.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

from heredoc_lint.engine import check_text
from heredoc_lint.model import Severity
from heredoc_lint.report.explain import explain

TESTS = Path(__file__).parent
SOURCES = sorted(TESTS.glob("test_rule_*.py")) + [TESTS / "test_rules_core.py"]
TRIGGERS = re.compile(r"\b(ssh|pkill|pgrep|bash -c|sh -c|eval|sudo|docker|kubectl)\b")
VERDICT = re.compile(r"^\s*(HL\d{3}) \[(error|warning|info)\] (.*)$", re.MULTILINE)


def _texts() -> list[tuple[str, str]]:
    """(id, text) of every string constant in the rule tests that names a wrapper or pkill."""
    found: dict[str, str] = {}
    for source in SOURCES:
        tree = ast.parse(source.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                if TRIGGERS.search(text) and text not in found.values():
                    found[f"{source.stem}:{node.lineno}:{len(found)}"] = text
    for case in sorted((TESTS / "cases").glob("*.sh")):
        found[f"cases/{case.name}"] = case.read_text()
    return sorted(found.items())


CASES = _texts()


def test_the_texts_hold_verdicts_of_both_kinds() -> None:
    """The texts hold many findings of each rule the layer view annotates, and an exempt
    lone pkill (the case where explain once disagreed with check)."""
    assert len(CASES) > 200
    codes = Counter(f.code for _, text in CASES for f in check_text(text, "shell", "t.sh"))
    assert codes["HL103"] > 10 and codes["HL102"] > 20
    lone = explain("ssh h 'pkill -f sglang'", "command")
    assert "SELF-MATCH" not in lone and "self-match, not reported" in lone
    assert check_text("ssh h 'pkill -f sglang'", "command") == []


@pytest.mark.parametrize(("name", "text"), CASES, ids=[name for name, _ in CASES])
def test_explain_shows_exactly_the_verdicts_check_reports(name: str, text: str) -> None:
    for kind in ("shell", "command"):
        findings = check_text(text, kind, "t.sh")
        report = explain(text, kind, "t.sh")
        layer_view, _, listed = report.partition("\nFindings (")
        reported = Counter((f.code, f.severity.value, f.message) for f in findings)
        shown = Counter(VERDICT.findall(layer_view))
        # Nothing shown as a verdict that the check does not report...
        assert not shown - reported, (kind, shown - reported)
        # ...and every self-match the check reports is shown in the layer view.
        hl103 = Counter(k for k in reported.elements() if k[0] == "HL103")
        assert not hl103 - shown, (kind, hl103 - shown)
        assert layer_view.count("✗ SELF-MATCH") == sum(hl103.values()), kind
        # The findings block lists what check reports at the default severity.
        if listed:
            count = int(listed.split(")", 1)[0])
            assert count == sum(1 for f in findings if f.severity is not Severity.INFO)
