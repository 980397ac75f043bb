r"""## What it does
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
the session open while it waits for `./run`, which is reported at `info`.

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

from heredoc_lint.edits import layer_fix
from heredoc_lint.layers import Layer
from heredoc_lint.model import Applicability, Finding, Fix, Severity
from heredoc_lint.rules.base import Context, Rule, finding, quote_snippet
from heredoc_lint.shell.syntax import Command, Redirect, Script
from heredoc_lint.wrappers import SHELLS

if TYPE_CHECKING:
    from tree_sitter import Node

    from heredoc_lint.frontends.python.waits import Wait

SESSION = "session"  # the ssh channel
AWAY = "away"  # a file, /dev/null, a pipe
CLOSED = "closed"
PIPE = "pipe"

State = Mapping[int, str]
_START: State = {0: SESSION, 1: SESSION, 2: SESSION}

_COMPOUNDS = frozenset(
    {
        "subshell",
        "compound_statement",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "if_statement",
        "case_statement",
    }
)
# `$(a &)` waits on its own pipe; `$(( a & b ))` and `[[ ]]` hold no jobs.
_OPAQUE = frozenset(
    {"command_substitution", "process_substitution", "arithmetic_expansion", "test_command"}
)
_REDIRECT_NODES = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_JOB_CONTROL = frozenset({"wait", "fg"})


# -- the redirections -------------------------------------------------------------------


@dataclass(frozen=True)
class Redir:
    op: str
    fd: int | None
    target: str | None  # the target word's text; None for heredocs and `>&-`


def _from_redirects(redirects: Iterable[Redirect]) -> list[Redir]:
    ordered = sorted(redirects, key=lambda r: r.start)
    return [Redir(r.op, r.fd, r.target.value if r.target is not None else None) for r in ordered]


def apply(state: State, redirects: Iterable[Redir]) -> dict[int, str]:
    """The descriptor table after `redirects`, done left to right as bash does."""
    table = dict(state)
    for r in redirects:
        op, target = r.op, r.target
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


def _is_ssh(wrapper: str) -> bool:
    return wrapper == "ssh" or wrapper.endswith(" ssh")


def _passes_through(layer: Layer) -> bool:
    """A synchronous shell inside the session: `bash -c S`, `eval S`, `su -c S`, ..."""
    wrapper = layer.wrapper or ""
    if layer.invocation is not None and layer.invocation.remote:
        return False  # a container's or another host's process, not the session's child
    if wrapper.startswith("systemd-run"):
        return False  # a transient unit of the service manager
    if wrapper == "eval" or wrapper.endswith(" -c"):
        return True
    return layer.kind == "stdin" and wrapper in SHELLS


def session_state(layer: Layer) -> dict[int, str] | None:
    """The descriptors this layer's shell starts with, if it runs in an ssh session."""
    chain: list[list[Redir]] = []
    current: Layer | None = layer
    while current is not None and current.depth > 0 and current.wrapper is not None:
        if _channel_root(current) is current:
            # A Python channel's own remote shell (paramiko's exec_command, fabric's
            # run): its descriptors are the channel's, as an ssh command's are the session's.
            return _start_table(chain)
        command = current.command
        if command is None or command.background or command.in_substitution:
            return None
        if _is_ssh(current.wrapper):
            ssh = current.invocation.ssh if current.invocation is not None else None
            if ssh is not None and (ssh.has_flag("t") or ssh.has_flag("f")):
                return None  # a tty hangs the job up; -f: the caller does not wait
            return _start_table(chain)
        if not _passes_through(current):
            return None
        chain.append(_from_redirects(command.redirects))
        current = current.parent
    return None


def _start_table(chain: list[list[Redir]]) -> dict[int, str]:
    table = dict(_START)
    for redirects in reversed(chain):
        table = apply(table, redirects)
    return table


# -- the shell structure ----------------------------------------------------------------


class _Tree:
    """tree-sitter's view of a layer, in character offsets, with its commands."""

    def __init__(self, script: Script) -> None:
        self.script = script
        assert script.tree is not None
        self.root = script.tree.root_node
        self.char = script.char
        self.by_start = {c.start: c for c in script.commands}

    def start(self, node: Node) -> int:
        return self.char(node.start_byte)

    def end(self, node: Node) -> int:
        return self.char(node.end_byte)

    def text(self, node: Node) -> str:
        return self.script.text[self.start(node) : self.end(node)]

    def command(self, node: Node) -> Command | None:
        return self.by_start.get(self.start(node))

    def redirects(self, statement: Node) -> list[Redir]:
        found: list[Redir] = []
        for child in statement.children:
            if child.type not in _REDIRECT_NODES:
                continue
            fd: int | None = None
            op = ""
            target: str | None = None
            for part in child.children:
                if part.type == "file_descriptor":
                    digits = self.text(part)
                    fd = int(digits) if digits.isdigit() else None
                elif not part.is_named:
                    op = op or self.text(part)
                elif target is None and part.type not in ("heredoc_body", "heredoc_start"):
                    target = self.text(part).strip("'\"")
            if child.type != "file_redirect":
                op, target = "<<", None
            found.append(Redir(op, fd, target))
        return found


