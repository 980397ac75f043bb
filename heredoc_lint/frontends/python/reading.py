"""Reading string expressions into fragment elements: characters and placeholders.

Constants (str and bytes, raw, triple-quoted, implicit and `+` concatenation),
f-strings (their structure from libcst, imported only here and only when needed),
`%` and `str.format` templates, and names bound once to such a value.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from types import ModuleType
from typing import TYPE_CHECKING, TypedDict

from heredoc_lint.frontends.python.callers import Callers
from heredoc_lint.frontends.python.literals import PREFIX, decode, scan_tokens
from heredoc_lint.frontends.python.model import (
    Analysis,
    Atom,
    Elems,
    Interp,
    InterpKind,
    Template,
    Unit,
)
from heredoc_lint.frontends.python.origins import evidence, plain_text, shell_text
from heredoc_lint.frontends.python.scopes import COMPREHENSIONS, Scope, follow
from heredoc_lint.frontends.python.values import (
    MAX_DEPTH,
    NUMERIC_SPEC,
    escaped_chars,
    nature,
    word_list,
)
from heredoc_lint.run import memory

if TYPE_CHECKING:
    import libcst

# What a `str.format` template reads one element at a time: a brace, a placeholder ("\0").
_FORMAT_SPECIAL = re.compile(r"[{}\0]")
_PERCENT = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?[#0\- +]*(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d+))?[hlL]?"
    r"(?P<conv>[diouxXeEfFgGcrsa%])"
)


class _Origin(TypedDict):
    evidence: str
    shell_text: str
    plain: bool
    through: str


class Reader:
    """Turns string expressions into fragment elements (characters and placeholders)."""

    def __init__(self, analysis: Analysis, parents: dict[int, ast.AST]) -> None:
        self.a = analysis
        self.parents = parents
        self.text = analysis.text
        self.through: list[str] = []  # the names followed to the expression being read
        self.callers = Callers(analysis)
        self.whole = (0, len(self.text))  # the scope of a statement in no function: one tuple

    def _origin(self, node: ast.expr, scope: Scope) -> _Origin:
        """The Interp fields that say where a value comes from and what it is meant as."""
        return {
            "evidence": evidence(node, scope, self.a.imports, callers=self.callers),
            "shell_text": shell_text(node, scope, self.a.imports, callers=self.callers),
            "plain": plain_text(node, scope, self.a.imports, callers=self.callers),
            "through": self.through[0] if self.through else "",
        }

    # -- hoisting ------------------------------------------------------------------------
    def hoist_info(self, node: ast.AST) -> tuple[int, str, bool, tuple[int, int]]:
        """Where a statement computing a value for `node` could go.

        (line start of the enclosing statement, its indentation, whether a new line may
        go before it, the file span of the enclosing function or of the whole file).
        """
        current: ast.AST = node
        ok = True
        whole = self.whole
        while not isinstance(current, ast.stmt):
            if isinstance(current, (ast.Lambda, ast.IfExp, ast.BoolOp, *COMPREHENSIONS)):
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
    def literal(self, node: ast.Constant | ast.JoinedStr, scope: Scope, group: int) -> Elems | None:
        start, end = self.a.lines.span(node)
        tokens = scan_tokens(self.text, start, end)
        if not tokens:
            return None
        fields = (
            [v for v in node.values if isinstance(v, ast.FormattedValue)]
            if isinstance(node, ast.JoinedStr)
            else []
        )
        elems = Elems()
        for token_start, token_end in tokens:
            token = self.text[token_start:token_end]
            prefix = PREFIX.match(token)
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
            if elems.text() != value:
                return None
        return elems

    def chars(
        self, atom: int, start: int, end: int, letters: str, braces: bool, elems: Elems
    ) -> None:
        raw, is_bytes = "r" in letters, "b" in letters
        units = self.a.units
        for chars, tile_start, tile_end, at in decode(self.text, start, end, raw, is_bytes, braces):
            if tile_end - tile_start == len(chars) and tile_start == at:
                first = units.add_chars(tile_start, len(chars), atom)
                elems.add_run(chars, first)
            else:
                elems.append((chars, units.add("char", tile_start, tile_end, at, atom)))

    def fstring(
        self,
        atom: int,
        content: tuple[int, int],
        fields: list[ast.FormattedValue],
        scope: Scope,
        elems: Elems,
    ) -> bool:
        memory.imported_outside_the_limit("libcst", _parse_one)
        import libcst  # loaded just above

        token = self.a.atoms[atom]
        try:
            parsed = libcst.parse_expression(self.text[token.start : token.end])
        except libcst.ParserSyntaxError:
            return False  # not ours to read
        except MemoryError:
            raise  # not the f-string's: skipping it would hide its findings
        except Exception as error:
            if memory.limited():  # held to the bound, a failed allocation may show so
                raise MemoryError from error
            return False  # libcst raises other kinds too
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
                span = (pos, pos + len(source))
                self._fstring_field(atom, part, fields.pop(0), span, code, scope, elems)
            else:
                return False
            pos += len(source)
        return pos == content[1]

    def _fstring_field(
        self,
        atom: int,
        part: libcst.FormattedStringExpression,
        value: ast.FormattedValue,
        span: tuple[int, int],
        code: Callable[[libcst.CSTNode], str],
        scope: Scope,
        elems: Elems,
    ) -> None:
        """The elements of the f-string field `part`, at `span` in the file, which ast reads
        as `value`: the characters of a constant it names, else a placeholder."""
        import libcst  # loaded by `fstring`

        start, end = span
        expression = code(part.expression)
        expr_start = start + 1 + len(code(part.whitespace_before_expression))
        spec: str | None = None
        if part.format_spec is not None:
            nested = any(isinstance(p, libcst.FormattedStringExpression) for p in part.format_spec)
            spec = "?" if nested else "".join(code(p) for p in part.format_spec)
        if part.equal is not None:
            spec = "?"
        if spec is None and part.conversion is None:
            known = self.constant(value.value, scope)
            if known is not None:
                elems.extend(known)
                return
        safe, is_str = nature(value.value, scope, self.a.imports)
        if spec is not None and spec != "?" and NUMERIC_SPEC.match(spec):
            safe = True
        interp = self.a.add_interp(
            Interp(
                "field",
                expression,
                (expr_start, expr_start + len(expression)),
                span,
                safe=safe,
                is_str=is_str and part.conversion in (None, "s"),
                conversion=part.conversion,
                spec=spec,
                escaped=escaped_chars(value.value),
                words=word_list(value.value),
                **self._origin(value.value, scope),
            )
        )
        unit = self.a.add_unit(Unit("field", start, end, start, atom, interp))
        elems.append(("", unit))

    # -- expressions -----------------------------------------------------------------------
    def string(self, node: ast.expr, scope: Scope, depth: int = 0) -> Elems | None:
        """The elements of a string expression; None when nothing of it is known."""
        if depth > MAX_DEPTH:
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
            # A chain of names is one step, however long: only what is read at its end
            # can nest deeper.
            value, owner, names = follow(node, scope)
            if names and not isinstance(value, ast.Name):
                return self._through(names, lambda: self.string(value, owner, depth + 1))
        return None

    def _through(self, names: tuple[str, ...], read: Callable[[], Elems | None]) -> Elems | None:
        """`read()` with `names` as the names followed to what it reads."""
        self.through.extend(names)
        try:
            return read()
        finally:
            del self.through[len(self.through) - len(names) :]

    def strings(self, node: ast.expr, scope: Scope) -> list[Elems | None]:
        """The elements of each value a string expression may have (see `candidates`)."""
        return [
            self._through(names, partial(self.string, value, owner))
            for value, owner, names in candidates(node, scope)
        ]

    def constant(self, node: ast.expr, scope: Scope) -> Elems | None:
        """The characters of a value that is a constant string under a name (`CMD`)."""
        if not isinstance(node, (ast.Name, ast.Constant)):
            return None
        if isinstance(node, ast.Constant) and not isinstance(node.value, str):
            return None
        elems = self.string(node, scope, 1)
        if elems is None or any(not char for char, _ in elems):
            return None
        return elems

    def unknown(self, node: ast.expr, scope: Scope, atom: int = -1) -> tuple[str, int]:
        """A placeholder element for an expression whose value is known only at run time."""
        span = self.a.lines.span(node)
        safe, is_str = nature(node, scope, self.a.imports)
        interp = self.a.add_interp(
            Interp(
                "expr",
                self.text[span[0] : span[1]],
                span,
                span,
                safe,
                is_str,
                words=word_list(node),
                escaped=escaped_chars(node),
                **self._origin(node, scope),
            )
        )
        return "", self.a.add_unit(Unit("expr", span[0], span[1], span[0], atom, interp))

    def concat(self, node: ast.BinOp, scope: Scope, depth: int) -> Elems | None:
        operands: list[ast.expr] = []

        def flatten(item: ast.expr) -> None:
            if isinstance(item, ast.BinOp) and isinstance(item.op, ast.Add):
                flatten(item.left)
                flatten(item.right)
            else:
                operands.append(item)

        flatten(node)
        group = self.a.new_group(self.hoist_info(node))
        elems = Elems()
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

    def _template(self, node: ast.expr, scope: Scope, depth: int, kind: Template) -> Elems | None:
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
        self,
        node: ast.expr | None,
        scope: Scope,
        kind: InterpKind,
        conversion: str | None,
        field: str = "?",
    ) -> Interp:
        """The value `node` fills in; unseen (a key of a mapping held in a variable), it is
        named by its `field` in the template (`%(host)s`)."""
        if node is None:
            return Interp(kind, field, None, (0, 0), conversion=conversion, spec="?")
        span = self.a.lines.span(node)
        safe, is_str = nature(node, scope, self.a.imports)
        return Interp(
            kind,
            self.text[span[0] : span[1]],
            span,
            span,
            safe,
            is_str,
            conversion,
            escaped=escaped_chars(node),
            words=word_list(node),
            **self._origin(node, scope),
        )

    def percent(self, node: ast.BinOp, scope: Scope, depth: int) -> Elems | None:
        elems = self._template(node.left, scope, depth, "%")
        if elems is None:
            return None
        text = elems.text("\0")
        positional, keyed = _percent_arguments(node.right, text)
        out = Elems()
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
            interp = self._argument(arg, scope, "percent", m.group("conv"), m.group())
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

    def format(self, node: ast.Call, scope: Scope, depth: int) -> Elems | None:
        assert isinstance(node.func, ast.Attribute)
        elems = self._template(node.func.value, scope, depth, "format")
        if elems is None:
            return None
        fields = _FormatArgs(node)
        out = Elems()
        text = elems.text("\0")
        i = 0
        while i < len(elems):
            # Up to the next brace or placeholder, as it is, in one piece.
            found = _FORMAT_SPECIAL.search(text, i)
            stop = found.start() if found else len(text)
            if stop > i:
                out.extend(elems[i:stop])
                i = stop
                continue
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
            j = _field_end(text, i)
            if j is None:
                return None
            body = elems[i + 1 : j - 1].text()
            name = re.split(r"[.\[!:]", body, maxsplit=1)[0]
            rest = body[len(name) :]
            arg = fields.take(name)
            known = self.constant(arg, scope) if not rest and arg is not None else None
            if known is not None:
                out.extend(known)
                i = j
                continue
            unit = self._spec_unit(elems, i, j, self._format_interp(arg, name, rest, scope))
            if unit is None:
                return None
            out.append(unit)
            i = j
        return self._mark_shared(out, fields.uses, node)

    def _format_interp(self, arg: ast.expr | None, name: str, rest: str, scope: Scope) -> Interp:
        """The run-time value of a `{name...}` field whose text after the name is `rest`."""
        conversion = rest[1:2] if rest.startswith("!") else None
        interp = self._argument(arg, scope, "format", conversion, f"{{{name}}}")
        spec = rest.split(":", 1)[1] if ":" in rest else None
        if rest and not rest.startswith(("!", ":")):
            # `{x.attr}`, `{x[0]}`: not the argument's value, and not one place to quote.
            return replace(interp, source=interp.source + rest, span=None, spec="?")
        if spec is not None:
            numeric = bool(NUMERIC_SPEC.match(spec))
            return replace(interp, safe=interp.safe or numeric, spec=spec or None)
        return interp


def _parse_one(libcst: ModuleType) -> None:
    """The native parser's own first-use work (memory.imported_outside_the_limit)."""
    libcst.parse_expression('f"{a}"')


