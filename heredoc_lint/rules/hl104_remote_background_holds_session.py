r"""A `&` job in an ssh command whose stdout/stderr still goes to the session: ssh waits.

## What it does
Finds a command started in the background with `&` (with or without
`nohup` or `setsid`) in a command that ssh runs, whose standard output or
standard error still goes to the ssh session.

## Why is this bad?
`&` does not detach anything from the session. The background job inherits
the remote shell's stdout and stderr, which are the ssh channel, and sshd
keeps the channel open as long as any process holds them. The remote shell
exits at once, but ssh does not return until the background job exits: a
server started this way keeps the deploy script hanging for the server's
lifetime (measured: `ssh h 'nohup sleep 3 &'` takes 3 s, with
`> /dev/null 2>&1` it returns at once; `> /dev/null` alone still takes 3 s).
`nohup` does not help: it only redirects output that goes to a terminal, and
an ssh command has none. The same holds for the background subshell of a list
(`cd /srv && nohup ./run > log 2>&1 &`): the subshell running the list keeps
the session open while it waits for `./run` (measured: 3.3 s for `sleep 3`).
A job after a `pkill -f` that kills its own shell (HL103) never starts and is
not reported, nor is an ssh run in a local job (`ssh h '...' &`,
`(ssh h '...') &`): nothing waits for that session. A whole script is read so
when another file of the project runs it as the command of an ssh session
(`ssh -T ops@manager run_job.sh` in its README, Makefile or driver script,
without `-t`): its stdout and stderr are the session.

The same holds for the channel of paramiko's `exec_command` and fabric's
`Connection.run`: it stays open while the job holds it. fabric's `run` reads
the output to its end and waits (measured: 4 s for `nohup sleep 3 > /dev/null
&`; `disown=True` returns at once and is not reported); `exec_command` returns
at once, and it is reading its stdout or stderr that waits (3.5 s measured;
`recv_exit_status()` alone does not), so it is a warning only where the file
reads them, and `info` otherwise.

## Example
```bash
ssh web-1 "nohup ./server --port 8080 &"
```

## Use instead
```bash
ssh web-1 "nohup ./server --port 8080 > server.log 2>&1 < /dev/null &"
```
For a list, redirect the group: `{ cd /srv && ./run; } > /dev/null 2>&1 < /dev/null &`.

## Fix safety
Unsafe: the fix adds the missing `> /dev/null`, `2>&1` and `< /dev/null`
(an existing log target is kept: `> x.log &` becomes
`> x.log 2>&1 < /dev/null &`). Output that now reaches the caller through the
session goes to /dev/null or to the log instead, and the caller no longer
waits for the job; that is what the `&` asks for, but it changes what the
script prints.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from heredoc_lint.fixes.edits import layer_fix
from heredoc_lint.layers.layer import Layer
from heredoc_lint.layers.wrappers import Role
from heredoc_lint.model import Applicability, Finding, Fix
from heredoc_lint.project.launchers import Launcher
from heredoc_lint.rules.base import Context, FixAvailability, Invalid, finding, quote_snippet, rule
from heredoc_lint.shell.definitions import function_bodies
from heredoc_lint.shell.structure import (
    AndOr,
    Compound,
    Group,
    Pipeline,
    Redirected,
    Simple,
    Statement,
    Subshell,
    structure,
)
from heredoc_lint.shell.syntax import Redirect, Script

if TYPE_CHECKING:
    from heredoc_lint.frontends.python.waits import Wait

SESSION = "session"  # the ssh channel
AWAY = "away"  # a file, /dev/null, a pipe
CLOSED = "closed"
PIPE = "pipe"

State = Mapping[int, str]
_START: State = {0: SESSION, 1: SESSION, 2: SESSION}

_JOB_CONTROL = frozenset({"wait", "fg"})


# -- the redirections -------------------------------------------------------------------


def _from_redirects(redirects: Iterable[Redirect]) -> list[Redirect]:
    """In the order they are written: bash does them left to right."""
    return sorted(redirects, key=lambda r: r.start)


def apply(state: State, redirects: Iterable[Redirect]) -> dict[int, str]:
    """The descriptor table after `redirects`, done left to right as bash does."""
    table = dict(state)
    for r in redirects:
        op = r.op
        target = r.target.value if r.target is not None else None  # de-quoted
        if op.endswith("-") and op in (">&-", "<&-"):
            table[r.fd if r.fd is not None else (1 if op == ">&-" else 0)] = CLOSED
        elif op in (">&", "<&"):
            fd = r.fd if r.fd is not None else (1 if op == ">&" else 0)
            if target == "-":
                table[fd] = CLOSED
            elif target is not None and target.isdigit():
                table[fd] = table.get(int(target), CLOSED)
            elif op == ">&" and r.fd is None:
                table[1] = table[2] = AWAY  # `>&file` is `&>file`
            else:
                table[fd] = AWAY
        elif op.startswith("&>"):
            table[1] = table[2] = AWAY
        elif ">" in op:
            table[r.fd if r.fd is not None else 1] = AWAY
        else:  # <, <<, <<-, <<<
            table[r.fd if r.fd is not None else 0] = AWAY
    return table


def holds(state: State) -> bool:
    return state.get(1) == SESSION or state.get(2) == SESSION


def _attached(state: State) -> str:
    out, err = state.get(1) == SESSION, state.get(2) == SESSION
    if out and err:
        return "stdout and stderr"
    return "stdout" if out else "stderr"


def missing(state: State, stdin: bool = True) -> str:
    """The redirections that take a job with this table off the session."""
    pieces: list[str] = []
    out, err = state.get(1), state.get(2)
    if out == SESSION and err == SESSION:
        pieces.append("> /dev/null 2>&1")
    elif err == SESSION:
        pieces.append("2>&1" if out == AWAY else "2> /dev/null")
    elif out == SESSION:
        pieces.append("> /dev/null")
    if stdin and state.get(0) == SESSION:
        pieces.append("< /dev/null")
    return " ".join(pieces)


# -- which layers are attached to an ssh session -----------------------------------------


def _passes_through(layer: Layer) -> bool:
    """A synchronous shell inside the session: `bash -c S`, `eval S`, `su -c S`,
    `sudo bash <<EOF`, ..."""
    invocation = layer.invocation
    if invocation is not None and (invocation.remote or invocation.apart):
        return False  # another host's, a container's or the service manager's process
    return layer.role is Role.EVAL or (layer.role is Role.SHELL and layer.kind != "file")


def session_state(layer: Layer) -> dict[int, str] | None:
    """The descriptors this layer's shell starts with, if it runs in an ssh session."""
    chain: list[list[Redirect]] = []
    current: Layer | None = layer
    while current is not None and current.depth > 0 and current.role is not None:
        if _channel_root(current) is current:
            # A Python channel's own remote shell (paramiko's exec_command, fabric's
            # run): its descriptors are the channel's, as an ssh command's are the session's.
            return _start_table(chain)
        command = current.command
        if command is None or command.in_substitution or command.in_job:
            return None
        if current.role is Role.SSH:
            ssh = current.invocation.ssh if current.invocation is not None else None
            if ssh is not None and (ssh.has_flag("t") or ssh.has_flag("f")):
                return None  # a tty hangs the job up; -f: the caller does not wait
            return _start_table(chain)
        if not _passes_through(current):
            return None
        chain.append(_from_redirects(command.redirects))
        current = current.parent
    return None


