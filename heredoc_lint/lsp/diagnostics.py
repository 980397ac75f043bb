"""Findings as LSP diagnostics."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types

from heredoc_lint.lsp.positions import Lines
from heredoc_lint.model import Finding, Severity
from heredoc_lint.rules.doc import anchor

SOURCE = "heredoc-lint"
# Where the rules are documented: the checkout's docs/rules.md when there is one, else
# the same page rendered for this version into the user's cache.  A client can name
# another with initializationOptions.rulesDocUrl.
_CHECKOUT_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def default_rules_doc(cache_home: Path | None = None) -> str:
    if _CHECKOUT_DOC.is_file():
        return _CHECKOUT_DOC.as_uri()
    return rendered_rules_doc(cache_home).as_uri()


def rendered_rules_doc(cache_home: Path | None = None) -> Path:
    """docs/rules.md of this version, written once under `$XDG_CACHE_HOME/heredoc-lint`
    (or the temp directory when that cannot be written)."""
    import os
    import tempfile

    from heredoc_lint import __version__
    from heredoc_lint.rules.doc import render

    if cache_home is None:
        cache_home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    page = render()
    for folder in (cache_home / "heredoc-lint", Path(tempfile.gettempdir())):
        path = folder / f"heredoc-lint-rules-{__version__}.md"
        try:
            if not path.is_file() or path.read_text(encoding="utf-8") != page:
                folder.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
                tmp.write_text(page, encoding="utf-8")
                os.replace(tmp, path)
            return path
        except OSError:
            continue
    return path


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
