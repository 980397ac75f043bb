"""Edits of Python fragments written back into the Python source.

HL201's `shlex.quote(...)` and HL202's run-time base64, each adding its import where
isort would put it.  The edits of the fragment's text are written back into the
string literals by `frontends/python/encode.py`; they are plain text edits, so the
formatting and the comments of everything around them are kept.
"""

from __future__ import annotations

import ast
import re

from heredoc_lint.fixes.edits import Quote, quote_states
from heredoc_lint.fixes.remote_heredoc import HeredocSite, find_site
from heredoc_lint.frontends.python.encode import FragEdit, Piece, Runtime, python_string, render
from heredoc_lint.frontends.python.model import Analysis, Group, Interp, PyFragment
from heredoc_lint.frontends.python.parsing import quiet
from heredoc_lint.layers.layer import Layer
from heredoc_lint.model import Applicability, Edit, Fix
from heredoc_lint.shell.heredoc import Heredoc
from heredoc_lint.shell.words import Word

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
    docstring = _docstring(body)
    top = _top_imports(body[1:] if docstring else body)
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
    if top or docstring:
        anchor = top[-1] if top else body[0]
        edit = _after(analysis, anchor)
        return module, Edit(edit.start, edit.end, edit.content + "\n" + line)
    return module, _after_comments(analysis.text, line)


def _docstring(body: list[ast.stmt]) -> bool:
    """Whether the module's first statement is its docstring."""
    return (
        bool(body)
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    )