def _start_table(chain: list[list[Redirect]]) -> dict[int, str]:
    table = dict(_START)
    for redirects in reversed(chain):
        table = apply(table, redirects)
    return table


# -- the analysis of one background job ---------------------------------------------------


@dataclass(frozen=True)
class Job:
    evidence: str  # a kind of heredoc_lint.severities' HL104 rows
    anchor: tuple[int, int]  # layer text offsets
    state: State  # the descriptors of the process that holds the session
    what: str  # how the message names the job
    edits: tuple[tuple[int, int, str], ...]  # layer text edits that fix it


def _word_anchor(script: Script, statement: Statement) -> tuple[int, int]:
    """The first command word inside the statement; else its first token."""
    for command in script.commands:
        if statement.start <= command.start < statement.end and command.words:
            word = command.words[0]
            return word.start, word.end
    return statement.opener


def _simple_table(statement: Simple, state: State) -> dict[int, str] | None:
    if statement.command is None:
        return None
    return apply(state, _from_redirects(statement.command.redirects))


def process_holds(statement: Statement, state: State) -> bool:
    """Whether some process this statement starts keeps a session descriptor."""
    if isinstance(statement, Simple):
        table = _simple_table(statement, state)
        return table is not None and holds(table)
    if isinstance(statement, Redirected):
        body = statement.body
        if body is None:
            return False
        if isinstance(body, (Simple, AndOr, Pipeline)):
            # The redirections belong to the (last) simple command: the Command has them.
            return process_holds(body, state)
        return process_holds(body, apply(state, _from_redirects(statement.redirects)))
    if isinstance(statement, Pipeline):
        last = len(statement.members) - 1
        for index, member in enumerate(statement.members):
            table = dict(state)
            if index < last:
                table[1] = PIPE
                if statement.stderr_piped[index]:
                    table[2] = PIPE
            if process_holds(member, table):
                return True
        return False
    if isinstance(statement, Subshell):
        inner = statement.body
        if len(inner) == 1 and isinstance(inner[0], (Simple, Redirected)):
            return process_holds(inner[0], state)  # bash execs a lone command
        return holds(state)
    if isinstance(statement, (Group, Compound, AndOr)):
        return holds(state)
    return False


