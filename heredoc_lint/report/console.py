"""What a check run prints, and its exit code."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heredoc_lint.cli.options import UsageError, codes
from heredoc_lint.model import Severity

if TYPE_CHECKING:
    from heredoc_lint.cli.options import Format
    from heredoc_lint.run.runner import Result

DEFAULT_CACHE_DIR = Path(".heredoc_lint_cache")


def check_values(values: dict[str, Any]) -> int:
    """`heredoc-lint check` with the values of the options of `options.CHECK` (by dest);
    UsageError for a bad value, before anything is checked."""
    from heredoc_lint.run.runner import Options, run

    options = Options(
        select=codes(values["select"]),
        ignore=codes(values["ignore"]) or frozenset(),
        severity=Severity(values["severity"]) if values["severity"] else None,
        exclude=tuple(values["exclude"] or ()),
        force_exclude=values["force_exclude"],
        verbose=values["verbose"],
        fix=values["fix"],
        unsafe_fixes=values["unsafe_fixes"],
        diff=values["diff"],
        fix_strategy=values["fix_strategy"],
        config=values["config"],
        warn_unused_suppressions=values["warn_unused_suppressions"],
        jobs=values["jobs"] or os.cpu_count() or 1,
        cache_dir=None if values["no_cache"] else values["cache_dir"] or DEFAULT_CACHE_DIR,
    )
    command, paths = values["command"], list(values["paths"] or ())
    if command is not None and paths:
        raise UsageError("give either --command or paths, not both")
    progress = ProgressBar() if sys.stderr.isatty() and not values["quiet"] else None
    result = run(
        options,
        paths=paths,
        command=command,
        stdin_filename=values["stdin_filename"],
        progress=progress,
    )
    if progress is not None:
        progress.close()
    return print_result(
        result,
        values["format"],
        quiet=values["quiet"],
        statistics=values["statistics"],
        diff=options.diff,
        fix=options.fix,
        unsafe_fixes=options.unsafe_fixes,
    )


def keep_undecodable_output() -> None:
    """Bytes of a non-UTF-8 file are kept as surrogates: shown escaped, never a crash."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


class ProgressBar:
    """`checked 120/900 files` on stderr, only once a run has taken a second."""

    def __init__(self) -> None:
        import time

        self.clock = time.monotonic
        self.start = self.clock()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if self.clock() - self.start < 1.0:
            return
        width = 30
        filled = width * done // max(total, 1)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} files")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 60 + "\r")
            sys.stderr.flush()


def print_result(
    result: Result,
    output_format: Format,
    *,
    quiet: bool = False,
    statistics: bool = False,
    diff: bool = False,
    fix: bool = False,
    unsafe_fixes: bool = False,
) -> int:
    """Print `result` as asked; return the exit code."""
    from heredoc_lint.report import output
    from heredoc_lint.shell.words import to_bytes

    for note in result.notes:
        sys.stderr.write(f"heredoc-lint: {output.printable(note)}\n")
    sys.stderr.flush()
    if diff:
        sys.stdout.write("".join(result.diffs))
        return result.exit_code
    if result.fixed_text is not None:
        # stdin or --command: the fixed text is the output, byte for byte.
        sys.stdout.flush()
        sys.stdout.buffer.write(to_bytes(result.fixed_text))
        for report in result.reports:
            sys.stderr.write(output.render_concise([report]))
        return result.exit_code
    if statistics:
        sys.stdout.write(output.render_statistics(result.reports))
    elif output_format == "text":
        colour = sys.stdout.isatty() and "NO_COLOR" not in os.environ
        rendered = output.render_text(result.reports, colour=colour)
        if quiet:
            rendered = "\n".join(
                line for line in rendered.splitlines() if not line.startswith(("Found ", "[*]"))
            ) + ("\n" if rendered else "")
        sys.stdout.write(rendered)
        if not quiet:
            sys.stdout.write(_fix_summary(result, fix, unsafe_fixes))
    elif output_format == "sarif":
        from heredoc_lint.report.sarif import render_sarif

        sys.stdout.write(render_sarif(result.reports))
    else:
        sys.stdout.write(output.RENDERERS[output_format](result.reports))
    return result.exit_code


def _fix_summary(result: Result, fix: bool, unsafe_fixes: bool) -> str:
    lines = []
    if fix:
        remaining = sum(len(r.findings) for r in result.reports)
        lines.append(
            f"Fixed {result.fixed} finding{'s' if result.fixed != 1 else ''}, "
            f"{remaining} remaining."
        )
    hidden = result.unsafe_fixable()
    if hidden and not unsafe_fixes:
        lines.append(f"{hidden} more fixable with `--fix --unsafe-fixes`.")
    return "".join(line + "\n" for line in lines)
