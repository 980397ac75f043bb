"""Edits of Python fragments written back into the Python source.

An edit of a fragment's text ("replace these characters of the shell string with
this text") becomes edits of the string literals that hold those characters: the
new text is re-encoded for each literal (escapes, quotes, `{{` in an f-string, `%%`
in a `%` template, bytes), the characters that are not touched keep their source
exactly, and literals that become empty in a concatenation are dropped with their
separator.  A piece of new text may also be a run-time value (`Runtime`): it becomes
an f-string field, turning a plain literal into an f-string when needed.

On top of that: HL201's `shlex.quote(...)` and HL202's run-time base64, each adding
its import where isort would put it.  The string structure comes from libcst (see
frontends/python.py); the edits are plain text edits, so the formatting and the
comments of everything around them are kept.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from heredoc_lint.edits import Quote, quote_states
from heredoc_lint.fixes.remote_heredoc import find_site
from heredoc_lint.frontends import PYTHON_PLACEHOLDER
from heredoc_lint.frontends.python import Analysis, Atom, Group, Interp, PyFragment
from heredoc_lint.layers import Layer
from heredoc_lint.model import Applicability, Edit, Fix
from heredoc_lint.shell.heredoc import Heredoc
from heredoc_lint.shell.words import Word


@dataclass(frozen=True)
class Runtime:
    """A Python expression whose value goes into the string at run time."""

    expr: str


Piece = str | Runtime
FragEdit = tuple[int, int, Sequence[Piece]]

_SEPARATOR_OK = frozenset(" \t\f\r\n\\+")


# -- encoding ---------------------------------------------------------------------------------


def encode_literal(text: str, atom: Atom, fstring: bool) -> str | None:
    """Source for `text` inside the literal `atom` (as an f-string when `fstring`)."""
    raw, is_bytes = "r" in atom.prefix, "b" in atom.prefix
    quote = atom.quote[0]
    triple = len(atom.quote) == 3
    out: list[str] = []
    for ch in text:
        code = ord(ch)
        if is_bytes and 0xDC80 <= code <= 0xDCFF:
            if raw:
                return None
            out.append(f"\\x{code - 0xDC00:02x}")
            continue
        if is_bytes and code > 0x7F:
            return None
        if raw:
            if ch in ("\\", quote, "\r") or (ch == "\n" and not triple):
                return None
            piece = ch
        elif ch == "\\":
            piece = "\\\\"
        elif ch == quote:
            piece = "\\" + ch
        elif ch == "\n":
            piece = "\\n"
        elif ch == "\r":
            piece = "\\r"
        elif ch == "\t":
            piece = "\\t"
        elif code < 0x20 or code == 0x7F:
            piece = f"\\x{code:02x}"
        elif 0xD800 <= code <= 0xDFFF:
            piece = f"\\u{code:04x}"
        else:
            piece = ch
        if ch in "{}" and (fstring or atom.template == "format"):
            piece = ch * 2
        elif ch == "%" and atom.template == "%":
            piece = "%%"
        out.append(piece)
    return "".join(out)


def encode_runtime(expr: str, atom: Atom) -> str | None:
    """`{expr}` as a field of the f-string `atom`, if Python 3.11 can read it there."""
    if "\\" in expr or "#" in expr or atom.quote[0] in expr:
        return None
    if ("\n" in expr or "\r" in expr) and len(atom.quote) != 3:
        return None
    return "{" + expr + "}"


def python_string(text: str) -> str:
    """A double-quoted Python literal for `text`."""
    atom = Atom("token", 0, 0, 0, "", '"')
    encoded = encode_literal(text, atom, False)
    assert encoded is not None
    return f'"{encoded}"'


# -- rendering fragment edits -------------------------------------------------------------------


def _separator_ok(text: str) -> bool:
    for line in text.splitlines() or [text]:
        code = line.split("#", 1)[0]
        if not set(code) <= _SEPARATOR_OK:
            return False
    return True


def _first_newline(text: str) -> int:
    spots = [k for k in (text.find("\r"), text.find("\n")) if k >= 0]
    return min(spots) if spots else -1


class _Renderer:
    def __init__(self, frag: PyFragment) -> None:
        self.frag = frag
        self.a: Analysis = frag.analysis
        self.source = self.a.text
        self.deletions: dict[int, list[tuple[int, int]]] = {}
        self.insertions: dict[int, list[tuple[int, Sequence[Piece]]]] = {}
        self.gone_exprs: set[int] = set()
        self.groups: set[int] = set()

    def _token(self, index: int) -> bool:
        return index >= 0 and self.a.atoms[index].kind == "token"

    def add(self, start: int, end: int, pieces: Sequence[Piece]) -> bool:
        frag, units = self.frag, self.a.units
        n = len(frag.text)
        if not 0 <= start <= end <= n:
            return False
        for edge in (start, end):
            if 0 < edge < n and frag.unit_of[edge - 1] == frag.unit_of[edge]:
                return False  # the edit cuts a placeholder or an escape in two
        touched = list(dict.fromkeys(frag.unit_of[start:end]))
        for index in touched:
            unit = units[index]
            if unit.kind in ("synthetic", "spec") or unit.atom < 0:
                return False
            self.groups.add(self.a.atoms[unit.atom].group)
            if self._token(unit.atom):
                self.deletions.setdefault(unit.atom, []).append((unit.start, unit.end))
            else:
                self.gone_exprs.add(unit.atom)
        if not pieces:
            return True
        spot: tuple[int, int] | None = None
        heads = [units[u] for u in touched if self._token(units[u].atom)]
        if heads:
            spot = (heads[0].atom, heads[0].start)
        else:
            after = units[frag.unit_of[start]] if start < n else None
            before = units[frag.unit_of[start - 1]] if start > 0 else None
            if after is not None and self._token(after.atom) and not touched:
                spot = (after.atom, after.start)
            elif before is not None and self._token(before.atom):
                spot = (before.atom, before.end)
            elif after is not None and self._token(after.atom):
                spot = (after.atom, after.start)
        if spot is None:
            return False
        self.groups.add(self.a.atoms[spot[0]].group)
        self.insertions.setdefault(spot[0], []).append((spot[1], pieces))
        return True

    def _atom_edits(self, index: int) -> list[Edit] | None:
        atom = self.a.atoms[index]
        inserts = self.insertions.get(index, [])
        runtime = any(isinstance(p, Runtime) for _, pieces in inserts for p in pieces)
        edits: list[tuple[int, int, str]] = []
        convert = runtime and not atom.is_fstring
        if convert:
            if atom.template is not None or "b" in atom.prefix:
                return None
            if "u" in atom.prefix:
                edits.append((atom.start, atom.start + 1, "f"))
            else:
                edits.append((atom.start, atom.start, "f"))
        fstring = atom.is_fstring or runtime
        for start, end in self.deletions.get(index, []):
            edits.append((start, end, ""))
        for spot, pieces in inserts:
            out: list[str] = []
            for piece in pieces:
                encoded = (
                    encode_runtime(piece.expr, atom)
                    if isinstance(piece, Runtime)
                    else encode_literal(piece, atom, fstring)
                )
                if encoded is None:
                    return None
                out.append(encoded)
            edits.append((spot, spot, "".join(out)))
        if convert:
            deleted = self.deletions.get(index, [])
            for k in range(atom.content_start, atom.content_end):
                if self.source[k] in "{}" and not any(a <= k < b for a, b in deleted):
                    edits.append((k, k, self.source[k]))
        edits.sort(key=lambda e: (e[0], e[1]))
        merged: list[Edit] = []
        for start, end, text in edits:
            if merged and start <= merged[-1].end:
                last = merged[-1]
                merged[-1] = Edit(last.start, max(last.end, end), last.content + text)
            else:
                merged.append(Edit(start, end, text))
        return merged

    def _empty(self, index: int) -> bool:
        atom = self.a.atoms[index]
        if index in self.insertions:
            return False
        covered = sorted(self.deletions.get(index, []))
        pos = atom.content_start
        for start, end in covered:
            if start > pos:
                return False
            pos = max(pos, end)
        return pos >= atom.content_end

    def _group_edits(self, group: int, edits: dict[int, list[Edit]]) -> list[Edit] | None:
        atoms = self.a.groups[group].atoms
        gone = [i for i in atoms if i in self.gone_exprs or (self._token(i) and self._empty(i))]
        if not gone:
            return []
        for index in gone:
            edits.pop(index, None)
        if len(gone) == len(atoms):
            first, last = self.a.atoms[atoms[0]], self.a.atoms[atoms[-1]]
            return [Edit(first.start, last.end, 'b""' if "b" in first.prefix else '""')]
        out: list[Edit] = []
        k = 0
        while k < len(atoms):
            if atoms[k] not in gone:
                k += 1
                continue
            j = k
            while j + 1 < len(atoms) and atoms[j + 1] in gone:
                j += 1
            first, last = self.a.atoms[atoms[k]], self.a.atoms[atoms[j]]
            if k > 0:
                previous = self.a.atoms[atoms[k - 1]]
                start = previous.end
                separator = self.source[previous.end : first.start]
                newline = _first_newline(separator)
                if newline >= 0 and "+" not in separator[:newline].split("#", 1)[0]:
                    start = previous.end + newline  # keep a comment at the end of that line
                removed = self.source[start : last.end]
            else:
                following = self.a.atoms[atoms[j + 1]]
                start = first.start
                removed = self.source[start : following.start]
                last = following
            if not _separator_ok(self._separators(atoms[k : j + 2], removed)):
                return None
            end = last.end if k > 0 else last.start
            out.append(Edit(start, end, ""))
            k = j + 1
        return out

    def _separators(self, atoms: list[int], removed: str) -> str:
        """The text of `removed` outside the atoms: what joins them."""
        text = removed
        for index in atoms:
            atom = self.a.atoms[index]
            text = text.replace(self.source[atom.start : atom.end], " ")
        return text

    def edits(self) -> list[Edit] | None:
        if len(self.groups) > 1:
            return None
        per_atom: dict[int, list[Edit]] = {}
        for index in set(self.deletions) | set(self.insertions):
            rendered = self._atom_edits(index)
            if rendered is None:
                return None
            per_atom[index] = rendered
        out: list[Edit] = []
        for group in self.groups:
            extra = self._group_edits(group, per_atom)
            if extra is None:
                return None
            out.extend(extra)
        for rendered in per_atom.values():
            out.extend(rendered)
        out.sort(key=lambda e: (e.start, e.end))
        for a, b in zip(out, out[1:], strict=False):
            if b.start < a.end:
                return None
        return [e for e in out if e.start != e.end or e.content]


def render(frag: PyFragment, edits: Sequence[FragEdit]) -> list[Edit] | None:
    """File edits that make the fragment's text read as `edits` say, or None."""
    renderer = _Renderer(frag)
    for start, end, pieces in sorted(edits, key=lambda e: (e[0], e[1])):
        if not renderer.add(start, end, pieces):
            return None
    return renderer.edits()


