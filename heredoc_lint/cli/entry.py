"""The `heredoc-lint` entry point: light enough to sit in front of every agent command.

`hook`, `transcript`, `serve` and `lsp` run without typer (20 ms of imports): the hook runs
before an agent's commands whenever its resident server (`serve`) does not answer.  So does
a check of named paths with only the options of `_plain_check` (as pre-commit, CI and
`heredoc-lint scripts/` call it): typer's imports were a third of such a run's start-up.
Everything else goes through the typer app in cli.py, whose options are declared in
options.py.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import sys
from typing import Any, NoReturn

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


# The options `_plain_check` reads itself, each as typer would; any other goes to typer.
_VALUED = frozenset({"--format", "--severity", "--jobs", "-j", "--cache-dir"})
_FLAGS = {"--no-cache": "no_cache", "--quiet": "quiet", "-q": "quiet"}


def main(argv: list[str] | None = None) -> None:
    """The program.  Called without `argv` (the console script, `python -m`), it ends the
    process itself once the run is done: see `_exit_now`."""
    args = list(sys.argv[1:] if argv is None else argv)
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        code = _typer_free(args)
        if code is None:
            from heredoc_lint.cli.app import run

            code = run(args)
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except BrokenPipeError:
        _quiet_stdout()
        raise SystemExit(1) from None
    except Exception as error:  # the last line of defence: one line
        if "--verbose" in args:
            raise
        from heredoc_lint.run.installation import missing

        why = missing(error) or f"internal error: {type(error).__name__}: {error}"
        sys.stderr.write(f"heredoc-lint: {why}\n")
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
    plain = _plain_check(args)
    if plain is None:
        return None
    from heredoc_lint.cli.options import UsageError
    from heredoc_lint.report.console import check_values, keep_undecodable_output

    keep_undecodable_output()
    try:
        return check_values(plain)
    except UsageError as error:  # as cli._fail says it
        sys.stderr.write(f"heredoc-lint: error: {error}\n")
        return 2


def _plain_check(args: list[str]) -> dict[str, Any] | None:
    """`heredoc-lint [check] [OPTION...] PATH...` with only the options of `_VALUED` and
    `_FLAGS`: the values typer would give `cli.check`, by dest.  None for
    anything else, and for any value or path typer would refuse or read otherwise (a
    name that starts with `-`, `--`, stdin): typer then does it, and says why."""
    from pathlib import Path

    from heredoc_lint.cli.options import CHECK, FORMATS, SEVERITIES

    choices = {"--format": FORMATS, "--severity": SEVERITIES}
    if args[:1] == ["check"]:
        args = args[1:]
    elif not args or args[0] in SUBCOMMANDS:
        return None
    found: dict[str, Any] = {opt.dest: opt.default for opt in CHECK}
    paths: list[Path] = []
    rest = iter(args)
    for arg in rest:
        if not arg or _undecodable(arg):
            return None
        if not arg.startswith("-"):
            paths.append(Path(arg))
            continue
        name, equals, value = arg.partition("=")
        if name in _FLAGS and not equals:
            found[_FLAGS[name]] = True
            continue
        if name not in _VALUED or (equals and name == "-j"):
            return None  # `-` (stdin), `--`, another option, `-j=2`, `-j2`...
        if not equals:
            value = next(rest, "")
        if name in choices and value in choices[name]:
            found[name[2:]] = value
        elif name in ("--jobs", "-j") and value.isascii() and value.isdigit() and len(value) < 8:
            if not int(value):
                return None
            found["jobs"] = int(value)
        elif name == "--cache-dir" and value and not _undecodable(value):
            if os.path.exists(value) and not os.access(value, os.R_OK):
                return None  # typer's Path option: readable, if it exists
            found["cache_dir"] = Path(value)
        else:
            return None
    if not paths:
        return None
    found["paths"] = paths
    return found


def _undecodable(arg: str) -> bool:
    """An argument that is not UTF-8 (its bytes kept as surrogates): click decodes those
    its own way."""
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


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
