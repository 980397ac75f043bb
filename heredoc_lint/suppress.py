"""Inline suppressions: `# heredoc-lint: disable=HL101`, `disable-file=...`, `# noqa: HL101`.

A directive at the end of a line, or alone on the line before, silences the
named codes for findings on that line. Because a finding often sits inside a
string that spans many lines, where no comment can go, a directive on the
first line of a statement (or alone just before it), or at the end of its last
line (after the closing quote), covers the whole statement.

A ShellCheck directive for the same bug counts as one of ours: `# shellcheck
disable=SC2087` silences HL107, SC2029 HL102 and SC2024 HL109, where it stands
(ShellCheck's own scope, the next command, is the statement after it here too).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from heredoc_lint.model import Finding, Severity
from heredoc_lint.source import LineIndex

_DIRECTIVE = re.compile(
    r"#\s*heredoc-lint:\s*(?P<kind>disable-file|disable)\s*=\s*(?P<codes>[A-Za-z0-9_, ]+)"
)
# A ShellCheck directive for the same bug says the author knows: SC2087 (an unquoted
# heredoc to ssh expands on the client side), SC2029 (an ssh string expands on the client
# side), SC2024 (sudo does not affect redirects).
_SHELLCHECK = re.compile(r"#\s*shellcheck\s+disable\s*=\s*(?P<codes>[A-Za-z0-9_, ]+)")
SHELLCHECK_CODES = {"SC2087": "HL107", "SC2029": "HL102", "SC2024": "HL109"}
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z0-9_, ]+))?", re.IGNORECASE)
_ALL = frozenset({"ALL"})


@dataclass(frozen=True)
class Directive:
    line: int  # 1-based
    codes: frozenset[str]
    whole_file: bool
    alone: bool  # the comment is the only thing on its line: it covers the next line
    start: int  # file offset of the comment, for an unused-suppression finding
    end: int
    foreign: bool = False  # another tool's directive: never reported as unused


def _codes(text: str | None) -> frozenset[str]:
    if not text:
        return _ALL
    return frozenset(c.strip().upper() for c in text.split(",") if c.strip())


def _shellcheck_codes(text: str) -> frozenset[str]:
    """Our codes for the ShellCheck codes of a `shellcheck disable=` directive."""
    return frozenset(
        SHELLCHECK_CODES[c.strip().upper()]
        for c in text.split(",")
        if c.strip().upper() in SHELLCHECK_CODES
    )


def directives(text: str, python: bool = False) -> list[Directive]:
    found: list[Directive] = []
    shellcheck = "shellcheck" in text
    if "heredoc-lint:" not in text and not shellcheck and not (python and "noqa" in text.lower()):
        return found
    offset = 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        matches = [
            (m, _codes(m.group("codes")), m.group("kind") == "disable-file", False)
            for m in _DIRECTIVE.finditer(line)
        ]
        if python:
            matches += [(m, _codes(m.group("codes")), False, False) for m in _NOQA.finditer(line)]
        if shellcheck and not python:
            for m in _SHELLCHECK.finditer(line):
                codes = _shellcheck_codes(m.group("codes"))
                if codes:
                    matches.append((m, codes, False, True))
        for match, codes, whole_file, foreign in matches:
            alone = line[: match.start()].strip() == ""
            found.append(
                Directive(
                    number,
                    codes,
                    whole_file,
                    alone,
                    offset + match.start(),
                    offset + match.end(),
                    foreign,
                )
            )
        offset += len(line)
    return found


def _covers(codes: frozenset[str], code: str) -> bool:
    return codes == _ALL or any(code.startswith(c) for c in codes)


def apply(
    text: str,
    findings: Sequence[Finding],
    statements: Iterable[tuple[int, int]],
    *,
    python: bool = False,
    report_unused: bool = False,
) -> list[Finding]:
    """The findings no directive silences, plus unused directives when asked."""
    found = directives(text, python)
    if not found:
        return list(findings)
    index = LineIndex(text)
    # For each line, the first and last line of the innermost statement around it: inner
    # statements start later, so painting in order of start leaves the innermost on top.
    first_of: dict[int, int] = {}
    last_of: dict[int, int] = {}
    for a, b in sorted(statements):
        first, last = index.position(a)[0], index.position(max(a, b - 1))[0]
        for line in range(first, last + 1):
            first_of[line], last_of[line] = first, last
    by_line: dict[int, list[Directive]] = {}
    whole_file = [d for d in found if d.whole_file]
    for directive in found:
        if not directive.whole_file:
            by_line.setdefault(directive.line + 1 if directive.alone else directive.line,
                               []).append(directive)
    used: set[Directive] = set()
    kept: list[Finding] = []
    for finding in findings:
        line = index.position(finding.start)[0]
        # A directive covers its line, and a statement from its first or its last line.
        places = {line, first_of.get(line, line), last_of.get(line, line)}
        candidates = whole_file + [d for place in places for d in by_line.get(place, [])]
        hit = next((d for d in candidates if _covers(d.codes, finding.code)), None)
        if hit is None:
            kept.append(finding)
        else:
            used.add(hit)
    if report_unused:
        for directive in found:
            ours = directive.codes == _ALL or any(c.startswith("HL") for c in directive.codes)
            if directive not in used and ours and not directive.foreign:
                codes = ",".join(sorted(directive.codes))
                kept.append(
                    Finding(
                        "HL002",
                        Severity.WARNING,
                        f"This suppression ({codes}) silences no finding",
                        directive.start,
                        directive.end,
                    )
                )
    return kept
