"""Applying fixes: non-overlapping edits per pass, re-check, at most 10 passes, rollback."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from heredoc_lint.model import Applicability, Edit, Finding, Fix, NewFile

MAX_PASSES = 10


@dataclass(frozen=True)
class FixOutcome:
    text: str
    fixed: int  # findings whose fix was applied
    passes: int
    remaining: tuple[Finding, ...]
    new_files: tuple[NewFile, ...] = ()
    error: str | None = None  # why a pass was rolled back


def applicable(fix: Fix | None, unsafe: bool) -> bool:
    if fix is None:
        return False
    if fix.applicability is Applicability.SAFE:
        return True
    return unsafe and fix.applicability is Applicability.UNSAFE


def _overlaps(a: Edit, b: Edit) -> bool:
    if a.start == a.end and b.start == b.end:
        return a.start == b.start
    return (
        a.start < b.end
        and b.start < a.end
        or (a.start == a.end and b.start < a.start < b.end)
        or (b.start == b.end and a.start < b.start < a.end)
    )


_LONE_LF = re.compile(r"(?<!\r)\n")


def _newline_style(text: str, content: str) -> str:
    """New lines follow the file: CRLF in a file whose every line ends in CRLF."""
    if "\n" in content and "\r\n" in text and not _LONE_LF.search(text):
        return _LONE_LF.sub("\r\n", content)
    return content


def apply_fixes(text: str, fixes: Iterable[Fix]) -> tuple[str, list[Fix]]:
    """Apply every fix that overlaps no fix taken before it; return the text and those fixes."""
    taken: list[Fix] = []
    edits: list[Edit] = []
    seen: set[Edit] = set()
    for fix in sorted(set(fixes), key=lambda f: min((e.start for e in f.edits), default=0)):
        # An edit that another fix makes too (the same `import shlex`) is shared, not a clash.
        new = [e for e in fix.edits if e not in seen]
        if any(_overlaps(e, other) for e in new for other in edits):
            continue
        taken.append(fix)
        edits.extend(new)
        seen.update(new)
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[: edit.start] + _newline_style(text, edit.content) + text[edit.end :]
    return text, taken


def fix_text(
    text: str,
    check: Callable[[str], tuple[list[Finding], int]],
    parse_errors: Callable[[str], int],
    unsafe: bool = False,
    findings: list[Finding] | None = None,
) -> FixOutcome:
    """Fix `text` until no applicable fix is left, re-checking after every pass.

    `check` gives a text's findings and how many of its layers do not parse;
    `parse_errors` the latter alone.  `findings`, when given, are those of `text`.
    A pass that makes a layer unparsable (more parse errors than `text` has) is rolled
    back, and the outcome says why.
    """
    original = text
    errors_before: int | None = None
    if findings is None:
        findings, errors_before = check(text)
    fixed = 0
    new_files: dict[str, NewFile] = {}
    for passes in range(1, MAX_PASSES + 1):
        fixes = [f.fix for f in findings if f.fix is not None and applicable(f.fix, unsafe)]
        if not fixes:
            return FixOutcome(text, fixed, passes - 1, tuple(findings), tuple(new_files.values()))
        candidate, taken = apply_fixes(text, fixes)
        if candidate == text:
            break
        candidate_findings, errors = check(candidate)
        if errors and errors_before is None:  # only then is the count before needed
            errors_before = parse_errors(original)
        if errors_before is not None and errors > errors_before:
            codes = sorted({f.code for f in findings if f.fix in taken})
            return FixOutcome(
                text,
                fixed,
                passes,
                tuple(findings),
                tuple(new_files.values()),
                f"fix failed: the fix for {', '.join(codes)} made the code "
                "unparsable; it was not applied",
            )
        fixed += sum(1 for f in findings if f.fix in taken)
        for fix in taken:
            new_files.update({n.path: n for n in fix.new_files})
        text, findings = candidate, candidate_findings
    return FixOutcome(text, fixed, MAX_PASSES, tuple(findings), tuple(new_files.values()))
