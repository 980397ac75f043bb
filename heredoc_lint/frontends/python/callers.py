"""The calls a file makes to its own functions, each with the scope it is made in.

A parameter of a public function is evidence of outside data only as long as the file
says nothing about its callers. Where the file calls the function itself, the arguments
of those calls are what the parameter holds: `origins.evidence` reads them instead.
"""

from __future__ import annotations

import ast
import collections
import re
from collections.abc import Iterator

from heredoc_lint.frontends.python.model import Analysis
from heredoc_lint.frontends.python.scopes import Scope, ScopeBuilder
from heredoc_lint.frontends.python.values import is_quoter


class Callers:
    """Calls by name (`f(...)`) of each function, read on first use: most files never ask."""

    def __init__(self, analysis: Analysis) -> None:
        self._analysis = analysis
        self._index: dict[str, list[tuple[ast.Call, Scope]]] | None = None
        self._numbers: frozenset[str] | None = None
        self._attributes: dict[str, list[tuple[ast.expr, Scope]]] | None = None
        self._parents: dict[int, ast.AST] | None = None
        self._functions: dict[str, list[dict[str, ast.expr | None]]] | None = None
        # Calls `self.NAME(...)` in a class's methods, by (id of the class, NAME).
        self._self_calls: dict[tuple[int, str], list[tuple[ast.Call, Scope]]] = {}
        self._class_of: dict[int, ast.ClassDef] = {}  # by id of each method
        self._module: Scope | None = None

    def of(self, function: str) -> list[tuple[ast.Call, Scope]]:
        if self._index is None:
            self._index, self._attributes = self._build()
        return self._index.get(function, [])

    def passed(
        self, owner: Scope, name: str, *, every: bool = False
    ) -> list[tuple[ast.expr, Scope]]:
        """What the file's own calls of `owner`'s function pass for its parameter `name`,
        each with the scope of the call: the calls by name of a module function, and a
        plain method's calls `self.NAME(...)` in the methods of its class.  A call that
        passes it through `*args`, or not at all, gives nothing; with `every`, a call
        through `*args` makes it all nothing (what the calls pass is not all in sight)."""
        function = owner.node
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return []
        if not self._called(function.name):
            return []  # most helpers are called from other files: no reading the whole file
        if self._index is None:
            self._index, self._attributes = self._build()
        module, cls = self._module, self._class_of.get(id(function))
        if module is not None and any(node is function for node in self._analysis.tree.body):
            if len(module.bindings.get(function.name, [])) != 1:
                return []  # the name is bound to something else too: which one is called?
            sites = [
                (call, scope)
                for call, scope in self._index.get(function.name, [])
                if scope.owner(function.name) is module
            ]
            bound = 0
        elif cls is not None and owner.params and not owner.decorators:
            sites = self._self_calls.get((id(cls), function.name), [])
            bound = 1  # `self`
        else:
            return []
        found = []
        for call, scope in sites:
            argument = argument_for(call, owner, name, bound)
            if argument is UNKNOWN and every:
                return []
            if argument is not None and argument is not UNKNOWN:
                found.append((argument, scope))
        return found

    def _called(self, name: str) -> bool:
        """Whether the text spells a call of `name` (`name(`, `.name(`) besides its `def`."""
        text = self._analysis.text
        # What `(?:\bdef\s+|\.\s*|(?<![\w.]))\bNAME\s*\(` finds, each match then read
        # from its start, but searched for from the name: a pattern that starts with the
        # name itself (its `\b` a look-behind after it) lets re skip to each one, where
        # the alternation was tried at every offset (6 ms in a large module, now 0.1).
        # A match starts at `.` when one stands before the blanks before the name; else
        # at a `def` there; else at the name itself.
        escaped = re.escape(name)
        for match in re.finditer(rf"{escaped}(?<!\w{escaped})\s*\(", text):
            start = match.start()
            before = start
            while before > 0 and text[before - 1].isspace():
                before -= 1
            if before > 0 and text[before - 1] == ".":
                return True
            if before < start and _after_def(text, before):
                continue
            # A match that starts at the name is told from a `def` by its first letters:
            # a call of `default(` is read as a `def`, as it always was.
            if not name.startswith("def"):
                return True
        return False

    def _parent(self, node: ast.AST) -> ast.AST | None:
        if self._parents is None:
            self._parents = {
                id(child): node
                for node in ast.walk(self._analysis.tree)
                for child in ast.iter_child_nodes(node)
            }
        return self._parents.get(id(node))

    def attribute(self, name: str) -> list[tuple[ast.expr, Scope]]:
        """What `self.NAME` holds in the file's classes: the values its methods assign to
        it (`self.NAME = value`) and a `@property NAME`'s returns, each with its scope."""
        if self._attributes is None:
            self._index, self._attributes = self._build()
        return self._attributes.get(name, [])

    def added(self, name: str, container: ast.expr) -> list[ast.expr]:
        """What the function that binds `name = container` (`items = []`) puts into it
        later: the arguments of its `name.append(x)`, `.extend(xs)`, `.insert(i, x)` and
        `.add(x)` calls. A list filled from a reply holds the reply's text."""
        body = self._parent(container)
        while body is not None and not isinstance(body, _BODIES):
            body = self._parent(body)
        if body is None:
            return []
        found: list[ast.expr] = []
        for node in _own_nodes(body):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _ADDERS
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == name
                and node.args
            ):
                found.append(node.args[-1])  # `insert(i, x)`: the item is the last argument
        return found

    def default(self, owner: Scope, name: str) -> ast.expr | None:
        """The default of parameter `name` of `owner`'s function, where the file defines
        one function of that name with that parameter (a method's or a module's)."""
        if self._functions is None:
            self._functions = {}
            for node in statements(self._analysis.tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self._functions.setdefault(node.name, []).append(_parameters(node.args))
        found = [p for p in self._functions.get(owner.function or "", []) if name in p]
        return found[0][name] if len(found) == 1 else None

    def numeric_options(self) -> frozenset[str]:
        """The argparse destinations the file declares only as numbers or flags."""
        if self._numbers is None:
            self._numbers = numeric_options(self._analysis.tree)
        return self._numbers

    def quotes_its_result(self, function: str) -> bool:
        """Whether the file's module function `function` returns only quoted shell text:
        `return shlex.quote(p)`, or an f-string of literal text and such quoted names
        (`return f'"$HOME"/{quoted}'`, `quoted = shlex.quote(rel)`)."""
        defs = [
            node
            for node in self._analysis.tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function
        ]
        if len(defs) != 1:
            return False
        returns = [n.value for n in ast.walk(defs[0]) if isinstance(n, ast.Return)]
        bound = _local_values(defs[0])
        return bool(returns) and all(
            value is not None and self._quoted(value, bound, 0) for value in returns
        )

    def _quoted(self, value: ast.expr, bound: dict[str, list[ast.expr]], depth: int) -> bool:
        if depth > 4:
            return False
        if isinstance(value, ast.Call):
            return is_quoter(value, self._analysis.imports)
        if isinstance(value, ast.Constant):
            return isinstance(value.value, str) and not value.value.strip("/")  # "/" or ""
        if isinstance(value, ast.IfExp):
            return all(self._quoted(v, bound, depth + 1) for v in (value.body, value.orelse))
        if isinstance(value, ast.Name):
            values = bound.get(value.id, [])
            return bool(values) and all(self._quoted(v, bound, depth + 1) for v in values)
        if isinstance(value, ast.JoinedStr):
            return all(
                self._quoted(part.value, bound, depth + 1)
                for part in value.values
                if isinstance(part, ast.FormattedValue)
            )
        return False

    def _build(
        self,
    ) -> tuple[dict[str, list[tuple[ast.Call, Scope]]], dict[str, list[tuple[ast.expr, Scope]]]]:
        # Every statement read in full, on an analysis of its own: the file's own one
        # read only the statements with a call of interest.
        a = self._analysis
        fresh = Analysis(a.text, a.tree, a.lines, python2=a.python2, path=a.path)
        builder = ScopeBuilder(fresh)
        self._module = builder.build(a.tree, None)
        methods = _methods(a.tree)
        self._class_of = {id(method): cls for cls, method in methods}
        # The class of each plain method's scope: `self.NAME(...)` in it calls its own.
        classes = {
            id(builder.scopes[id(method)]): cls
            for cls, method in methods
            if not method.decorator_list and id(method) in builder.scopes
        }
        index: dict[str, list[tuple[ast.Call, Scope]]] = {}
        for call, scope in builder.calls:
            func = call.func
            if isinstance(func, ast.Name):
                index.setdefault(func.id, []).append((call, scope))
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                this = scope.owner(func.value.id)  # the method whose first parameter it is
                if this is not None and this.params[:1] == [func.value.id] and id(this) in classes:
                    key = (id(classes[id(this)]), func.attr)
                    self._self_calls.setdefault(key, []).append((call, scope))
        attributes: dict[str, list[tuple[ast.expr, Scope]]] = {}
        for _, method in methods:
            inner = builder.scopes.get(id(method))
            if inner is None or not inner.params:
                continue
            for name, value in _assigned(method, inner.params[0]):
                attributes.setdefault(name, []).append((value, inner))
        return index, attributes


# The statements a container is filled in: its function's body, or the module's.
_BODIES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)
_ADDERS = frozenset({"append", "extend", "insert", "add"})


