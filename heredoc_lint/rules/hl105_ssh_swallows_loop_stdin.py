r"""## What it does
Finds `ssh` run inside a `while read` loop whose `read` takes its lines from
standard input, when that ssh has no `-n` and no input of its own (no `<`
redirection, heredoc, here-string or pipe into it).

## Why is this bad?
ssh forwards its standard input to the remote command, and it inherits the
loop's standard input: the rest of the file or pipe that `read` was going
through. The first ssh reads all of it and sends it to the remote side, which
usually ignores it, so `read` finds nothing left and the loop ends after the
first line. The script exits without an error, having handled one host of
many.

## Example
```bash
while read -r node; do
  ssh "$node" "systemctl restart agent"
done < nodes.txt
```

## Use instead
```bash
while read -r node; do
  ssh -n "$node" "systemctl restart agent"
done < nodes.txt
```
`ssh -n` reads its standard input from `/dev/null`; `ssh "$node" ... < /dev/null`
does the same, and `while read -r node <&3; do ...; done 3< nodes.txt` keeps the
loop's input away from everything in the body.

## Fix safety
Safe: the fix adds `-n` right after `ssh`, so the remote command gets an empty
input instead of the lines the loop was meant to read. It is unsafe when the
remote side itself reads standard input (no remote command, so a login shell
runs whatever arrives; `bash -s`, `cat`, `tee`, ...): there the author may have
meant to feed it, and the fixed command sends it nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from heredoc_lint.edits import lift
from heredoc_lint.layers import Layer, string_layer
from heredoc_lint.model import Applicability, Finding, Fix, Severity
from heredoc_lint.rules.base import Context, Rule, finding
from heredoc_lint.shell.syntax import Command, Loop, Script
from heredoc_lint.shell.words import Word
from heredoc_lint.wrappers import SHELLS, Invocation, SshCall, basename

_DO = re.compile(r"(?:^|[\s;&|)])do(?:$|[\s;&|(])")
# Remote commands that read standard input when given no file operand.
_FILTERS = frozenset(
    {
        "cat",
        "base64",
        "gzip",
        "gunzip",
        "zcat",
        "xz",
        "unxz",
        "bzip2",
        "sort",
        "uniq",
        "wc",
        "head",
        "tail",
        "md5sum",
        "sha256sum",
        "tac",
    }
)
_PROGRAM_FIRST = frozenset({"grep", "sed", "awk", "jq"})  # their first operand is a program
_INTERPRETERS = frozenset({"python", "python3", "perl", "ruby", "node"})
_ALWAYS = frozenset({"tee", "read", "xargs", "sponge", "mapfile", "readarray"})
_CLIENTS = frozenset({"mysql", "psql", "sqlite3", "redis-cli"})


def _loop_reads(script: Script, loop: Loop) -> bool:
    """The loop's condition runs `read` on its standard input.

    The condition's commands are looked at: `while IFS= read -r x`, not `read x < file`
    nor `read -u 3`.
    """
    for command in script.commands:
        if not command.loops or command.loops[-1] != loop or command.name != "read":
            continue
        condition = script.text[loop.start : command.start]
        if _DO.search(condition[5:]):  # past the `while`/`until` keyword: the body
            continue
        options = [w.value for w in command.words[1:] if w.value.startswith("-")]
        if any("u" in o for o in options if not o.startswith("--")):
            continue
        if command.reads_stdin:
            return True
    return False


def _swallowing_loop(script: Script, command: Command) -> Loop | None:
    """The innermost loop whose `read` shares the standard input of `command`."""
    for loop in reversed(command.loops):
        if _loop_reads(script, loop):
            return loop
        if loop.stdin_redirected:
            return None  # the command's input is that loop's, which nothing else reads
    return None


def _stdin_null(ssh: SshCall) -> bool:
    """Whether ssh reads /dev/null: `-n`, `-f`, `-o StdinNull=yes`, or maybe (`$OPTS`)."""
    if ssh.open_options or ssh.has_flag("n") or ssh.has_flag("f"):
        return True
    for letter, arg, _ in ssh.options:
        if letter == "o" and arg is not None and arg.static:
            setting = arg.value.replace(" ", "=").replace("\t", "=").lower()
            if setting.startswith("stdinnull=") and setting.split("=", 1)[1] in ("yes", "true"):
                return True
    return False


def _operands(words: Sequence[Word]) -> list[str]:
    return [w.value for w in words[1:] if not w.value.startswith("-") or w.value == "-"]


def _remote_reads_stdin(layer: Layer, ssh_command: Command, invocation: Invocation) -> bool:
    """Whether the remote command seems to read its standard input (the fix then guesses):
    read in the ssh invocation's child layer, the remote string as the shell parses it."""
    if not invocation.words:
        return True  # a login shell that runs what arrives on stdin
    for command in string_layer(layer, ssh_command, invocation).script.commands:
        if not command.words or not command.reads_stdin:
            continue
        name = basename(command.words[0].value)
        values = [w.value for w in command.words[1:]]
        operands = _operands(command.words)
        if name in _ALWAYS:
            return True
        if (
            name in SHELLS
            and not any(v.startswith("-") and "c" in v for v in values)
            and (not operands or any(v.startswith("-") and "s" in v for v in values))
        ):
            return True
        if name in _FILTERS and (not operands or operands == ["-"]):
            return True
        if name in _PROGRAM_FIRST and len(operands) <= 1:
            return True
        if name in _INTERPRETERS and (not operands or operands[0] == "-"):
            return True
        if name == "dd" and not any(v.startswith("if=") for v in values):
            return True
        if name in _CLIENTS and not any(
            v in ("-c", "-e", "--execute", "--command") for v in values
        ):
            return True
    return False


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    script = layer.script
    for command, invocation in layer.invocations:
        if not command.loops or invocation.ssh is None:
            continue
        ssh = invocation.ssh
        if _stdin_null(ssh) or not command.reads_stdin:
            continue
        loop = _swallowing_loop(script, command)
        if loop is None:
            continue
        word = command.words[ssh.index]
        edit = lift(layer, word.end, word.end, " -n")
        fix = None
        if edit is not None:
            applicability = (
                Applicability.UNSAFE
                if _remote_reads_stdin(layer, command, invocation)
                else Applicability.SAFE
            )
            fix = Fix((edit,), applicability, "Add `-n`: ssh reads its stdin from /dev/null")
        yield finding(
            layer,
            "HL105",
            Severity.WARNING,
            f"`{word.value}` inside this `{loop.kind} read` loop reads the loop's standard "
            "input: it swallows the lines that `read` has not read yet and sends them to "
            "the remote command, so the loop ends after the first line and the other "
            f"entries are never processed; use `{word.value} -n` (or `< /dev/null`)",
            word.start,
            word.end,
            fix,
        )


RULE = Rule(
    "HL105",
    "ssh-swallows-loop-stdin",
    Severity.WARNING,
    "ssh without -n inside a `while read` loop eats the loop's input.",
    __doc__ or "",
    check,
    fixable=True,
)
