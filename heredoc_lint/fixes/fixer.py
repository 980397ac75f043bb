"""Applying fixes: non-overlapping edits per pass, re-check, at most 10 passes, rollback."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import pairwise

from heredoc_lint.model import Applicability, Edit, Finding, Fix, NewFile, Severity, reported

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


_LONE_LF = re.compile(r"(?<!\r)\n")


def _newline_style(text: str, content: str) -> str:
    """New lines follow the file: CRLF in a file whose every line ends in CRLF."""
    if "\n" in content and "\r\n" in text and not _LONE_LF.search(text):
        return _LONE_LF.sub("\r\n", content)
    return content


class _Taken:
    """The edits taken so far, asked whether a new edit overlaps one in logarithmic time
    (two insertions overlap at one place; an insertion and a replacement when it falls
    strictly inside; two replacements when their ranges meet): comparing each new edit
    with every edit taken was quadratic (8,000 fixes in one command: 41 s).

    Non-empty edits: the greatest end among those starting before a position (a Fenwick
    tree of maxima, in a dict: a 10 MB file with few edits needs no 10 M list).  Empty
    edits: how many sit at or before a position (a Fenwick tree of counts), and where."""

    def __init__(self, size: int) -> None:
        self.size = size + 2  # positions 0..size, shifted by one: a Fenwick tree counts from 1
        self.ends: dict[int, int] = {}
        self.counts: dict[int, int] = {}
        self.points: set[int] = set()

    def _max_end(self, before: int) -> int:
        """The greatest end of a non-empty edit that starts before `before`, or -1."""
        best, i = -1, before  # edit starts 0..before-1 are tree positions 1..before
        while i > 0:
            best = max(best, self.ends.get(i, -1))
            i -= i & -i
        return best

    def _points_upto(self, position: int) -> int:
        """How many empty edits sit at or before `position`."""
        total, i = 0, position + 1
        while i > 0:
            total += self.counts.get(i, 0)
            i -= i & -i
        return total

    def overlaps(self, edit: Edit) -> bool:
        if edit.start == edit.end:
            return edit.start in self.points or self._max_end(edit.start) > edit.start
        if self._max_end(edit.end) > edit.start:
            return True
        return self._points_upto(edit.end - 1) > self._points_upto(edit.start)

    def add(self, edit: Edit) -> None:
        if edit.start == edit.end:
            self.points.add(edit.start)
            i = edit.start + 1
            while i < self.size:
                self.counts[i] = self.counts.get(i, 0) + 1
                i += i & -i
        else:
            i = edit.start + 1
            while i < self.size:
                self.ends[i] = max(self.ends.get(i, -1), edit.end)
                i += i & -i


def apply_fixes(text: str, fixes: Iterable[Fix]) -> tuple[str, list[Fix]]:
    """Apply every fix that overlaps no fix taken before it; return the text and those fixes."""
    taken: list[Fix] = []
    edits: list[Edit] = []
    seen: set[Edit] = set()
    # Deduplicated in the order given: a set's order follows string hashes, which change
    # with PYTHONHASHSEED, and two fixes that start at the same place must not take turns.
    unique = list(dict.fromkeys(fixes))
    index = _Taken(max([len(text)] + [e.end for f in unique for e in f.edits]))
    for fix in sorted(unique, key=lambda f: min((e.start for e in f.edits), default=0)):
        # An edit that another fix makes too (the same `import shlex`) is shared, not a clash.
        new = [e for e in fix.edits if e not in seen]
        if any(index.overlaps(e) for e in new):
            continue
        taken.append(fix)
        edits.extend(new)
        seen.update(new)
        for e in new:
            index.add(e)
    return _splice(text, sorted(edits, key=lambda e: (e.start, e.end), reverse=True)), taken


def _splice(text: str, edits: list[Edit]) -> str:
    """`text` with `edits` (last first) made one after the other, each to the text the
    ones before it left, its new lines in the style of that text (_newline_style).

    Copying the whole text once per edit, and searching all of it for a lone LF, was
    quadratic: when no edit reaches into the text an edit after it changed, the pieces
    are joined once, and the counts of CRLFs and lone LFs are kept up to date from the
    few characters around each edit."""
    if any(later.end > earlier.start for earlier, later in pairwise(edits)):
        for edit in edits:  # overlapping edits of one fix: as the text changes
            text = text[: edit.start] + _newline_style(text, edit.content) + text[edit.end :]
        return text
    crlf, lone = text.count("\r\n"), len(_LONE_LF.findall(text))
    pieces: list[str] = []
    cut = len(text)  # the text is text[:cut] and then the pieces, in reverse
    head = ""  # the first character of the pieces
    for edit in edits:
        start, end, content = edit.start, edit.end, edit.content
        if "\n" in content and crlf and not lone:
            content = _LONE_LF.sub("\r\n", content)
        before = text[start - 1 : start] if start else ""
        after = text[end] if end < cut else head
        old = before + text[start:end] + after
        new = before + content + after
        crlf += new.count("\r\n") - old.count("\r\n")
        lone += len(_LONE_LF.findall(new)) - len(_LONE_LF.findall(old))
        head = content[:1] or after
        pieces.append(text[end:cut])
        pieces.append(content)
        cut = start
    pieces.append(text[:cut])
    return "".join(reversed(pieces))


def fix_text(
    text: str,
    check: Callable[[str], tuple[list[Finding], int]],
    parse_errors: Callable[[str], int],
    unsafe: bool = False,
    findings: list[Finding] | None = None,
    threshold: Severity = Severity.INFO,
) -> FixOutcome:
    """Fix `text` until no applicable fix is left, re-checking after every pass.

    `check` gives a text's findings and how many of its layers do not parse;
    `parse_errors` the latter alone.  `findings`, when given, are those of `text`.
    Only the findings a run with the lowest severity `threshold` reports are fixed
    (model.reported), in every pass, and only they are counted: a file on which such a
    run reports nothing is left as it is.
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
        chosen = [f for f in reported(findings, threshold) if applicable(f.fix, unsafe)]
        fixes = [f.fix for f in chosen if f.fix is not None]
        if not fixes:
            return FixOutcome(text, fixed, passes - 1, tuple(findings), tuple(new_files.values()))
        candidate, taken = apply_fixes(text, fixes)
        applied = set(taken)  # a set: `in` a list of n fixes, for n findings, is quadratic
        if candidate == text:
            break
        candidate_findings, errors = check(candidate)
        if errors and errors_before is None:  # only then is the count before needed
            errors_before = parse_errors(original)
        if errors_before is not None and errors > errors_before:
            codes = sorted({f.code for f in chosen if f.fix in applied})
            return FixOutcome(
                text,
                fixed,
                passes,
                tuple(findings),
                tuple(new_files.values()),
                f"fix failed: the fix for {', '.join(codes)} made the code "
                "unparsable; it was not applied",
            )
        fixed += sum(1 for f in chosen if f.fix in applied)
        for fix in taken:
            new_files.update({n.path: n for n in fix.new_files})
        text, findings = candidate, candidate_findings
    return FixOutcome(text, fixed, MAX_PASSES, tuple(findings), tuple(new_files.values()))
