"""The severity table (heredoc_lint.severities) in step with the rules, the first-look
figures and the shared cases."""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from heredoc_lint import severities
from heredoc_lint.engine import check_text
from heredoc_lint.model import Severity
from heredoc_lint.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "heredoc_lint"
CASES = ROOT / "tests" / "cases"  # the shared cases of the product contract
# The modules that raise each code's findings besides its rule module.
ALSO_RAISED_IN = {
    "HL001": ["engine.py"],
    "HL002": ["run/suppress.py"],
    "HL109": ["project/launchers.py"],
    "HL201": ["frontends/python/origins.py"],
}


def rule_sources(code: str) -> str:
    module = next((PACKAGE / "rules").glob(f"{code.lower()}_*.py"))
    others = [PACKAGE / name for name in ALSO_RAISED_IN.get(code, [])]
    return "".join(path.read_text() for path in [module, *others])


@pytest.mark.parametrize("code", [rule.code for rule in RULES])
def test_every_row_is_an_evidence_its_rule_names(code: str) -> None:
    rows = severities.rows(code)
    assert rows, f"{code} has no row"
    source = rule_sources(code)
    for evidence, _ in rows:
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", evidence), evidence
        assert f'"{evidence}"' in source or f'"{evidence.rsplit("-local-use")[0]}"' in source, (
            f"{code}: no `{evidence}` in the code that raises it"
        )


def test_a_finding_of_no_row_is_an_error_not_a_default() -> None:
    with pytest.raises(KeyError):
        severities.severity("HL101", "no-such-evidence")


def test_the_rules_severity_is_the_highest_of_its_rows() -> None:
    for rule in RULES:
        tiers = {row.severity for _, row in severities.rows(rule.code)}
        assert rule.severity in tiers
        assert all(t.rank <= rule.severity.rank for t in tiers)


def test_graduation_takes_ten_findings_at_nine_in_ten() -> None:
    look = severities.FirstLook
    assert severities.graduated(look(tp=9, fp=1, debatable=0))
    assert not severities.graduated(look(tp=8, fp=1, debatable=0))  # 9 findings
    assert not severities.graduated(look(tp=17, fp=2, debatable=0))  # 0.89
    assert severities.graduated(look(tp=9, fp=0, debatable=30))  # debatable: not in precision
    assert not severities.graduated(None)


def expected_pairs() -> set[tuple[str, str]]:
    """(code, evidence) of every finding the shared cases expect at default severity."""
    expect = json.loads((CASES / "expect.json").read_text())["cases"]
    pairs = set()
    for name, case in expect.items():
        text = (CASES / name).read_text()
        kind = "python" if name.endswith(".py") else "shell"
        lines = text.splitlines()
        for finding in check_text(text, kind, name):
            line = lines[text.count("\n", 0, finding.start)]
            if any(code == finding.code and snippet in line for code, snippet in case["expect"]):
                pairs.add((finding.code, finding.evidence))
    return pairs


def test_a_pair_measured_below_the_bar_is_info_unless_a_case_needs_it() -> None:
    # Measured on five or more first-look findings below GRADUATE_PRECISION: info, unless
    # a shared case expects it at default severity (then the note says so).
    needed = expected_pairs()
    for (code, evidence), row in severities.TABLE.items():
        look = row.first_look
        if row.severity is Severity.INFO or look is None or look.findings < 5:
            continue
        precision = look.precision
        if precision is not None and precision >= severities.GRADUATE_PRECISION:
            continue  # not below the bar: short of findings to graduate, not measured wrong
        assert (code, evidence) in needed, (code, evidence, look)
        assert row.held, f"{code} {evidence}: say which case holds it"


def first_look_totals() -> dict[str, tuple[int, int, int]]:
    """Per rule, the TP, FP and debatable of bench/corpus/batches.tsv's first looks."""
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    lines = (ROOT / "bench" / "corpus" / "batches.tsv").read_text().splitlines()
    for row in csv.DictReader((line for line in lines if not line.startswith("#")), delimiter="\t"):
        if row["rule"] == "all" or row["TP"] == "-":
            continue
        for i, column in enumerate(("TP", "FP", "debatable")):
            totals[row["rule"]][i] += int(row[column])
    return {code: (tp, fp, deb) for code, (tp, fp, deb) in totals.items()}


def test_the_rows_first_looks_add_up_to_the_batches_figures() -> None:
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for (code, _), row in severities.TABLE.items():
        if row.first_look is not None:
            look = row.first_look
            for i, n in enumerate((look.tp, look.fp, look.debatable)):
                rows[code][i] += n
    for code, look in severities.UNPLACED.items():
        for i, n in enumerate((look.tp, look.fp, look.debatable)):
            rows[code][i] += n
    summed = {code: tuple(counts) for code, counts in rows.items() if any(counts)}
    assert summed == first_look_totals()
