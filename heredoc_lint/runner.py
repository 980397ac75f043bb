"""Runs the engine over files, stdin or a command string; collects reports and notes."""

from __future__ import annotations

import difflib
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from heredoc_lint.discover import discover, kind_of, read_text
from heredoc_lint.engine import Settings, check_text, fix_kind, parses
from heredoc_lint.fixer import applicable
from heredoc_lint.model import Finding, Severity
from heredoc_lint.output import FileReport
from heredoc_lint.writer import WriteError, create_beside, encode, replace_atomically


@dataclass(frozen=True)
class Options:
    select: frozenset[str] | None = None
    ignore: frozenset[str] = frozenset()
    severity: Severity = Severity.WARNING
    exclude: tuple[str, ...] = ()
    verbose: bool = False
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    fix_strategy: str = "base64"

    def settings(self) -> Settings:
        return Settings(select=self.select, ignore=self.ignore, fix_strategy=self.fix_strategy)

    @property
    def fixing(self) -> bool:
        return self.fix or self.diff


@dataclass
class Result:
    reports: list[FileReport] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    failed: bool = False  # unreadable input or an internal error: exit 2
    fixed: int = 0
    diffs: list[str] = field(default_factory=list)
    fixed_text: str | None = None  # for stdin and --command: the fixed text to print

    @property
    def exit_code(self) -> int:
        if self.failed:
            return 2
        if self.diffs:
            return 1
        return 1 if any(r.findings for r in self.reports) else 0

    def unsafe_fixable(self) -> int:
        return sum(
            1
            for r in self.reports
            for f in r.findings
            if applicable(f.fix, unsafe=True) and not applicable(f.fix, unsafe=False)
        )


def _visible(findings: list[Finding], severity: Severity) -> tuple[Finding, ...]:
    return tuple(f for f in findings if f.severity.rank >= severity.rank)


def _check(
    options: Options,
    result: Result,
    name: str,
    text: str,
    *,
    kind: str,
    path: Path | None = None,
    encoding: str = "utf-8",
    original: bytes | None = None,
) -> None:
    try:
        findings: list[Finding] | None = None
        if options.fixing:
            text, findings = _fix(
                options,
                result,
                name,
                text,
                kind=kind,
                path=path,
                encoding=encoding,
                original=original,
            )
        if findings is None:
            findings = check_text(text, kind, name, options.settings())
    except Exception as error:  # one bad file must not stop the others
        if options.verbose:
            traceback.print_exc()
        result.notes.append(f"{name}: internal error: {type(error).__name__}: {error}")
        result.failed = True
        return
    result.reports.append(FileReport(name, text, _visible(findings, options.severity)))


def _fix(
    options: Options,
    result: Result,
    name: str,
    text: str,
    *,
    kind: str,
    path: Path | None,
    encoding: str,
    original: bytes | None,
) -> tuple[str, list[Finding] | None]:
    """Fix `text`; write it (or its diff); return the text to report on, and its findings."""
    if not parses(text, kind):
        result.notes.append(f"{name}: not fixed: the file does not parse")
        return text, None
    outcome = fix_kind(text, kind, name, options.settings(), unsafe=options.unsafe_fixes)
    if outcome.error:
        result.notes.append(f"{name}: {outcome.error}")
    if outcome.text == text:
        return text, list(outcome.remaining)
    if options.diff:
        result.diffs.append(
            "".join(
                difflib.unified_diff(
                    text.splitlines(keepends=True),
                    outcome.text.splitlines(keepends=True),
                    fromfile=f"a/{name}",
                    tofile=f"b/{name}",
                )
            )
        )
        return text, None
    if path is None:
        result.fixed_text = outcome.text
        result.fixed += outcome.fixed
        return outcome.text, list(outcome.remaining)
    try:
        for new in outcome.new_files:
            create_beside(path, new)
        replace_atomically(path, encode(outcome.text, encoding), original)
    except WriteError as error:
        result.notes.append(str(error))
        result.failed = True
        return text, None
    result.fixed += outcome.fixed
    return outcome.text, list(outcome.remaining)


def run(
    options: Options,
    paths: list[Path],
    command: str | None = None,
    stdin_filename: str | None = None,
) -> Result:
    result = Result()
    if command is not None:
        _check(options, result, "<command>", command, kind="command")
        return result
    if paths == [Path("-")]:
        data = sys.stdin.buffer.read()
        text = data.decode("utf-8", "replace")
        name = stdin_filename or "-"
        kind = kind_of(Path(name), text.encode()[:128]) if stdin_filename else None
        _check(options, result, name, text, kind=kind or "shell")
        return result
    if not paths:
        paths = [Path(".")]
    sources, missing = discover(paths, options.exclude)
    for skipped in missing:
        result.notes.append(f"{skipped.path}: {skipped.reason}")
        result.failed = True
    for source in sources:
        text, reason, encoding, original = read_text(source.path)
        if text is None:
            result.notes.append(f"{source.path}: {reason}")
            if reason and "skipped" not in reason:
                result.failed = True
            continue
        _check(
            options,
            result,
            str(source.path),
            text,
            kind=source.kind,
            path=source.path,
            encoding=encoding,
            original=original,
        )
    return result
