"""Runs the engine over files, stdin or a command string; collects reports and notes."""

from __future__ import annotations

import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from heredoc_lint.discover import discover, read_text
from heredoc_lint.engine import Settings, check_shell
from heredoc_lint.model import Finding, Severity
from heredoc_lint.output import FileReport


@dataclass(frozen=True)
class Options:
    select: frozenset[str] | None = None
    ignore: frozenset[str] = frozenset()
    severity: Severity = Severity.WARNING
    exclude: tuple[str, ...] = ()
    verbose: bool = False

    def settings(self) -> Settings:
        return Settings(select=self.select, ignore=self.ignore)


@dataclass
class Result:
    reports: list[FileReport] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    failed: bool = False  # unreadable input or an internal error: exit 2

    @property
    def exit_code(self) -> int:
        if self.failed:
            return 2
        return 1 if any(r.findings for r in self.reports) else 0


def _visible(findings: list[Finding], severity: Severity) -> tuple[Finding, ...]:
    return tuple(f for f in findings if f.severity.rank >= severity.rank)


def _check(options: Options, result: Result, name: str, text: str, *, command: bool) -> None:
    try:
        findings = check_shell(text, name, options.settings(), command=command)
    except Exception as error:  # one bad file must not stop the others
        if options.verbose:
            traceback.print_exc()
        result.notes.append(f"{name}: internal error: {type(error).__name__}: {error}")
        result.failed = True
        return
    result.reports.append(FileReport(name, text, _visible(findings, options.severity)))


def run(
    options: Options,
    paths: list[Path],
    command: str | None = None,
    stdin_filename: str | None = None,
) -> Result:
    result = Result()
    if command is not None:
        _check(options, result, "<command>", command, command=True)
        return result
    if paths == [Path("-")]:
        data = sys.stdin.buffer.read()
        text = data.decode("utf-8", "replace")
        _check(options, result, stdin_filename or "-", text, command=False)
        return result
    if not paths:
        paths = [Path(".")]
    sources, missing = discover(paths, options.exclude)
    for skipped in missing:
        result.notes.append(f"{skipped.path}: {skipped.reason}")
        result.failed = True
    for source in sources:
        text, reason, _ = read_text(source.path)
        if text is None:
            result.notes.append(f"{source.path}: {reason}")
            if reason and "skipped" not in reason:
                result.failed = True
            continue
        _check(options, result, str(source.path), text, command=False)
    return result
