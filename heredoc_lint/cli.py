"""The command line.  `heredoc-lint [OPTIONS] PATHS` is `heredoc-lint check [OPTIONS] PATHS`."""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from heredoc_lint import __version__
from heredoc_lint.entry import SUBCOMMANDS
from heredoc_lint.model import Severity

app = typer.Typer(
    add_completion=False,
    no_args_is_help=False,
    help="Find and fix the shell-quoting bugs that break remote commands.",
    # Started before typer (entry.py), so not typer commands: listed here for --help.
    epilog="Also: heredoc-lint hook AGENT (a coding agent's pre-execution hook), "
    "heredoc-lint transcript PATH... (the commands of saved agent sessions), "
    "heredoc-lint serve (the resident checker of heredoc-lint-hook), "
    "heredoc-lint lsp (the language server, for editors); each has --help.",
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)


class OutputFormat(StrEnum):
    text = "text"
    concise = "concise"
    json = "json"
    github = "github"
    sarif = "sarif"


class FixStrategy(StrEnum):
    base64 = "base64"
    scp = "scp"
    stdin = "stdin"


class UsageError(Exception):
    """A bad option or value: exit 2 with one line."""


def _codes(value: str | None) -> frozenset[str] | None:
    if value is None:
        return None  # the rule table is only imported to check codes a user wrote
    from heredoc_lint.rules import parse_codes

    try:
        return parse_codes(value)
    except ValueError as error:
        raise UsageError(str(error)) from None


def _version(value: bool) -> None:
    if value:
        typer.echo(f"heredoc-lint {__version__}")
        raise typer.Exit(0)