def _last_element(statement: Statement) -> Statement | None:
    node: Statement | None = statement
    while isinstance(node, (Redirected, AndOr)):
        if isinstance(node, AndOr):
            if not node.items:
                return None
            node = node.items[-1]
        else:
            node = node.body
    return node


def analyse(script: Script, statement: Statement, state: State) -> Job | None:
    """The background job `statement &` started with descriptors `state`."""
    end = statement.end
    node = statement
    if isinstance(statement, Redirected):
        if statement.body is None:
            return None
        node = statement.body
        if not isinstance(node, (Simple, AndOr, Pipeline)):
            state = apply(state, _from_redirects(statement.redirects))
    if isinstance(node, Simple):
        table = _simple_table(node, state)
        if table is None or not holds(table):
            return None
        command = node.command
        assert command is not None
        anchor = (
            (command.words[0].start, command.words[0].end)
            if command.words
            else (command.start, command.end)
        )
        edits = ((end, end, " " + missing(table)),)
        return Job("background-command", anchor, table, "background command", edits)
    if isinstance(node, (AndOr, Pipeline)):
        return _sequence_job(script, statement, node, state)
    if isinstance(node, (Subshell, Group, Compound)):
        if not process_holds(node, state):
            return None
        edits = ((end, end, " " + missing(state)),)
        what = "background " + ("subshell" if isinstance(node, Subshell) else "group")
        return Job("background-group", node.opener, state, what, edits)
    return None


def _sequence_job(
    script: Script, statement: Statement, node: AndOr | Pipeline, state: State
) -> Job | None:
    """`a | b &`, `a && b &`: the job is the whole sequence, grouped by the fix."""
    if not process_holds(statement, state):
        return None
    start, end = statement.start, statement.end
    group = ((start, start, "{ "), (end, end, "; } " + missing(state)))
    if isinstance(node, Pipeline):
        anchor = _word_anchor(script, statement)
        return Job("background-pipeline", anchor, state, "background pipeline", group)
    last = _last_element(statement)
    if last is not None and process_holds(last, state):
        anchor = _word_anchor(script, last)
        return Job("background-command", anchor, state, "background command", group)
    what = "background subshell that runs this list"
    return Job("background-list", _word_anchor(script, statement), state, what, group)


