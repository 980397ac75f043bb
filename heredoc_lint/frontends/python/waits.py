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
import weakref
from bisect import bisect_right
from dataclasses import dataclass, field

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
    index = _INDEXES.get(analysis.tree)
    if index is None:
        index = _INDEXES[analysis.tree] = _Index.of(analysis.tree, analysis.lines, analysis.imports)
    call = index.call_of({analysis.units[i].at for i in origin.unit_of if i >= 0})
    if call is None or not isinstance(call.func, ast.Attribute):
        return Wait("")
    if call.func.attr in _FABRIC:
        flags = {k.arg: k.value for k in call.keywords if k.arg is not None}
        if _true(flags.get("disown")):
            return Wait("", returns_at_once=True)
        if _true(flags.get("asynchronous")):
            return Wait("")
        return Wait(f"`{call.func.attr}()` reads the command's output to its end")
    line = index.reader_line(call, analysis.tree)
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


def _command(call: ast.Call) -> ast.expr | None:
    """The command string of `exec_command(...)`/`run(...)`/`sudo(...)`: the first
    argument, or the keyword `command` wherever it stands among the keywords."""
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "command"), None)


def _names(name: str, aliases: dict[str, list[str]]) -> set[str]:
    """`name` and the names it is assigned from, through any chain (`cmd = JOB`): the
    literal that gives the command its text may stand in the assignment of any of them."""
    found, todo = {name}, [name]
    while todo:
        for other in aliases.get(todo.pop(), []):
            if other not in found:
                found.add(other)
                todo.append(other)
    return found


def _channel_call(call: ast.Call, imports: dict[str, str]) -> bool:
    """`exec_command(...)`, `run(...)` or `sudo(...)` with an argument, called on an
    object, not on a module (`subprocess.run`)."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in ("exec_command", *_FABRIC)
        and bool(call.args or call.keywords)
        and not (isinstance(func.value, ast.Name) and func.value.id in imports)
    )


def _places(
    calls: list[ast.Call],
    spans: dict[str, list[tuple[int, int]]],
    aliases: dict[str, list[str]],
    lines: Lines,
) -> list[tuple[int, int, int]]:
    """`_Index.places`: the spans of each call's command string (`calls[number]`), written
    in the call or assigned to the name it is given (`spans` of each name, by `aliases`)."""
    places = []
    for number, call in enumerate(calls):
        argument = _command(call)
        if argument is None:
            continue  # no command the finder reads either
        places.append((*lines.span(argument), number))
        if isinstance(argument, ast.Name):
            for name in _names(argument.id, aliases):
                places += [(a, b, number) for a, b in spans.get(name, [])]
    places.sort()
    return places


@dataclass(frozen=True)
class _Index:
    """The channel calls of one module and where their command strings are, read once:
    asked once per fragment, a walk of the module each time was quadratic (3,000
    `exec_command` calls: 15 minutes)."""

    calls: list[ast.Call]
    # The places of each call's command string, (start, end, the call's index), by start;
    # reach[i]: the largest end among places[: i + 1].
    places: list[tuple[int, int, int]]
    starts: list[int]
    reach: list[int]
    # Each node's parent, the module left out: the index must not keep its key alive.
    parents: dict[int, ast.AST]
    reads: dict[int, list[tuple[int, str]]] = field(default_factory=dict)

    @classmethod
    def of(cls, tree: ast.Module, lines: Lines, imports: dict[str, str]) -> _Index:
        """The `exec_command`/`run`/`sudo` calls, with their command string written in the
        call or in the assignment of the name the call is given. A module's function
        (`subprocess.run`) is not such a call."""
        spans: dict[str, list[tuple[int, int]]] = {}
        aliases: dict[str, list[str]] = {}  # `cmd = JOB`: the names a name is given
        calls: list[ast.Call] = []
        parents: dict[int, ast.AST] = {}
        for node in ast.walk(tree):
            if node is not tree:
                for child in ast.iter_child_nodes(node):
                    parents[id(child)] = node
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    spans.setdefault(target.id, []).append(lines.span(node.value))
                    if isinstance(node.value, ast.Name):
                        aliases.setdefault(target.id, []).append(node.value.id)
            elif isinstance(node, ast.Call) and _channel_call(node, imports):
                calls.append(node)
        places = _places(calls, spans, aliases, lines)
        reach, end = [], -1
        for _, b, _ in places:
            end = max(end, b)
            reach.append(end)
        return cls(calls, places, [a for a, _, _ in places], reach, parents)

    def call_of(self, offsets: set[int]) -> ast.Call | None:
        """The first call (in walk order) whose command string holds one of `offsets`."""
        first = len(self.calls)
        for at in offsets:
            i = bisect_right(self.starts, at) - 1
            while i >= 0 and self.reach[i] > at:
                a, b, number = self.places[i]
                if a <= at < b:
                    first = min(first, number)
                i -= 1
        return self.calls[first] if first < len(self.calls) else None

    def reader_line(self, call: ast.Call, tree: ast.Module) -> int | None:
        """The line where the program reads the stdout or stderr `call` returned, if it
        does."""
        parents = self.parents
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
        reads = self._reads_in(self._enclosing(call) or tree)
        start = bisect_right(reads, (call.lineno, ""))
        return next((line for line, name in reads[start:] if name in streams), None)

    def _enclosing(self, node: ast.AST) -> ast.AST | None:
        current = self.parents.get(id(node))
        while current is not None and not isinstance(
            current, (ast.FunctionDef, ast.AsyncFunctionDef)
        ):
            current = self.parents.get(id(current))
        return current

    def _reads_in(self, scope: ast.AST) -> list[tuple[int, str]]:
        """Where `scope` reads a name's stream (`out.read()`, `for line in out`), by line."""
        known = self.reads.get(id(scope))
        if known is None:
            known = []
            for node in ast.walk(scope):
                if (
                    isinstance(node, ast.Attribute)
                    and node.attr in _READS
                    and isinstance(node.value, ast.Name)
                ):
                    known.append((node.lineno, node.value.id))
                iterated = node.iter if isinstance(node, ast.For) else None
                if isinstance(iterated, ast.Name):
                    known.append((iterated.lineno, iterated.id))
            known.sort()
            self.reads[id(scope)] = known
        return known


# One index per module, kept while its tree lives.
_INDEXES: weakref.WeakKeyDictionary[ast.Module, _Index] = weakref.WeakKeyDictionary()