def join_edits(text: str, edits: Sequence[Edit]) -> Edit | None:
    """One edit doing all of `edits` (non-overlapping), the text between them kept."""
    if not edits:
        return None
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    parts: list[str] = []
    pos = ordered[0].start
    for edit in ordered:
        parts.append(text[pos : edit.start])
        parts.append(edit.content)
        pos = edit.end
    return Edit(ordered[0].start, pos, "".join(parts))


def encode_fragment_edit(frag: PyFragment, start: int, end: int, content: str) -> Edit | None:
    """The fragment's `encode_edit`: one file edit, or None when none is safe.

    A shell fix knows nothing of run-time values: an edit that would drop one, or
    write a placeholder's text as if it were constant, is refused.
    """
    if PYTHON_PLACEHOLDER in content or any(
        frag.analysis.units[u].interp >= 0 for u in frag.unit_of[start:end]
    ):
        return None
    edits = render(frag, [(start, end, [content] if content else [])])
    if edits is None:
        return None
    if not edits:
        units = frag.analysis.units
        spot = units[frag.unit_of[start]].start if start < len(frag.unit_of) else None
        if spot is None:
            spot = units[frag.unit_of[-1]].end if frag.unit_of else 0
        return Edit(spot, spot, "")
    return join_edits(frag.analysis.text, edits)