def _top_imports(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """The import statements that open `body`, up to its first other statement."""
    top: list[ast.Import | ast.ImportFrom] = []
    for statement in body:
        if not isinstance(statement, (ast.Import, ast.ImportFrom)):
            break
        top.append(statement)
    return top


def _after_comments(text: str, line: str) -> Edit:
    """The edit that writes `line` after the comment lines that open `text` (`#!`, a
    coding line), with a blank line after it when more follows."""
    at = 0
    while text.startswith("#", at):
        newline = text.find("\n", at)
        if newline < 0:
            return Edit(len(text), len(text), "\n" + line)
        at = newline + 1
    return Edit(at, at, line + "\n" if at < len(text) else line)


# -- HL201: shlex.quote ----------------------------------------------------------------------------


def _needs_parens(expr: str) -> bool:
    try:
        with quiet():
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


def _shlex_quote(analysis: Analysis) -> tuple[str, Edit | None] | None:
    """How to call `shlex.quote` in the file, and the import it needs, if any."""
    function = module_name(analysis, "shlex.quote")
    if function is not None:
        return function, None
    named = import_edit(analysis, "shlex")
    if named is None:
        return None
    module, import_change = named
    return f"{module}.quote", import_change


_Marks = tuple[int, int, list[Piece], list[Piece]]


def _unquoted_span(text: str, word: Word, start: int, end: int) -> tuple[Quote, _Marks] | None:
    """The value's quoting, and the span to replace with the quoted value and the quote
    marks to put back around it (the author's quotes end before it, open again after)."""
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
    return state, (left, right, before, after)


def _other_uses(analysis: Analysis, frag: PyFragment, start: int, name: str) -> bool:
    """Whether the name whose value the edit changes is used besides its binding and here.

    Counted in the text of the function (or the file) that binds it: a mention in a
    comment counts too, which only makes the fix display-only where it need not be.
    """
    unit = analysis.units[frag.unit_of[start]]
    if unit.atom < 0:
        return True
    scope = analysis.groups[analysis.atoms[unit.atom].group].scope
    text = analysis.text[scope[0] : scope[1]]
    return len(re.findall(rf"(?<![\w.]){re.escape(name)}\b", text)) > 2


def _quote_applicability(
    frag: PyFragment, interp: Interp, state: Quote, start: int
) -> Applicability:
    """Display-only where the value's other uses would change; safe where the author's own
    quotes show the value is one word; unsafe where it may be meant as several."""
    if interp.through and _other_uses(frag.analysis, frag, start, interp.through):
        return Applicability.DISPLAY_ONLY
    if state in (Quote.SINGLE, Quote.DOUBLE):
        return Applicability.SAFE
    return Applicability.UNSAFE


def quote_fix(layer: Layer, frag: PyFragment, start: int, end: int, word: Word) -> Fix | None:
    """Wrap the value at layer.text[start:end] (a root layer) in shlex.quote(...).

    Never in a file that may run under Python 2: it has no `shlex.quote`.
    """
    interp = frag.interp_at(start)
    if interp is None or not _quotable(layer, frag, interp):
        return None
    quoter = _shlex_quote(frag.analysis)
    found = _unquoted_span(layer.text, word, start, end)
    if quoter is None or found is None:
        return None
    function, import_change = quoter
    state, marks = found
    value = interp.source.strip() if interp.is_str else f"str({interp.source.strip()})"
    quoted = f"{function}({value})"
    frag_edits, direct = _quote_edits(interp, quoted, start, end, marks)
    rendered = render(frag, frag_edits) if frag_edits else []
    if rendered is None:
        return None
    edits = sorted(
        [*rendered, *direct, *(e for e in (import_change,) if e is not None)],
        key=lambda e: (e.start, e.end),
    )
    if any(b.start < a.end for a, b in zip(edits, edits[1:], strict=False)):
        return None
    return Fix(
        tuple(edits),
        _quote_applicability(frag, interp, state, start),
        f"Quote the value with `{function}(...)`",
        "shlex-quote",
    )


def _quotable(layer: Layer, frag: PyFragment, interp: Interp) -> bool:
    """Whether `quote_fix` may wrap the value: in a root layer of a file it may edit that
    runs under Python 3, a value written as it is (no conversion, no spec, not used by two
    fields), an f-string field or an expression with a span of its own in the source."""
    if layer.parent is not None or frag.analysis.python2 or not frag.analysis.fixable:
        return False
    if interp.conversion not in (None, "s") or interp.spec is not None or interp.shared:
        return False
    return interp.kind == "field" or interp.span is not None


def _quote_edits(
    interp: Interp, quoted: str, start: int, end: int, marks: _Marks
) -> tuple[list[FragEdit], list[Edit]]:
    """The edits of the fragment's text and of the source that put `quoted` in place of
    the value at [start, end): an f-string field holds it in the text, another value's
    expression is replaced in the source and only the quote marks go in the text."""
    left, right, before, after = marks
    if interp.kind == "field":
        return [(left, right, [*before, Runtime(quoted), *after])], []
    assert interp.span is not None
    direct = [Edit(interp.span[0], interp.span[1], quoted)]
    frag_edits: list[FragEdit] = []
    if left != start or before:
        frag_edits.append((left, start, before))
    if right != end or after:
        frag_edits.append((end, right, after))
    return frag_edits, direct


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


def _body_and_removals(
    layer: Layer, heredoc: Heredoc, site: HeredocSite
) -> tuple[int, list[tuple[int, int, str]]] | None:
    """Where the body ends, and the edits that remove the heredoc from the command.

    An unterminated heredoc counts only as `<< 'EOF'\\n{body}EOF`: a run-time value
    with the delimiter glued to its end (the string's own end, or a line of its own).
    """
    if heredoc.terminated:
        return heredoc.body_end, site.removals()
    text = layer.text
    glued = _glued_end(layer, heredoc)
    if glued is None or text[heredoc.op_end : heredoc.body_start].strip():
        return None
    term_end = glued + len(heredoc.delimiter)
    term_end += 1 if term_end < len(text) else 0
    if not text[term_end:].strip():
        return glued, [(site.operator_start(), len(text), "")]
    return glued, [(site.operator_start(), heredoc.op_end, ""), (heredoc.body_start, term_end, "")]


def _body_value(
    frag: PyFragment, heredoc: Heredoc, pieces: list[str | Interp]
) -> tuple[str, str, Edit | None] | None:
    """(the base64 expression of the body, the module's local name, the import edit)."""
    constants = "".join(p for p in pieces if isinstance(p, str))
    if heredoc.strip_tabs and "\t" in constants:
        return None
    if not heredoc.quoted and any(c in constants for c in "$`\\"):
        return None
    body = _body_expression(pieces)
    named = import_edit(frag.analysis, "base64") if body is not None else None
    if named is None:
        return None
    module, import_change = named
    return f"{module}.b64encode({body}.encode()).decode()", module, import_change


def _feed_edits(
    frag: PyFragment, site: HeredocSite, removals: list[tuple[int, int, str]], value: Runtime
) -> list[Edit] | None:
    """`printf %s VALUE | base64 -d` in place of `cat` (or piped into the command)."""
    feed: list[Piece] = ["printf %s ", value, " | base64 -d"]
    words = site.command.words
    frag_edits: list[FragEdit]
    if len(words) == 1 and words[0].static and words[0].value == "cat":
        frag_edits = [(words[0].start, words[0].end, feed)]
    else:
        frag_edits = [(site.command.start, site.command.start, [*feed, " | "])]
    frag_edits.extend((a, b, [c] if c else []) for a, b, c in removals)
    return render(frag, frag_edits)


def _hoisted_edits(
    frag: PyFragment,
    site: HeredocSite,
    removals: list[tuple[int, int, str]],
    pieces: list[str | Interp],
    encoded: str,
    import_change: Edit | None,
) -> list[Edit] | None:
    """The value computed on a new line before the statement, when it cannot go inline."""
    unit = frag.analysis.units[frag.unit_of[site.command.start]]
    if unit.atom < 0:
        return None
    group = frag.analysis.groups[frag.analysis.atoms[unit.atom].group]
    if not group.hoistable:
        return None
    name = _hoist_name(frag.analysis, group, pieces)
    edits = _feed_edits(frag, site, removals, Runtime(name))
    if edits is None:
        return None
    hoisted = Edit(group.stmt_start, group.stmt_start, f"{group.indent}{name} = {encoded}\n")
    return [*edits, hoisted, *_one_per_scope(frag.analysis, group, import_change)]


def runtime_base64_fix(layer: Layer, frag: PyFragment, heredoc: Heredoc) -> Fix | None:
    """`cat > P << 'EOF'\\n{body}\\nEOF` becomes `printf %s {b64} | base64 -d > P`."""
    if layer.parent is not None or frag.analysis.python2:
        return None  # a Python 2 file has no f-strings to hold the value
    if not frag.analysis.fixable:
        return None
    site = find_site(layer, heredoc)
    if site is None or not site.command.words:
        return None
    if len([r for r in site.command.redirects if r.heredoc is not None]) != 1:
        return None
    found = _body_and_removals(layer, heredoc, site)
    if found is None:
        return None
    body_end, removals = found
    pieces = _body_pieces(layer, frag, heredoc.body_start, body_end)
    value = _body_value(frag, heredoc, pieces) if pieces is not None else None
    if pieces is None or value is None:
        return None
    encoded, module, import_change = value
    edits = _feed_edits(frag, site, removals, Runtime(encoded))
    if edits is None:
        edits = _hoisted_edits(frag, site, removals, pieces, encoded, import_change)
    if edits is None:
        return None
    all_edits = sorted(
        [*edits, *(e for e in (import_change,) if e is not None)], key=lambda e: (e.start, e.end)
    )
    if any(b.start < a.end for a, b in zip(all_edits, all_edits[1:], strict=False)):
        return None
    return Fix(
        tuple(all_edits),
        Applicability.SAFE if heredoc.quoted else Applicability.UNSAFE,
        "Send the body as base64 computed at run time "
        f"(`{module}.b64encode(...)` piped to `base64 -d`): no value can end it early",
        "base64",
    )
