"""Whether a Python program waits for the remote command's channel to close.

A `&` job that keeps the ssh session as its stdout or stderr keeps the channel open until
it exits (HL104). Whether that costs the program anything depends on what it does with the
channel, measured through the test sshd:

- fabric's `Connection.run`/`sudo` reads the output to its end: it waits (`disown=True`
  returns at once, `asynchronous=True` leaves the wait to a later `join()`);
- paramiko's `exec_command` returns at once; reading its stdout or stderr (`.read()`,
  `.readlines()`, a `for` loop over it) waits for the channel's end of file, which comes
  only when every holder of the session's descriptors has exited; `recv_exit_status()`
  does not wait for the job (the exit status is sent when the shell exits);
- an ssh argv list (`subprocess.run(["ssh", h, CMD])`): ssh itself waits for the channel to
  close, and `run`/`call`/`check_call`/`check_output` wait for ssh; `Popen` and
  `create_subprocess_exec` do not (what the program does later is not read); `ssh -f`
  goes to the background and `-t` gives the job a terminal that hangs it up: neither holds.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from heredoc_lint.frontends.python.model import PyFragment, Session
from heredoc_lint.frontends.python.positions import Lines

_READS = frozenset({"read", "readlines", "readline", "read1", "readinto"})
_FABRIC = frozenset({"run", "sudo"})


@dataclass(frozen=True)
class Wait:
    """What the program does with the channel: `waits` says how, in words; "" if the file
    does not show that it waits."""

    waits: str
    returns_at_once: bool = False  # fabric's disown=True: nothing waits for the job


def channel_wait(origin: object) -> Wait:
    """How the program behind the Python fragment `origin` uses its channel."""
    if not isinstance(origin, PyFragment):
        return Wait("")
    if origin.session is not None:
        return _ssh_wait(origin.session)
    if origin.project:
        return Wait("")  # the project's own wrapper: how it waits is in its own code
    analysis = origin.analysis
    offsets = {analysis.units[i].at for i in origin.unit_of if i >= 0}
    call = _call_of(analysis.tree, analysis.lines, offsets, set(analysis.imports))
    if call is None or not isinstance(call.func, ast.Attribute):
        return Wait("")
    if call.func.attr in _FABRIC:
        flags = {k.arg: k.value for k in call.keywords if k.arg is not None}
        if _true(flags.get("disown")):
            return Wait("", returns_at_once=True)
        if _true(flags.get("asynchronous")):
            return Wait("")
        return Wait(f"`{call.func.attr}()` reads the command's output to its end")
    line = _reader_line(analysis.tree, call)
    if line is None:
        return Wait("")
    return Wait(f"reading its output (line {line}) waits for the channel to close")


def judged_session(origin: object) -> bool:
    """Whether `origin` is the remote command of an ssh argv list whose options are known."""
    return isinstance(origin, PyFragment) and origin.session is not None


def _ssh_wait(session: Session) -> Wait:
    if session.flags & {"f", "t"}:
        return Wait("", returns_at_once=True)
    if not session.waits:
        return Wait("")
    return Wait(f"`{session.runner}` waits for ssh to exit")


def _true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _call_of(
    tree: ast.Module, lines: Lines, offsets: set[int], modules: set[str]
) -> ast.Call | None:
    """The `exec_command`/`run`/`sudo` call whose command string holds these characters:
    written in the call, or in the assignment of the name the call is given. A module's
    function (`subprocess.run`) is not such a call."""
    spans: dict[str, list[tuple[int, int]]] = {}
    calls: list[ast.Call] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                spans.setdefault(target.id, []).append(lines.span(node.value))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("exec_command", *_FABRIC)
            and (node.args or node.keywords)
            and not (isinstance(node.func.value, ast.Name) and node.func.value.id in modules)
        ):
            calls.append(node)
    for call in calls:
        argument = call.args[0] if call.args else call.keywords[0].value
        places = [lines.span(argument)]
        if isinstance(argument, ast.Name):
            places += spans.get(argument.id, [])
        if any(a <= at < b for a, b in places for at in offsets):
            return call
    return None


def _reader_line(tree: ast.Module, call: ast.Call) -> int | None:
    """The line where the program reads the stdout or stderr `call` returned, if it does."""
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    streams: set[str] = set()
    holder: ast.AST = call
    parent = parents.get(id(call))
    # `client.exec_command(c)[1].read()`: read on the spot.
    while isinstance(parent, ast.Subscript):
        holder, parent = parent, parents.get(id(parent))
    if isinstance(parent, ast.Attribute) and parent.attr in _READS:
        return parent.lineno
    if isinstance(parent, ast.Assign) and holder is call:
        for target in parent.targets:
            elements = target.elts if isinstance(target, ast.Tuple) else [target]
            # stdin, stdout, stderr: the first is never read from.
            named = elements[1:] if len(elements) == 3 else elements
            streams.update(e.id for e in named if isinstance(e, ast.Name))
    if not streams:
        return None
    scope = _enclosing(parents, call) or tree
    for node in ast.walk(scope):
        if getattr(node, "lineno", 0) < call.lineno:
            continue
        if (
            isinstance(node, ast.Attribute)
            and node.attr in _READS
            and isinstance(node.value, ast.Name)
            and node.value.id in streams
        ):
            return node.lineno
        iterated = node.iter if isinstance(node, ast.For) else None
        if isinstance(iterated, ast.Name) and iterated.id in streams:
            return iterated.lineno
    return None


def _enclosing(parents: dict[int, ast.AST], node: ast.AST) -> ast.AST | None:
    current = parents.get(id(node))
    while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
        current = parents.get(id(current))
    return current