# -- imports -------------------------------------------------------------------------------------


def _line_start(analysis: Analysis, line: int) -> int:
    starts = analysis.lines.starts
    return starts[line - 1] if line - 1 < len(starts) else len(analysis.text)


def _after(analysis: Analysis, node: ast.stmt) -> Edit:
    line = (node.end_lineno or node.lineno) + 1
    if line - 1 < len(analysis.lines.starts):
        return Edit(_line_start(analysis, line), _line_start(analysis, line), "")
    return Edit(len(analysis.text), len(analysis.text), "\n")


def module_name(analysis: Analysis, qualified: str) -> str | None:
    """The local name that refers to `qualified` (`shlex`, `shlex.quote`), if imported."""
    for local, name in analysis.imports.items():
        if name == qualified:
            return local
    return None


def import_edit(analysis: Analysis, module: str) -> tuple[str, Edit | None] | None:
    """(how to name `module` in the file, the edit that imports it if needed)."""
    local = module_name(analysis, module)
    if local is not None:
        return local, None
    if module in analysis.names:
        return None  # the name means something else here
    body = analysis.tree.body
    i = 0
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        i = 1
    top: list[ast.Import | ast.ImportFrom] = []
    while i < len(body) and isinstance(body[i], (ast.Import, ast.ImportFrom)):
        statement = body[i]
        assert isinstance(statement, (ast.Import, ast.ImportFrom))
        top.append(statement)
        i += 1
    line = f"import {module}\n"
    plain = [s for s in top if isinstance(s, ast.Import)]
    for statement in plain:
        if statement.names[0].name > module:
            at = _line_start(analysis, statement.lineno)
            return module, Edit(at, at, line)
    if plain:
        edit = _after(analysis, plain[-1])
        return module, Edit(edit.start, edit.end, edit.content + line)
    froms = [s for s in top if isinstance(s, ast.ImportFrom) and s.module != "__future__"]
    if froms:
        at = _line_start(analysis, froms[0].lineno)
        return module, Edit(at, at, line + "\n")
    if top or i:
        anchor = top[-1] if top else body[0]
        edit = _after(analysis, anchor)
        return module, Edit(edit.start, edit.end, edit.content + "\n" + line)
    at = 0
    text = analysis.text
    while text.startswith("#", at):
        newline = text.find("\n", at)
        if newline < 0:
            return module, Edit(len(text), len(text), "\n" + line)
        at = newline + 1
    return module, Edit(at, at, line + "\n" if at < len(text) else line)


