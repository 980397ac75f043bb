"""The call sites: which calls hand a string to which shell, and their fragments."""

from __future__ import annotations

import ast
import re
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from functools import partial

from heredoc_lint.frontends import Fragment
from heredoc_lint.frontends.python import channels
from heredoc_lint.frontends.python.encode import encode_fragment_edit
from heredoc_lint.frontends.python.model import Analysis, Elems, PyFragment, Session, Unit
from heredoc_lint.frontends.python.reading import Reader, candidates
from heredoc_lint.frontends.python.scopes import Scope, ScopeBuilder, follow
from heredoc_lint.frontends.python.values import PLACEHOLDERS, placeholder, qualname
from heredoc_lint.layers.pywrappers import PyWrapper, matches
from heredoc_lint.layers.wrappers import Role, basename, resolve
from heredoc_lint.model import Edit
from heredoc_lint.shell.words import Expansion, OffsetRuns, Word

# Calls whose exit status reaches the program only as their value (or `.wait()`'s).
_STATUS_BY_VALUE = frozenset({"os.system", "subprocess.run", "subprocess.call", "subprocess.Popen"})
_FABRIC_CONNECTIONS = frozenset(
    {
        "fabric.Connection",
        "fabric.connection.Connection",
        "fabric.SerialGroup",
        "fabric.ThreadingGroup",
        "fabric.group.SerialGroup",
        "fabric.group.ThreadingGroup",
    }
)
_INVOKE_CONTEXTS = frozenset({"invoke.Context", "invoke.context.Context", "invoke.MockContext"})
# asyncssh: what makes a client connection, and what its annotation is called. Its `run`
# and `create_process` hand the command to the remote login shell, as exec_command does.
_ASYNCSSH_CONNECT = frozenset({"asyncssh.connect", "asyncssh.connection.connect"})
_ASYNCSSH_CONNECTIONS = frozenset(
    {"asyncssh.SSHClientConnection", "asyncssh.connection.SSHClientConnection"}
)
_FABRIC_NAMES = re.compile(r"(?:c|cxn|conn|connection|.*_conn|.*_connection|.*_cxn)\Z", re.I)
_INVOKE_NAMES = re.compile(r"(?:c|ctx|context)\Z")
# Commands whose argv alone some rule reads (HL108: scp's `-p`), wrapper or not.
_ARGV_COMMANDS = frozenset({"scp"})
# An argv element written as it is in the command line: no character the shell reads.
_BARE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")
_ESCAPED = frozenset('$`"\\')


@dataclass(frozen=True)
class _Target:
    """How a call runs its string: what kind of shell, where."""

    wrapper: str
    depth: int
    remote: bool
    shell: str
    cmdline: str  # a format with {text}
    role: Role | None  # Layer.role; None: the argv itself, read as a command line
    prefix: str = ""  # text the library puts before the command (`sudo `)
    behind: tuple[Word, ...] = ()  # an argv's words before the wrapper (`sudo`)


_SH = _Target("", 0, False, "sh", "/bin/sh -c {text}", Role.SHELL)
_LOGIN = "bash -c {text}"


# How many of the file's own functions a command is followed through to the call that
# runs it (`restart` -> `run` -> `exec_command`).
_HOPS = 4


def _parameter(node: ast.expr, scope: Scope) -> tuple[Scope, str] | None:
    """(the function's scope, the name) where `node` is, through names bound once, a
    parameter of a function that never binds it again."""
    value, at, _ = follow(node, scope)
    if not isinstance(value, ast.Name):
        return None
    owner = at.owner(value.id)
    if owner is None or owner.function is None or value.id not in owner.arguments:
        return None
    return (owner, value.id) if owner.bindings[value.id] == [None] else None


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _argument(call: ast.Call, index: int, name: str) -> ast.expr | None:
    if len(call.args) > index and not any(
        isinstance(a, ast.Starred) for a in call.args[: index + 1]
    ):
        return call.args[index]
    return _keyword(call, name)


