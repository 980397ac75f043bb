"""The `heredoc-lint` entry point: light enough to sit in front of every agent command.

`hook`, `transcript`, `serve`, `lsp`, a lone `--command STR` and `PATH...` with only the options
of `_plain_check` run without typer (about 50 ms of imports and parsing); everything else
goes through the typer app in cli.py.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import sys
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from typing import Any

# The collector's defaults run a full collection over every live object again and again
# while one big script is parsed (10,000 nested `$(`: 4x the time, growing faster than
# the input).  A parsed script holds no reference cycles, so its objects are freed as
# soon as it goes: this process can afford to collect rarely.
GC_THRESHOLDS = (50_000, 20, 100)

SUBCOMMANDS = frozenset({"check", "rule", "rules", "explain", "hook", "transcript", "serve", "lsp"})

FAST_SUBCOMMANDS = {
    "hook": "heredoc_lint.agents.hook",
    "transcript": "heredoc_lint.agents.transcript",
    "serve": "heredoc_lint.agents.server",
    "lsp": "heredoc_lint.lsp",  # the language server; pygls is imported only here
}


def _lone_command(args: list[str]) -> str | None:
    """The command string of `--command STR` (or `-c STR`) given with no other option:
    the one check that skips typer.  Anything else goes through the full CLI."""
    if len(args) == 2 and args[0] in ("--command", "-c"):
        return args[1]
    if len(args) == 1 and args[0].startswith("--command="):
        return args[0].removeprefix("--command=")
    return None


FORMATS = frozenset({"text", "concise", "json", "github", "sarif"})
_VALUED = frozenset({"--format", "--jobs", "-j", "--cache-dir"})
_FLAGS = frozenset({"--no-cache", "--quiet", "-q"})


def _plain_check(args: list[str]) -> dict[str, Any] | None:
    """`heredoc-lint [OPTION...] PATH...` with only --format, --jobs, --cache-dir,
    --no-cache and --quiet (as pre-commit, CI and `heredoc-lint scripts/` call it): the
    other check that skips typer.  Returns `console.check_paths` arguments, or None for
    anything else and for any value typer would refuse (typer then says why)."""
    if not args or args[0] in SUBCOMMANDS:
        return None
    found: dict[str, Any] = {"paths": []}
    rest = iter(args)
    for arg in rest:
        if not arg.startswith("-"):
            found["paths"].append(arg)
            continue
        name, equals, value = arg.partition("=")
        if name in _FLAGS and not equals:
            found["quiet" if name != "--no-cache" else "no_cache"] = True
            continue
        if name not in _VALUED or (equals and name == "-j"):
            return None  # `-` (stdin), `--`, another option, `-j=2`, `-j2`...
        if not equals:
            value = next(rest, "")
        if name == "--format" and value in FORMATS:
            found["output_format"] = value
        elif name in ("--jobs", "-j") and value.isascii() and value.isdigit() and len(value) < 8:
            if not int(value):
                return None
            found["jobs"] = int(value)
        elif name == "--cache-dir" and value and _readable_or_absent(value):
            found["cache_dir"] = value
        else:
            return None
    return found if found["paths"] else None


def _readable_or_absent(path: str) -> bool:
    """What typer asks of a `--cache-dir` (its Path option: readable if it exists)."""
    return not os.path.exists(path) or os.access(path, os.R_OK)


def main(argv: list[str] | None = None) -> None:
    """The program.  Called without `argv` (the console script, `python -m`), it ends the
    process itself once a typer-free run is done: see `_exit_now`."""
    args = list(sys.argv[1:] if argv is None else argv)
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        code = _typer_free(args)
        if code is None:
            from heredoc_lint.cli import run

            run(args)
            return
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except BrokenPipeError:
        _quiet_stdout()
        raise SystemExit(1) from None
    except Exception as error:  # the last line of defence: one line
        if "--verbose" in args:
            raise
        sys.stderr.write(f"heredoc-lint: internal error: {type(error).__name__}: {error}\n")
        # An agent reads exit 2 from a hook as "block this command": a broken hook fails open.
        raise SystemExit(0 if args[:1] == ["hook"] else 2) from None
    if argv is None:
        _exit_now(code)
    raise SystemExit(code)


def _typer_free(args: list[str]) -> int | None:
    """The exit code of a run that needs no typer, or None for one that does."""
    if args and args[0] in FAST_SUBCOMMANDS:
        module = importlib.import_module(FAST_SUBCOMMANDS[args[0]])
        code: int = module.main(args[1:])
        return code
    command = _lone_command(args)
    if command is not None:
        from heredoc_lint.console import check_command

        return check_command(command)
    plain = _plain_check(args)
    if plain is not None:
        from heredoc_lint.console import check_paths

        return check_paths(**plain)
    return None


def _quiet_stdout() -> None:
    """`heredoc-lint scripts/ | head`: the reader is gone.  Like click (the typer path):
    no message, and no second error when Python flushes stdout."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _exit_now(code: int) -> NoReturn:
    """End the process at once, output flushed: tearing the interpreter down (freeing every
    module and object, 10-20 ms) is serial time in every run and every hook call, and
    nothing is left open by then (files are closed, workers waited for)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
        code = 1
    except (OSError, ValueError) as error:  # a full disk: not "findings" (1)
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"heredoc-lint: cannot write the output: {error}\n")
        code = 2
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(code)
