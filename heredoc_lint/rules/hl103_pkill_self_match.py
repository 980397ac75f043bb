r"""## What it does
Finds `pkill -f PATTERN` and `pgrep -f PATTERN` run by a shell whose own
command line matches PATTERN: the remote `bash -c '...'` of an ssh command
string, a `bash -c` string, or a script whose file name matches.

## Why is this bad?
With `-f` the pattern is matched against full command lines, and the shell
running the string has the whole string on its command line, pattern
included. `pkill -f sglang` kills its own shell: nothing after it runs, no
file is written, and ssh exits with status 255 or 143 without an error
message. `pgrep -f` finds itself and reports a process that is not there.
bash replaces itself with the command when a string is one bare command, so
`ssh h 'pkill -f x'` alone is safe; with a redirection or anything else in the
string it is not.

## Example
```bash
ssh gpu-1 "pkill -f sglang; sleep 2; ./launch.sh"
```

## Use instead
```bash
ssh gpu-1 "pkill -f '[s]glang'; sleep 2; ./launch.sh"
```
The bracket expression matches `sglang` but not its own text `[s]glang`, as
long as nothing else on the command line contains the plain word; otherwise run
the pkill in its own ssh call first.

## Fix safety
Safe: the bracket trick matches the same processes except the shell itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from heredoc_lint.layers import Layer
from heredoc_lint.model import Finding, Severity
from heredoc_lint.rules.base import Context, Rule, finding, quote_snippet
from heredoc_lint.shell.syntax import Command
from heredoc_lint.shell.words import Word
from heredoc_lint.wrappers import unwrap_prefixes

# procps-ng pgrep/pkill options that take an argument.
_ARG_OPTIONS = frozenset("dgGPstuUFrq")
_LONG_ARG_OPTIONS = frozenset({"--delimiter", "--pgroup", "--group", "--parent", "--session",
                               "--terminal", "--euid", "--uid", "--pidfile", "--ns",
                               "--nslist", "--runstates", "--signal", "--queue"})
_POSIX_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
    "space": r"\s", "blank": r" \t", "punct": r"!-/:-@\[-`{-~", "xdigit": "0-9A-Fa-f",
    "word": r"\w",
}


def parse_pkill(words: Sequence[Word]) -> tuple[bool, bool, int | None]:
    """(full, exact, index of the pattern word) for `pkill`/`pgrep` argv."""
    full = exact = False
    i = 1
    while i < len(words):
        value = words[i].value if words[i].static else ""
        if value == "--":
            i += 1
            break
        if value.startswith("--"):
            name = value.split("=", 1)[0]
            full = full or name == "--full"
            exact = exact or name == "--exact"
            i += 2 if name in _LONG_ARG_OPTIONS and "=" not in value else 1
            continue
        if value.startswith("-") and len(value) > 1:
            letters = value[1:]
            if letters.isdigit() or letters.isupper():
                i += 1  # a signal: -9, -KILL, -HUP
                continue
            takes_arg = False
            for k, letter in enumerate(letters):
                if letter == "f":
                    full = True
                elif letter == "x":
                    exact = True
                elif letter in _ARG_OPTIONS:
                    takes_arg = k == len(letters) - 1
                    break
                elif letter.isdigit():
                    break  # -9f: a signal number then flags, as procps allows
            i += 2 if takes_arg else 1
            continue
        break
    return full, exact, i if i < len(words) else None


def to_python_regex(pattern: str) -> re.Pattern[str] | None:
    """An extended regular expression (regcomp REG_EXTENDED) as a Python regex."""
    converted = re.sub(
        r"\[:([a-z]+):\]",
        lambda m: _POSIX_CLASSES.get(m.group(1), m.group(0)),
        pattern,
    )
    try:
        return re.compile(converted)
    except (re.error, RecursionError, OverflowError):
        return None


def _cmdline(layer: Layer, context: Context) -> str | None:
    if layer.depth > 0:
        return layer.cmdline
    if layer.cmdline is not None:
        return layer.cmdline
    if context.path is None:
        return None
    return f"bash {context.path}"


def _alone(layer: Layer, command: Command) -> bool:
    others = [c for c in layer.script.commands if c is not command]
    return not others and command.next_op in (None, ";", "\n")


def _severity(layer: Layer, command: Command) -> Severity | None:
    if not _alone(layer, command):
        return Severity.ERROR
    if layer.depth == 0 and layer.cmdline is None:
        return Severity.WARNING  # a script: bash keeps its process for the last command too
    if command.redirects:
        return Severity.WARNING  # bash keeps its shell for a command with a redirection
    if layer.shell in ("sh", "dash"):
        return Severity.WARNING  # dash keeps its shell even for one bare command
    return None  # bash execs a lone simple command: the shell is gone before pkill runs


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    if layer.kind == "stdin":
        return
    cmdline: str | None = None
    for command in layer.script.commands:
        index = unwrap_prefixes(command.words)
        if index is None:
            continue
        words = command.words[index:]
        tool = words[0].value.rsplit("/", 1)[-1]
        if tool not in ("pkill", "pgrep"):
            continue
        full, exact, pattern_index = parse_pkill(words)
        if not full or exact or pattern_index is None or not words[pattern_index].static:
            continue
        cmdline = cmdline if cmdline is not None else _cmdline(layer, context)
        if cmdline is None:
            return
        pattern = words[pattern_index].received()
        regex = to_python_regex(pattern)
        if regex is None or not regex.search(cmdline):
            continue
        severity = _severity(layer, command)
        if severity is None:
            continue
        owner = (
            f"the script `{context.path}`" if layer.depth == 0 and layer.cmdline is None
            else f"its own shell (`{quote_snippet(cmdline)}`)"
        )
        effect = (
            "kills that shell: the commands after it never run and the exit status is 143/255"
            if tool == "pkill"
            else "always finds that shell, so it reports a match that is not the process you mean"
        )
        yield finding(
            layer,
            "HL103",
            severity,
            f"`{tool} -f {pattern}` matches the command line of {owner} and {effect}",
            words[0].start,
            words[0].end,
        )


RULE = Rule(
    "HL103",
    "pkill-self-match",
    Severity.ERROR,
    "pkill -f / pgrep -f whose pattern matches the shell running it.",
    __doc__ or "",
    check,
    fixable=True,
)