def _exec_prelude(script: Script, before: int) -> list[Redirect]:
    """Redirections of `exec > log 2>&1` lines before `before`: they move the shell's own."""
    found: list[Redirect] = []
    for command in script.commands:
        if command.start >= before:
            break
        if [w.value for w in command.words] == ["exec"] and not command.in_substitution:
            found.extend(_from_redirects(command.redirects))
    return found


def _waited(script: Script, after: int) -> bool:
    """A later `wait` (or `kill $!`) shows that the job is meant to end with the session,
    when no `exit` comes first: `if async; then exit 1; else wait $!; fi` leaves it
    running on one path.  (Which comes first is known outside functions only: a
    function's job and `exit` run where it is called.)"""
    bodies: list[tuple[int, int]] | None = None
    for command in script.commands:
        if command.start <= after:
            continue
        if command.name in _JOB_CONTROL:
            return True
        if command.name == "kill" and any(
            "$!" in w.value or w.value.startswith("%") for w in command.words[1:]
        ):
            return True
        if command.name == "exit" and not command.in_substitution:
            bodies = list(function_bodies(script).values()) if bodies is None else bodies
            if not any(a <= at < b for a, b in bodies for at in (after, command.start)):
                return False
    return False


def _fix(layer: Layer, edits: tuple[tuple[int, int, str], ...]) -> Fix | None:
    added = edits[-1][2].strip().removeprefix("; }").strip()
    return layer_fix(
        layer,
        edits,
        Applicability.UNSAFE,
        f"Redirect the job away from the session: add `{added}` before the `&`",
    )


def _start_state(layer: Layer, launcher: Launcher | None) -> dict[int, str] | None:
    """The descriptors the layer's shell starts with, if it runs in an ssh session: a
    command inside ssh's string, or a script that another file of the project runs as
    ssh's command (`launcher`, launchers.py), which starts with the session as its own."""
    if launcher is not None:
        return dict(_START)
    if not layer.remote or layer.depth == 0:
        return None
    return session_state(layer)


def _held(
    job: Job, note: str, launcher: Launcher | None, root: Layer | None, channel: Wait | None
) -> tuple[str, str, str]:
    """The finding's evidence kind, what the job still has (in the message's words), and
    what it keeps waiting: the ssh session and ssh, or the channel of the Python call
    that runs the layer (`root`) and the program."""
    if channel is None or root is None:
        shell = "the remote shell" if launcher is None else "the script"
        held = (
            f"the ssh session as its {_attached(job.state)}: {shell} exits, but "
            f"ssh does not return until this job exits{note}"
        )
        if launcher is not None:
            held += f" ({launcher.why})"
        return job.evidence, held, "ssh return"
    kind = job.evidence if channel.waits else "channel-unwaited"
    waits = channel.waits or "the file does not show that anything waits for it"
    held = (
        f"the channel of `{root.wrapper}` as its {_attached(job.state)}: the remote "
        f"shell exits, but the channel stays open until this job exits{note}, and "
        f"{waits}"
    )
    return kind, held, "the program go on"


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    if "&" not in layer.text:
        return
    launcher = context.ssh_launcher if layer.depth == 0 else None
    base = _start_state(layer, launcher)
    if base is None:
        return
    root = _channel_root(layer)
    channel = _channel(root) if root is not None else None
    if channel is not None and channel.returns_at_once:
        return
    killed_at = _shell_killed_at(layer, context)
    for found in structure(layer.script).jobs:
        statement, at = found.statement, found.amp
        if _waited(layer.script, at) or statement.start >= killed_at:
            continue
        state = apply(base, _exec_prelude(layer.script, at))
        if not holds(state):
            continue
        job = analyse(layer.script, statement, state)
        if job is None:
            continue
        source = layer.text[statement.start : at + 1]
        snippet = quote_snippet(source, 50)
        detach = next((w for w in ("nohup", "setsid", "disown") if w in source), None)
        note = f" (`{detach}` does not detach it from the session)" if detach else ""
        kind, held, goes_on = _held(job, note, launcher, root, channel)
        yield finding(
            layer,
            "HL104",
            kind,
            f"The {job.what} `{snippet}` still has {held}; redirect them "
            f"(`> file 2>&1 < /dev/null`) to let {goes_on} at once",
            job.anchor[0],
            job.anchor[1],
            _fix(layer, job.edits),
        )