def _parameters(args: ast.arguments) -> dict[str, ast.expr | None]:
    """Each parameter with its default (None: it has none)."""
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    found = dict(zip((a.arg for a in positional), [*defaults, *args.defaults], strict=True))
    found.update(zip((a.arg for a in args.kwonlyargs), args.kw_defaults, strict=True))
    return found


def _own_nodes(body: ast.AST) -> list[ast.AST]:
    """The nodes of a function or module, without those of the functions and classes
    defined in it (their names are their own)."""
    found: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(body))
    while todo:
        node = todo.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))
    return found


def _local_values(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, list[ast.expr]]:
    """The values each plain name is assigned in `function` (parameters have none)."""
    values: dict[str, list[ast.expr]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values.setdefault(target.id, []).append(node.value)
    return values


def _methods(tree: ast.Module) -> list[tuple[ast.ClassDef, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(class, method) of each method of the file's classes."""
    return [
        (cls, node)
        for cls in statements(tree)
        if isinstance(cls, ast.ClassDef)
        for node in cls.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]


def _assigned(
    method: ast.FunctionDef | ast.AsyncFunctionDef, this: str
) -> list[tuple[str, ast.expr]]:
    """(attribute, value) of `this.NAME = value` in `method`, and of a property's returns."""
    found: list[tuple[str, ast.expr]] = []
    if any(isinstance(d, ast.Name) and d.id == "property" for d in method.decorator_list):
        found += [
            (method.name, n.value)
            for n in statements(method)
            if isinstance(n, ast.Return) and n.value is not None
        ]
    for node in statements(method):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == this
                ):
                    found.append((target.attr, node.value))
    return found


# The fields that hold statements, except handlers and match cases, in the order of any
# node's `_fields` that has them; no expression holds one (a lambda's body is one).
_BLOCKS = frozenset({"body", "handlers", "orelse", "finalbody", "cases"})


def _after_def(text: str, end: int) -> bool:
    """Whether `def` ends at `end` in `text`, a word of its own (`\\bdef`)."""
    start = end - 3
    if start < 0 or text[start:end] != "def":
        return False
    return start == 0 or not (text[start - 1].isalnum() or text[start - 1] == "_")


def statements(node: ast.AST) -> Iterator[ast.AST]:
    """`node`, then the nodes of `ast.walk(node)` that are statements, except handlers or
    match cases, in its order, without entering an expression: a tenth of a file's nodes."""
    todo = collections.deque([node])
    while todo:
        node = todo.popleft()
        yield node
        for name in node._fields:
            if name in _BLOCKS:
                block = getattr(node, name)
                if isinstance(block, list):
                    todo.extend(block)


UNKNOWN = ast.expr()  # what a call passes through `*args` or `**kwargs`


def argument_for(call: ast.Call, owner: Scope, name: str, bound: int = 0) -> ast.expr | None:
    """The expression `call` passes for the parameter `name` of `owner`'s function: None
    when it passes none (the default is used), UNKNOWN when `*args` or `**kwargs` may.
    `bound`: the parameters the call does not pass (`self` of `self.run(...)`)."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if name in owner.params[:bound]:
        return None
    index = owner.params.index(name) - bound if name in owner.params else len(call.args)
    for position, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            return UNKNOWN if position <= index else None
        if position == index:
            return argument
    if any(keyword.arg is None for keyword in call.keywords):
        return UNKNOWN
    return None


# argparse actions whose value is a number or a bool: `True`/`False` are one shell word.
_FLAG_ACTIONS = frozenset({"store_true", "store_false", "count"})
_NUMBER_TYPES = frozenset({"int", "float"})


def numeric_options(tree: ast.Module) -> frozenset[str]:
    """Destinations of `add_argument` calls that declare a number (`type=int`) or a flag,
    left out where another `add_argument` of the same destination declares something else."""
    kinds: dict[str, set[bool]] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_argument"
        ):
            dest = _destination(node)
            if dest:
                kinds.setdefault(dest, set()).add(_numeric_declaration(node))
    return frozenset(dest for dest, found in kinds.items() if found == {True})


def _destination(call: ast.Call) -> str:
    """`dest=`, else the first long option (`--out-dir` is `out_dir`), else the name."""
    for keyword in call.keywords:
        if keyword.arg == "dest" and isinstance(keyword.value, ast.Constant):
            return str(keyword.value.value)
    names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    longs = [n for n in names if n.startswith("--")]
    chosen = longs[0] if longs else (names[0] if names else "")
    return chosen.lstrip("-").replace("-", "_")


def _numeric_declaration(call: ast.Call) -> bool:
    """`type=int`/`float` of one value (no `nargs`, no `append`), or a flag action."""
    given = {k.arg: k.value for k in call.keywords if k.arg is not None}
    action, kind, nargs = given.get("action"), given.get("type"), given.get("nargs")
    if nargs is not None and not (isinstance(nargs, ast.Constant) and nargs.value == "?"):
        return False  # a list of values: its text holds blanks and brackets
    if action is not None:
        return isinstance(action, ast.Constant) and action.value in _FLAG_ACTIONS
    return isinstance(kind, ast.Name) and kind.id in _NUMBER_TYPES