@app.command()
def check(
    paths: Annotated[
        list[Path] | None,
        # heredoc-lint reports unreadable files itself, one line each, and goes on.
        typer.Argument(help="Files or directories; - for stdin.", readable=False),
    ] = None,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="Output format.")
    ] = OutputFormat.text,
    select: Annotated[
        str | None, typer.Option(help="Comma-separated codes or prefixes to report.")
    ] = None,
    ignore: Annotated[
        str | None, typer.Option(help="Comma-separated codes or prefixes to skip.")
    ] = None,
    severity: Annotated[
        Severity | None, typer.Option(help="The lowest severity reported [default: warning].")
    ] = None,
    command: Annotated[
        str | None, typer.Option("--command", "-c", help="Check one command string.")
    ] = None,
    stdin_filename: Annotated[
        str | None, typer.Option(help="The name of the file read from stdin.")
    ] = None,
    exclude: Annotated[
        list[str] | None, typer.Option(help="Glob of paths to skip (repeatable).")
    ] = None,
    statistics: Annotated[
        bool, typer.Option("--statistics", help="Print a count per code.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print findings only, no summary.")
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", help="Show tracebacks of internal errors.")
    ] = False,
    fix: Annotated[bool, typer.Option("--fix", help="Apply safe fixes in place.")] = False,
    unsafe_fixes: Annotated[
        bool, typer.Option("--unsafe-fixes", help="With --fix, apply unsafe fixes too.")
    ] = False,
    diff: Annotated[
        bool, typer.Option("--diff", help="Print fixes as a unified diff; write nothing.")
    ] = False,
    fix_strategy: Annotated[
        FixStrategy | None,
        typer.Option(help="How remote heredocs are rewritten [default: base64]."),
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="Use this configuration file only.")
    ] = None,
    warn_unused_suppressions: Annotated[
        bool,
        typer.Option(
            "--warn-unused-suppressions", help="Report suppressions that silence nothing."
        ),
    ] = False,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, help="Worker processes [default: cores].")
    ] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Neither read nor write the findings cache.")
    ] = False,
    cache_dir: Annotated[
        Path | None, typer.Option(help="Where the cache lives [default: .heredoc_lint_cache].")
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """Check shell scripts (the default command)."""
    from heredoc_lint.console import DEFAULT_CACHE_DIR, ProgressBar, print_result
    from heredoc_lint.runner import Options, run

    try:
        options = Options(
            select=_codes(select),
            ignore=_codes(ignore) or frozenset(),
            severity=severity,
            exclude=tuple(exclude or ()),
            verbose=verbose,
            fix=fix,
            unsafe_fixes=unsafe_fixes,
            diff=diff,
            fix_strategy=fix_strategy.value if fix_strategy else None,
            config=config,
            warn_unused_suppressions=warn_unused_suppressions,
            jobs=jobs or os.cpu_count() or 1,
            cache_dir=None if no_cache else cache_dir or DEFAULT_CACHE_DIR,
        )
    except UsageError as error:
        raise _fail(str(error)) from None
    if command is not None and paths:
        raise _fail("give either --command or paths, not both")
    progress = ProgressBar() if sys.stderr.isatty() and not quiet else None
    result = run(
        options,
        paths=list(paths or ()),
        command=command,
        stdin_filename=stdin_filename,
        progress=progress,
    )
    if progress is not None:
        progress.close()
    code = print_result(
        result,
        output_format.value,
        quiet=quiet,
        statistics=statistics,
        diff=diff,
        fix=fix,
        unsafe_fixes=unsafe_fixes,
    )
    raise typer.Exit(code)


@app.command("rule")
def rule_doc(code: Annotated[str, typer.Argument(help="A rule code, e.g. HL101.")]) -> None:
    """Print a rule's documentation."""
    from heredoc_lint.rules import rule_by_code

    rule = rule_by_code(code)
    if rule is None:
        raise _fail(f"unknown rule `{code}` (see `heredoc-lint rules`)")
    typer.echo(
        f"# {rule.code} {rule.name}\n\nDefault severity: {rule.severity.value}. "
        f"Fixable: {'yes' if rule.fixable else 'no'}.\n\n{rule.doc.strip()}"
    )


@app.command("rules")
def rules_table() -> None:
    """Print the table of rules."""
    from heredoc_lint.rules import RULES

    typer.echo(f"{'code':<7} {'name':<34} {'severity':<8} fix  summary")
    for r in RULES:
        typer.echo(
            f"{r.code:<7} {r.name:<34} {r.severity.value:<8} "
            f"{'yes' if r.fixable else 'no ':<4} {r.summary}"
        )


@app.command("explain")
def explain_command(
    target: Annotated[str | None, typer.Argument(help="FILE, FILE:LINE, or - for stdin.")] = None,
    command: Annotated[
        str | None, typer.Option("--command", "-c", help="Explain one command string.")
    ] = None,
) -> None:
    """Show the layers a command passes through and what each shell sees."""
    from heredoc_lint.explain import explain

    if (command is None) == (target is None):
        raise _fail("give either --command STR or a FILE[:LINE] (or -)")
    line: int | None = None
    if command is not None:
        text, kind, path = command, "command", None
    elif target == "-":
        text, kind, path = sys.stdin.read(), "command", None
    else:
        assert target is not None
        name, _, number = target.rpartition(":")
        if name and number.isdigit():
            target, line = name, int(number)
        from heredoc_lint.discover import kind_of, read_text

        read, reason, _, _ = read_text(Path(target))
        if read is None:
            raise _fail(f"{target}: {reason}")
        text, kind, path = read, kind_of(Path(target)) or "shell", target
    typer.echo(explain(text, kind, path, line), nl=False)


def _fail(message: str) -> typer.Exit:
    """Print the one-line error; the caller raises the returned exit."""
    typer.echo(f"heredoc-lint: error: {message}", err=True)
    return typer.Exit(2)


def run(args: list[str]) -> None:
    """Run the typer app on `args` (entry.main decides when to come here)."""
    from heredoc_lint.console import keep_undecodable_output

    keep_undecodable_output()
    if not args or args[0] not in SUBCOMMANDS and args[0] not in ("-h", "--help"):
        args.insert(0, "check")
    try:
        app(args, prog_name="heredoc-lint", standalone_mode=True)
    except SystemExit as exit_:
        code = exit_.code
        # click reports usage errors with exit 2 already; anything else non-int is a failure.
        raise SystemExit(code if isinstance(code, int) else 2) from None
