"""Findings as LSP diagnostics."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types

from heredoc_lint.lsp.positions import Lines
from heredoc_lint.model import Finding, Severity

SOURCE = "heredoc-lint"
# Where the rules are documented: the checkout's docs/rules.md when there is one, else
# the published page.  A client can name another with initializationOptions.rulesDocUrl.
_CHECKOUT_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
PUBLISHED_DOC = "https://github.com/OWNER/heredoc-lint/blob/main/docs/rules.md"

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def default_rules_doc() -> str:
    return _CHECKOUT_DOC.as_uri() if _CHECKOUT_DOC.is_file() else PUBLISHED_DOC


def anchor(code: str, name: str) -> str:
    """The anchor of `## HL101 heredoc-in-remote-string` in docs/rules.md (the same as
    scripts/gen_rules_doc.py's `anchor`)."""
    return f"{code}-{name}".lower()


def to_range(lines: Lines, start: int, end: int, encoding: str) -> types.Range:
    a = lines.position(start, encoding)
    b = lines.position(end, encoding)
    return types.Range(types.Position(*a), types.Position(*b))


def diagnostic(finding: Finding, lines: Lines, encoding: str, rules_doc: str) -> types.Diagnostic:
    from heredoc_lint.rules import rule_by_code

    rule = rule_by_code(finding.code)
    name = rule.name if rule is not None else finding.code
    return types.Diagnostic(
        range=to_range(lines, finding.start, max(finding.end, finding.start), encoding),
        message=f"{name}: {finding.message}",
        severity=_SEVERITY[finding.severity],
        code=finding.code,
        code_description=types.CodeDescription(href=f"{rules_doc}#{anchor(finding.code, name)}"),
        source=SOURCE,
    )


def diagnostics(
    findings: Sequence[Finding], lines: Lines, encoding: str, rules_doc: str
) -> list[types.Diagnostic]:
    return [diagnostic(f, lines, encoding, rules_doc) for f in findings]


def notice(message: str, severity: types.DiagnosticSeverity) -> types.Diagnostic:
    """A diagnostic about the check itself (a broken configuration, a check that ran out
    of time), on the first line."""
    return types.Diagnostic(
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        message=message,
        severity=severity,
        source=SOURCE,
    )
