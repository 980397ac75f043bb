r"""`ssh h cd /x && cmd`: the operator and the next command run locally.

## What it does
Finds an unquoted `&&`, `||`, `;` or `|` right after an `ssh` whose remote
command only changes the state of the remote shell: `cd`, `pushd`, `export`,
`source`/`.`, a variable assignment, `umask`, `ulimit`, `set`, `alias`, ...

## Why is this bad?
The operator is not part of the remote command: the local shell reads it,
so everything after it runs on this machine. The remote shell changes its
directory or environment and exits at once, and the change is lost with it.
`ssh builder cd /src/project && make release` runs `make release` in the
local current directory, on the local machine.

## Example
```bash
ssh builder cd /src/project && make release
```

## Use instead
```bash
ssh builder 'cd /src/project && make release'
```

## Fix safety
Unsafe: the fix moves the commands after the operator into the remote
command string, which is what the state change asks for, but it changes the
machine they run on. When those commands hold something the local shell
expands or a redirection (`$v`, `$(...)`, `> log`), moving them also moves the
expansion or the file to the remote side, so the fix is only displayed.
A `|| exit 1`-style fallback (`exit`, `return`, `true`, `false`, `:`) is meant
to run locally and is not reported.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

from heredoc_lint.fixes.edits import layer_fix
from heredoc_lint.layers.layer import Layer
from heredoc_lint.layers.wrappers import Invocation, SshCall
from heredoc_lint.model import Applicability, Finding, Fix
from heredoc_lint.rules.base import Context, FixAvailability, Invalid, finding, quote_snippet, rule
from heredoc_lint.shell.syntax import STATE_BUILTINS, Command, Script, parse_script

OPERATORS = frozenset({"&&", "||", ";", "|", "|&"})
# After `||`, a command meant to run locally when the remote one fails.
_LOCAL_FALLBACKS = frozenset({"exit", "return", "true", "false", ":", "die", "fail", "abort"})
_CHAIN = frozenset({"&&", "||", "|", "|&"})
_WORD = r"""(?:'[^']*'|"(?:[^"\\]|\\.)*"|[^\s;&|'"()<>])*"""
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=" + _WORD)
_ASSIGNMENTS = re.compile(r"(?:\s|;|&&|\|\||[A-Za-z_][A-Za-z0-9_]*\+?=" + _WORD + ")*")


def _state_only(script: Script) -> list[str] | None:
    """The state-changing commands of a remote script, or None if it does anything else."""
    if script.errors or script.heredocs:
        return None
    names: list[str] = []
    residual = list(script.text)
    for command in script.commands:
        if command.in_substitution:
            return None
        for k in range(command.start, _statement_end(command)):
            residual[k] = " "
        if not command.words:
            names.extend(a.value for a in command.assignments)
            continue
        name = command.name
        if name not in STATE_BUILTINS:
            return None
        if name == "set" and len(command.words) == 1:
            return None  # `set` alone prints the variables
        if name in ("export", "declare", "typeset", "alias", "readonly", "local") and all(
            w.value.startswith("-") for w in command.words[1:]
        ):
            return None  # without operands these print, they change nothing
        names.append(name)
    # What is left are bare assignments (`FOO=1`), which make no command of their own.
    rest = "".join(residual)
    if not _ASSIGNMENTS.fullmatch(rest):
        return None
    names.extend(m.group(0) for m in _ASSIGNMENT.finditer(rest))
    return names or None


def _next_command(script: Script, command: Command) -> Command | None:
    after = command.next_op_start + len(command.next_op or "")
    for other in script.commands:
        if other.start >= after:
            between = script.text[after : other.start]
            return other if not between.strip(" \t\n\\") else None
    return None


def _statement_end(command: Command) -> int:
    end = command.end
    for redirect in command.redirects:
        end = max(end, redirect.end)
    return end


def _moved_chain(script: Script, first: Command) -> list[Command] | None:
    """The and-or list that starts at `first`: the commands a fix moves to the remote side."""
    chain = [first]
    current = first
    while current.next_op in _CHAIN:
        following = _next_command(script, current)
        if following is None:
            return None
        chain.append(following)
        current = following
    return chain