# -- HL201: shlex.quote ----------------------------------------------------------------------------


def _needs_parens(expr: str) -> bool:
    try:
        node = ast.parse(expr.strip(), mode="eval").body
    except SyntaxError:
        return True
    return not isinstance(
        node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.JoinedStr)
    )


def _as_str(interp: Interp) -> str | None:
    """An expression for the text the interpolation puts into the string."""
    expr = interp.source.strip()
    if interp.spec is not None:
        if interp.spec == "?" or interp.kind != "field":
            return None
        return f"format({expr}, {python_string(interp.spec)})"
    if interp.conversion in (None, "s"):
        if interp.is_str and interp.conversion is None:
            return f"({expr})" if _needs_parens(expr) else expr
        return f"str({expr})"
    if interp.conversion in ("r", "a"):
        return f"{'repr' if interp.conversion == 'r' else 'ascii'}({expr})"
    return None


def quote_fix(layer: Layer, frag: PyFragment, start: int, end: int, word: Word) -> Fix | None:
    """Wrap the value at layer.text[start:end] (a root layer) in shlex.quote(...)."""
    interp = frag.interp_at(start)
    if layer.parent is not None or interp is None:
        return None
    if interp.conversion not in (None, "s") or interp.spec is not None or interp.shared:
        return None
    if interp.kind != "field" and interp.span is None:
        return None
    function = module_name(frag.analysis, "shlex.quote")
    import_change: Edit | None = None
    if function is None:
        named = import_edit(frag.analysis, "shlex")
        if named is None:
            return None
        module, import_change = named
        function = f"{module}.quote"
    text = layer.text
    states = quote_states(text, word)
    state = states.get(start)
    left, right = start, end
    before: list[Piece] = []
    after: list[Piece] = []
    if state in (Quote.SINGLE, Quote.DOUBLE):
        mark = "'" if state is Quote.SINGLE else '"'
        if text[start - 1 : start] == mark and states.get(start - 1) is Quote.UNQUOTED:
            left = start - 1
        else:
            before = [mark]
        if text[end : end + 1] == mark and states.get(end + 1) is Quote.UNQUOTED:
            right = end + 1
        else:
            after = [mark]
    elif state is not Quote.UNQUOTED:
        return None
    value = interp.source.strip() if interp.is_str else f"str({interp.source.strip()})"
    quoted = f"{function}({value})"
    direct: list[Edit] = []
    if interp.kind == "field":
        frag_edits: list[FragEdit] = [(left, right, [*before, Runtime(quoted), *after])]
    else:
        assert interp.span is not None
        direct.append(Edit(interp.span[0], interp.span[1], quoted))
        frag_edits = []
        if left != start or before:
            frag_edits.append((left, start, before))
        if right != end or after:
            frag_edits.append((end, right, after))
    rendered = render(frag, frag_edits) if frag_edits else []
    if rendered is None:
        return None
    edits = [*rendered, *direct]
    if import_change is not None:
        edits.append(import_change)
    edits.sort(key=lambda e: (e.start, e.end))
    if any(b.start < a.end for a, b in zip(edits, edits[1:], strict=False)):
        return None
    return Fix(
        tuple(edits),
        Applicability.UNSAFE,
        f"Quote the value with `{function}(...)`",
        "shlex-quote",
    )


