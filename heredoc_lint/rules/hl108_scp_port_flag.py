r"""`scp -p N`: `-p` preserves times; scp's port flag is `-P`.

## What it does
Finds `scp -p N` where `N` is a number: a port given with the lower-case
`-p`, which in scp means "preserve times and modes". The port flag of scp is
the upper-case `-P` (ssh is the other way round: `ssh -p PORT`). `N` may also be
one variable whose name says it is a port (`-p "$port"`, `-p "$SSH_PORT"`), and
the options may come from an array set once (`opts=(-p "$port")`, then `scp
"${opts[@]}"`), often shared with ssh, where `-p` is the port.

## Why is this bad?
scp takes `-p` as a flag without an argument, so the number becomes the first
source file. scp connects to the default port 22 (or the `Port` of
`~/.ssh/config`), not to the port you meant, and then fails with
`scp: stat local "2022": No such file or directory`; where port 22 is closed
or is another machine's sshd, the copy fails or goes somewhere else. Written
attached (`-p2022`), scp reads the digits as more single-letter flags and stops
with `unknown option`.

## Example
```bash
scp -p 2022 dist/app.tgz ops@edge-1:/opt/app/
```

## Use instead
```bash
scp -P 2022 dist/app.tgz ops@edge-1:/opt/app/
```

## Fix safety
Safe: a number after scp's `-p` can only be meant as a port (the fix changes
`-p` to `-P`, in a cluster too: `-rp 2022` becomes `-rP 2022`). When the
command already has a port (`-P` or `-o Port=`), nothing is reported, since
the number may then be a file that really is named that way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from heredoc_lint.fixes.edits import layer_fix
from heredoc_lint.layers.forwarders import with_literals
from heredoc_lint.layers.layer import Layer, calls
from heredoc_lint.layers.triggers import COPYING
from heredoc_lint.layers.wrappers import OPTION_GRAMMARS
from heredoc_lint.model import Applicability, Finding
from heredoc_lint.rules.base import Context, FixAvailability, Invalid, finding, rule
from heredoc_lint.shell.words import Word

# scp(1)'s options that take an argument; every other letter is a flag.
SCP_ARG_OPTIONS = OPTION_GRAMMARS["scp"].values


@dataclass(frozen=True)
class PortFlag:
    word: Word  # the option word holding the `p`
    letter: int  # index of the `p` in the word's value
    number: str  # the port the author meant
    attached: bool  # `-p2022`: the digits are in the same word
    variable: bool = False  # `-p "$port"`: `number` is the variable as written


def _is_port(value: str) -> bool:
    return value.isascii() and value.isdigit() and 0 < int(value) < 65536


# A variable whose name says it holds a port: `$port`, `${SSH_PORT}`, `"$remote_port"`.
_PORT_NAME = re.compile(r"(?:[A-Za-z0-9_]*_)?port\Z", re.IGNORECASE)


def _port_variable(word: Word) -> bool:
    """Whether the word is one whole variable named as a port (`-p "$port"`): its value
    is the port, one word, whatever it is."""
    if len(word.expansions) != 1 or word.static:
        return False
    e = word.expansions[0]
    whole = e.start == 0 and e.end == len(word.value)
    return whole and e.kind == "variable" and _PORT_NAME.match(e.name) is not None


def _static(word: Word) -> str | None:
    return word.value if word.static else None


def scan_scp(words: tuple[Word, ...]) -> tuple[list[PortFlag], bool]:
    """The `-p N` options of an scp argv, and whether a real port option is present."""
    found: list[PortFlag] = []
    has_port = False
    i = 1
    while i < len(words):
        value = _static(words[i])
        if value is None or value == "--" or not value.startswith("-") or len(value) < 2:
            break
        consumed_next = False
        for k in range(1, len(value)):
            letter = value[k]
            if letter in SCP_ARG_OPTIONS:
                attached = value[k + 1 :]
                arg = attached
                if not attached and i + 1 < len(words):
                    arg = _static(words[i + 1]) or ""
                    consumed_next = True
                has_port = has_port or _gives_port(letter, arg)
                break
            flag = _port_flag(words, i, k) if letter == "p" else None
            if flag is not None:
                found.append(flag)
                break
        i += 2 if consumed_next else 1
    return found, has_port


def _gives_port(letter: str, arg: str) -> bool:
    """Whether scp's option `letter` with its argument `arg` sets the port: `-P 2022`,
    `-o Port=2022`."""
    return letter == "P" or (letter == "o" and arg.lower().replace(" ", "=").startswith("port="))


def _port_flag(words: tuple[Word, ...], i: int, k: int) -> PortFlag | None:
    """The port meant by the `-p` at letter `k` of words[i] (a static word): the digits
    after it (`-p2022`), or the next word (`-p 2022`, `-p "$port"`)."""
    rest = words[i].value[k + 1 :]
    if rest:
        return PortFlag(words[i], k, rest, True) if _is_port(rest) else None
    if i + 1 >= len(words):
        return None
    number = _static(words[i + 1])
    if number is not None and _is_port(number):
        return PortFlag(words[i], k, number, False)
    if _port_variable(words[i + 1]):
        return PortFlag(words[i], k, words[i + 1].value, False, True)
    return None


def _message(flag: PortFlag) -> str:
    if flag.attached:
        return (
            f"`scp -p{flag.number}`: scp's `-p` preserves times and takes no port, so it reads "
            f"the digits as more single-letter flags and exits with `unknown option`; the port "
            f"flag of scp is `-P` (`-P{flag.number}`)"
        )
    shown = flag.word.value
    if flag.variable:
        return (
            f"`scp {shown} {flag.number}`: scp's `-p` preserves times and takes no port, so "
            f"the port in `{flag.number}` becomes a source file (scp says `stat local ...: No "
            f"such file or directory`) and connects to the default port 22 instead; the "
            f"port flag of scp is `-P`"
        )
    return (
        f"`scp {shown} {flag.number}`: scp's `-p` preserves times and takes no port, so "
        f'`{flag.number}` becomes a source file (`stat local "{flag.number}": No such file '
        f"or directory`) and scp connects to the default port 22 instead; the port flag of "
        f"scp is `-P`"
    )


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    for call in calls(layer, COPYING):
        # `scp "${OPTS[@]}" f h:` with `OPTS=(-p 2222)` set once before: its words
        words, origin = with_literals(layer.definitions, call.command.start, call.words)
        flags, has_port = scan_scp(words)
        if has_port:
            continue
        for flag in flags:
            at = flag.word.offsets[flag.letter]
            used = call.words[origin[next(k for k, w in enumerate(words) if w is flag.word)]]
            if used is not flag.word:
                # The value may serve other commands too (`ssh "${OPTS[@]}"`, where -p
                # is the port): reported where scp uses it, with no fix.
                message = f"{_message(flag)}; the `-p` comes from `{used.value}`"
                yield finding(layer, "HL108", "port-from-options", message, used.start, used.end)
                continue
            fix = layer_fix(
                layer, [(at, at + 1, "P")], Applicability.SAFE, "Use scp's port flag `-P`"
            )
            yield finding(
                layer,
                "HL108",
                "port-number",
                _message(flag),
                flag.word.start,
                at + 1,
                fix,
            )


# -- examples (tests/test_rule_lists.py) ---------------------------------------------------
_SAYS = "the port flag of scp is `-P`"
INVALID = (
    Invalid(
        "#!/bin/bash\nscp -p 2022 dist/app.tgz ops@edge-1:/opt/app/\n",
        "-p",
        "#!/bin/bash\nscp -P 2022 dist/app.tgz ops@edge-1:/opt/app/\n",
        "error",
        "`2022` becomes a source file",
    ),
    Invalid("scp -rp 2022 a h:/b\n", "-rp", "scp -rP 2022 a h:/b\n", "error", _SAYS),
    Invalid("scp -p2022 a h:/b\n", "-p", "scp -P2022 a h:/b\n", "error", _SAYS),
    Invalid("scp -q -p 2222 a h:/b\n", "-p", "scp -q -P 2222 a h:/b\n", "error", _SAYS),
    Invalid("sudo scp -i key -p 2022 a h:/b\n", "-p", "sudo scp -i key -P 2022 a h:/b\n"),
    Invalid(
        "timeout 60 scp -C -p 10022 a h:/b && echo ok\n",
        "-p",
        "timeout 60 scp -C -P 10022 a h:/b && echo ok\n",
        "error",
    ),
    Invalid("/usr/bin/scp -p 2022 a h:/b\n", "-p", "/usr/bin/scp -P 2022 a h:/b\n"),
    Invalid('ssh jump "scp -p 2022 a h:/b"\n', "-p", 'ssh jump "scp -P 2022 a h:/b"\n'),
    Invalid("ssh jump 'scp -rp 2022 a h:/b'\n", "-rp", "ssh jump 'scp -rP 2022 a h:/b'\n"),
    Invalid("ssh jump 'scp -p 2022 a h:/b'\n", "-p", "ssh jump 'scp -P 2022 a h:/b'\n"),
    Invalid('scp -p "$port" f h:/tmp\n', "-p", 'scp -P "$port" f h:/tmp\n', says="`$port`"),
)
VALID = (
    "scp -P 2022 dist/app.tgz ops@edge-1:/opt/app/\n",
    "scp -P2022 a h:/b\n",
    "scp -p file.txt h:/b\n",  # -p preserving times, no number
    "scp -rp dir h:/b\n",
    "scp -P 22 -p 2022 h:/b\n",  # a port is given: 2022 may be a real file
    "scp -o Port=22 -p 2022 h:/b\n",
    "scp -i -p 2022 h:/b\n",  # `-p` is the argument of -i
    "scp -p 70000 h:/b\n",  # not a port number
    "scp a h:/b -p 2022\n",  # scp stops at the first operand
    "ssh -p 2022 ops@edge-1 uptime\n",
    "sftp -p 2022 h\n",
    "echo scp -p 2022 a h:/b\n",
)


RULE = rule(
    "HL108",
    "scp-port-flag",
    check,
    fix=FixAvailability.SOMETIMES,
)