def _body(node: Node) -> Node | None:
    """The statement a redirected_statement redirects."""
    for child in node.named_children:
        if child.type not in _REDIRECT_NODES:
            return child
    return None


def _walk(node: Node) -> Iterator[Node]:
    """The nodes under `node`, not entering substitutions or arithmetic (their `&` differ)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current.type not in _OPAQUE:
            stack.extend(reversed(current.children))


# -- the analysis of one background job ---------------------------------------------------


@dataclass(frozen=True)
class Job:
    severity: Severity
    anchor: tuple[int, int]  # layer text offsets
    state: State  # the descriptors of the process that holds the session
    what: str  # how the message names the job
    edits: tuple[tuple[int, int, str], ...]  # layer text edits that fix it


class _Analysis:
    def __init__(self, layer: Layer, tree: _Tree) -> None:
        self.layer = layer
        self.tree = tree

    def _word_anchor(self, node: Node) -> tuple[int, int]:
        tree = self.tree
        start, end = tree.start(node), tree.end(node)
        for command in tree.script.commands:
            if start <= command.start < end and command.words:
                word = command.words[0]
                return word.start, word.end
        first = node.children[0] if node.children else node
        return tree.start(first), tree.end(first)

    def _simple(self, node: Node, state: State) -> dict[int, str] | None:
        command = self.tree.command(node)
        if command is None:
            return None
        return apply(state, _from_redirects(command.redirects))

    def process_holds(self, node: Node, state: State) -> bool:
        """Whether some process this statement starts keeps a session descriptor."""
        kind = node.type
        if kind == "command":
            table = self._simple(node, state)
            return table is not None and holds(table)
        if kind == "redirected_statement":
            body = _body(node)
            if body is None:
                return False
            if body.type in ("command", "list", "pipeline"):
                # The redirections belong to the (last) simple command: the Command has them.
                return self.process_holds(body, state)
            return self.process_holds(body, apply(state, self.tree.redirects(node)))
        if kind == "pipeline":
            members = [c for c in node.named_children]
            for index, member in enumerate(members):
                table = dict(state)
                if index < len(members) - 1:
                    table[1] = PIPE
                    op = member.next_sibling
                    if op is not None and self.tree.text(op) == "|&":
                        table[2] = PIPE
                if self.process_holds(member, table):
                    return True
            return False
        if kind == "subshell":
            inner = [c for c in node.named_children if c.type != "comment"]
            if len(inner) == 1 and inner[0].type in ("command", "redirected_statement"):
                return self.process_holds(inner[0], state)  # bash execs a lone command
            return holds(state)
        if kind in _COMPOUNDS or kind == "list":
            return holds(state)
        return False

    def job(self, node: Node, state: State) -> Job | None:
        """The background job `node &` started with descriptors `state`."""
        tree = self.tree
        kind = node.type
        statement = node
        if kind == "redirected_statement":
            body = _body(node)
            if body is None:
                return None
            kind = body.type
            if kind not in ("command", "list", "pipeline"):
                state = apply(state, tree.redirects(node))
                node = body
        end = tree.end(statement)
        if kind == "command":
            simple = node if node.type == "command" else _body(node)
            command = tree.command(simple) if simple is not None else None
            if command is None:
                return None
            table = apply(state, _from_redirects(command.redirects))
            if not holds(table):
                return None
            anchor = (
                (command.words[0].start, command.words[0].end)
                if command.words
                else (command.start, command.end)
            )
            return Job(
                Severity.WARNING,
                anchor,
                table,
                "background command",
                ((end, end, " " + missing(table)),),
            )
        if kind in ("list", "pipeline"):
            if not self.process_holds(statement, state):
                return None
            start = tree.start(statement)
            group = (
                (start, start, "{ "),
                (end, end, "; } " + missing(state)),
            )
            if kind == "pipeline":
                return Job(
                    Severity.WARNING,
                    self._word_anchor(statement),
                    state,
                    "background pipeline",
                    group,
                )
            last = self._last_element(statement)
            last_holds = last is not None and self.process_holds(last, state)
            if last_holds and last is not None:
                return Job(
                    Severity.WARNING, self._word_anchor(last), state, "background command", group
                )
            return Job(
                Severity.INFO,
                self._word_anchor(statement),
                state,
                "background subshell that runs this list",
                group,
            )
        if kind in _COMPOUNDS:
            if not self.process_holds(node, state):
                return None
            first = node.children[0] if node.children else node
            edits = ((end, end, " " + missing(state)),)
            return Job(
                Severity.WARNING,
                (tree.start(first), tree.end(first)),
                state,
                "background " + ("subshell" if kind == "subshell" else "group"),
                edits,
            )
        return None

    def _last_element(self, statement: Node) -> Node | None:
        node: Node | None = statement
        while node is not None and node.type in ("redirected_statement", "list"):
            if node.type == "redirected_statement":
                node = _body(node)
            else:
                named = [c for c in node.named_children if c.type != "comment"]
                node = named[-1] if named else None
        return node


def _exec_prelude(script: Script, before: int) -> list[Redir]:
    """Redirections of `exec > log 2>&1` lines before `before`: they move the shell's own."""
    found: list[Redir] = []
    for command in script.commands:
        if command.start >= before:
            break
        if [w.value for w in command.words] == ["exec"] and not command.in_substitution:
            found.extend(_from_redirects(command.redirects))
    return found