# -- HL202: run-time base64 ------------------------------------------------------------------------


def _body_pieces(layer: Layer, frag: PyFragment, start: int, end: int) -> list[str | Interp] | None:
    """The body text as constants and run-time values, in order."""
    pieces: list[str | Interp] = []
    k = start
    text = layer.text
    while k < end:
        interp = frag.interp_at(k)
        if interp is None:
            if pieces and isinstance(pieces[-1], str):
                pieces[-1] += text[k]
            else:
                pieces.append(text[k])
            k += 1
            continue
        unit = frag.unit_of[k]
        j = k
        while j < end and frag.unit_of[j] == unit:
            j += 1
        pieces.append(interp)
        k = j
    return pieces


def _body_expression(pieces: list[str | Interp]) -> str | None:
    parts: list[str] = []
    for piece in pieces:
        if isinstance(piece, str):
            parts.append(python_string(piece))
            continue
        if piece.kind not in ("field", "expr"):
            return None
        value = _as_str(piece)
        if value is None:
            return None
        parts.append(value)
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0] if not _needs_parens(parts[0]) else f"({parts[0]})"
    return "(" + " + ".join(parts) + ")"


def _glued_end(layer: Layer, heredoc: Heredoc) -> int | None:
    """For `<< 'EOF'\\n{body}EOF`: where the value ends and the delimiter is glued to it."""
    text = layer.text
    for a, b in layer.interpolations:
        if heredoc.body_start <= a and text.startswith(heredoc.delimiter, b):
            after = b + len(heredoc.delimiter)
            if after == len(text) or text[after] == "\n":
                return b
    return None


def _hoist_name(analysis: Analysis, group: Group, pieces: list[str | Interp]) -> str:
    """A name for the new variable, used nowhere in its function nor bound in the module."""
    values = [p for p in pieces if isinstance(p, Interp)]
    base = "body"
    if values and values[0].source.strip().isidentifier():
        base = values[0].source.strip()
    scope = analysis.text[group.scope[0] : group.scope[1]]
    name, n = f"{base}_b64", 1
    while name in analysis.module_names or re.search(rf"\b{name}\b", scope):
        n += 1
        name = f"{base}_b64_{n}"
    return name