def _local_quote(text: str, static: bool, nested: bool) -> str:
    """`text` as one word for the shell of the layer (double quotes read better nested)."""
    if static:
        plain = not any(c in text for c in '"$`\\!')
        if plain and (nested or "'" in text):
            return f'"{text}"'
        if "'" not in text:
            return f"'{text}'"
        return shlex.quote(text)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _fix(layer: Layer, command: Command, invocation: Invocation, remote: str) -> Fix | None:
    script = layer.script
    words = invocation.words
    if any(r.start > words[-1].end for r in command.redirects):
        return None  # the ssh's own redirection would move into the string
    following = _next_command(script, command)
    if following is None or not following.words:
        return None
    chain = _moved_chain(script, following)
    if chain is None:
        return None
    end = _statement_end(chain[-1])
    moved = script.text[following.start : end]
    if "\n" in moved or any(c.in_substitution for c in chain):
        return None
    op = command.next_op or ""
    combined = f"{remote}{op} {moved}" if op == ";" else f"{remote} {op} {moved}"
    static = all(w.static for w in words)
    local_effects = any(ch in moved for ch in "$`") or any(c.redirects for c in chain)
    content = _local_quote(combined, static, layer.depth > 0)
    applicability = (
        Applicability.UNSAFE if static and not local_effects else Applicability.DISPLAY_ONLY
    )
    return layer_fix(
        layer,
        [(words[0].start, end, content)],
        applicability,
        f"Run `{quote_snippet(moved, 40)}` in the remote shell too: {content}",
    )


def _host(command: Command, ssh: SshCall) -> str:
    if ssh.host_index is None:
        return "the remote host"
    return command.words[ssh.host_index].value.rsplit("@", 1)[-1] or "the remote host"


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    script = layer.script
    for command, invocation in layer.invocations:
        op = command.next_op
        if op not in OPERATORS or invocation.ssh is None or not invocation.words:
            continue
        remote = " ".join(w.value for w in invocation.words)
        names = _state_only(parse_script(remote))
        if names is None:
            continue
        following = _next_command(script, command)
        if op == "||" and (following is None or following.name in _LOCAL_FALLBACKS):
            continue
        if op == ";" and (
            following is None or "\n" in script.text[command.next_op_start : following.start]
        ):
            continue  # `if ssh h cd /x; then`, or `;` at the end of the line: not chained
        what = ", ".join(f"`{n}`" for n in dict.fromkeys(names))
        host = _host(command, invocation.ssh)
        then = (
            f"`{quote_snippet(script.text[following.start : _statement_end(following)], 40)}`"
            if following is not None and following.words
            else "the next command"
        )
        yield finding(
            layer,
            "HL110",
            "state-change-lost",
            f"`{op}` is read by the local shell, not by the remote one: `{quote_snippet(remote)}` "
            f"only changes the state of the remote shell on {host}, which exits at once, so the "
            f"{what} is lost and {then} runs on this machine; put the whole command in one "
            "quoted string",
            command.next_op_start,
            command.next_op_start + len(op),
            _fix(layer, command, invocation, remote),
        )


