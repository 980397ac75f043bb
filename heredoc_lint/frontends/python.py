"""Python call sites that hand a string to a shell: layer-0 and remote fragments.

Finding the calls
    `subprocess.run/call/check_call/check_output/Popen` with `shell=True` (the string is
    layer 0, run by `/bin/sh -c`), `os.system`, `os.popen`, `subprocess.getoutput`,
    `subprocess.getstatusoutput`, `asyncio.create_subprocess_shell` (layer 0, sh);
    `subprocess.*` with an argv list and `asyncio.create_subprocess_exec` (the wrapper
    table of wrappers.py decides: `["ssh", host, CMD]` and `["bash", "-lc", S]` make a
    layer of depth 1); `X.exec_command(CMD)` for any receiver X (paramiko: the remote
    login shell, depth 1); fabric and invoke (see `_Finder._method_kind`).  Import
    aliases are followed (`from subprocess import run as sh`, `import os as o`).

The fabric/invoke heuristic
    `run`, `sudo` and `local` are common method names, so they count only in a file that
    imports fabric or invoke.  A receiver is a fabric `Connection` (remote: depth 1) when
    it is a `Connection(...)`/`SerialGroup(...)`/`ThreadingGroup(...)` call, a name bound
    once to one (also `with Connection(...) as c`), a parameter annotated `Connection`,
    the first parameter of a function decorated with fabric's `@task`, or, in a file that
    imports fabric, a name like `c`, `cxn`, `conn`, `connection` or `*_conn`.  It is an
    invoke `Context` (layer 0, `/bin/bash -c`) when it is `Context(...)`, annotated
    `Context`, the first parameter of invoke's `@task`, or `c`/`ctx`/`context` in a file
    that imports invoke but not fabric.  `X.local(...)` always runs locally.
    `invoke.run(...)` is layer 0; fabric 1's `fabric.api.run/sudo` are remote and its
    `local` is layer 0 (`/bin/sh`).  fabric 2 and invoke run `sudo CMD` through the shell
    (the redirections of CMD are the caller's): their `.sudo(CMD)` fragment is
    `sudo CMD`, the `sudo ` taken from the method name.

Reading the strings
    Constants (str and bytes, raw, triple-quoted, implicit and `+` concatenation),
    f-strings (their structure from libcst), `%` and `str.format` templates, and names
    bound once to such a value in the same function (or an enclosing one) or the module.
    A value known only at run time (an f-string field, a `%s`, a `{}` field, an unknown
    name) becomes a placeholder `${__hl_N}` that the shell parser reads as an expansion;
    its span is in `Fragment.interpolations` and every character of the text maps to
    the file offset of the source that produced it (the start of an escape sequence,
    the `{...}` of a field), so that findings land on the right column.

Speed
    A regular-expression prefilter skips files with no call of interest; `ast` (fast,
    in C) finds the calls; libcst is imported only for an f-string in such a call.
"""

from __future__ import annotations

import ast
import bisect
import re
import sys
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from heredoc_lint.frontends import PYTHON_PLACEHOLDER, Fragment, SourceError
from heredoc_lint.shell.words import Expansion, Word
from heredoc_lint.wrappers import resolve

if TYPE_CHECKING:
    from heredoc_lint.layers import Layer
    from heredoc_lint.model import Edit

# -- prefilter ---------------------------------------------------------------------------

_FUNCTIONS = {
    "subprocess": (
        "run",
        "call",
        "check_call",
        "check_output",
        "Popen",
        "getoutput",
        "getstatusoutput",
        "create_subprocess_shell",
        "create_subprocess_exec",
    ),
    "os": ("system", "popen"),
    "asyncio": ("create_subprocess_shell", "create_subprocess_exec"),
}
_DIRECT = tuple(f"{module}.{name}(" for module, names in _FUNCTIONS.items() for name in names)
_ANY_FUNCTION = "|".join(sorted({n for names in _FUNCTIONS.values() for n in names}))
# No `\b` in front: Python's re scans an alternation that starts with `\b` slowly.
_DOT_CALL = re.compile(rf"\.[ \t]*(?:{_ANY_FUNCTION})[ \t]*\(")
_OWNER = re.compile(r"(\w+)[ \t]*\Z")
_ALIAS = re.compile(r"[ \t]+as[ \t]+(\w+)")
_FROM_IMPORT = re.compile(
    r"from[ \t]+(?:subprocess|os|asyncio(?:\.subprocess)?)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)"
)
_TASK_IMPORT = re.compile(r"^[ \t]*(?:import|from)[ \t]+(?:fabric|invoke)\b", re.MULTILINE)


def _called_by_other_name(text: str) -> bool:
    """`import subprocess as sp` ... `sp.run(`; `from os import system as sh` ... `sh(`."""
    at = text.find(" as ")
    while at >= 0:
        # str.find, not a regex: " as " is common in prose, and regexes scan slowly here.
        before = text[max(0, at - 12) : at].rstrip(" \t")
        if before.endswith(("subprocess", "os", "asyncio")):
            line = text[text.rfind("\n", 0, at) + 1 : at]
            alias = _ALIAS.match(text, at)
            if "import" in line and alias is not None:
                call = rf"\b{alias.group(1)}\s*\.\s*(?:{_ANY_FUNCTION})\s*\("
                if re.search(call, text):
                    return True
        at = text.find(" as ", at + 4)
    for match in _FROM_IMPORT.finditer(text):
        for item in match.group(1).strip("()").split(","):
            parts = item.split()
            if parts and parts[0] in _ANY_FUNCTION.split("|"):
                local = parts[-1] if len(parts) == 3 and parts[1] == "as" else parts[0]
                if re.search(rf"\b{local}\s*\(", text[match.end() :]):
                    return True
    return False


def _spaced_call(text: str) -> bool:
    """`subprocess . run (`: a module call written with blanks."""
    for match in _DOT_CALL.finditer(text):
        owner = _OWNER.search(text, max(0, match.start() - 40), match.start())
        if owner is not None and owner.group(1) in _FUNCTIONS:
            return True
    return False


def interesting(text: str) -> bool:
    """Whether `text` may hold a call of interest: the cheap test before any parsing.

    Substring tests first (each a fast scan); regular expressions only where those
    pass.  A superset: every file with a call the finder reads passes.
    """
    if "exec_command" in text:
        return True
    if "subprocess" in text:
        if any(call in text for call in _DIRECT):
            return True
    elif "os.system(" in text or "os.popen(" in text:
        return True
    if _spaced_call(text) or (" as " in text or "from " in text) and _called_by_other_name(text):
        return True
    return ("fabric" in text or "invoke" in text) and _TASK_IMPORT.search(text) is not None


# -- positions ---------------------------------------------------------------------------

_NEWLINE = re.compile(r"\r\n|\r|\n")