def _one_per_scope(analysis: Analysis, group: Group, import_change: Edit | None) -> list[Edit]:
    """An edit that makes any two hoisting fixes of one scope overlap.

    Two of them in one pass would pick the same new name.  The edit rewrites the scope
    up to the new line with itself: two such edits overlap and differ, so a pass takes
    one of them, and the next pass sees the first name.
    """
    start = group.scope[0]
    if group.scope == (0, len(analysis.text)) and import_change is not None:
        start = import_change.start  # the module: after the new import
    end = group.stmt_start
    return [Edit(start, end, analysis.text[start:end])] if start < end else []


def runtime_base64_fix(layer: Layer, frag: PyFragment, heredoc: Heredoc) -> Fix | None:
    """`cat > P << 'EOF'\\n{body}\\nEOF` becomes `printf %s {b64} | base64 -d > P`."""
    if layer.parent is not None:
        return None
    site = find_site(layer, heredoc)
    if site is None or not site.command.words:
        return None
    if len([r for r in site.command.redirects if r.heredoc is not None]) != 1:
        return None
    text = layer.text
    if heredoc.terminated:
        body_end = heredoc.body_end
        removals = site.removals()
    else:
        glued = _glued_end(layer, heredoc)
        if glued is None:
            return None
        body_end = glued
        term_end = glued + len(heredoc.delimiter)
        term_end += 1 if term_end < len(text) else 0
        if text[heredoc.op_end : heredoc.body_start].strip():
            return None
        removals = [(site.operator_start(), heredoc.op_end, ""), (heredoc.body_start, term_end, "")]
        if not text[term_end:].strip():
            removals = [(site.operator_start(), len(text), "")]
    pieces = _body_pieces(layer, frag, heredoc.body_start, body_end)
    if pieces is None:
        return None
    constants = "".join(p for p in pieces if isinstance(p, str))
    if heredoc.strip_tabs and "\t" in constants:
        return None
    if not heredoc.quoted and any(c in constants for c in "$`\\"):
        return None
    body = _body_expression(pieces)
    if body is None:
        return None
    named = import_edit(frag.analysis, "base64")
    if named is None:
        return None
    module, import_change = named
    encoded = f"{module}.b64encode({body}.encode()).decode()"
    words = site.command.words

    def edits_with(value: Runtime) -> list[Edit] | None:
        feed: list[Piece] = ["printf %s ", value, " | base64 -d"]
        frag_edits: list[FragEdit]
        if len(words) == 1 and words[0].static and words[0].value == "cat":
            frag_edits = [(words[0].start, words[0].end, feed)]
        else:
            frag_edits = [(site.command.start, site.command.start, [*feed, " | "])]
        frag_edits.extend((a, b, [c] if c else []) for a, b, c in removals)
        return render(frag, frag_edits)

    edits = edits_with(Runtime(encoded))
    hoisted: Edit | None = None
    marker: list[Edit] = []
    if edits is None:
        unit = frag.analysis.units[frag.unit_of[site.command.start]]
        if unit.atom < 0:
            return None
        group = frag.analysis.groups[frag.analysis.atoms[unit.atom].group]
        if not group.hoistable:
            return None
        name = _hoist_name(frag.analysis, group, pieces)
        edits = edits_with(Runtime(name))
        if edits is None:
            return None
        hoisted = Edit(group.stmt_start, group.stmt_start, f"{group.indent}{name} = {encoded}\n")
        marker = _one_per_scope(frag.analysis, group, import_change)
    all_edits = [*edits, *marker, *(e for e in (hoisted, import_change) if e is not None)]
    all_edits.sort(key=lambda e: (e.start, e.end))
    if any(b.start < a.end for a, b in zip(all_edits, all_edits[1:], strict=False)):
        return None
    return Fix(
        tuple(all_edits),
        Applicability.SAFE if heredoc.quoted else Applicability.UNSAFE,
        "Send the body as base64 computed at run time "
        f"(`{module}.b64encode(...)` piped to `base64 -d`): no value can end it early",
        "base64",
    )
