"""The calls a file makes to its own functions, each with the scope it is made in.

A parameter of a public function is evidence of outside data only as long as the file
says nothing about its callers. Where the file calls the function itself, the arguments
of those calls are what the parameter holds: `origins.evidence` reads them instead.
"""

from __future__ import annotations

import ast

from heredoc_lint.frontends.python.model import Analysis
from heredoc_lint.frontends.python.scopes import Scope, ScopeBuilder


class Callers:
    """Calls by name (`f(...)`) of each function, read on first use: most files never ask."""

    def __init__(self, analysis: Analysis) -> None:
        self._analysis = analysis
        self._index: dict[str, list[tuple[ast.Call, Scope]]] | None = None

    def of(self, function: str) -> list[tuple[ast.Call, Scope]]:
        if self._index is None:
            self._index = self._build()
        return self._index.get(function, [])

    def _build(self) -> dict[str, list[tuple[ast.Call, Scope]]]:
        # Every statement read in full, on an analysis of its own: the file's own one
        # read only the statements with a call of interest.
        a = self._analysis
        fresh = Analysis(a.text, a.tree, a.lines, python2=a.python2, path=a.path)
        builder = ScopeBuilder(fresh)
        builder.build(a.tree, None)
        index: dict[str, list[tuple[ast.Call, Scope]]] = {}
        for call, scope in builder.calls:
            if isinstance(call.func, ast.Name):
                index.setdefault(call.func.id, []).append((call, scope))
        return index


UNKNOWN = ast.expr()  # what a call passes through `*args` or `**kwargs`


def argument_for(call: ast.Call, owner: Scope, name: str) -> ast.expr | None:
    """The expression `call` passes for the parameter `name` of `owner`'s function: None
    when it passes none (the default is used), UNKNOWN when `*args` or `**kwargs` may."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    index = owner.params.index(name) if name in owner.params else len(call.args)
    for position, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            return UNKNOWN if position <= index else None
        if position == index:
            return argument
    if any(keyword.arg is None for keyword in call.keywords):
        return UNKNOWN
    return None