class _Lines:
    """ast positions (1-based line, UTF-8 byte column) to character offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        self.starts.extend(m.end() for m in _NEWLINE.finditer(text))

    def offset(self, line: int, col: int) -> int:
        start = self.starts[min(line, len(self.starts)) - 1]
        end = start + col
        chunk = self.text[start:end]
        if chunk.isascii():
            return end
        data = self.text[start : start + col + 1].encode("utf-8", "surrogatepass")
        return start + len(data[:col].decode("utf-8", "ignore"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end_line = node.end_lineno or node.lineno  # type: ignore[attr-defined]
        end_col = node.end_col_offset  # type: ignore[attr-defined]
        return start, self.offset(end_line, end_col if end_col is not None else 0)


# -- the model: units, atoms, interpolations -----------------------------------------------


@dataclass(frozen=True)
class Unit:
    """The source of one character of a fragment (or of one placeholder).

    `start:end` tiles the string's source: the escape sequence of a character (with any
    backslash-newline before it), the `{...}` of an f-string field, the `%s` of a
    template, the expression of a `+` operand.  `at` is where a finding on it points.
    """

    kind: str  # char | field | spec | expr | synthetic
    start: int
    end: int
    at: int
    atom: int = -1  # index into Analysis.atoms (-1: synthetic, no source of its own)
    interp: int = -1  # index into Analysis.interps for a placeholder


@dataclass
class Atom:
    """A string token, or a non-string operand of a `+` concatenation."""

    kind: str  # token | expr
    start: int
    end: int
    group: int
    prefix: str = ""  # lower-case token prefix: "", "r", "b", "rb", "f", "rf", "u"
    quote: str = ""  # ', ", ''' or \"\"\"
    template: str | None = None  # "%" or "format" when the token is such a template
    units: list[int] = field(default_factory=list)

    @property
    def content_start(self) -> int:
        return self.start + len(self.prefix) + len(self.quote)

    @property
    def content_end(self) -> int:
        return self.end - len(self.quote)

    @property
    def is_fstring(self) -> bool:
        return "f" in self.prefix


@dataclass
class Group:
    """The operands of one concatenation expression, in source order."""

    atoms: list[int]
    stmt_start: int  # offset of the start of the line of the enclosing statement
    indent: str
    hoistable: bool  # a statement of its own in a block: a new line may go before it
    scope: tuple[int, int] = (0, 0)  # file span of the enclosing function (or the file)


@dataclass(frozen=True)
class Interp:
    """A value known only at run time."""

    kind: str  # field | percent | format | expr
    source: str  # the expression, as written
    span: tuple[int, int] | None  # file span of the expression; None: not one place
    anchor: tuple[int, int]  # what findings point at: the field, the `%s`, the expression
    safe: bool = False  # shlex.quote/shlex.join, or a number
    is_str: bool = False  # known to be a str
    conversion: str | None = None  # f-string `!r`, `%r`...
    spec: str | None = None  # a format spec; "?" when it cannot be reused
    shared: bool = False  # one argument behind several placeholders
    words: bool = False  # `" ".join(...)`: several words on purpose
    escaped: str = ""  # characters the value has replaced (`.replace("'", "'\\''")`)


@dataclass
class Analysis:
    """Everything the frontend learnt about one file, shared by its fragments."""

    text: str
    tree: ast.Module
    lines: _Lines
    units: list[Unit] = field(default_factory=list)
    atoms: list[Atom] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    interps: list[Interp] = field(default_factory=list)
    imports: dict[str, str] = field(default_factory=dict)  # local name -> qualified name
    names: set[str] = field(default_factory=set)  # every name the file binds
    module_names: set[str] = field(default_factory=set)  # the names bound at module level

    def add_unit(self, unit: Unit) -> int:
        self.units.append(unit)
        index = len(self.units) - 1
        if unit.atom >= 0:
            self.atoms[unit.atom].units.append(index)
        return index

    def new_group(self, hoist: tuple[int, str, bool, tuple[int, int]]) -> int:
        self.groups.append(Group([], *hoist))
        return len(self.groups) - 1

    def add_atom(self, atom: Atom) -> int:
        self.atoms.append(atom)
        index = len(self.atoms) - 1
        self.groups[atom.group].atoms.append(index)
        return index

    def add_interp(self, interp: Interp) -> int:
        self.interps.append(interp)
        return len(self.interps) - 1


# A fragment under construction: (character or "" for a placeholder, unit index) pairs.
Elems = list[tuple[str, int]]


class PyFragment:
    """The `encode_edit` of a Python fragment, and the map from its text to the source.

    Rules reach it from any layer through `fragment_of(layer)`.
    """

    def __init__(self, analysis: Analysis, text: str, unit_of: tuple[int, ...]) -> None:
        self.analysis = analysis
        self.text = text
        self.unit_of = unit_of  # unit index of each character

    def __call__(self, start: int, end: int, content: str) -> Edit | None:
        from heredoc_lint.fixes.python_fixes import encode_fragment_edit

        return encode_fragment_edit(self, start, end, content)

    def interp_at(self, index: int) -> Interp | None:
        if not 0 <= index < len(self.unit_of):
            return None
        unit = self.analysis.units[self.unit_of[index]]
        return self.analysis.interps[unit.interp] if unit.interp >= 0 else None


# -- string literals -----------------------------------------------------------------------

_PREFIX = re.compile(r"[rRbBuUfF]{0,2}")
_SIMPLE = {
    "\n": None,
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
_OCTAL = frozenset("01234567")


def _scan_tokens(text: str, start: int, end: int) -> list[tuple[int, int]] | None:
    """The string tokens of an implicit concatenation in text[start:end]."""
    tokens: list[tuple[int, int]] = []
    i = start
    while i < end:
        c = text[i]
        if c in " \t\f\r\n":
            i += 1
            continue
        if c == "\\" and i + 1 < end and text[i + 1] in "\r\n":
            i += 2
            continue
        if c == "#":
            nl = text.find("\n", i, end)
            i = end if nl < 0 else nl
            continue
        m = _PREFIX.match(text, i, end)
        j = m.end() if m else i
        if j >= end or text[j] not in "'\"":
            return None
        quote = text[j : j + 3] if text[j : j + 3] in ("'''", '"""') else text[j]
        k = j + len(quote)
        while True:
            if k >= end:
                return None
            if text[k] == "\\":
                k += 2
                continue
            if text.startswith(quote, k):
                k += len(quote)
                break
            k += 1
        tokens.append((i, k))
        i = k
    return tokens


def _escape(text: str, i: int, end: int, is_bytes: bool) -> tuple[str | None, int]:
    """The character of the escape sequence at text[i] (a backslash) and where it ends.

    None for a backslash-newline, which yields nothing.  An unknown escape yields the
    backslash alone (the next character is read on its own).
    """
    c = text[i + 1] if i + 1 < end else ""
    if c == "\r":
        return None, i + (3 if text[i + 2 : i + 3] == "\n" else 2)
    if c in _SIMPLE:
        return _SIMPLE[c], i + 2
    if c in _OCTAL:
        j = i + 1
        while j < min(i + 4, end) and text[j] in _OCTAL:
            j += 1
        value = int(text[i + 1 : j], 8)
        return (chr(value) if not is_bytes or value < 0x80 else chr(0xDC00 + (value & 0xFF))), j
    if c == "x":
        value = int(text[i + 2 : i + 4], 16)
        return (chr(value) if not is_bytes or value < 0x80 else chr(0xDC00 + value)), i + 4
    if not is_bytes and c in "uU":
        width = 4 if c == "u" else 8
        return chr(int(text[i + 2 : i + 2 + width], 16)), i + 2 + width
    if not is_bytes and c == "N":
        close = text.index("}", i)
        return unicodedata.lookup(text[i + 3 : close]), close + 1
    return "\\", i + 1


