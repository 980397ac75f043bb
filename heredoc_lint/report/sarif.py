"""SARIF 2.1.0 output (OASIS Static Analysis Results Interchange Format).

One run; `tool.driver.rules` holds every rule with its documentation, so that
a viewer (GitHub code scanning, VS Code's SARIF viewer) can show the help of
a finding; each result points at its rule by id and index, and carries its
fix as `fixes[].artifactChanges[].replacements[]`.  Regions use 1-based lines
and columns counted in code points (`columnKind: unicodeCodePoints`), with the
end column exclusive, as in the JSON output.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from heredoc_lint import __version__
from heredoc_lint.model import Finding, Fix, Severity
from heredoc_lint.report.lines import LineIndex
from heredoc_lint.report.output import FileReport
from heredoc_lint.rules import RULES, Rule

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://example.invalid/heredoc-lint"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def artifact_uri(path: str) -> str:
    """A URI reference for a path: relative paths stay relative (to the working directory)."""
    posix = path.replace("\\", "/")
    if posix.startswith("/"):
        return "file://" + quote(posix)
    return quote(posix)


def rule_descriptor(rule: Rule) -> dict[str, Any]:
    doc = rule.doc.strip()
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": " ".join(rule.docs.section("What it does").split())},
        "help": {"text": doc, "markdown": f"# {rule.code} {rule.name}\n\n{doc}"},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"fixable": rule.fixable, "tags": ["shell", "quoting"]},
    }


def _region(index: LineIndex, start: int, end: int) -> dict[str, int]:
    line, column = index.position(start)
    end_line, end_column = index.position(end)
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def _sarif_fix(report: FileReport, fix: Fix, index: LineIndex) -> dict[str, Any]:
    uri = artifact_uri(report.path)
    changes: list[dict[str, Any]] = [
        {
            "artifactLocation": {"uri": uri},
            "replacements": [
                {
                    "deletedRegion": _region(index, edit.start, edit.end),
                    "insertedContent": {"text": edit.content},
                }
                for edit in sorted(fix.edits, key=lambda e: (e.start, e.end))
            ],
        }
    ]
    for new_file in fix.new_files:
        target = str(PurePosixPath(report.path.replace("\\", "/")).parent / new_file.path)
        try:
            content: dict[str, str] = {"text": new_file.content.decode("utf-8")}
        except UnicodeDecodeError:
            import base64

            content = {"binary": base64.b64encode(new_file.content).decode("ascii")}
        changes.append(
            {
                "artifactLocation": {"uri": artifact_uri(target)},
                "replacements": [
                    {
                        "deletedRegion": {"startLine": 1, "startColumn": 1, "endColumn": 1},
                        "insertedContent": content,
                    }
                ],
            }
        )
    return {
        "description": {"text": f"{fix.message} ({fix.applicability.value} fix)"},
        "artifactChanges": changes,
    }


def _fingerprint(report: FileReport, finding: Finding, index: LineIndex, seen: Counter[str]) -> str:
    """Stable across unrelated edits: the rule, the path, the anchored line's text."""
    line, _ = index.position(finding.start)
    key = f"{finding.code}:{report.path}:{index.line_text(line).strip()}"
    seen[key] += 1
    return hashlib.sha256(f"{key}:{seen[key]}".encode()).hexdigest()[:32]


def sarif_result(
    report: FileReport,
    finding: Finding,
    index: LineIndex,
    rule_index: dict[str, int],
    seen: Counter[str],
) -> dict[str, Any]:
    region: dict[str, Any] = {
        **_region(index, finding.start, finding.end),
        "snippet": {"text": report.text[finding.start : finding.end]},
    }
    result: dict[str, Any] = {"ruleId": finding.code}
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    result |= {
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": artifact_uri(report.path)},
                    "region": region,
                }
            }
        ],
        "partialFingerprints": {
            "heredocLintFinding/v1": _fingerprint(report, finding, index, seen)
        },
        "properties": {
            "severity": finding.severity.value,
            "layer": {"depth": finding.depth, "wrapper": finding.wrapper},
            "evidence": finding.evidence,
        },
    }
    if finding.fix is not None:
        result["fixes"] = [_sarif_fix(report, finding.fix, index)]
        result["properties"]["fix"] = {
            "applicability": finding.fix.applicability.value,
            "strategy": finding.fix.strategy,
        }
    return result


def sarif_log(reports: Sequence[FileReport]) -> dict[str, Any]:
    rules = list(RULES)
    rule_index = {rule.code: n for n, rule in enumerate(rules)}
    results: list[dict[str, Any]] = []
    for report in reports:
        index = report.index()
        seen: Counter[str] = Counter()
        results.extend(sarif_result(report, f, index, rule_index, seen) for f in report.findings)
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "heredoc-lint",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": [rule_descriptor(rule) for rule in rules],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def render_sarif(reports: Sequence[FileReport]) -> str:
    return json.dumps(sarif_log(reports), indent=2, ensure_ascii=False) + "\n"