def _waited(script: Script, after: int) -> bool:
    """A later `wait` (or `kill $!`) shows that the job is meant to end with the session."""
    for command in script.commands:
        if command.start <= after:
            continue
        if command.name in _JOB_CONTROL:
            return True
        if command.name == "kill" and any(
            "$!" in w.value or w.value.startswith("%") for w in command.words[1:]
        ):
            return True
    return False


def _candidates(tree: _Tree) -> Iterator[tuple[Node, int]]:
    """(statement, offset of its `&`) for each background job, outside substitutions."""
    for node in _walk(tree.root):
        if node.type != "&" or node.is_named:
            continue
        previous = node.prev_sibling
        if previous is not None and previous.is_named:
            yield previous, tree.start(node)


def _fix(layer: Layer, edits: tuple[tuple[int, int, str], ...]) -> Fix | None:
    added = edits[-1][2].strip().removeprefix("; }").strip()
    return layer_fix(
        layer,
        edits,
        Applicability.UNSAFE,
        f"Redirect the job away from the session: add `{added}` before the `&`",
    )


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    if not layer.remote or layer.depth == 0 or "&" not in layer.text:
        return
    base = session_state(layer)
    if base is None:
        return
    root = _channel_root(layer)
    channel = _channel(root) if root is not None else None
    if channel is not None and channel.returns_at_once:
        return
    tree = _Tree(layer.script)
    analysis = _Analysis(layer, tree)
    for statement, at in _candidates(tree):
        if _waited(layer.script, at):
            continue
        state = apply(base, _exec_prelude(layer.script, at))
        if not holds(state):
            continue
        job = analysis.job(statement, state)
        if job is None:
            continue
        source = layer.text[tree.start(statement) : at + 1]
        snippet = quote_snippet(source, 50)
        detach = next((w for w in ("nohup", "setsid", "disown") if w in source), None)
        note = f" (`{detach}` does not detach it from the session)" if detach else ""
        if channel is None or root is None:
            severity = job.severity
            held = (
                f"the ssh session as its {_attached(job.state)}: the remote shell exits, but "
                f"ssh does not return until this job exits{note}"
            )
            goes_on = "ssh return"
        else:
            severity = job.severity if channel.waits else Severity.INFO
            waits = channel.waits or "the file does not show that anything waits for it"
            held = (
                f"the channel of `{root.wrapper}` as its {_attached(job.state)}: the remote "
                f"shell exits, but the channel stays open until this job exits{note}, and "
                f"{waits}"
            )
            goes_on = "the program go on"
        yield finding(
            layer,
            "HL104",
            severity,
            f"The {job.what} `{snippet}` still has {held}; redirect them "
            f"(`> file 2>&1 < /dev/null`) to let {goes_on} at once",
            job.anchor[0],
            job.anchor[1],
            _fix(layer, job.edits),
        )


def _channel_root(layer: Layer) -> Layer | None:
    """The root layer that a Python channel runs remotely, when no ssh command between it
    and `layer` makes the session."""
    current = layer
    while current.parent is not None:
        if _is_ssh(current.wrapper or ""):
            return None
        current = current.parent
    # An ssh argument list (`["ssh", "-f", h, cmd]`) is judged when the frontend kept its
    # options (-f, -t): waits.py.
    if current.depth == 0 or current.origin is None:
        return None
    from heredoc_lint.frontends.python.waits import judged_session

    if _is_ssh(current.wrapper or "") and not judged_session(current.origin):
        return None
    return current


def _channel(root: Layer) -> Wait:
    """What the program does with the channel of the Python call that runs `root`."""
    from heredoc_lint.frontends.python.waits import channel_wait

    return channel_wait(root.origin)


RULE = Rule(
    "HL104",
    "remote-background-holds-session",
    Severity.WARNING,
    "A `&` job in an ssh command whose stdout/stderr still goes to the session: ssh waits.",
    __doc__ or "",
    check,
    fixable=True,
)