# -- examples (tests/test_rule_lists.py) ---------------------------------------------------
INVALID = (
    Invalid(
        "#!/bin/bash\nssh builder cd /src/project && make release\n",
        "&&",
        "#!/bin/bash\nssh builder 'cd /src/project && make release'\n",
        "error",
        "so the `cd` is lost and `make release` runs on this machine",
    ),
    Invalid(
        "ssh builder 'cd /src/project' && make release && make install\n",
        "&&",
        "ssh builder 'cd /src/project && make release && make install'\n",
        "error",
        "so the `cd` is lost and `make release` runs on this machine",
    ),
    Invalid(
        "ssh -p 2222 ops@h export FOO=1; ./run.sh\n",
        ";",
        "ssh -p 2222 ops@h 'export FOO=1; ./run.sh'\n",
        "error",
        "so the `export` is lost and `./run.sh` runs on this machine",
    ),
    Invalid(
        "ssh h cd /srv || make\n",
        "||",
        "ssh h 'cd /srv || make'\n",
        "error",
        "so the `cd` is lost and `make` runs on this machine",
    ),
    Invalid(
        "ssh h FOO=1 && ./run\n",
        "&&",
        "ssh h 'FOO=1 && ./run'\n",
        "error",
        "so the `FOO=1` is lost and `./run` runs on this machine",
    ),
    Invalid(
        "ssh h umask 022 | tee log\n",
        "|",
        "ssh h 'umask 022 | tee log'\n",
        "error",
        "so the `umask` is lost and `tee log` runs on this machine",
    ),
    Invalid(
        "ssh h source ~/.profile && ./deploy\n",
        "&&",
        None,
        "error",
        "so the `source` is lost and `./deploy` runs on this machine",
    ),
    Invalid(
        "ssh h . /etc/profile && ./deploy\n",
        "&&",
        "ssh h '. /etc/profile && ./deploy'\n",
        "error",
        "so the `.` is lost and `./deploy` runs on this machine",
    ),
    Invalid(
        "ssh h ulimit -n 65536 && ./server\n",
        "&&",
        "ssh h 'ulimit -n 65536 && ./server'\n",
        "error",
        "so the `ulimit` is lost and `./server` runs on this machine",
    ),
    Invalid(
        "ssh h pushd /srv && make\n",
        "&&",
        "ssh h 'pushd /srv && make'\n",
        "error",
        "so the `pushd` is lost and `make` runs on this machine",
    ),
    Invalid(
        "ssh h set -e && make\n",
        "&&",
        "ssh h 'set -e && make'\n",
        "error",
        "so the `set` is lost and `make` runs on this machine",
    ),
    Invalid(
        'ssh h cd "$dir" && make\n',
        "&&",
        None,
        "error",
        "so the `cd` is lost and `make` runs on this machine",
    ),
    Invalid(
        "ssh h cd /x && { make; }\n",
        "&&",
        None,
        "error",
        "so the `cd` is lost and the next command runs on this machine",
    ),
    Invalid(
        "ssh h cd /x &&\n  make\n",
        "&&",
        "ssh h 'cd /x && make'\n",
        "error",
        "so the `cd` is lost and `make` runs on this machine",
    ),
    Invalid(
        "sudo -u deploy ssh h cd /srv && make\n",
        "&&",
        "sudo -u deploy ssh h 'cd /srv && make'\n",
        "error",
        "so the `cd` is lost and `make` runs on this machine",
    ),
    # nested layers: the operator inside a bash -c string, or inside an outer ssh string
    Invalid(
        "bash -c 'ssh h cd /x && make all'\n",
        "&&",
        "bash -c 'ssh h \"cd /x && make all\"'\n",
        "error",
        "so the `cd` is lost and `make all` runs on this machine",
    ),
    Invalid(
        'ssh gw "ssh inner cd /srv && make"\n',
        "&&",
        'ssh gw "ssh inner \\"cd /srv && make\\""\n',
        "error",
        "so the `cd` is lost and `make` runs on this machine",
    ),
    # fixes: what follows the moved command stays local; quotes inside it are kept
    Invalid("ssh h cd /srv && make; echo done\n", "&&", "ssh h 'cd /srv && make'; echo done\n"),
    Invalid("ssh h cd /srv && make &\n", "&&", "ssh h 'cd /srv && make' &\n"),
    Invalid(
        "ssh h cd /srv && git log --format='%h %s'\n",
        "&&",
        "ssh h \"cd /srv && git log --format='%h %s'\"\n",
    ),
)
VALID = (
    "ssh h 'cd /srv && make'\n",
    'ssh h "cd /x; make" && echo done\n',
    "ssh h cd /srv\nmake\n",  # a new line: not the `&&` trap
    "ssh h cd /srv;\nmake\n",
    "if ssh h cd /srv/app; then echo exists; fi\n",  # `;` of the if: a check
    "while ! ssh h cd /srv; do sleep 1; done\n",
    "ssh h cd /srv || exit 1\n",  # a local fallback is meant to run locally
    "ssh h cd /srv || true\n",
    "ssh h cd /srv || true\nls\n",
    "ssh h cd /srv || { echo missing; exit 1; }\n",
    "ssh h cd /srv &\n",
    "ssh h set && echo\n",  # `set` alone prints
    "ssh h export && echo\n",
    "ssh h uptime && echo ok\n",
    "ssh h ls /srv | grep x\n",
    "ssh h 'x=$(hostname)' && echo\n",
    "ssh -N -L 8080:localhost:80 h && echo\n",
    "cd /srv && make\n",
    "bash -c 'cd /x' && make\n",
    'echo "ssh h cd /x && make"\n',
    "ssh h && make\n",
)


RULE = rule("HL110", "local-operator-after-ssh", check, fix=FixAvailability.SOMETIMES)