def _percent_arguments(
    args: ast.expr, text: str
) -> tuple[list[ast.expr] | None, dict[str, ast.expr]]:
    """The values `% args` gives the fields of the template `text`: by position (None when
    not known), and by key (`% {"host": h}`)."""
    matches = [m for m in _PERCENT.finditer(text) if m.group("conv") != "%"]
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
    return positional, keyed


def _field_end(text: str, i: int) -> int | None:
    """Where the `{...}` field opened at text[i] ends (past its `}`); None: never closed."""
    level, j = 1, i + 1
    while j < len(text) and level:
        level += {"{": 1, "}": -1}.get(text[j], 0)
        j += 1
    return None if level else j


class _FormatArgs:
    """The arguments of a `str.format` call, taken by the fields in order."""

    def __init__(self, node: ast.Call) -> None:
        starred = any(isinstance(a, ast.Starred) for a in node.args)
        self.positional: list[ast.expr] = [] if starred else list(node.args)
        self.keyword = {k.arg: k.value for k in node.keywords if k.arg is not None}
        self.auto = 0
        self.uses: dict[int, int] = {}  # id(argument) -> number of fields that use it

    def take(self, name: str) -> ast.expr | None:
        arg: ast.expr | None
        if name == "":
            k = self.auto
            self.auto += 1
            arg = self.positional[k] if k < len(self.positional) else None
        elif name.isdigit():
            k = int(name)
            arg = self.positional[k] if k < len(self.positional) else None
        else:
            arg = self.keyword.get(name)
        if arg is not None:
            self.uses[id(arg)] = self.uses.get(id(arg), 0) + 1
        return arg