def _decode(
    text: str, start: int, end: int, raw: bool, is_bytes: bool, braces: bool
) -> list[tuple[str, int, int, int]]:
    """(character, tile start, tile end, anchor) for the literal source text[start:end].

    A tile is the source of one character; a backslash-newline, which yields nothing,
    joins the tile of the next character (or of the last one).  With `braces` (the text
    of an f-string), `{{` and `}}` are one character each.
    """
    out: list[tuple[str, int, int, int]] = []
    pending = -1  # start of a backslash-newline waiting for the next character
    i = start
    while i < end:
        c = text[i]
        at = i
        if c == "\\" and not raw:
            char, j = _escape(text, i, end, is_bytes)
            if char is None:
                pending = i if pending < 0 else pending
                i = j
                continue
        elif c == "\r":
            char, j = "\n", i + (2 if text[i + 1 : i + 2] == "\n" else 1)
        elif braces and c in "{}" and text[i + 1 : i + 2] == c:
            char, j = c, i + 2
        else:
            char, j = c, i + 1
            if is_bytes and ord(c) > 0x7F:
                char = chr(0xDC00 + (ord(c) & 0xFF))
        out.append((char, pending if pending >= 0 else i, j, at))
        pending = -1
        i = j
    if pending >= 0 and out:
        char, tile_start, _, at = out[-1]
        out[-1] = (char, tile_start, end, at)
    return out


# -- names and scopes ----------------------------------------------------------------------


@dataclass
class _Scope:
    parent: _Scope | None
    is_class: bool = False
    bindings: dict[str, list[ast.expr | None]] = field(default_factory=dict)
    annotations: dict[str, ast.expr] = field(default_factory=dict)
    params: list[str] = field(default_factory=list)
    decorators: list[ast.expr] = field(default_factory=list)

    def bind(self, name: str, value: ast.expr | None) -> None:
        self.bindings.setdefault(name, []).append(value)

    def owner(self, name: str) -> _Scope | None:
        """The scope whose binding of `name` a use in this scope sees."""
        scope: _Scope | None = self
        first = True
        while scope is not None:
            if (first or not scope.is_class) and name in scope.bindings:
                return scope
            first = False
            scope = scope.parent
        return None

    def value(self, name: str) -> tuple[ast.expr, _Scope] | None:
        """The one value `name` is bound to, if it is bound exactly once."""
        owner = self.owner(name)
        if owner is None:
            return None
        values = owner.bindings[name]
        if len(values) != 1 or values[0] is None:
            return None
        return values[0], owner

    def annotation(self, name: str) -> ast.expr | None:
        owner = self.owner(name)
        return owner.annotations.get(name) if owner is not None else None


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _ScopeBuilder:
    """One pass over the tree: scopes with their bindings, imports, calls, parents."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.calls: list[tuple[ast.Call, _Scope]] = []
        self.parents: dict[int, ast.AST] = {}
        self.scopes: dict[int, _Scope] = {}  # id(function node) -> its scope

    def build(self, tree: ast.Module, hot: list[int] | None = None) -> _Scope:
        """Scopes of `tree`; only statements on the `hot` lines (sorted) are read in full.

        The rest is read for its bindings alone: a file's calls of interest are few.
        """
        self.hot = hot
        module = _Scope(None)
        self.visit_body(tree, module)
        return module

    def bind(self, scope: _Scope, name: str, value: ast.expr | None) -> None:
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

    def shallow(self, node: ast.stmt, parent: ast.AST, scope: _Scope) -> None:
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
            self.bind_target(node.target, None, scope)
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
        self, node: ast.Assign | ast.AnnAssign | ast.AugAssign, scope: _Scope
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

    def visit_body(self, node: ast.AST, scope: _Scope) -> None:
        for child in ast.iter_child_nodes(node):
            self.visit(child, node, scope)

    def bind_target(self, target: ast.AST, value: ast.expr | None, scope: _Scope) -> None:
        if isinstance(target, ast.Name):
            self.bind(scope, target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self.bind_target(elt, None, scope)
        elif isinstance(target, ast.Starred):
            self.bind_target(target.value, None, scope)

    def function_scope(self, node: ast.AST, scope: _Scope) -> _Scope:
        inner = _Scope(scope)
        args: ast.arguments = node.args  # type: ignore[attr-defined]
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        every += [a for a in (args.vararg, args.kwarg) if a is not None]
        for arg in every:
            self.bind(inner, arg.arg, None)
            if arg.annotation is not None:
                inner.annotations[arg.arg] = arg.annotation
        inner.params = [a.arg for a in (*args.posonlyargs, *args.args)]
        inner.decorators = list(getattr(node, "decorator_list", []))
        self.scopes[id(node)] = inner
        return inner

    def visit(self, node: ast.AST, parent: ast.AST, scope: _Scope) -> None:
        if isinstance(node, ast.stmt) and not self.is_hot(node):
            self.shallow(node, parent, scope)
            return
        self.parents[id(node)] = parent
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.bind(scope, node.name, None)
            for child in (*node.decorator_list, *node.args.defaults, *node.args.kw_defaults):
                if child is not None:
                    self.visit(child, node, scope)
            inner = self.function_scope(node, scope)
            for stmt in node.body:
                self.visit(stmt, node, inner)
            return
        if isinstance(node, ast.Lambda):
            inner = self.function_scope(node, scope)
            self.visit(node.body, node, inner)
            return
        if isinstance(node, ast.ClassDef):
            self.bind(scope, node.name, None)
            children: list[ast.AST] = [*node.decorator_list, *node.bases, *node.keywords]
            for item in children:
                self.visit(item, node, scope)
            inner = _Scope(scope, is_class=True)
            for stmt in node.body:
                self.visit(stmt, node, inner)
            return
        if isinstance(node, _COMPREHENSIONS):
            inner = _Scope(scope)
            for generator in node.generators:
                self.bind_target(generator.target, None, inner)
            self.visit_body(node, inner)
            return
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self.bind_statement(node, scope)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.bind_target(node.target, None, scope)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    self.bind_target(item.optional_vars, item.context_expr, scope)
        elif isinstance(node, ast.NamedExpr):
            self.bind_target(node.target, node.value, scope)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self.bind(scope, node.name, None)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                self.bind(scope, name, None)
                self.bind(scope, name, None)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self.record_import(node, scope)
        elif isinstance(node, ast.Call):
            self.calls.append((node, scope))
        self.visit_body(node, scope)

    def record_import(self, node: ast.Import | ast.ImportFrom, scope: _Scope) -> None:
        imports = self.analysis.imports
        for alias in node.names:
            if isinstance(node, ast.Import):
                local = alias.asname or alias.name.split(".")[0]
                imports[local] = alias.name if alias.asname else local
            elif node.module and not node.level:
                local = alias.asname or alias.name
                imports[local] = f"{node.module}.{alias.name}"
            else:
                continue
            self.bind(scope, local, None)


# -- reading string expressions --------------------------------------------------------------

_QUOTERS = frozenset({"shlex.quote", "shlex.join", "pipes.quote"})
_NUMBERS = frozenset({"int", "len", "float", "round", "abs", "ord", "hash", "id", "sum", "max"})
_STR_METHODS = frozenset(
    {
        "strip",
        "lstrip",
        "rstrip",
        "lower",
        "upper",
        "replace",
        "join",
        "format",
        "decode",
        "title",
        "casefold",
        "removeprefix",
        "removesuffix",
        "zfill",
        "ljust",
        "rjust",
        "center",
        "expandtabs",
        "as_posix",
    }
)
_NUMERIC_SPEC = re.compile(r".*[bcdoxXneEfFgG%]\Z", re.DOTALL)
_PERCENT = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?[#0\- +]*(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d+))?[hlL]?"
    r"(?P<conv>[diouxXeEfFgGcrsa%])"
)
_MAX_DEPTH = 8


# A run-time value is unknown: the command line HL103 matches against leaves it out.
_PLACEHOLDERS = re.compile(re.escape(PYTHON_PLACEHOLDER) + r"\d+\}")


def _placeholder(interp: int) -> str:
    return f"{PYTHON_PLACEHOLDER}{interp}}}"


def _word_list(node: ast.expr) -> bool:
    """`" ".join(args)` (maybe `.encode()`d): words joined for the shell to split again."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "encode"
    ):
        node = node.func.value
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "join"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str | bytes)
        and node.func.value.value.strip() == ""
        and len(node.func.value.value) > 0
    )


