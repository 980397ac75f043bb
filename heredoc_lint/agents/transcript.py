"""`heredoc-lint transcript PATH...`: check every shell command of saved agent sessions.

Reads Claude Code, Codex and opencode sessions (see sessions.py for the formats); a
directory is walked for their files. Each finding names the session, the message or
call id and the command's first line; the text format ends with a summary per session
and per code.

Exit status: 1 when findings at or above `--severity` were found, 0 when none, 2 when
an input could not be read (the others are still checked) or on a usage error.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heredoc_lint.agents.commands import first_line
from heredoc_lint.agents.sessions import (
    MAX_LINE,
    ReadStats,
    SessionError,
    SessionKind,
    ShellCall,
    default_roots,
    kind_of,
    read,
    walk,
)
from heredoc_lint.cli.options import (
    FORMAT,
    IGNORE,
    SELECT,
    SEVERITY,
    VERBOSE,
    Opt,
    UsageError,
    codes,
    parse,
)

if TYPE_CHECKING:
    from heredoc_lint.engine import Settings
    from heredoc_lint.model import Finding, Severity


@dataclass(frozen=True)
class CallReport:
    call: ShellCall
    findings: tuple[Finding, ...]


@dataclass
class Scan:
    reports: list[CallReport] = field(default_factory=list)  # calls with findings
    commands: int = 0  # shell calls checked
    files: int = 0  # session files read
    sessions: dict[tuple[str, str], int] = field(default_factory=dict)  # calls per session
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class Checker:
    """check_text for commands, remembering each distinct command's findings."""

    def __init__(self, settings: Settings, severity: Severity) -> None:
        self.settings = settings
        self.severity = severity
        self.cache: dict[str, tuple[Finding, ...]] = {}

    def __call__(self, command: str) -> tuple[Finding, ...]:
        found = self.cache.get(command)
        if found is None:
            from heredoc_lint.engine import check_text

            found = tuple(
                f
                for f in check_text(command, "command", settings=self.settings)
                if f.severity.rank >= self.severity.rank
            )
            self.cache[command] = found
        return found


def _targets(paths: Sequence[Path], scan: Scan) -> list[tuple[Path, SessionKind]]:
    targets: list[tuple[Path, SessionKind]] = []
    for path in paths:
        if path.is_dir():
            found = list(walk(path))
            if not found:
                scan.notes.append(f"{path}: no agent session files found")
            targets.extend(found)
        elif not path.exists():
            scan.errors.append(f"{path}: no such file or directory")
        elif not path.is_file():  # a FIFO would be waited on, /dev/zero read forever
            scan.errors.append(f"{path}: not a regular file (a FIFO or a device is not read)")
        else:
            kind = kind_of(path, explicit=True)
            assert kind is not None
            targets.append((path, kind))
    return targets


def scan_paths(paths: Sequence[Path], checker: Checker) -> Scan:
    scan = Scan()
    for path, kind in _targets(paths, scan):
        stats = ReadStats()
        try:
            for call in read(path, kind, stats):
                scan.commands += 1
                key = (call.source, call.session)
                scan.sessions[key] = scan.sessions.get(key, 0) + 1
                try:
                    findings = checker(call.command)
                except Exception as error:  # one command must not stop the scan
                    scan.errors.append(
                        f"{path}: {call.where}: internal error: {type(error).__name__}: {error}"
                    )
                    continue
                if findings:
                    scan.reports.append(CallReport(call, findings))
        except SessionError as error:
            scan.errors.append(f"{path}: {error}")
            continue
        scan.files += 1
        if stats.bad_lines:
            n = stats.bad_lines
            scan.notes.append(
                f"{path}: skipped {n} line{'s' if n != 1 else ''} that "
                f"{'are' if n != 1 else 'is'} not JSON"
            )
        if stats.long_lines:
            n = stats.long_lines
            scan.notes.append(
                f"{path}: skipped {n} line{'s' if n != 1 else ''} longer than "
                f"{MAX_LINE // (1024 * 1024)} MiB"
            )
        scan.notes.extend(f"{path}: {failure}, skipped" for failure in stats.failed)
    return scan


# --- output ---------------------------------------------------------------------------