def candidates(node: ast.expr, scope: Scope) -> list[tuple[ast.expr, Scope, tuple[str, ...]]]:
    """The values an expression may have at run time, each with its scope and the names
    followed to it: both branches of `a if c else b`, every operand of `a or b` (the first
    true one is the value), the last of `a and b` (the others are its value only when
    false: an empty string runs nothing), through names bound once to such a choice.

    An expression that holds no such choice is its own one candidate, as written (its
    names are followed by the reader, which says which it followed).  Each expression is
    visited once, so the values are no more than the file has expressions: none is left
    out (a cap would let a command hide behind enough harmless values)."""
    found: list[tuple[ast.expr, Scope, tuple[str, ...]]] = []
    stack: list[tuple[ast.expr, Scope, tuple[str, ...]]] = [(node, scope, ())]
    seen: set[int] = set()
    branched = False
    while stack:
        current, owner, names = stack.pop()
        value, value_scope, more = follow(current, owner)
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, ast.IfExp):
            branches = [value.body, value.orelse]
        elif isinstance(value, ast.BoolOp):
            branches = value.values if isinstance(value.op, ast.Or) else value.values[-1:]
        else:
            found.append((current, owner, names))
            continue
        branched = True
        stack.extend((b, value_scope, names + more) for b in reversed(branches))
    return found if branched else [(node, scope, ())]