def _escaped(node: ast.expr) -> str:
    """The characters a chain of `.replace(C, ...)` calls has taken care of."""
    chars = ""
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "replace"
        and node.args
    ):
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            chars += first.value
        node = node.func.value
    return chars


class _Reader:
    """Turns string expressions into fragment elements (characters and placeholders)."""

    def __init__(self, analysis: Analysis, parents: dict[int, ast.AST]) -> None:
        self.a = analysis
        self.parents = parents
        self.text = analysis.text

    # -- what a value is -------------------------------------------------------------
    def qualname(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return self.a.imports.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualname(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def nature(self, node: ast.expr, scope: _Scope, depth: int = 0) -> tuple[bool, bool]:
        """(safe as a shell word: quoted or a number, known to be a str)."""
        if depth > _MAX_DEPTH:
            return False, False
        if isinstance(node, ast.Constant):
            number = isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
            return number, isinstance(node.value, str)
        if isinstance(node, ast.JoinedStr):
            return False, True
        if isinstance(node, ast.Call):
            name = self.qualname(node.func)
            if name in _QUOTERS or self._encoded(node):
                return True, True
            if isinstance(node.func, ast.Name) and node.func.id not in self.a.imports:
                if node.func.id in _NUMBERS:
                    return True, False
                if node.func.id == "str":
                    return False, True
            if isinstance(node.func, ast.Attribute) and node.func.attr in _STR_METHODS:
                return False, True
            return False, bool(name and name.startswith(("os.path.", "posixpath.")))
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            left = node.left
            is_str = isinstance(left, (ast.JoinedStr, ast.Constant)) and not isinstance(
                getattr(left, "value", ""), bytes
            )
            return False, is_str or self.nature(left, scope, depth + 1)[1]
        if isinstance(node, ast.Name):
            bound = scope.value(node.id)
            if bound is not None:
                return self.nature(bound[0], bound[1], depth + 1)
            annotation = scope.annotation(node.id)
            if isinstance(annotation, ast.Name):
                return annotation.id in ("int", "float"), annotation.id == "str"
        return False, False

    def _encoded(self, node: ast.Call) -> bool:
        """`base64.b64encode(...).decode()`, `x.hex()`, `h.hexdigest()`: shell-safe text."""
        func = node.func
        if not isinstance(func, ast.Attribute):
            return False
        if func.attr in ("hex", "hexdigest"):
            return True
        inner = func.value
        return (
            func.attr == "decode"
            and isinstance(inner, ast.Call)
            and (self.qualname(inner.func) or "").endswith(
                ("base64.b64encode", "base64.urlsafe_b64encode", "base64.b32encode")
            )
        )

    # -- hoisting ------------------------------------------------------------------------
    def hoist_info(self, node: ast.AST) -> tuple[int, str, bool, tuple[int, int]]:
        """Where a statement computing a value for `node` could go.

        (line start of the enclosing statement, its indentation, whether a new line may
        go before it, the file span of the enclosing function or of the whole file).
        """
        current: ast.AST = node
        ok = True
        whole = (0, len(self.text))
        while not isinstance(current, ast.stmt):
            if isinstance(current, (ast.Lambda, ast.IfExp, ast.BoolOp, *_COMPREHENSIONS)):
                ok = False
            parent = self.parents.get(id(current))
            if parent is None:
                return 0, "", False, whole
            current = parent
        simple = (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return)
        start = self.a.lines.offset(current.lineno, current.col_offset)
        line_start = self.text.rfind("\n", 0, start) + 1
        indent = self.text[line_start:start]
        ok = ok and isinstance(current, simple) and not indent.strip()
        scope = whole
        outer: ast.AST | None = current
        while outer is not None and not isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef)):
            outer = self.parents.get(id(outer))
        if outer is not None:
            scope = self.a.lines.span(outer)
        return line_start, indent, ok, scope

    # -- literals ------------------------------------------------------------------------
    def literal(
        self, node: ast.Constant | ast.JoinedStr, scope: _Scope, group: int
    ) -> Elems | None:
        start, end = self.a.lines.span(node)
        tokens = _scan_tokens(self.text, start, end)
        if not tokens:
            return None
        fields = (
            [v for v in node.values if isinstance(v, ast.FormattedValue)]
            if isinstance(node, ast.JoinedStr)
            else []
        )
        elems: Elems = []
        for token_start, token_end in tokens:
            token = self.text[token_start:token_end]
            prefix = _PREFIX.match(token)
            assert prefix is not None
            letters = prefix.group().lower()
            quote_at = len(letters)
            quote = token[quote_at : quote_at + 3]
            if quote not in ("'''", '"""'):
                quote = token[quote_at]
            atom = self.a.add_atom(Atom("token", token_start, token_end, group, letters, quote))
            content = (token_start + quote_at + len(quote), token_end - len(quote))
            if "f" in letters:
                if not self.fstring(atom, content, fields, scope, elems):
                    return None
            else:
                self.chars(atom, content[0], content[1], letters, False, elems)
        if fields:
            return None  # fields left unmatched: not the string ast read
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bytes):
                value = value.decode("latin-1")
                value = "".join(c if ord(c) < 0x80 else chr(0xDC00 + ord(c)) for c in value)
            if "".join(c for c, _ in elems) != value:
                return None
        return elems

    def chars(
        self, atom: int, start: int, end: int, letters: str, braces: bool, elems: Elems
    ) -> None:
        raw, is_bytes = "r" in letters, "b" in letters
        for char, tile_start, tile_end, at in _decode(self.text, start, end, raw, is_bytes, braces):
            unit = self.a.add_unit(Unit("char", tile_start, tile_end, at, atom))
            elems.append((char, unit))

    def fstring(
        self,
        atom: int,
        content: tuple[int, int],
        fields: list[ast.FormattedValue],
        scope: _Scope,
        elems: Elems,
    ) -> bool:
        import libcst

        token = self.a.atoms[atom]
        try:
            parsed = libcst.parse_expression(self.text[token.start : token.end])
        except Exception:  # noqa: BLE001 - libcst raises several kinds: not ours to read
            return False
        if not isinstance(parsed, libcst.FormattedString):
            return False
        code = libcst.Module([]).code_for_node
        pos = content[0]
        for part in parsed.parts:
            source = code(part)
            if isinstance(part, libcst.FormattedStringText):
                self.chars(atom, pos, pos + len(source), token.prefix, True, elems)
            elif isinstance(part, libcst.FormattedStringExpression):
                if not fields:
                    return False
                value = fields.pop(0)
                expression = code(part.expression)
                expr_start = pos + 1 + len(code(part.whitespace_before_expression))
                spec: str | None = None
                if part.format_spec is not None:
                    nested = any(
                        isinstance(p, libcst.FormattedStringExpression) for p in part.format_spec
                    )
                    spec = "?" if nested else "".join(code(p) for p in part.format_spec)
                if part.equal is not None:
                    spec = "?"
                if spec is None and part.conversion is None:
                    known = self.constant(value.value, scope)
                    if known is not None:
                        elems.extend(known)
                        pos += len(source)
                        continue
                safe, is_str = self.nature(value.value, scope)
                if spec is not None and spec != "?" and _NUMERIC_SPEC.match(spec):
                    safe = True
                interp = self.a.add_interp(
                    Interp(
                        "field",
                        expression,
                        (expr_start, expr_start + len(expression)),
                        (pos, pos + len(source)),
                        safe=safe,
                        is_str=is_str and part.conversion in (None, "s"),
                        conversion=part.conversion,
                        spec=spec,
                        escaped=_escaped(value.value),
                        words=_word_list(value.value),
                    )
                )
                unit = self.a.add_unit(Unit("field", pos, pos + len(source), pos, atom, interp))
                elems.append(("", unit))
            else:
                return False
            pos += len(source)
        return pos == content[1]

    # -- expressions -----------------------------------------------------------------------
    def string(self, node: ast.expr, scope: _Scope, depth: int = 0) -> Elems | None:
        """The elements of a string expression; None when nothing of it is known."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(node, ast.JoinedStr) or (
            isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))
        ):
            group = self.a.new_group(self.hoist_info(node))
            return self.literal(node, scope, group)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.concat(node, scope, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return self.percent(node, scope, depth)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"
        ):
            return self.format(node, scope, depth)
        if isinstance(node, ast.Name):
            bound = scope.value(node.id)
            if bound is not None:
                return self.string(bound[0], bound[1], depth + 1)
        return None

    def constant(self, node: ast.expr, scope: _Scope) -> Elems | None:
        """The characters of a value that is a constant string under a name (`CMD`)."""
        if not isinstance(node, (ast.Name, ast.Constant)):
            return None
        if isinstance(node, ast.Constant) and not isinstance(node.value, str):
            return None
        elems = self.string(node, scope, 1)
        if elems is None or any(not char for char, _ in elems):
            return None
        return elems

    def unknown(self, node: ast.expr, scope: _Scope, atom: int = -1) -> tuple[str, int]:
        """A placeholder element for an expression whose value is known only at run time."""
        span = self.a.lines.span(node)
        safe, is_str = self.nature(node, scope)
        interp = self.a.add_interp(
            Interp(
                "expr",
                self.text[span[0] : span[1]],
                span,
                span,
                safe,
                is_str,
                words=_word_list(node),
                escaped=_escaped(node),
            )
        )
        return "", self.a.add_unit(Unit("expr", span[0], span[1], span[0], atom, interp))

    def concat(self, node: ast.BinOp, scope: _Scope, depth: int) -> Elems | None:
        operands: list[ast.expr] = []

        def flatten(item: ast.expr) -> None:
            if isinstance(item, ast.BinOp) and isinstance(item.op, ast.Add):
                flatten(item.left)
                flatten(item.right)
            else:
                operands.append(item)

        flatten(node)
        group = self.a.new_group(self.hoist_info(node))
        elems: Elems = []
        known = False
        for operand in operands:
            if isinstance(operand, ast.JoinedStr) or (
                isinstance(operand, ast.Constant) and isinstance(operand.value, (str, bytes))
            ):
                part = self.literal(operand, scope, group)
                if part is None:
                    return None
                known = True
                elems.extend(part)
                continue
            start, end = self.a.lines.span(operand)
            atom = self.a.add_atom(Atom("expr", start, end, group))
            inner = self.string(operand, scope, depth + 1)
            if inner is not None:
                known = True
                elems.extend(inner)
            else:
                elems.append(self.unknown(operand, scope, atom))
        return elems if known else None

    def _template(self, node: ast.expr, scope: _Scope, depth: int, kind: str) -> Elems | None:
        elems = self.string(node, scope, depth + 1)
        if elems is None:
            return None
        for _, unit in elems:
            atom = self.a.units[unit].atom
            if atom >= 0 and self.a.atoms[atom].kind == "token":
                if self.a.atoms[atom].template not in (None, kind):
                    return None
                self.a.atoms[atom].template = kind
        return elems

    def _merge(self, elems: Elems, i: int, j: int, char: str) -> tuple[str, int] | None:
        """One character made of the units of elems[i:j] (`%%`, `{{`), if in one token."""
        units = [self.a.units[u] for _, u in elems[i:j]]
        if any(u.kind != "char" or u.atom != units[0].atom for u in units):
            return None
        first, last = units[0], units[-1]
        return char, self.a.add_unit(Unit("char", first.start, last.end, first.at, first.atom))

    def _spec_unit(self, elems: Elems, i: int, j: int, interp: Interp) -> tuple[str, int] | None:
        units = [self.a.units[u] for _, u in elems[i:j]]
        if any(u.kind != "char" or u.atom != units[0].atom for u in units):
            return None
        span = (units[0].start, units[-1].end)
        index = self.a.add_interp(replace(interp, anchor=span))
        return "", self.a.add_unit(Unit("spec", span[0], span[1], span[0], units[0].atom, index))

    def _argument(
        self, node: ast.expr | None, scope: _Scope, kind: str, conversion: str | None
    ) -> Interp:
        if node is None:
            return Interp(kind, "?", None, (0, 0), conversion=conversion, spec="?")
        span = self.a.lines.span(node)
        safe, is_str = self.nature(node, scope)
        return Interp(
            kind,
            self.text[span[0] : span[1]],
            span,
            span,
            safe,
            is_str,
            conversion,
            escaped=_escaped(node),
            words=_word_list(node),
        )

    def percent(self, node: ast.BinOp, scope: _Scope, depth: int) -> Elems | None:
        elems = self._template(node.left, scope, depth, "%")
        if elems is None:
            return None
        text = "".join(c if c else "\0" for c, _ in elems)
        matches = [m for m in _PERCENT.finditer(text) if m.group("conv") != "%"]
        args = node.right
        positional: list[ast.expr] | None = None
        if isinstance(args, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in args.elts):
            positional = list(args.elts)
        elif not isinstance(args, (ast.Tuple, ast.Dict)):
            needed = sum(1 + (m.group("width") == "*") + (m.group("prec") == "*") for m in matches)
            positional = [args] if needed == 1 else None
        keyed: dict[str, ast.expr] = {}
        if isinstance(args, ast.Dict):
            for key, value in zip(args.keys, args.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    keyed[key.value] = value
        out: Elems = []
        counter = 0
        uses: dict[int, int] = {}
        pos = 0
        for m in _PERCENT.finditer(text):
            out.extend(elems[pos : m.start()])
            pos = m.end()
            if m.group("conv") == "%":
                merged = self._merge(elems, m.start(), m.end(), "%")
                if merged is None:
                    return None
                out.append(merged)
                continue
            counter += (m.group("width") == "*") + (m.group("prec") == "*")
            arg: ast.expr | None
            if m.group("key") is not None:
                arg = keyed.get(m.group("key"))
            else:
                arg = positional[counter] if positional and counter < len(positional) else None
                counter += 1
            if arg is not None:
                uses[id(arg)] = uses.get(id(arg), 0) + 1
            known = self.constant(arg, scope) if m.group() == "%s" and arg is not None else None
            if known is not None:
                out.extend(known)
                continue
            interp = self._argument(arg, scope, "percent", m.group("conv"))
            if m.group("conv") in "diouxXeEfFgGc":
                interp = replace(interp, safe=True)
            unit = self._spec_unit(elems, m.start(), m.end(), interp)
            if unit is None:
                return None
            out.append(unit)
        out.extend(elems[pos:])
        return self._mark_shared(out, uses, node)

    def _mark_shared(self, elems: Elems, uses: dict[int, int], node: ast.AST) -> Elems:
        shared_spans = set()
        for child in ast.walk(node):
            if uses.get(id(child), 0) > 1 and isinstance(child, ast.expr):
                shared_spans.add(self.a.lines.span(child))
        if not shared_spans:
            return elems
        for _, unit in elems:
            index = self.a.units[unit].interp
            if index >= 0 and self.a.interps[index].span in shared_spans:
                self.a.interps[index] = replace(self.a.interps[index], shared=True)
        return elems

    def format(self, node: ast.Call, scope: _Scope, depth: int) -> Elems | None:
        assert isinstance(node.func, ast.Attribute)
        elems = self._template(node.func.value, scope, depth, "format")
        if elems is None:
            return None
        positional = node.args if not any(isinstance(a, ast.Starred) for a in node.args) else None
        keyword = {k.arg: k.value for k in node.keywords if k.arg is not None}
        out: Elems = []
        uses: dict[int, int] = {}
        auto = 0
        i = 0
        while i < len(elems):
            char = elems[i][0]
            if char in "{}" and i + 1 < len(elems) and elems[i + 1][0] == char:
                merged = self._merge(elems, i, i + 2, char)
                if merged is None:
                    return None
                out.append(merged)
                i += 2
                continue
            if char != "{":
                out.append(elems[i])
                i += 1
                continue
            level, j = 1, i + 1
            while j < len(elems) and level:
                level += {"{": 1, "}": -1}.get(elems[j][0], 0)
                j += 1
            if level:
                return None
            body = "".join(c for c, _ in elems[i + 1 : j - 1])
            name = re.split(r"[.\[!:]", body, maxsplit=1)[0]
            rest = body[len(name) :]
            arg: ast.expr | None = None
            if name == "":
                arg = positional[auto] if positional and auto < len(positional) else None
                auto += 1
            elif name.isdigit():
                k = int(name)
                arg = positional[k] if positional and k < len(positional) else None
            else:
                arg = keyword.get(name)
            if arg is not None:
                uses[id(arg)] = uses.get(id(arg), 0) + 1
            known = self.constant(arg, scope) if not rest and arg is not None else None
            if known is not None:
                out.extend(known)
                i = j
                continue
            conversion = rest[1:2] if rest.startswith("!") else None
            interp = self._argument(arg, scope, "format", conversion)
            spec = rest.split(":", 1)[1] if ":" in rest else None
            if rest and not rest.startswith(("!", ":")):
                interp = replace(interp, source=interp.source + rest, span=None, spec="?")
            elif spec is not None:
                numeric = bool(_NUMERIC_SPEC.match(spec))
                interp = replace(interp, safe=interp.safe or numeric, spec=spec or None)
            unit = self._spec_unit(elems, i, j, interp)
            if unit is None:
                return None
            out.append(unit)
            i = j
        return self._mark_shared(out, uses, node)


# -- the call sites ----------------------------------------------------------------------------

_POPEN = frozenset(
    f"subprocess.{name}" for name in ("run", "call", "check_call", "check_output", "Popen")
)
_SHELL_STRING = {
    "os.system": "os.system",
    "os.popen": "os.popen",
    "subprocess.getoutput": "subprocess.getoutput",
    "subprocess.getstatusoutput": "subprocess.getstatusoutput",
    "asyncio.create_subprocess_shell": "create_subprocess_shell",
    "asyncio.subprocess.create_subprocess_shell": "create_subprocess_shell",
}
_EXEC_ARGV = frozenset(
    {"asyncio.create_subprocess_exec", "asyncio.subprocess.create_subprocess_exec"}
)
_FABRIC1 = {
    f"fabric.{module}.{name}": name
    for module in ("api", "operations")
    for name in ("run", "sudo", "local")
}
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
_FABRIC_NAMES = re.compile(r"(?:c|cxn|conn|connection|.*_conn|.*_connection|.*_cxn)\Z", re.I)
_INVOKE_NAMES = re.compile(r"(?:c|ctx|context)\Z")


@dataclass(frozen=True)
class _Target:
    """How a call runs its string: what kind of shell, where."""

    wrapper: str
    depth: int
    remote: bool
    shell: str
    cmdline: str  # a format with {text}
    prefix: str = ""  # text the library puts before the command (`sudo `)


_SH = _Target("", 0, False, "sh", "/bin/sh -c {text}")
_LOGIN = "bash -c {text}"


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _argument(call: ast.Call, index: int, name: str) -> ast.expr | None:
    if len(call.args) > index and not any(
        isinstance(a, ast.Starred) for a in call.args[: index + 1]
    ):
        return call.args[index]
    return _keyword(call, name)


class _Finder:
    def __init__(self, analysis: Analysis, builder: _ScopeBuilder) -> None:
        self.a = analysis
        self.reader = _Reader(analysis, builder.parents)
        self.scopes = builder.scopes
        modules = {q.split(".")[0] for q in analysis.imports.values()}
        self.fabric = "fabric" in modules
        self.invoke = "invoke" in modules

    def fragments(self, calls: list[tuple[ast.Call, _Scope]]) -> Iterator[Fragment]:
        for call, scope in calls:
            yield from self.call(call, scope)

    def call(self, call: ast.Call, scope: _Scope) -> Iterator[Fragment]:
        func = call.func
        name = self.reader.qualname(func)
        if name in _POPEN:
            yield from self.popen(call, scope, name.split(".")[-1])
        elif name in _SHELL_STRING:
            target = _Target(_SHELL_STRING[name], 0, False, "sh", _SH.cmdline)
            yield from self.string(_argument(call, 0, "cmd"), scope, target)
        elif name in _EXEC_ARGV:
            if not any(isinstance(a, ast.Starred) for a in call.args):
                yield from self.argv(list(call.args), scope)
        elif name in ("invoke.run", "invoke.sudo"):
            target = _Target(name, 0, False, "bash", "/bin/bash -c {text}")
            if name == "invoke.sudo":
                target = _Target(name, 0, False, "bash", "/bin/bash -c {text}", "sudo ")
            yield from self.string(_argument(call, 0, "command"), scope, target, func)
        elif name in _FABRIC1:
            kind = _FABRIC1[name]
            if kind == "local":
                target = _Target("fabric local", 0, False, "sh", _SH.cmdline)
            else:
                target = _Target(f"fabric {kind}", 1, True, "bash", "/bin/bash -l -c {text}")
            yield from self.string(_argument(call, 0, "command"), scope, target)
        elif isinstance(func, ast.Attribute):
            yield from self.method(call, func, scope)

    def method(self, call: ast.Call, func: ast.Attribute, scope: _Scope) -> Iterator[Fragment]:
        if func.attr == "exec_command":
            target = _Target("exec_command", 1, True, "bash", _LOGIN)
            yield from self.string(_argument(call, 0, "command"), scope, target)
            return
        if func.attr not in ("run", "sudo", "local") or not (self.fabric or self.invoke):
            return
        kind = self._method_kind(func.value, scope)
        if kind is None:
            return
        if func.attr == "local":
            target = _Target("local", 0, False, "bash", "/bin/bash -c {text}")
        elif kind == "fabric":
            prefix = "sudo " if func.attr == "sudo" else ""
            target = _Target(f"Connection.{func.attr}", 1, True, "bash", _LOGIN, prefix)
        else:
            prefix = "sudo " if func.attr == "sudo" else ""
            target = _Target(
                f"Context.{func.attr}", 0, False, "bash", "/bin/bash -c {text}", prefix
            )
        yield from self.string(_argument(call, 0, "command"), scope, target, func)

    def _method_kind(self, receiver: ast.expr, scope: _Scope) -> str | None:
        """ "fabric" (a Connection: remote), "invoke" (a Context: local) or None."""
        if isinstance(receiver, ast.Call):
            name = self.reader.qualname(receiver.func)
            if name in _FABRIC_CONNECTIONS:
                return "fabric"
            if name in _INVOKE_CONTEXTS:
                return "invoke"
            return None
        last = receiver.attr if isinstance(receiver, ast.Attribute) else None
        if isinstance(receiver, ast.Name):
            last = receiver.id
            bound = scope.value(receiver.id)
            if bound is not None:
                return self._method_kind(bound[0], bound[1])
            annotation = scope.annotation(receiver.id)
            if annotation is not None:
                name = self.reader.qualname(annotation)
                if name in _FABRIC_CONNECTIONS:
                    return "fabric"
                if name in _INVOKE_CONTEXTS:
                    return "invoke"
            owner = scope.owner(receiver.id)
            if owner is not None and owner.params[:1] == [receiver.id]:
                for decorator in owner.decorators:
                    target = decorator.func if isinstance(decorator, ast.Call) else decorator
                    name = self.reader.qualname(target) or ""
                    if name.startswith("fabric") and name.endswith("task"):
                        return "fabric"
                    if name.startswith("invoke") and name.endswith("task"):
                        return "invoke"
        if last is None:
            return None
        if self.fabric and _FABRIC_NAMES.match(last):
            return "fabric"
        if self.invoke and not self.fabric and _INVOKE_NAMES.match(last):
            return "invoke"
        return None

    def popen(self, call: ast.Call, scope: _Scope, function: str) -> Iterator[Fragment]:
        args = _argument(call, 0, "args")
        if args is None:
            return
        shell = _keyword(call, "shell")
        if shell is not None and not isinstance(shell, ast.Constant):
            return  # decided at run time
        wrapper = f"subprocess.{function}"
        if isinstance(args, ast.Name):
            bound = scope.value(args.id)
            if bound is not None and isinstance(bound[0], (ast.List, ast.Tuple)):
                args, scope = bound[0], bound[1]
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
            target = _Target(wrapper, 0, False, name, program + " -c {text}")
            yield from self.string(args, scope, target)
        elif isinstance(args, (ast.List, ast.Tuple)):
            yield from self.argv(list(args.elts), scope)

    # -- fragments -------------------------------------------------------------------------
    def string(
        self,
        node: ast.expr | None,
        scope: _Scope,
        target: _Target,
        method: ast.expr | None = None,
    ) -> Iterator[Fragment]:
        if node is None:
            return
        elems = self.reader.string(node, scope)
        if elems is None or not any(char for char, _ in elems):
            return
        if target.prefix and method is not None:
            # The library's own `sudo `: it stands where the method name is written.
            _, end = self.a.lines.span(method)
            name = method.attr if isinstance(method, ast.Attribute) else target.prefix.strip()
            at = end - len(name)
            prefix: Elems = []
            for k, char in enumerate(target.prefix):
                spot = min(at + k, end - 1)
                prefix.append((char, self.a.add_unit(Unit("synthetic", spot, spot, spot))))
            elems = prefix + elems
        yield self.fragment(elems, target)

    def fragment(self, elems: Elems, target: _Target, wrapper: str | None = None) -> Fragment:
        chars: list[str] = []
        offsets: list[int] = []
        unit_of: list[int] = []
        spans: list[tuple[int, int]] = []
        end = 0
        for char, index in elems:
            unit = self.a.units[index]
            if char:
                chars.append(char)
                offsets.append(unit.at)
                unit_of.append(index)
                end = max(unit.end, unit.at + 1) if unit.kind != "synthetic" else unit.at
                continue
            interp = self.a.interps[unit.interp]
            holder = _placeholder(unit.interp)
            a, b = interp.anchor
            spans.append((len(chars), len(chars) + len(holder)))
            for k in range(len(holder)):
                chars.append(holder[k])
                offsets.append(b - 1 if k == len(holder) - 1 else min(a + k, b - 1))
                unit_of.append(index)
            end = b
        offsets.append(end)
        text = "".join(chars)
        return Fragment(
            text,
            tuple(offsets),
            depth=target.depth,
            wrapper=wrapper or target.wrapper,
            remote=target.remote,
            shell=target.shell,
            cmdline=target.cmdline.format(text=_PLACEHOLDERS.sub("", text)),
            interpolations=tuple(spans),
            encode_edit=PyFragment(self.a, text, tuple(unit_of)),
        )

    def argv(self, elements: list[ast.expr], scope: _Scope) -> Iterator[Fragment]:
        """`["ssh", host, CMD]`, `["bash", "-lc", S]`: the layer the wrapper table makes."""
        parts: list[Elems] = []
        words: list[Word] = []
        for n, element in enumerate(elements):
            if isinstance(element, ast.Starred):
                break
            elems = self.reader.string(element, scope)
            if elems is None:
                elems = [self.reader.unknown(element, scope)]
            value = "".join(c or _placeholder(self.a.units[u].interp) for c, u in elems)
            base = n << 20
            expansions: tuple[Expansion, ...] = ()
            if any(not c for c, _ in elems):
                expansions = (Expansion(0, len(value), "variable", "__hl", False),)
            words.append(
                Word(
                    base,
                    base + 1,
                    value,
                    tuple(base + k for k in range(len(value) + 1)),
                    expansions,
                )
            )
            parts.append(elems)
        invocation = resolve(words)
        if invocation is None or not invocation.words:
            return
        joined: Elems = []
        for k, word in enumerate(invocation.words):
            n, cut = divmod(word.offsets[0] if word.value else word.start, 1 << 20)
            elems = self._cut(parts[n], cut)
            if elems is None:
                return
            if k:
                spot = self.a.lines.span(elements[n - 1])[1] if n else 0
                joined.append((" ", self.a.add_unit(Unit("synthetic", spot, spot, spot))))
            joined.extend(elems)
        if not any(char for char, _ in joined):
            return
        shell = "bash" if invocation.shell == "login" else invocation.shell
        target = _Target(invocation.wrapper, 1, invocation.remote, shell, shell + " -c {text}")
        yield self.fragment(joined, target)

    def _cut(self, elems: Elems, cut: int) -> Elems | None:
        """elems without their first `cut` value characters (`--command=S` keeps S)."""
        if not cut:
            return elems
        width = 0
        for k, (char, unit) in enumerate(elems):
            if width == cut:
                return elems[k:]
            width += len(char or _placeholder(self.a.units[unit].interp))
            if width > cut:
                return None
        return [] if width == cut else None


# -- entry points ------------------------------------------------------------------------------


def _parse(text: str) -> ast.Module:
    source = text
    if any("\ud800" <= c <= "\udfff" for c in text):
        source = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    try:
        return ast.parse(source)
    except SyntaxError as error:
        lines = _Lines(text)
        line = max(error.lineno or 1, 1)
        offset = lines.starts[min(line, len(lines.starts)) - 1] + max((error.offset or 1) - 1, 0)
        raise SourceError(f"Python syntax error: {error.msg}", min(offset, len(text))) from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise SourceError(f"Python source cannot be read: {error}", 0) from None


# The subprocess/os/asyncio functions, paramiko's exec_command and fabric's sudo and local.
_HOT_CALLS = f"{_ANY_FUNCTION}|exec_command|sudo|local"
_IMPORT_LINES = re.compile(r"^[ \t]*(?:from|import)[ \t][^\n(]*(?:\([^)]*\)|[^\n]*)", re.MULTILINE)
_AS_NAME = re.compile(r"\bas\s+(\w+)")


def _hot_lines(text: str, lines: _Lines) -> list[int]:
    """The lines where a call of interest may start (its name and `(`), sorted."""
    names = _HOT_CALLS
    aliases = {a for m in _IMPORT_LINES.finditer(text) for a in _AS_NAME.findall(m.group())}
    if aliases:
        names += "|" + "|".join(sorted(aliases))
    hot: set[int] = set()
    for match in re.finditer(rf"\b(?:{names})\s*\(", text):
        hot.add(bisect.bisect_right(lines.starts, match.start()))
    return sorted(hot)


def analyse(text: str, *, whole: bool = False) -> tuple[Analysis, list[Fragment]]:
    """The analysis of a Python file and its fragments (`whole`: read every statement)."""
    tree = _parse(text)
    analysis = Analysis(text, tree, _Lines(text))
    builder = _ScopeBuilder(analysis)
    module = builder.build(tree, None if whole else _hot_lines(text, analysis.lines))
    analysis.module_names = set(module.bindings)
    finder = _Finder(analysis, builder)
    return analysis, list(finder.fragments(builder.calls))


def fragments(text: str, path: str | None = None) -> list[Fragment]:
    """The shell strings of a Python file's subprocess, os, asyncio, paramiko, fabric calls."""
    if not interesting(text):
        return []
    # The readers recurse along the tree: a long `+` chain is deep.  Python 3.11 calls
    # between Python functions use no C stack, so a higher limit is safe here.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        return analyse(text)[1]
    except RecursionError:
        return []  # deeper than anything written by hand: not worth a crash
    finally:
        sys.setrecursionlimit(limit)


