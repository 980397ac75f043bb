"""The data that flows out of the engine: findings and the fixes they carry."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal


class Severity(StrEnum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}

# How a remote heredoc is rewritten: the values of `--fix-strategy` and `fix-strategy`.
Strategy = Literal["base64", "scp", "stdin"]
# How a fix works, as the JSON output names it: a heredoc strategy, HL103's bracket or
# split, HL201's shlex-quote.
FixStrategy = Literal[Strategy, "bracket", "split", "shlex-quote"]


class Applicability(StrEnum):
    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY_ONLY = "display-only"


@dataclass(frozen=True)
class Edit:
    """Replace the file's characters [start, end) with `content`."""

    start: int
    end: int
    content: str


@dataclass(frozen=True)
class NewFile:
    """A file a fix creates beside the one it edits (the scp strategy's body)."""

    path: str  # relative to the directory of the fixed file
    content: bytes
    mode: int = 0o644


@dataclass(frozen=True)
class Fix:
    edits: tuple[Edit, ...]
    applicability: Applicability
    message: str
    strategy: FixStrategy | None = None
    new_files: tuple[NewFile, ...] = ()


@dataclass(frozen=True)
class Finding:
    code: str
    severity: Severity
    message: str
    start: int  # file character offsets; end exclusive
    end: int
    depth: int = 0
    wrapper: str | None = None
    fix: Fix | None = None
    evidence: str = ""  # what raised it at its severity (heredoc_lint.severities)


def reported(findings: Iterable[Finding], threshold: Severity) -> list[Finding]:
    """The findings a run shows when `threshold` is the lowest severity it reports
    (`--severity`, the configuration's `severity`, the hook's warning).

    The check has already left out what `--select`/`--ignore`, per-file ignores and
    suppression comments take away; this is the rest of the one decision of what a run
    reports, and a fix may change only what it reports (fixer.fix_text)."""
    return [f for f in findings if f.severity.rank >= threshold.rank]
