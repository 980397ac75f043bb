"""Every command-line option, declared once, and the value sets they take.

`check` is a typer command built from `CHECK` (cli.py); `hook`, `transcript` and `serve`
start before typer is imported and parse their tables with argparse (`parse`): the hook
runs before every command of an agent when no resident server answers, and argparse costs
1.5 ms where typer costs 20.  An option two commands share (`--select`, `--verbose`...)
is one record used in both tables.

Nothing here imports more than the standard library and model.py: the hook loads it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from heredoc_lint.model import Severity, Strategy

Format = Literal["text", "concise", "json", "github", "sarif"]
FORMATS: tuple[Format, ...] = get_args(Format)
FIX_STRATEGIES: tuple[Strategy, ...] = get_args(Strategy)
SEVERITIES = tuple(s.value for s in reversed(Severity))  # error, warning, info


class UsageError(Exception):
    """A bad option or value: one line on stderr, and the command's usage exit status."""


def codes(value: str | None) -> frozenset[str] | None:
    """A comma-separated list of rule codes or prefixes (`rules.parse_codes`); None for
    an option not given.  The rule table is only imported to check codes a user wrote."""
    if value is None:
        return None
    from heredoc_lint.rules import parse_codes

    try:
        return parse_codes(value)
    except ValueError as error:
        raise UsageError(str(error)) from None


@dataclass(frozen=True)
class Opt:
    """One option (`--jobs`, `-j`) or positional argument (`paths`)."""

    names: tuple[str, ...]
    help: str
    type: type = str  # str, int, float, Path; bool for a flag
    default: Any = None
    choices: tuple[str, ...] = ()
    many: bool = False  # repeatable option, or any number of arguments
    minimum: int | None = None
    required: bool = False

    @property
    def positional(self) -> bool:
        return not self.names[0].startswith("-")

    @property
    def dest(self) -> str:
        """The name of the value in parsed results and in the typer function."""
        return self.names[0].lstrip("-").replace("-", "_")

    def but(self, **changes: Any) -> Opt:
        """The same option with other choices, help or default (another command's)."""
        return dataclasses.replace(self, **changes)


def parse(prog: str, description: str, table: Sequence[Opt], argv: Sequence[str]) -> dict[str, Any]:
    """The values of `argv` by `dest`; UsageError for anything argparse refuses.
    `--help` prints the help and raises SystemExit(0)."""
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> Any:  # argparse would print the usage and exit 2
            raise UsageError(message)

    parser = Parser(prog=prog, description=description)
    for opt in table:
        parser.add_argument(*opt.names, **_argparse_keywords(opt))
    return vars(parser.parse_args(list(argv)))


def _argparse_keywords(opt: Opt) -> dict[str, Any]:
    if opt.type is bool:
        return {"action": "store_true", "help": opt.help, "dest": opt.dest}
    keywords: dict[str, Any] = {"help": opt.help, "type": opt.type, "default": opt.default}
    if opt.choices:
        keywords["choices"] = opt.choices
    if opt.positional:
        if not opt.choices:
            keywords["metavar"] = opt.dest.upper().rstrip("S")
        if opt.many:
            keywords["nargs"] = "*"
    else:
        keywords["dest"] = opt.dest
        keywords["required"] = opt.required
        if opt.many:
            keywords["action"] = "append"
    return keywords


# --- shared by several commands ------------------------------------------------------

SELECT = Opt(("--select",), "Comma-separated codes or prefixes to report (ALL: every rule).")
IGNORE = Opt(("--ignore",), "Comma-separated codes or prefixes to skip.")
SEVERITY = Opt(
    ("--severity",), "The lowest severity reported (default: warning).", choices=SEVERITIES
)
FORMAT = Opt(("--format",), "Output format.", default="text", choices=FORMATS)
FIX_STRATEGY = Opt(
    ("--fix-strategy",),
    "How remote heredocs are rewritten (default: base64).",
    choices=FIX_STRATEGIES,
)
VERBOSE = Opt(("--verbose",), "Show tracebacks of internal errors.", bool, False)

# --- heredoc-lint [check] -------------------------------------------------------------

CHECK = (
    # heredoc-lint reports unreadable files itself, one line each, and goes on.
    Opt(("paths",), "Files or directories; - for stdin.", Path, many=True),
    FORMAT,
    SELECT,
    IGNORE,
    SEVERITY,
    Opt(("--command", "-c"), "Check one command string."),
    Opt(("--stdin-filename",), "The name of the file read from stdin."),
    Opt(("--exclude",), "Glob of paths to skip (repeatable).", many=True),
    Opt(
        ("--force-exclude",),
        "Apply the exclude patterns to paths named on the command line too.",
        bool,
        False,
    ),
    Opt(("--statistics",), "Print a count per code.", bool, False),
    Opt(("--quiet", "-q"), "Print findings only, no summary.", bool, False),
    VERBOSE,
    Opt(("--fix",), "Apply safe fixes in place.", bool, False),
    Opt(("--unsafe-fixes",), "With --fix, apply unsafe fixes too.", bool, False),
    Opt(("--diff",), "Print fixes as a unified diff; write nothing.", bool, False),
    FIX_STRATEGY,
    Opt(("--config",), "Use this configuration file only.", Path),
    Opt(("--warn-unused-suppressions",), "Report suppressions that silence nothing.", bool, False),
    Opt(("--jobs", "-j"), "Worker processes (default: cores).", int, minimum=1),
    Opt(("--no-cache",), "Neither read nor write the findings cache.", bool, False),
    Opt(("--cache-dir",), "Where the cache lives (default: .heredoc_lint_cache).", Path),
)