def _ident(call: ShellCall) -> str:
    if call.call_id and call.call_id != call.message_id and call.message_id:
        return f"message {call.message_id} call {call.call_id}"
    if call.call_id or call.message_id:
        return f"call {call.call_id or call.message_id}"
    return call.where


def render_text(scan: Scan) -> str:
    from heredoc_lint.report.lines import LineIndex
    from heredoc_lint.report.output import printable

    out: list[str] = []
    for report in scan.reports:
        call = report.call
        if call.where.startswith("line "):
            location = f"{call.path}:{call.where.removeprefix('line ')}"
        else:
            location = f"{call.path} ({call.where})"
        # Paths and ids come from the sessions (a file name may hold a newline): one line.
        head = f"{location}: session {call.session or '?'} {_ident(call)}"
        out.append(f"{printable(head)}: {printable(first_line(call.command))}")
        index = LineIndex(call.command)
        for finding in report.findings:
            line, column = index.position(finding.start)
            out.append(
                f"  {line}:{column}: {finding.code} [{finding.severity.value}] {finding.message}"
            )
        out.append("")
    out.extend(_summary(scan))
    return "".join(line + "\n" for line in out)


def _summary(scan: Scan) -> list[str]:
    from heredoc_lint.rules import rule_by_code

    total = sum(len(r.findings) for r in scan.reports)
    sessions_with = {(r.call.source, r.call.session) for r in scan.reports}
    counts = f"{scan.commands} command{'s' if scan.commands != 1 else ''}"
    where = (
        f"{len(scan.sessions)} session{'s' if len(scan.sessions) != 1 else ''}, "
        f"{scan.files} file{'s' if scan.files != 1 else ''}"
    )
    if not total:
        return [f"No findings in {counts} ({where})."]
    lines = ["Per session:"]
    for source, session in sorted(sessions_with):
        reports = [r for r in scan.reports if (r.call.source, r.call.session) == (source, session)]
        codes: Counter[str] = Counter(f.code for r in reports for f in r.findings)
        checked = scan.sessions.get((source, session), 0)
        per_code = ", ".join(f"{code} x{n}" for code, n in sorted(codes.items()))
        lines.append(
            f"  {source} {session or '?'}: {len(reports)} of {checked} commands: {per_code}"
        )
    lines.append("Per code:")
    by_code: Counter[str] = Counter(f.code for r in scan.reports for f in r.findings)
    for code, n in sorted(by_code.items()):
        rule = rule_by_code(code)
        lines.append(f"  {code:6} {n:5d}  {rule.name if rule else ''}".rstrip())
    lines.append(
        f"Found {total} finding{'s' if total != 1 else ''} in {len(scan.reports)} of {counts} "
        f"({where})."
    )
    return lines


def findings_json(scan: Scan) -> list[dict[str, Any]]:
    from heredoc_lint.report.lines import LineIndex
    from heredoc_lint.report.output import FileReport, finding_json

    items: list[dict[str, Any]] = []
    for report in scan.reports:
        call = report.call
        file_report = FileReport(call.path, call.command, report.findings)
        index = LineIndex(call.command)
        for finding in report.findings:
            item = finding_json(file_report, finding, index)
            item.update(
                {
                    "source": call.source,
                    "session": call.session,
                    "message_id": call.message_id,
                    "call_id": call.call_id,
                    "where": call.where,
                    "command": call.command,
                }
            )
            items.append(item)
    return items


def _session_line(call: ShellCall) -> int | None:
    """The line of the session file that holds the call (JSONL), else None (a part)."""
    number = call.where.removeprefix("line ")
    return int(number) if number.isdigit() else None


def _pairs(scan: Scan) -> Iterator[tuple[ShellCall, Finding, int, int]]:
    from heredoc_lint.report.lines import LineIndex

    for report in scan.reports:
        index = LineIndex(report.call.command)
        for finding in report.findings:
            line, column = index.position(finding.start)
            yield report.call, finding, line, column


