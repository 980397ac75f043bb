"""The `heredoc-lint` entry point: light enough to sit in front of every agent command.

`hook`, `transcript`, a lone `--command STR` and `PATH...` without options run without
typer (about 50 ms of imports and parsing); everything else goes through the typer app
in cli.py.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys

# The collector's defaults run a full collection over every live object again and again
# while one big script is parsed (10,000 nested `$(`: 4x the time, growing faster than
# the input).  A parsed script holds no reference cycles, so its objects are freed as
# soon as it goes: this process can afford to collect rarely.
GC_THRESHOLDS = (50_000, 20, 100)

SUBCOMMANDS = frozenset({"check", "rule", "rules", "explain", "hook", "transcript"})

FAST_SUBCOMMANDS = {
    "hook": "heredoc_lint.agents.hook",
    "transcript": "heredoc_lint.agents.transcript",
}


def _lone_command(args: list[str]) -> str | None:
    """The command string of `--command STR` (or `-c STR`) given with no other option:
    the one check that skips typer.  Anything else goes through the full CLI."""
    if len(args) == 2 and args[0] in ("--command", "-c"):
        return args[1]
    if len(args) == 1 and args[0].startswith("--command="):
        return args[0].removeprefix("--command=")
    return None


def _only_paths(args: list[str]) -> bool:
    """`heredoc-lint PATH...` without a single option (a pre-commit run, `heredoc-lint
    scripts/`): the other check that skips typer.  `-` (stdin) and a first word that
    names a subcommand go through the full CLI."""
    return bool(args) and args[0] not in SUBCOMMANDS and not any(a.startswith("-") for a in args)


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        if args and args[0] in FAST_SUBCOMMANDS:
            module = importlib.import_module(FAST_SUBCOMMANDS[args[0]])
            raise SystemExit(module.main(args[1:]))
        command = _lone_command(args)
        if command is not None:
            from heredoc_lint.console import check_command

            raise SystemExit(check_command(command))
        if _only_paths(args):
            from heredoc_lint.console import check_paths

            raise SystemExit(check_paths(args))
        from heredoc_lint.cli import run

        run(args)
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except BrokenPipeError:
        # `heredoc-lint scripts/ | head`: the reader is gone.  Like click (the typer
        # path): no message, exit 1, and no second error when Python flushes stdout.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise SystemExit(1) from None
    except Exception as error:  # the last line of defence: one line
        if "--verbose" in args:
            raise
        sys.stderr.write(f"heredoc-lint: internal error: {type(error).__name__}: {error}\n")
        # An agent reads exit 2 from a hook as "block this command": a broken hook fails open.
        raise SystemExit(0 if args[:1] == ["hook"] else 2) from None