def dotted(node: ast.expr) -> str:
    """`self.node.ssh` as written; any other receiver (`Box().shell`) is the segment `()`,
    which only a `*` of a pattern matches."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return "()"


class Finder:
    def __init__(
        self, analysis: Analysis, builder: ScopeBuilder, wrappers: tuple[PyWrapper, ...] = ()
    ) -> None:
        self.a = analysis
        self.wrappers = wrappers
        self.reader = Reader(analysis, builder.parents)
        self.scopes = builder.scopes
        modules = {q.split(".")[0] for q in analysis.imports.values()}
        self.fabric = "fabric" in modules
        self.invoke = "invoke" in modules
        self.asyncssh = "asyncssh" in modules

    def fragments(self, calls: list[tuple[ast.Call, Scope]]) -> Iterator[Fragment]:
        for call, scope in calls:
            if self._status_ignored(call):
                yield from (_with_status_ignored(f) for f in self.call(call, scope))
            else:
                yield from self.call(call, scope)

    def _status_ignored(self, call: ast.Call) -> bool:
        """A bare statement of a call whose exit status is only its value (`os.system(c)`,
        `subprocess.run(c, shell=True)` without `check=True`): the program drops it."""
        if qualname(call.func, self.a.imports) not in _STATUS_BY_VALUE:
            return False
        if not isinstance(self.reader.parents.get(id(call)), ast.Expr):
            return False
        return not any(
            k.arg == "check" and not (isinstance(k.value, ast.Constant) and not k.value.value)
            for k in call.keywords
        )

    def call(self, call: ast.Call, scope: Scope) -> Iterator[Fragment]:
        func = call.func
        name = qualname(func, self.a.imports)
        wrapper = self._project_wrapper(func, name)
        if wrapper is not None:
            yield from self.project(call, scope, wrapper)
        elif name in channels.POPEN:
            yield from self.popen(call, scope, name.split(".")[-1])
        elif name in channels.SHELL_STRING:
            target = replace(_SH, wrapper=channels.SHELL_STRING[name])
            yield from self.string(_argument(call, 0, "cmd"), scope, target)
        elif name in channels.EXEC_ARGV:
            if not any(isinstance(a, ast.Starred) for a in call.args):
                yield from self.argv(list(call.args), scope, "create_subprocess_exec", False)
        elif name in channels.INVOKE:
            prefix = "sudo " if name == "invoke.sudo" else ""
            target = _Target(name, 0, False, "bash", "/bin/bash -c {text}", Role.SHELL, prefix)
            yield from self.string(_argument(call, 0, "command"), scope, target, func)
        elif name in channels.FABRIC1:
            kind = channels.FABRIC1[name]
            if kind == "local":
                target = replace(_SH, wrapper="fabric local")
            else:
                cmdline = "/bin/bash -l -c {text}"
                target = _Target(f"fabric {kind}", 1, True, "bash", cmdline, Role.CHANNEL)
            yield from self.string(_argument(call, 0, "command"), scope, target)
        elif name in channels.PEXPECT:
            yield from self.pexpect(call, scope, name, channels.PEXPECT[name])
        elif isinstance(func, ast.Attribute):
            yield from self.method(call, func, scope)

    def _project_wrapper(self, func: ast.expr, name: str | None) -> PyWrapper | None:
        """The configured wrapper the call matches, as written or by its import path; a
        call of the library functions read above is theirs, whatever the patterns say."""
        if not self.wrappers or name in channels.FUNCTIONS:
            return None
        written = dotted(func)
        for wrapper in self.wrappers:
            if any(n is not None and matches(wrapper.pattern, n) for n in (written, name)):
                return wrapper
        return None

    def project(self, call: ast.Call, scope: Scope, wrapper: PyWrapper) -> Iterator[Fragment]:
        """A call of the project's own wrapper: its command argument, run as configured."""
        if isinstance(wrapper.arg, int):
            argument = _argument(call, wrapper.arg, "")
        else:
            argument = _keyword(call, wrapper.arg)
        if argument is None:
            return
        label = wrapper.pattern
        value, owner, _ = follow(argument, scope)
        if wrapper.runs == "argv":
            if isinstance(value, (ast.List, ast.Tuple)):
                yield from self.argv(list(value.elts), owner, label)
            return
        if isinstance(value, (ast.List, ast.Tuple)):
            return  # a list where a string is configured: how it is joined is not known
        if wrapper.runs == "ssh":
            target = _Target(label, 1, True, "bash", _LOGIN, Role.CHANNEL)
        else:
            cmdline = f"/bin/{wrapper.runs} -c {{text}}"
            target = _Target(label, 0, False, wrapper.runs, cmdline, Role.SHELL)
        for fragment in self.string(argument, scope, target):
            if isinstance(fragment.origin, PyFragment):  # always: what `fragment` makes
                origin = replace(fragment.origin, project=True)
                yield replace(
                    fragment, origin=origin, encode_edit=partial(encode_fragment_edit, origin)
                )
            else:
                yield fragment

    def method(self, call: ast.Call, func: ast.Attribute, scope: Scope) -> Iterator[Fragment]:
        if func.attr == channels.EXEC_COMMAND:
            target = _Target("exec_command", 1, True, "bash", _LOGIN, Role.CHANNEL)
            yield from self.string(_argument(call, 0, "command"), scope, target)
            return
        if (
            func.attr in channels.ASYNCSSH_METHODS
            and self.asyncssh
            and self._asyncssh(func.value, scope)
        ):
            target = _Target(f"asyncssh {func.attr}", 1, True, "bash", _LOGIN, Role.CHANNEL)
            yield from self.string(_argument(call, 0, "command"), scope, target)
            return
        if func.attr not in channels.SESSION_METHODS or not (self.fabric or self.invoke):
            return
        kind = self._method_kind(func.value, scope)
        if kind is None:
            return
        if func.attr == "local":
            target = _Target("local", 0, False, "bash", "/bin/bash -c {text}", Role.SHELL)
        elif kind == "fabric":
            prefix = "sudo " if func.attr == "sudo" else ""
            target = _Target(
                f"Connection.{func.attr}", 1, True, "bash", _LOGIN, Role.CHANNEL, prefix
            )
        else:
            prefix = "sudo " if func.attr == "sudo" else ""
            target = _Target(
                f"Context.{func.attr}", 0, False, "bash", "/bin/bash -c {text}", Role.SHELL, prefix
            )
        yield from self.string(_argument(call, 0, "command"), scope, target, func)

    def _asyncssh(self, receiver: ast.expr, scope: Scope, depth: int = 0) -> bool:
        """Whether the file shows `receiver` is an asyncssh client connection: made by
        `asyncssh.connect(...)` (awaited, or as `async with ... as conn`), or annotated as
        one. A name alone is no evidence: `conn.run` of any other library is not read."""
        if depth > 8:
            return False
        if isinstance(receiver, ast.Await):
            return self._asyncssh(receiver.value, scope, depth + 1)
        if isinstance(receiver, ast.Call):
            return qualname(receiver.func, self.a.imports) in _ASYNCSSH_CONNECT
        if not isinstance(receiver, ast.Name):
            return False
        bound = scope.value(receiver.id)
        if bound is not None:
            return self._asyncssh(bound[0], bound[1], depth + 1)
        annotation = scope.annotation(receiver.id)
        return (
            annotation is not None and qualname(annotation, self.a.imports) in _ASYNCSSH_CONNECTIONS
        )

    def _method_kind(self, receiver: ast.expr, scope: Scope) -> str | None:
        """ "fabric" (a Connection: remote), "invoke" (a Context: local) or None."""
        if isinstance(receiver, ast.Call):
            return _class_kind(qualname(receiver.func, self.a.imports))
        last = receiver.attr if isinstance(receiver, ast.Attribute) else None
        if isinstance(receiver, ast.Name):
            last = receiver.id
            bound = scope.value(receiver.id)
            if bound is not None:
                return self._method_kind(bound[0], bound[1])
            annotation = scope.annotation(receiver.id)
            if annotation is not None:
                kind = _class_kind(qualname(annotation, self.a.imports))
                if kind is not None:
                    return kind
            kind = self._task_kind(receiver.id, scope)
            if kind is not None:
                return kind
        if last is None:
            return None
        if self.fabric and _FABRIC_NAMES.match(last):
            return "fabric"
        if self.invoke and not self.fabric and _INVOKE_NAMES.match(last):
            return "invoke"
        return None

    def _task_kind(self, name: str, scope: Scope) -> str | None:
        """ "fabric" or "invoke" where `name` is the first parameter of a function that
        library's `@task` decorates (its context); else None."""
        owner = scope.owner(name)
        if owner is None or owner.params[:1] != [name]:
            return None
        for decorator in owner.decorators:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            qualified = qualname(target, self.a.imports) or ""
            if qualified.startswith("fabric") and qualified.endswith("task"):
                return "fabric"
            if qualified.startswith("invoke") and qualified.endswith("task"):
                return "invoke"
        return None

    def popen(self, call: ast.Call, scope: Scope, function: str) -> Iterator[Fragment]:
        args = _argument(call, 0, "args")
        if args is None:
            return
        shell = _keyword(call, "shell")
        if shell is not None and not isinstance(shell, ast.Constant):
            return  # decided at run time
        wrapper = f"subprocess.{function}"
        value, owner, _ = follow(args, scope)
        if isinstance(value, (ast.List, ast.Tuple)):
            args, scope = value, owner
        if shell is not None and shell.value:
            if isinstance(args, (ast.List, ast.Tuple)):
                if not args.elts or isinstance(args.elts[0], ast.Starred):
                    return
                args = args.elts[0]
            executable = _keyword(call, "executable")
            name, program = "sh", "/bin/sh"
            if isinstance(executable, ast.Constant) and isinstance(executable.value, str):
                program = executable.value
                name = program.rsplit("/", 1)[-1]
            target = _Target(wrapper, 0, False, name, program + " -c {text}", Role.SHELL)
            yield from self.string(args, scope, target)
            return
        # `[A] if c else [B]`: both; a parameter: what the file's calls pass for it.
        lists = [(c, owner) for c, owner, _ in candidates(args, scope)] + self.passed(args, scope)
        for candidate, owner in lists:
            value, value_scope, _ = follow(candidate, owner)
            if isinstance(value, (ast.List, ast.Tuple)):
                yield from self.argv(list(value.elts), value_scope, wrapper, function != "Popen")

    def pexpect(self, call: ast.Call, scope: Scope, name: str, waits: bool) -> Iterator[Fragment]:
        """`pexpect.spawn("ssh h 'CMD'")`, `pexpect.run(...)`: pexpect splits the command
        line itself, no shell reads it; `spawn(PROGRAM, [ARGS...])` is an argv list."""
        label = name.replace(".pty_spawn", "").replace("pexpect.run.", "pexpect.")
        command = _argument(call, 0, "command")
        if command is None:
            return
        args = _argument(call, 1, "args") if "spawn" in name else None
        if args is not None:
            value, owner, _ = follow(args, scope)
            if not isinstance(value, (ast.List, ast.Tuple)):
                return  # the arguments are not known
            if value.elts:
                yield from self.argv([command, *value.elts], owner, label, waits)
                return
        for elems in self.values(command, scope):
            if elems is None or not elems.has_chars():
                continue
            words = pexpect_words(elems)
            if words is None:
                continue  # a character pexpect reads otherwise than a shell would
            if not waits:  # `spawn` returns at once: what the program does later is not read
                spot = self.a.units[elems[-1][1]].end
                elems = elems + [
                    (c, self.a.add_unit(Unit("synthetic", spot, spot, spot))) for c in " &"
                ]
            target = _Target(label, 0, False, "bash", "", None)
            yield _unescaped(self.fragment(elems, target, cmdline=" ".join(words), argv=True))

    # -- values ----------------------------------------------------------------------------
    def values(self, node: ast.expr, scope: Scope) -> list[Elems | None]:
        """The elements of each value a string expression may have (`Reader.strings`),
        and, where it is a parameter of the file's own function, each value the file's
        calls of that function pass for it."""
        found = self.reader.strings(node, scope)
        for argument, site in self.passed(node, scope):
            found += [elems for elems in self.reader.strings(argument, site) if elems is not None]
        return found

    def passed(self, node: ast.expr, scope: Scope) -> list[tuple[ast.expr, Scope]]:
        """Where `node` is a parameter of the file's own function that reaches this call
        as it is (`def run(c, cmd): c.exec_command(cmd)`), what the file's calls of that
        function pass for it (`run(c, "pkill -f app; ./start")`), each with the scope of
        the call: the commands that really run here.  Through helpers of helpers, up to
        `_HOPS` of them."""
        found: list[tuple[ast.expr, Scope]] = []
        # Each parameter's calls are read once: helpers that call each other many times
        # would otherwise give each value once per path, as many as a power of the calls.
        # Breadth first, so that each is read at the fewest hops it is reached by.
        seen: set[tuple[int, str]] = set()
        todo = deque([(node, scope, 0)])
        while todo:
            current, current_scope, hops = todo.popleft()
            parameter = _parameter(current, current_scope)
            if parameter is None:
                if hops:
                    found.append((current, current_scope))
            elif hops < _HOPS and (id(parameter[0]), parameter[1]) not in seen:
                seen.add((id(parameter[0]), parameter[1]))
                passed = self.reader.callers.passed(*parameter)
                todo.extend((a, site, hops + 1) for a, site in passed)
        return found

    # -- fragments -------------------------------------------------------------------------
    def string(
        self,
        node: ast.expr | None,
        scope: Scope,
        target: _Target,
        method: ast.expr | None = None,
    ) -> Iterator[Fragment]:
        if node is None:
            return
        # Each value the expression may have (`A if c else B`: A and B) is a command.
        for elems in self.values(node, scope):
            if elems is None or not elems.has_chars():
                continue
            if target.prefix and method is not None:
                elems = self._prefix(target.prefix, method) + elems
            yield self.fragment(elems, target)

    def _prefix(self, prefix: str, method: ast.expr) -> Elems:
        """The library's own `sudo `: it stands where the method name is written."""
        _, end = self.a.lines.span(method)
        name = method.attr if isinstance(method, ast.Attribute) else prefix.strip()
        at = end - len(name)
        elems = Elems()
        for k, char in enumerate(prefix):
            spot = min(at + k, end - 1)
            elems.append((char, self.a.add_unit(Unit("synthetic", spot, spot, spot))))
        return elems

    def fragment(
        self,
        elems: Elems,
        target: _Target,
        wrapper: str | None = None,
        cmdline: str | None = None,
        argv: bool = False,
        session: Session | None = None,
    ) -> Fragment:
        # Run by run, each kept as runs: a plain stretch of a literal costs the same
        # whatever its length (issue 18 item 8).
        parts: list[str] = []
        offsets = OffsetRuns()  # where a finding on each character points (+ the end)
        unit_of = OffsetRuns()
        spans: list[tuple[int, int]] = []
        length = end = 0
        units = self.a.units
        for chars, first in elems.runs():
            if chars:
                for at, step, count in units.ats(first, len(chars)):
                    if step == 1:
                        offsets.add_range(at, at + count)
                    else:
                        offsets.extend(range(at, at + count * step, step) if step else [at] * count)
                unit_of.add_range(first, first + len(chars))
                unit = units[first + len(chars) - 1]
                end = max(unit.end, unit.at + 1) if unit.kind != "synthetic" else unit.at
            else:  # a run-time value: its placeholder points into its anchor
                unit = units[first]
                chars = placeholder(unit.interp)
                a, end = self.a.interps[unit.interp].anchor
                spans.append((length, length + len(chars)))
                inside = max(0, min(len(chars) - 1, end - 1 - a))
                offsets.add_range(a, a + inside)
                offsets.extend([end - 1] * (len(chars) - inside))
                unit_of.extend([first] * len(chars))
            parts.append(chars)
            length += len(chars)
        offsets.add(end)
        text = "".join(parts)
        origin = PyFragment(self.a, text, unit_of.build(), argv, session)
        return Fragment(
            text,
            offsets.build(),
            depth=target.depth,
            wrapper=wrapper or target.wrapper,
            role=target.role,
            remote=target.remote,
            shell=target.shell,
            cmdline=cmdline
            if cmdline is not None
            else target.cmdline.format(text=PLACEHOLDERS.sub("", text)),
            interpolations=tuple(spans),
            prefix_words=target.behind,
            encode_edit=partial(encode_fragment_edit, origin),
            source_end=self.a.source_end,
            origin=origin,
        )

    def argv(
        self, elements: list[ast.expr], scope: Scope, wrapper: str, waits: bool = True
    ) -> Iterator[Fragment]:
        """`["ssh", host, CMD]`, `["bash", "-lc", S]`: the layer the wrapper table makes.

        An element that may have several values (`A if c else B`) makes one argv for each:
        argv k takes the k-th value of every element (its last when it has fewer), so that
        every value is read once, in as many argvs as the element with the most values
        has, not in every combination (their number grows as a product)."""
        choices: list[list[Elems]] = []
        for element in elements:
            if isinstance(element, ast.Starred):
                break
            unknown: Elems | None = None
            options: list[Elems] = []
            for elems in self.values(element, scope):
                if elems is None:
                    unknown = unknown or Elems([self.reader.unknown(element, scope)])
                    elems = unknown
                options.append(elems)
            choices.append(options)
        for k in range(max((len(c) for c in choices), default=0)):
            parts = [c[min(k, len(c) - 1)] for c in choices]
            yield from self._argv(elements, parts, wrapper, waits)

    def _argv(
        self, elements: list[ast.expr], parts: list[Elems], wrapper: str, waits: bool
    ) -> Iterator[Fragment]:
        """The fragment of one argv (`parts`: the elements' values, in order): the layer its
        wrapper makes, as the Python string it is (`["bash", "-c", S]`, `["ssh", h, S]`:
        its fixes rewrite S), or, where a rule needs the argv's own words (an ssh remote
        command of several words, scp's options), the argv as a command line."""
        words = [self._word(n, elems) for n, elems in enumerate(parts)]
        invocation = resolve(words)
        if invocation is None or not invocation.words:
            if any(w.static and basename(w.value) in _ARGV_COMMANDS for w in words):
                yield self._command_line(elements, parts, words, wrapper, waits)
            return
        if invocation.ssh is not None and len(invocation.words) > 1:
            # ssh joins these words with spaces: which word held what is HL106's question.
            yield self._command_line(elements, parts, words, wrapper, waits)
            return
        joined = Elems()
        for k, word in enumerate(invocation.words):
            n, cut = divmod(word.offsets[0] if word.value else word.start, 1 << 20)
            kept = self._cut(parts[n], cut)
            if kept is None:
                return
            if k:
                spot = self.a.lines.span(elements[n - 1])[1] if n else 0
                joined.append((" ", self.a.add_unit(Unit("synthetic", spot, spot, spot))))
            joined.extend(kept)
        if not joined.has_chars():
            return
        shell = "bash" if invocation.shell == "login" else invocation.shell
        target = _Target(
            invocation.wrapper,
            1,
            invocation.remote,
            shell,
            shell + " -c {text}",
            invocation.role,
            behind=tuple(words[: invocation.index]),
        )
        session = None
        if invocation.ssh is not None:
            session = Session(wrapper, waits, frozenset(o for o, _, _ in invocation.ssh.options))
        yield self.fragment(joined, target, session=session)

    def _command_line(
        self,
        elements: list[ast.expr],
        parts: list[Elems],
        words: list[Word],
        wrapper: str,
        waits: bool,
    ) -> Fragment:
        """The argv written as one shell command line, each element one word (quoted where
        it needs it, a run-time value `"${__hl_N}"`), so that the shell rules and the
        wrapper table see the argv's own word boundaries and options: ssh joins `["ssh",
        h, "ls", "/srv/my dir"]` into `ls /srv/my dir` (HL106), `["scp", "-p", "2222",
        ...]` is scp's `-p` (HL108).  No shell reads that line: its quotes are the
        frontend's own (synthetic), so a fix that would change one is refused.  `waits`:
        whether the call waits for the program (`Popen` does not: the line ends in `&`)."""
        joined = Elems()
        for n, elems in enumerate(parts):
            if n:
                spot = self.a.lines.span(elements[n - 1])[1]
                joined.append((" ", self.a.add_unit(Unit("synthetic", spot, spot, spot))))
            joined.extend(self._quoted(elems, elements[n]))
        if not waits:
            spot = self.a.lines.span(elements[len(parts) - 1])[1]
            joined.extend((c, self.a.add_unit(Unit("synthetic", spot, spot, spot))) for c in " &")
        # What the program shows as its command line: its argv (HL103).
        cmdline = PLACEHOLDERS.sub("", " ".join(w.value for w in words))
        target = _Target(wrapper, 0, False, "bash", "", None)
        return self.fragment(joined, target, cmdline=cmdline, argv=True)

    def _word(self, n: int, elems: Elems) -> Word:
        """Element n of an argv as a word of the wrapper table (a run-time value: unknown)."""
        pieces = [c or placeholder(self.a.units[u].interp) for c, u in elems.runs()]
        value = "".join(pieces)
        base = n << 20
        # Each run-time value is an expansion of its own: `f"-u{u}"` is still the option
        # `-u` with its argument attached, as the shell reads `-u$u`.
        expansions: list[Expansion] = []
        at = 0
        for (char, _), piece in zip(elems.runs(), pieces, strict=True):
            if not char:
                expansions.append(Expansion(at, at + len(piece), "variable", "__hl", False))
            at += len(piece)
        offsets = OffsetRuns()
        offsets.add_range(base, base + len(value) + 1)
        return Word(base, base + 1, value, offsets.build(), tuple(expansions))

    def _quoted(self, elems: Elems, element: ast.expr) -> Elems:
        """One argv element as one shell word: as it is when it needs no quotes, else in
        double quotes with `$`, `` ` ``, `"` and `\\` escaped; a run-time value stays an
        expansion inside them, so that it is one word whatever it holds."""
        if elems and all(c and _BARE.fullmatch(c) for c, _ in elems.runs()):
            return elems
        start, end = self.a.lines.span(element)

        def synthetic(char: str, spot: int) -> tuple[str, int]:
            return (char, self.a.add_unit(Unit("synthetic", spot, spot, spot)))

        out = Elems([synthetic('"', start)])
        for char, unit in elems:
            if char in _ESCAPED:
                out.append(synthetic("\\", self.a.units[unit].at))
            out.append((char, unit))
        out.append(synthetic('"', max(start, end - 1)))
        return out

    def _cut(self, elems: Elems, cut: int) -> Elems | None:
        """elems without their first `cut` value characters (`--command=S` keeps S)."""
        if not cut:
            return elems
        width = 0
        for k, (char, unit) in enumerate(elems):
            if width == cut:
                return elems[k:]
            width += len(char or placeholder(self.a.units[unit].interp))
            if width > cut:
                return None
        return Elems() if width == cut else None