def render_github(scan: Scan) -> str:
    """GitHub workflow commands: one annotation per finding on the session file's line
    (the command's own line and column are in the message)."""
    from heredoc_lint.report.output import _escape_github

    level = {"error": "error", "warning": "warning", "info": "notice"}
    lines = []
    for call, finding, line, column in _pairs(scan):
        props = [f"file={_escape_github(call.path, property_value=True)}"]
        at = _session_line(call)
        if at is not None:
            props.append(f"line={at}")
        props.append(f"title={_escape_github(finding.code, property_value=True)}")
        message = (
            f"{finding.message} (session {call.session or '?'} {_ident(call)}, "
            f"command line {line} column {column}: {first_line(call.command)})"
        )
        lines.append(
            f"::{level[finding.severity.value]} {','.join(props)}::" + _escape_github(message)
        )
    return "".join(line + "\n" for line in lines)


def render_sarif(scan: Scan) -> str:
    """SARIF 2.1.0 as `check` writes it, each result located at the session file's line;
    the command, its line and column and the session go in the result's properties."""
    import json

    from heredoc_lint.report.output import FileReport
    from heredoc_lint.report.sarif import sarif_log

    reports = [FileReport(r.call.path, r.call.command, r.findings) for r in scan.reports]
    log = sarif_log(reports)
    results = log["runs"][0]["results"]
    for result, (call, _, line, column) in zip(results, _pairs(scan), strict=True):
        physical = result["locations"][0]["physicalLocation"]
        physical.pop("region", None)
        at = _session_line(call)
        if at is not None:
            physical["region"] = {"startLine": at}
        result.pop("fixes", None)  # edits of the command, not of the session file
        result.setdefault("properties", {}).update(
            {
                "source": call.source,
                "session": call.session,
                "callId": call.call_id,
                "command": call.command,
                "commandLine": line,
                "commandColumn": column,
            }
        )
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


# --- the command line -----------------------------------------------------------------


DESCRIPTION = (
    "Check every shell command in saved agent sessions: Claude Code "
    "(~/.claude/projects/*/*.jsonl), Codex (~/.codex/sessions/**/rollout-*.jsonl) "
    "and opencode (storage/part/**/*.json, opencode.db). Directories are walked. "
    "Without PATH, the agents' default locations are read."
)
OPTIONS = (
    Opt(("paths",), "Session files or directories.", Path, many=True),
    FORMAT.but(choices=("text", "json", "github", "sarif")),
    SEVERITY,
    SELECT,
    IGNORE,
    VERBOSE,
)


def run(argv: Sequence[str]) -> int:
    import json

    from heredoc_lint.engine import Settings
    from heredoc_lint.model import Severity

    values = parse("heredoc-lint transcript", DESCRIPTION, OPTIONS, argv)
    settings = Settings(
        select=codes(values["select"]),
        ignore=codes(values["ignore"]) or frozenset(),
        directives=False,  # an agent wrote the commands: as in the hook, its comments
    )
    paths: list[Path] = list(values["paths"])
    if not paths:
        paths = default_roots()
        if not paths:
            raise UsageError(
                "no PATH given, and no sessions in the default places "
                "(~/.claude/projects, ~/.codex/sessions, ~/.local/share/opencode)"
            )
    scan = scan_paths(paths, Checker(settings, Severity(values["severity"] or "warning")))
    from heredoc_lint.report.output import printable

    for note in scan.notes:
        sys.stderr.write(f"heredoc-lint: transcript: {printable(note)}\n")
    for error in scan.errors:
        sys.stderr.write(f"heredoc-lint: transcript: error: {printable(error)}\n")
    if values["format"] == "json":
        sys.stdout.write(json.dumps(findings_json(scan), indent=2, ensure_ascii=False) + "\n")
    elif values["format"] == "github":
        sys.stdout.write(render_github(scan))
    elif values["format"] == "sarif":
        sys.stdout.write(render_sarif(scan))
    else:
        sys.stdout.write(render_text(scan))
    sys.stdout.flush()
    if scan.errors:
        return 2
    return 1 if scan.reports else 0


def main(argv: list[str]) -> int:
    try:
        return run(argv)
    except UsageError as error:
        sys.stderr.write(f"heredoc-lint: transcript: {error}\n")
        return 2
    except SystemExit as stop:  # --help
        return stop.code if isinstance(stop.code, int) else 0
    except BrokenPipeError:
        return 0
    except Exception as error:
        if "--verbose" in argv:
            raise
        sys.stderr.write(
            f"heredoc-lint: transcript: internal error: {type(error).__name__}: {error}\n"
        )
        return 2