def _shell_killed_at(layer: Layer, context: Context) -> int:
    """Where the remote shell dies: at the first `pkill -f` that HL103 finds matching the
    shell's own command line with commands after it (their jobs never start, so none holds
    the session); the layer's end where none does."""
    if "pkill" not in layer.text:
        return len(layer.text)
    from heredoc_lint.rules.hl103_pkill_self_match import decide

    ends = (
        verdict.call.command.end
        for verdict in decide(layer, context)
        if verdict.evidence == "shares-string"
        and verdict.call.tool == "pkill"
        and not verdict.call.filled_in
    )
    return min(ends, default=len(layer.text))


def _channel_root(layer: Layer) -> Layer | None:
    """The root layer that a Python channel runs remotely, when no ssh command between it
    and `layer` makes the session."""
    current = layer
    while current.parent is not None:
        if current.role is Role.SSH:
            return None
        current = current.parent
    # An ssh argument list (`["ssh", "-f", h, cmd]`) is judged when the frontend kept its
    # options (-f, -t): waits.py.
    if current.depth == 0 or current.origin is None:
        return None
    from heredoc_lint.frontends.python.waits import judged_session

    if current.role is Role.SSH and not judged_session(current.origin):
        return None
    return current


def _channel(root: Layer) -> Wait:
    """What the program does with the channel of the Python call that runs `root`."""
    from heredoc_lint.frontends.python.waits import channel_wait

    return channel_wait(root.origin)