# Characters that pexpect's split takes as they are where a shell would split or expand:
# outside quotes, an operator, an expansion, a newline (it ends a shell command) or a
# comment's `#`; inside double quotes, `$`, `` ` `` and `\\` (pexpect has no escapes there).
_PEXPECT_OPERATORS = frozenset("|&;<>()$`\n\r\v\f")
_PEXPECT_DOUBLE = frozenset("$`\\")


def pexpect_words(elems: Iterable[tuple[str, int]]) -> list[str] | None:
    """The words pexpect splits the command line `elems` into (its `split_command_line`:
    whitespace, `'...'`, `"..."` and a backslash before any character), when a shell
    would split it into the same words; None when a character could be read otherwise
    (an operator, an expansion, a newline, a backslash in double quotes). A run-time
    value stands as one word part, `{}`."""
    split = _PexpectSplit()
    for char, _ in elems:
        if not split.read(char):
            return None
    return split.end()


class _PexpectSplit:
    """`pexpect_words` one character at a time: the words so far and the one being read."""

    def __init__(self) -> None:
        self.words: list[str] = []
        self.word: str | None = None  # None: between words
        self.quote = ""
        self.escaped = False

    def read(self, char: str) -> bool:
        """Take `char` ("": a run-time value); False where a shell could read it otherwise."""
        if not char:  # a run-time value
            self.word = (self.word or "") + "{}"
        elif self.escaped:
            if char == "\n":
                return False  # a shell drops backslash-newline, pexpect keeps the newline
            self.word, self.escaped = (self.word or "") + char, False
        elif self.quote:
            return self._quoted(char)
        else:
            return self._unquoted(char)
        return True

    def _quoted(self, char: str) -> bool:
        """`read` of a character inside `'...'` or `"..."`."""
        if char == self.quote:
            self.quote = ""
        elif self.quote == '"' and char in _PEXPECT_DOUBLE:
            return False
        else:
            self.word = (self.word or "") + char
        return True

    def _unquoted(self, char: str) -> bool:
        """`read` of a character outside quotes."""
        if char in "'\"":
            self.quote, self.word = char, self.word or ""
        elif char == "\\":
            self.escaped = True
        elif char in " \t":
            if self.word is not None:
                self.words.append(self.word)
            self.word = None
        elif char in _PEXPECT_OPERATORS or (char == "#" and self.word is None):
            return False
        else:
            self.word = (self.word or "") + char
        return True

    def end(self) -> list[str] | None:
        """The words, once the line is read; None if it ends inside quotes, in an escape or
        with an empty word (pexpect drops it)."""
        if self.quote or self.escaped:
            return None
        if self.word:  # pexpect drops a last empty word (`''` at the end); a shell keeps it
            self.words.append(self.word)
        elif self.word is not None:
            return None
        return self.words


def _class_kind(name: str | None) -> str | None:
    """ "fabric" for the qualified name of a fabric Connection, "invoke" for an invoke
    Context's, else None."""
    if name in _FABRIC_CONNECTIONS:
        return "fabric"
    if name in _INVOKE_CONTEXTS:
        return "invoke"
    return None


def _unescaped(fragment: Fragment) -> Fragment:
    """A pexpect command line's fragment whose fixes may not write what pexpect reads
    otherwise than a shell (`\\`, `"`, `$`, `` ` ``, a newline): such an edit is refused."""
    encode = fragment.encode_edit

    def guarded(start: int, end: int, content: str) -> Edit | None:
        if encode is None or any(c in content for c in '\\"$`\n'):
            return None
        return encode(start, end, content)

    return replace(fragment, encode_edit=guarded)


def _with_status_ignored(fragment: Fragment) -> Fragment:
    """`fragment`, marked as run by a call whose exit status the program drops."""
    if not isinstance(fragment.origin, PyFragment):
        return fragment
    origin = replace(fragment.origin, status_ignored=True)
    return replace(fragment, origin=origin, encode_edit=partial(encode_fragment_edit, origin))