# -- what rules ask ---------------------------------------------------------------------------


def fragment_of(layer: Layer) -> tuple[PyFragment, Layer] | None:
    """The Python fragment behind `layer` (any depth) and its root layer."""
    root = layer.root
    encoder = root.encode_edit
    return (encoder, root) if isinstance(encoder, PyFragment) else None


def root_index(layer: Layer, index: int) -> int | None:
    """The index in the root layer's text of layer.text[index]."""
    while layer.parent is not None:
        if not layer.parent_offsets or not 0 <= index < len(layer.parent_offsets):
            return None
        index = layer.parent_offsets[index]
        layer = layer.parent
    return index


def runtime_spans(layer: Layer) -> tuple[tuple[int, int], ...]:
    """The spans of layer.text that hold values known only at run time.

    For a root these are its `interpolations`; a child layer (an ssh string inside a
    `shell=True` string) inherits the placeholders that its parent passed down.
    """
    if layer.parent is None or layer.interpolations:
        return layer.interpolations
    parent = runtime_spans(layer.parent)
    if not parent:
        return ()
    spans: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    run_start = 0
    for k in range(len(layer.text)):
        p = layer.parent_offsets[k] if k < len(layer.parent_offsets) else -1
        owner = next((s for s in parent if s[0] <= p < s[1]), None)
        if owner != current:
            if current is not None:
                spans.append((run_start, k))
            current, run_start = owner, k
    if current is not None:
        spans.append((run_start, len(layer.text)))
    return tuple(spans)