# -- examples (tests/test_rule_lists.py) ---------------------------------------------------
_SAYS = "ssh does not return until this job exits"
_QUIET = "> /dev/null 2>&1 < /dev/null &"  # what the fix adds where nothing is redirected
INVALID = (
    Invalid(
        '#!/bin/bash\nssh web-1 "nohup tail -f /var/log/nginx/access.log &"\n',
        "nohup",
        f'#!/bin/bash\nssh web-1 "nohup tail -f /var/log/nginx/access.log {_QUIET}"\n',
        "warning",
        _SAYS,
    ),
    Invalid("ssh h 'sleep 3 &'\n", "sleep", f"ssh h 'sleep 3 {_QUIET}'\n", "warning", _SAYS),
    Invalid(
        "ssh h 'setsid ./server --port 8080 &'\n",
        "setsid",
        f"ssh h 'setsid ./server --port 8080 {_QUIET}'\n",
        "warning",
        _SAYS,
    ),
    Invalid(  # stderr still on the session
        "ssh h 'nohup ./srv > srv.log &'\n",
        "nohup",
        "ssh h 'nohup ./srv > srv.log 2>&1 < /dev/null &'\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        "ssh h 'nohup ./srv > /dev/null &'\n",
        "nohup",
        "ssh h 'nohup ./srv > /dev/null 2>&1 < /dev/null &'\n",
        "warning",
        _SAYS,
    ),
    Invalid(  # 2>&1 first: stderr is the session
        "ssh h './srv 2>&1 > /dev/null &'\n",
        "./srv",
        "ssh h './srv 2>&1 > /dev/null 2>&1 < /dev/null &'\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        "ssh h 'nohup ./srv 2> err.log &'\n",
        "nohup",
        "ssh h 'nohup ./srv 2> err.log > /dev/null < /dev/null &'\n",
        "warning",
        _SAYS,
    ),
    Invalid(  # a list: the last command holds; the fix redirects the group
        "ssh h 'cd /srv && nohup ./run &'\n",
        "nohup",
        f"ssh h '{{ cd /srv && nohup ./run; }} {_QUIET}'\n",
        "warning",
        _SAYS,
    ),
    Invalid(  # a compound: its opening token
        "ssh h '(cd /srv && ./run) &'\n",
        "(",
        f"ssh h '(cd /srv && ./run) {_QUIET}'\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        "ssh h 'for i in 1 2; do ./w $i; done &'\n",
        "for",
        f"ssh h 'for i in 1 2; do ./w $i; done {_QUIET}'\n",
        "warning",
        _SAYS,
    ),
    Invalid(  # ./a's stderr
        "ssh h './a | ./b > out.log 2>&1 &'\n",
        "./a",
        f"ssh h '{{ ./a | ./b > out.log 2>&1; }} {_QUIET}'\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        "ssh -p 2222 -i key ops@h 'echo start; nohup ./srv &\necho started'\n",
        "nohup",
        f"ssh -p 2222 -i key ops@h 'echo start; nohup ./srv {_QUIET}\necho started'\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        'ssh h "sudo -u app nohup ./srv &"\n',
        "sudo",
        f'ssh h "sudo -u app nohup ./srv {_QUIET}"\n',
        "warning",
        _SAYS,
    ),
    Invalid(
        "ssh h <<'EOF'\ncd /srv\nnohup ./srv &\nEOF\n",
        "nohup",
        f"ssh h <<'EOF'\ncd /srv\nnohup ./srv {_QUIET}\nEOF\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        "ssh h bash -s <<'EOF'\nnohup ./srv &\nEOF\n",
        "nohup",
        f"ssh h bash -s <<'EOF'\nnohup ./srv {_QUIET}\nEOF\n",
        "warning",
        _SAYS,
    ),
    Invalid(  # a login shell of su reading the heredoc is the session's child too
        "ssh h \"su - deploy <<'EOF'\nnohup ./srv &\nEOF\"\n",
        "nohup",
        "ssh h \"su - deploy <<'EOF'\nnohup ./srv > /dev/null 2>&1 &\nEOF\"\n",
        "warning",
        _SAYS,
    ),
    Invalid(  # autossh waits as ssh does
        "autossh -M 0 h 'nohup ./srv &'\n",
        "nohup",
        f"autossh -M 0 h 'nohup ./srv {_QUIET}'\n",
        "warning",
        _SAYS,
    ),
    # nested: layer 2 of ssh-in-ssh, and a bash -c inside the ssh string
    Invalid(
        "ssh gw \"ssh inner 'nohup ./srv &'\"\n",
        "nohup",
        f"ssh gw \"ssh inner 'nohup ./srv {_QUIET}'\"\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        "ssh h \"bash -c 'nohup ./srv &'\"\n",
        "nohup",
        f"ssh h \"bash -c 'nohup ./srv {_QUIET}'\"\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        "ssh h \"sudo sh -c 'cd /x; nohup ./srv &'\"\n",
        "nohup",
        f"ssh h \"sudo sh -c 'cd /x; nohup ./srv {_QUIET}'\"\n",
        "warning",
        _SAYS,
    ),
    # the ssh behind a prefix, and inside a local bash -c
    Invalid(
        "timeout 10 ssh h 'nohup ./srv &'\n",
        "nohup",
        f"timeout 10 ssh h 'nohup ./srv {_QUIET}'\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        "bash -c \"ssh h 'nohup ./srv &'\"\n",
        "nohup",
        f"bash -c \"ssh h 'nohup ./srv {_QUIET}'\"\n",
        "warning",
        _SAYS,
    ),
    Invalid(  # a subshell waited for, then a job after it: the ssh is in no job
        "(ssh h 'nohup ./srv &'); echo x &\n",
        "nohup",
        f"(ssh h 'nohup ./srv {_QUIET}'); echo x &\n",
        "warning",
        _SAYS,
    ),
    # fixes: an existing redirection is kept, the missing ones are added
    Invalid(
        'ssh web-1 "nohup tail -f /var/log/nginx/access.log &"\n',
        "nohup",
        f'ssh web-1 "nohup tail -f /var/log/nginx/access.log {_QUIET}"\n',
    ),
    Invalid(
        "ssh h 'nohup ./srv > x.log &'\n",
        "nohup",
        "ssh h 'nohup ./srv > x.log 2>&1 < /dev/null &'\n",
    ),
    Invalid(
        "ssh h './srv 2> e.log &'\n", "./srv", "ssh h './srv 2> e.log > /dev/null < /dev/null &'\n"
    ),
    Invalid("ssh h './srv < in &'\n", "./srv", "ssh h './srv < in > /dev/null 2>&1 &'\n"),
    Invalid(  # the `&` of a word of ssh's argv
        "ssh h nohup ./srv \\&\n",
        "nohup",
        "ssh h nohup ./srv' > /dev/null 2>&1 < /dev/null' \\&\n",
    ),
    Invalid(
        "ssh h <<'EOF'\nnohup ./srv &\nEOF\n",
        "nohup",
        f"ssh h <<'EOF'\nnohup ./srv {_QUIET}\nEOF\n",
    ),
    Invalid(  # a list whose last command is redirected: the group is redirected
        "ssh worker-1 'cd /srv/jobs && nohup rq worker default > rq.log 2>&1 &'\n",
        "cd",
        f"ssh worker-1 '{{ cd /srv/jobs && nohup rq worker default > rq.log 2>&1; }} {_QUIET}'\n",
    ),
)
VALID = (
    "ssh h 'sleep 3 > /dev/null 2>&1 &'\n",
    "ssh h 'nohup ./srv > srv.log 2>&1 < /dev/null &'\n",
    "ssh h 'sleep 3 &> /dev/null &'\n",
    "ssh h 'sleep 3 >& /dev/null &'\n",
    "ssh h 'sleep 3 > /dev/null 2> /dev/null &'\n",
    "ssh h 'sleep 3 >&- 2>&- &'\n",
    "ssh h '(./run > /dev/null 2>&1) &'\n",  # bash execs the lone command of the subshell
    "ssh h '{ ./a; ./b; } > /dev/null 2>&1 &'\n",
    "ssh h '(cd /srv && ./run) > run.log 2>&1 &'\n",
    "ssh h './a 2>/dev/null | ./b > out.log 2>&1 &'\n",
    "ssh h 'exec > /srv/log 2>&1; nohup ./srv &'\n",
    "ssh h './a & ./b & wait'\n",  # the session is meant to wait
    "ssh h 'sleep 100 & fg'\n",  # the job is brought back: the session is meant to wait
    "ssh h 'tail -f log & sleep 5; kill $!'\n",
    "ssh h 'x=$(./a &); echo $x'\n",
    "ssh h 'echo $(( 6 & 3 ))'\n",
    "ssh h 'cd /srv && ./build'\n",
    "ssh -tt h 'nohup ./srv &'\n",  # a tty: the job gets SIGHUP, ssh returns
    "ssh -f h 'nohup ./srv &'\n",  # -f: the caller does not wait
    "autossh -M 0 -f h 'nohup ./srv &'\n",  # autossh's own -f: the same
    "ssh h \"bash -c 'nohup ./srv &' > /dev/null 2>&1\"\n",
    "ssh h 'nohup ./srv &' &\n",  # local background: no remote hold reported twice
    # ... and a local job around it: nothing waits for that ssh (round t, `(ssh ...)&`)
    "(ssh h 'nohup ./srv &')&\n",
    "(cd /srv && ssh h 'nohup ./srv &') &\n",
    "{ ssh h 'nohup ./srv &'; } &\n",
    "for h in a b; do ssh $h 'nohup ./srv &'; done &\n",
    "nohup ./local-server &\n",  # layer 0: no ssh session
    "bash -c 'sleep 3 &'\n",
    "docker exec c sh -c 'nohup ./srv &'\n",
    "ssh h \"echo 'a & b'\"\n",
)


RULE = rule("HL104", "remote-background-holds-session", check, fix=FixAvailability.SOMETIMES)
