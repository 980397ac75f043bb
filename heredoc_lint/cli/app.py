"""The command line.  `heredoc-lint [OPTIONS] PATHS` is `heredoc-lint check [OPTIONS] PATHS`."""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable
from enum import Enum, StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from heredoc_lint import __version__
from heredoc_lint.cli.entry import SUBCOMMANDS
from heredoc_lint.cli.options import CHECK, Opt, UsageError
from heredoc_lint.kinds import SourceKind

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


def _version(value: bool) -> None:
    if value:
        typer.echo(f"heredoc-lint {__version__}")
        raise typer.Exit(0)


def _annotation(opt: Opt) -> Any:
    """`Annotated[type, typer.Option(...)]` for an option of the table."""
    kind: Any = StrEnum(opt.dest, {c: c for c in opt.choices}) if opt.choices else opt.type
    if opt.many:
        kind = list[kind]
    if opt.type is not bool and opt.default is None:
        kind = kind | None
    if opt.positional:
        # heredoc-lint reports unreadable files itself, one line each, and goes on.
        return Annotated[kind, typer.Argument(help=opt.help, readable=False)]
    return Annotated[kind, typer.Option(*opt.names, help=opt.help, min=opt.minimum)]


def typer_command(table: tuple[Opt, ...], body: Callable[[dict[str, Any]], int]) -> Any:
    """A typer command taking the options of `table` (and --version), whose work is
    `body(values by dest)`: choices come as strings, as argparse gives them."""
    parameters = [
        inspect.Parameter(
            opt.dest,
            inspect.Parameter.KEYWORD_ONLY,
            default=opt.default,
            annotation=_annotation(opt),
        )
        for opt in table
    ]
    version = typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    parameters.append(
        inspect.Parameter(
            "version",
            inspect.Parameter.KEYWORD_ONLY,
            default=False,
            annotation=Annotated[bool, version],
        )
    )

    def command(**values: Any) -> None:
        values.pop("version")
        plain = {k: v.value if isinstance(v, Enum) else v for k, v in values.items()}
        raise typer.Exit(body(plain))

    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    return command


def check(values: dict[str, Any]) -> int:
    """`heredoc-lint check`: the values of the options of `options.CHECK`."""
    from heredoc_lint.report.console import check_values

    try:
        return check_values(values)
    except UsageError as error:
        raise _fail(str(error)) from None


app.command("check", help="Check shell scripts (the default command).")(typer_command(CHECK, check))


@app.command("rule")
def rule_doc(code: Annotated[str, typer.Argument(help="A rule code, e.g. HL101.")]) -> None:
    """Print a rule's documentation."""
    from heredoc_lint.rules import rule_by_code
    from heredoc_lint.rules.doc import severities_table

    rule = rule_by_code(code)
    if rule is None:
        raise _fail(f"unknown rule `{code}` (see `heredoc-lint rules`)")
    typer.echo(
        f"# {rule.code} {rule.name}\n\nDefault severity: {rule.severity.value}. "
        f"Fixable: {'yes' if rule.fixable else 'no'}.\n\n{rule.doc.strip()}\n\n"
        f"## Severity by evidence\n\n{severities_table(rule)}"
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
    from heredoc_lint.report.explain import explain

    if (command is None) == (target is None):
        raise _fail("give either --command STR or a FILE[:LINE] (or -)")
    line: int | None = None
    kind: SourceKind
    if command is not None:
        text, kind, path = command, "command", None
    elif target == "-":
        text, kind, path = sys.stdin.read(), "command", None
    else:
        assert target is not None
        name, _, number = target.rpartition(":")
        if name and number.isdigit():
            target, line = name, int(number)
        from heredoc_lint.run.discover import kind_of, read_text

        read, reason, _, _ = read_text(Path(target))
        if read is None:
            raise _fail(f"{target}: {reason}")
        text, kind, path = read, kind_of(Path(target), explicit=True) or "shell", target
    settings = None
    if path is not None:  # a file: its project's wrappers and python-wrappers, as `check`
        from heredoc_lint.report.explain import project_settings
        from heredoc_lint.run.config import ConfigError

        try:
            settings = project_settings(path)
        except ConfigError as error:
            raise _fail(str(error)) from None
    typer.echo(explain(text, kind, path, line, settings), nl=False)


def _fail(message: str) -> typer.Exit:
    """Print the one-line error; the caller raises the returned exit."""
    typer.echo(f"heredoc-lint: error: {message}", err=True)
    return typer.Exit(2)


def files_last(args: list[str]) -> list[str]:
    """`args` with each argument that starts with `-` but names an existing file moved
    after a `--`: pre-commit passes a repository's file names after the options, and a
    committed file named `--config=evil.toml` must be checked, not obeyed."""
    if "--" in args:
        cut = args.index("--")
        head, tail = args[:cut], args[cut + 1 :]
    else:
        head, tail = args, []
    named = [a for a in head if a.startswith("-") and a != "-" and os.path.lexists(a)]
    if not named:
        return args
    return [a for a in head if a not in named] + ["--", *named, *tail]


def _ambiguous(args: list[str]) -> str | None:
    """Why `args` could be file names that pre-commit passed as much as a command line:
    a subcommand word at the front that is also a file beside other files (`explain` and
    `x.sh` would explain x.sh and exit 0), or a lone `--` that is also a file (it would
    end the options instead of being checked)."""
    if args.count("--") == 1 and os.path.lexists("--"):
        return (
            "`--` is both the end of the options and a file here; write `-- --` to check the file"
        )
    if len(args) < 2 or args[0] not in SUBCOMMANDS or args[0] == "check":
        return None
    if not (os.path.lexists(args[0]) and os.path.lexists(args[1])):
        return None
    return (
        f"`{args[0]}` is both a subcommand and a file here; to check files, "
        f"write `heredoc-lint check -- {args[0]} ...`"
    )


def run(args: list[str]) -> int:
    """Run the typer app on `args`; return the exit code (entry.main ends the process)."""
    from heredoc_lint.report.console import keep_undecodable_output

    keep_undecodable_output()
    ambiguous = _ambiguous(args)
    if ambiguous is not None:
        return _fail(ambiguous).exit_code
    if not args or args[0] not in SUBCOMMANDS and args[0] not in ("-h", "--help"):
        args.insert(0, "check")
    if args[0] == "check":
        args[1:] = files_last(args[1:])
    try:
        code = app(args, prog_name="heredoc-lint", standalone_mode=False)
    except typer.TyperException as error:  # a usage error: one line, not click's box
        message = getattr(error, "format_message", error.__str__)()
        typer.echo(f"heredoc-lint: error: {message}", err=True)
        return int(getattr(error, "exit_code", 2))
    except typer.Abort:  # end of input at a prompt (there are none)
        return 1
    return code if isinstance(code, int) else 0
