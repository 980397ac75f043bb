"""The recall bench's manifest and its matching rule (bench/bench_recall.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import bench_recall  # noqa: E402
from bench_recall import Bug, Finding, matching, parse_findings, read_manifest, verdict  # noqa: E402

RULES = {f"HL{n}" for n in (101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 201, 202)}


@pytest.fixture(scope="module")
def bugs() -> list[Bug]:
    return read_manifest(bench_recall.MANIFEST)


def test_manifest_rows_are_well_formed(bugs: list[Bug]) -> None:
    assert bugs, "the manifest is empty"
    for bug in bugs:
        where = f"{bug.repo} {bug.path}:{bug.line}"
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", bug.repo), where
        assert re.fullmatch(r"[0-9a-f]{40}", bug.commit), where
        assert bug.line > 0 and all(n > 0 for n in bug.also_lines), where
        assert bug.rule in RULES, where
        assert re.fullmatch(r"[a-z][a-z-]*", bug.shape), where
        assert bug.runtime.strip(), f"{where}: no measured runtime"
        assert (bench_recall.REPRODUCERS / bug.reproducer).is_file(), f"{where}: {bug.reproducer}"
        assert not Path(bug.path).is_absolute() and ".." not in Path(bug.path).parts, where


def test_manifest_has_no_duplicate_bug(bugs: list[Bug]) -> None:
    keys = [(b.repo, b.commit, b.path, b.line, b.rule) for b in bugs]
    assert len(keys) == len(set(keys))


def test_every_reproducer_prints_what_it_observed() -> None:
    for path in bench_recall.REPRODUCERS.iterdir():
        if path.is_file() and path.suffix in (".sh", ".py"):
            assert "OBSERVED:" in path.read_text(), path.name


def _bug(line: int = 10, also: tuple[int, ...] = (), rule: str = "HL103") -> Bug:
    return Bug("o/r", "0" * 40, "deploy.sh", line, also, rule, "plain", "x", "r.sh", "s", "")


def _finding(
    line: int,
    code: str = "HL103",
    severity: str = "error",
    end: int | None = None,
    path: str = "deploy.sh",
) -> Finding:
    return Finding(path, line, end if end is not None else line, code, severity)


def test_found_at_default_severity_on_the_bug_line() -> None:
    assert verdict(_bug(), [_finding(10)]) == "default"
    assert verdict(_bug(), [_finding(10, severity="warning")]) == "default"


def test_info_only_counts_as_found_at_any_severity() -> None:
    assert verdict(_bug(), [_finding(10, severity="info")]) == "info"


def test_other_rule_other_file_or_other_line_is_missed() -> None:
    assert verdict(_bug(), [_finding(10, code="HL102")]) == "missed"
    assert verdict(_bug(), [_finding(10, path="other.sh")]) == "missed"
    assert verdict(_bug(), [_finding(11)]) == "missed"
    assert verdict(_bug(), []) == "missed"


def test_also_lines_and_spanning_findings_count() -> None:
    assert verdict(_bug(also=(4, 20)), [_finding(20)]) == "default"
    assert verdict(_bug(line=12), [_finding(9, end=14)]) == "default"
    assert verdict(_bug(line=15), [_finding(9, end=14)]) == "missed"


def test_a_default_finding_wins_over_an_info_one() -> None:
    found = [_finding(10, severity="info"), _finding(10, severity="error")]
    assert verdict(_bug(), found) == "default"
    assert len(matching(_bug(), found)) == 2


def test_parse_findings_reads_the_tool_json() -> None:
    raw = [{"code": "HL104", "path": "./a/b.sh", "line": 3, "end_line": 5, "severity": "warning"}]
    assert parse_findings(raw) == [Finding("a/b.sh", 3, 5, "HL104", "warning")]
