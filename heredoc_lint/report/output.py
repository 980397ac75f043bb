"""Output formats.  They see findings and file text, never layers or rules' internals."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from heredoc_lint.model import Finding, Fix
from heredoc_lint.report.lines import LineIndex

WINDOW = 100  # characters of a long source line shown around the caret

# C0 and C1 controls, DEL and the Unicode line separators: each starts a new line, moves
# the cursor or opens a terminal escape; in a CI log a new line can start a workflow
# command (`::error ...`).  Shown as Python writes them in a string.
_CONTROLS = {c: repr(chr(c))[1:-1] for c in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)}


def printable(text: str) -> str:
    """`text` on one line with its control characters escaped (`a\\nb`), for a file name
    or message printed as text: a name cannot start a line of its own."""
    return text.translate(_CONTROLS)


@dataclass(frozen=True)
class FileReport:
    path: str
    text: str
    findings: tuple[Finding, ...]

    def index(self) -> LineIndex:
        return LineIndex(self.text)


def _name(code: str) -> str:
    from heredoc_lint.rules import rule_by_code  # the rule table, only when there is output

    rule = rule_by_code(code)
    return rule.name if rule else code


def _fix_json(fix: Fix | None, index: LineIndex) -> dict[str, Any] | None:
    if fix is None:
        return None
    edits = []
    for edit in fix.edits:
        line, column = index.position(edit.start)
        end_line, end_column = index.position(edit.end)
        edits.append(
            {
                "line": line,
                "column": column,
                "end_line": end_line,
                "end_column": end_column,
                "content": edit.content,
            }
        )
    return {
        "applicability": fix.applicability.value,
        "strategy": fix.strategy,
        "message": fix.message,
        "edits": edits,
    }


def finding_json(report: FileReport, finding: Finding, index: LineIndex) -> dict[str, Any]:
    line, column = index.position(finding.start)
    end_line, end_column = index.position(finding.end)
    return {
        "code": finding.code,
        "name": _name(finding.code),
        "severity": finding.severity.value,
        "message": finding.message,
        "path": report.path,
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "layer": {"depth": finding.depth, "wrapper": finding.wrapper},
        "evidence": finding.evidence,
        "fix": _fix_json(finding.fix, index),
    }


def render_json(reports: Sequence[FileReport]) -> str:
    import json

    items: list[dict[str, Any]] = []
    for report in reports:
        index = report.index()
        items.extend(finding_json(report, f, index) for f in report.findings)
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"


def render_concise(reports: Sequence[FileReport]) -> str:
    lines = []
    for report in reports:
        index = report.index()
        for f in report.findings:
            line, column = index.position(f.start)
            lines.append(
                printable(f"{report.path}:{line}:{column}: {f.code} [{f.severity.value}] ")
                + printable(f.message)
            )
    return "".join(line + "\n" for line in lines)


def _escape_github(text: str, *, property_value: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def render_github(reports: Sequence[FileReport]) -> str:
    level = {"error": "error", "warning": "warning", "info": "notice"}
    lines = []
    for report in reports:
        index = report.index()
        for f in report.findings:
            line, column = index.position(f.start)
            end_line, end_column = index.position(f.end)
            props = ",".join(
                [
                    f"file={_escape_github(report.path, property_value=True)}",
                    f"line={line}",
                    f"col={column}",
                    f"endLine={end_line}",
                    f"endColumn={end_column}",
                    f"title={_escape_github(f.code + ' ' + _name(f.code), property_value=True)}",
                ]
            )
            lines.append(f"::{level[f.severity.value]} {props}::{_escape_github(f.message)}")
    return "".join(line + "\n" for line in lines)


def _frame(index: LineIndex, finding: Finding, colour: bool) -> list[str]:
    line, column = index.position(finding.start)
    end_line, end_column = index.position(finding.end)
    source = index.line_text(line).expandtabs(1)
    width = max(1, (end_column - column) if end_line == line else len(source) - column + 1)
    start = 0
    if len(source) > WINDOW:
        start = max(0, min(column - 1 - WINDOW // 2, len(source) - WINDOW))
        shown = source[start : start + WINDOW]
        prefix = "…" if start else ""
        suffix = "…" if start + WINDOW < len(source) else ""
        source = prefix + shown + suffix
        start -= len(prefix)
    gutter = " " * len(str(line))
    caret = " " * (column - 1 - start) + "^" * min(width, WINDOW)
    if colour:
        caret = f"\x1b[1;31m{caret}\x1b[0m"
    return [f"{gutter} |", f"{line} | {source}", f"{gutter} | {caret}", f"{gutter} |"]


def render_text(reports: Sequence[FileReport], colour: bool = False) -> str:
    out: list[str] = []
    counts: Counter[str] = Counter()
    fixable = 0
    for report in reports:
        index = report.index()
        for f in report.findings:
            counts[f.severity.value] += 1
            line, column = index.position(f.start)
            path, message = printable(report.path), printable(f.message)
            head = f"{path}:{line}:{column}: {f.code} [{f.severity.value}] {message}"
            if colour:
                head = (
                    f"\x1b[1m{path}\x1b[0m:{line}:{column}: \x1b[1;31m{f.code}\x1b[0m "
                    f"[{f.severity.value}] {message}"
                )
            out.append(head)
            out.extend(_frame(index, f, colour))
            if f.fix is not None:
                fixable += f.fix.applicability.value == "safe"
                out.append(f"  = help: {f.fix.message} ({f.fix.applicability.value} fix)")
            out.append("")
    total = sum(counts.values())
    if total:
        parts = ", ".join(f"{counts[k]} {k}" for k in ("error", "warning", "info") if counts[k])
        out.append(f"Found {total} finding{'s' if total != 1 else ''} ({parts}).")
        if fixable:
            out.append(f"[*] {fixable} fixable with `--fix`.")
    return "".join(line + "\n" for line in out)


def render_statistics(reports: Sequence[FileReport]) -> str:
    counts: Counter[str] = Counter(f.code for r in reports for f in r.findings)
    return "".join(f"{n:5d}\t{code}\t{_name(code)}\n" for code, n in sorted(counts.items()))


RENDERERS = {
    "text": render_text,
    "concise": render_concise,
    "json": render_json,
    "github": render_github,
}
