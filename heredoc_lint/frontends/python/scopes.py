"""Names and scopes: what each name is bound to, imports, and the calls to read."""

from __future__ import annotations

import ast
import bisect
from dataclasses import dataclass, field

from heredoc_lint.frontends.python.imported import imported_constant
from heredoc_lint.frontends.python.model import Analysis


class LoopValue(ast.expr):
    """The binding of a `for` target (`for x in ITER`): one of the items of `iter`."""

    _fields = ("iter",)

    def __init__(self, iter: ast.expr) -> None:  # noqa: A002 - the name of ast.For's field
        super().__init__()
        self.iter = iter


@dataclass
class Scope:
    parent: Scope | None
    is_class: bool = False
    bindings: dict[str, list[ast.expr | None]] = field(default_factory=dict)
    annotations: dict[str, ast.expr] = field(default_factory=dict)
    params: list[str] = field(default_factory=list)
    decorators: list[ast.expr] = field(default_factory=list)
    function: str | None = None  # the function's name (None: the module, a class, a lambda)
    public: bool = False  # a function callers outside the file may call: not `_x`, not nested
    arguments: frozenset[str] = frozenset()  # every parameter name
    node: ast.AST | None = None  # the function or lambda (None: the module, a class)

    def bind(self, name: str, value: ast.expr | None) -> None:
        self.bindings.setdefault(name, []).append(value)

    def owner(self, name: str) -> Scope | None:
        """The scope whose binding of `name` a use in this scope sees."""
        scope: Scope | None = self
        first = True
        while scope is not None:
            if (first or not scope.is_class) and name in scope.bindings:
                return scope
            first = False
            scope = scope.parent
        return None

    def value(self, name: str) -> tuple[ast.expr, Scope] | None:
        """The one value `name` is bound to, if it is bound exactly once."""
        owner = self.owner(name)
        if owner is None:
            return None
        values = owner.bindings[name]
        if len(values) != 1 or values[0] is None or isinstance(values[0], LoopValue):
            return None
        return values[0], owner

    def annotation(self, name: str) -> ast.expr | None:
        owner = self.owner(name)
        return owner.annotations.get(name) if owner is not None else None


def follow(node: ast.expr, scope: Scope) -> tuple[ast.expr, Scope, tuple[str, ...]]:
    """The value behind names each bound once to the next (`b = a`, `c = b`...), however
    many: the first value that is not such a name, its scope, and the names followed.

    A loop, not a recursion, so that no chain is too long; a cycle (`a = b`, `b = a`)
    stops at the name that closes it, which the caller reads as a name of unknown value."""
    names: list[str] = []
    seen: set[int] = set()
    while isinstance(node, ast.Name):
        bound = scope.value(node.id)
        if bound is None or id(bound[0]) in seen:
            break
        seen.add(id(bound[0]))
        names.append(node.id)
        node, scope = bound
    return node, scope, tuple(names)


COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class ScopeBuilder:
    """One pass over the tree: scopes with their bindings, imports, calls, parents."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.calls: list[tuple[ast.Call, Scope]] = []
        self.parents: dict[int, ast.AST] = {}
        self.scopes: dict[int, Scope] = {}  # id(function node) -> its scope

    def build(self, tree: ast.Module, hot: list[int] | None = None) -> Scope:
        """Scopes of `tree`; only statements on the `hot` lines (sorted) are read in full.

        The rest is read for its bindings alone: a file's calls of interest are few.
        """
        self.hot = hot
        module = Scope(None)
        self.visit_body(tree, module)
        return module

    def bind(self, scope: Scope, name: str, value: ast.expr | None) -> None:
        scope.bind(name, value)
        self.analysis.names.add(name)

    def is_hot(self, node: ast.stmt) -> bool:
        if self.hot is None:
            return True
        k = bisect.bisect_left(self.hot, node.lineno)
        return k < len(self.hot) and self.hot[k] <= (node.end_lineno or node.lineno)

    def link(self, node: ast.AST, parent: ast.AST) -> None:
        """Record the parents of a subtree that is not visited."""
        self.parents[id(node)] = parent
        for outer in ast.walk(node):
            for child in ast.iter_child_nodes(outer):
                self.parents[id(child)] = outer

    def shallow(self, node: ast.stmt, parent: ast.AST, scope: Scope) -> None:
        """A statement without a call of interest: its bindings only."""
        self.parents[id(node)] = parent
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.bind(scope, node.name, None)
            return
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self.bind_statement(node, scope)
            if node.value is not None:
                self.link(node.value, node)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            self.record_import(node, scope)
            return
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                self.bind(scope, name, None)
                self.bind(scope, name, None)
            return
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self.bind_target(node.target, LoopValue(node.iter), scope)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    self.bind_target(item.optional_vars, item.context_expr, scope)
        blocks: list[list[ast.stmt]] = []
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                blocks.append(block)
        for handler in getattr(node, "handlers", []):
            if handler.name:
                self.bind(scope, handler.name, None)
            blocks.append(handler.body)
        for case in getattr(node, "cases", []):
            blocks.append(case.body)
        for block in blocks:
            for stmt in block:
                self.shallow(stmt, node, scope)

    def bind_statement(
        self, node: ast.Assign | ast.AnnAssign | ast.AugAssign, scope: Scope
    ) -> None:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self.bind_target(target, node.value if len(node.targets) == 1 else None, scope)
        elif isinstance(node, ast.AnnAssign):
            if isinstance(node.target, ast.Name):
                scope.annotations[node.target.id] = node.annotation
                if node.value is not None:
                    self.bind(scope, node.target.id, node.value)
        else:
            self.bind_target(node.target, None, scope)
            if isinstance(node.target, ast.Name):
                self.bind(scope, node.target.id, None)

    def visit_body(self, node: ast.AST, scope: Scope) -> None:
        # ast.iter_child_nodes without its two generators: this runs for every node read.
        # A node of no fields (`Load`, `Add`, `pass`) has nothing to read but its parent.
        parents = self.parents
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                self.visit_child(value, node, scope, parents)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit_child(item, node, scope, parents)

    def visit_child(
        self, node: ast.AST, parent: ast.AST, scope: Scope, parents: dict[int, ast.AST]
    ) -> None:
        # A name or a constant, half of the nodes read, has nothing to visit: its parent
        # (and a name's context's) is noted here, as `visit` would note it, for less work.
        kind = type(node)
        if kind is ast.Name:
            parents[id(node)] = parent
            parents[id(node.ctx)] = node  # type: ignore[attr-defined]
        elif kind is ast.Constant or not node._fields:
            parents[id(node)] = parent
        else:
            self.visit(node, parent, scope)

    def bind_target(self, target: ast.AST, value: ast.expr | None, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            self.bind(scope, target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self.bind_target(elt, None, scope)
        elif isinstance(target, ast.Starred):
            self.bind_target(target.value, None, scope)

    def function_scope(self, node: ast.AST, scope: Scope) -> Scope:
        inner = Scope(scope)
        args: ast.arguments = node.args  # type: ignore[attr-defined]
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        every += [a for a in (args.vararg, args.kwarg) if a is not None]
        for arg in every:
            self.bind(inner, arg.arg, None)
            if arg.annotation is not None:
                inner.annotations[arg.arg] = arg.annotation
        inner.params = [a.arg for a in (*args.posonlyargs, *args.args)]
        inner.arguments = frozenset(a.arg for a in every)
        name = getattr(node, "name", None)
        if name is not None:
            inner.function = name
            dunder = name.startswith("__") and name.endswith("__")
            outer = scope.parent is None or scope.is_class
            inner.public = outer and (dunder or not name.startswith("_"))
        inner.decorators = list(getattr(node, "decorator_list", []))
        inner.node = node
        self.scopes[id(node)] = inner
        return inner

    def visit(self, node: ast.AST, parent: ast.AST, scope: Scope) -> None:
        if isinstance(node, ast.expr):  # most nodes: one test, not one per kind of statement
            self.visit_expression(node, parent, scope)
            return
        if isinstance(node, ast.stmt) and not self.is_hot(node):
            self.shallow(node, parent, scope)
            return
        self.parents[id(node)] = parent
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.visit_function(node, scope)
            return
        if isinstance(node, ast.ClassDef):
            self.visit_class(node, scope)
            return
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self.bind_statement(node, scope)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.bind_target(node.target, LoopValue(node.iter), scope)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    self.bind_target(item.optional_vars, item.context_expr, scope)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self.bind(scope, node.name, None)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                self.bind(scope, name, None)
                self.bind(scope, name, None)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self.record_import(node, scope)
        self.visit_body(node, scope)

    def visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> None:
        """Its decorators and defaults in `scope`, its body in a scope of its own."""
        self.bind(scope, node.name, None)
        for child in (*node.decorator_list, *node.args.defaults, *node.args.kw_defaults):
            if child is not None:
                self.visit(child, node, scope)
        inner = self.function_scope(node, scope)
        for stmt in node.body:
            self.visit(stmt, node, inner)

    def visit_class(self, node: ast.ClassDef, scope: Scope) -> None:
        """Its decorators, bases and keywords in `scope`, its body in a class scope."""
        self.bind(scope, node.name, None)
        children: list[ast.AST] = [*node.decorator_list, *node.bases, *node.keywords]
        for item in children:
            self.visit(item, node, scope)
        inner = Scope(scope, is_class=True)
        for stmt in node.body:
            self.visit(stmt, node, inner)

    def visit_expression(self, node: ast.expr, parent: ast.AST, scope: Scope) -> None:
        self.parents[id(node)] = parent
        if isinstance(node, ast.Call):
            self.calls.append((node, scope))
        elif isinstance(node, ast.Lambda):
            inner = self.function_scope(node, scope)
            self.visit(node.body, node, inner)
            return
        elif isinstance(node, COMPREHENSIONS):
            inner = Scope(scope)
            for generator in node.generators:
                self.bind_target(generator.target, LoopValue(generator.iter), inner)
            self.visit_body(node, inner)
            return
        elif isinstance(node, ast.NamedExpr):
            self.bind_target(node.target, node.value, scope)
        self.visit_body(node, scope)

    def record_import(self, node: ast.Import | ast.ImportFrom, scope: Scope) -> None:
        imports = self.analysis.imports
        for alias in node.names:
            if isinstance(node, ast.Import):
                local = alias.asname or alias.name.split(".")[0]
                imports[local] = alias.name if alias.asname else local
            elif node.module and not node.level:
                local = alias.asname or alias.name
                imports[local] = f"{node.module}.{alias.name}"
                self.bind(scope, local, self.imported_number(node, alias.name))
                continue
            else:  # relative: `from .settings import PORT`
                local = alias.asname or alias.name
                self.bind(scope, local, self.imported_number(node, alias.name))
                continue
            self.bind(scope, local, None)

    def imported_number(self, node: ast.ImportFrom, name: str) -> ast.expr | None:
        """`from settings import PORT`, PORT a number in settings.py next to this file."""
        path = self.analysis.path
        if path is None or not name.isupper() or node.module is None:
            return None
        value = imported_constant(path, node.module, name, node.level)
        return None if value is None else ast.copy_location(ast.Constant(value), node)
