"""Edits of Python fragments written back into the Python source.

An edit of a fragment's text ("replace these characters of the shell string with
this text") becomes edits of the string literals that hold those characters: the
new text is re-encoded for each literal (escapes, quotes, `{{` in an f-string, `%%`
in a `%` template, bytes), the characters that are not touched keep their source
exactly, and literals that become empty in a concatenation are dropped with their
separator.  A piece of new text may also be a run-time value (`Runtime`): it becomes
an f-string field, turning a plain literal into an f-string when needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from heredoc_lint.frontends.python.model import Analysis, Atom, PyFragment
from heredoc_lint.layers.triggers import PYTHON_PLACEHOLDER
from heredoc_lint.model import Edit


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
        else:
            piece = _escaped(ch, quote)
        if ch in "{}" and (fstring or atom.template == "format"):
            piece = ch * 2
        elif ch == "%" and atom.template == "%":
            piece = "%%"
        out.append(piece)
    return "".join(out)


def _escaped(ch: str, quote: str) -> str:
    """`ch` as written in a literal that is not raw, closed by `quote`."""
    code = ord(ch)
    if ch == "\\":
        return "\\\\"
    if ch == quote:
        return "\\" + ch
    if ch == "\n":
        return "\\n"
    if ch == "\r":
        return "\\r"
    if ch == "\t":
        return "\\t"
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if 0xD800 <= code <= 0xDFFF:
        return f"\\u{code:04x}"
    return ch


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


def _rest_of_line_blank(source: str, at: int) -> bool:
    """Whether source[at:] holds only blanks or a comment up to the end of its line."""
    ends = [k for k in (source.find("\r", at), source.find("\n", at)) if k >= 0]
    rest = source[at : min(ends)] if ends else source[at:]
    return not rest.split("#", 1)[0].strip()


def _next_line_text(source: str, newline: int) -> int:
    """Where the text of the line after the line break at source[newline] starts."""
    k = newline + (2 if source.startswith("\r\n", newline) else 1)
    while k < len(source) and source[k] in " \t\f":
        k += 1
    return k


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
        spot = self._insertion_spot(start, touched)
        if spot is None:
            return False
        self.groups.add(self.a.atoms[spot[0]].group)
        self.insertions.setdefault(spot[0], []).append((spot[1], pieces))
        return True

    def _insertion_spot(self, start: int, touched: list[int]) -> tuple[int, int] | None:
        """Where the text an edit inserts at `start` of the fragment goes, as (the literal,
        its offset in the source): at the first character the edit removes from a literal,
        else beside `start`, in the literal after it when the edit removes nothing, else in
        the one before it, else in the one after it."""
        frag, units = self.frag, self.a.units
        heads = [units[u] for u in touched if self._token(units[u].atom)]
        if heads:
            return (heads[0].atom, heads[0].start)
        after = units[frag.unit_of[start]] if start < len(frag.text) else None
        before = units[frag.unit_of[start - 1]] if start > 0 else None
        if after is not None and self._token(after.atom) and not touched:
            return (after.atom, after.start)
        if before is not None and self._token(before.atom):
            return (before.atom, before.end)
        if after is not None and self._token(after.atom):
            return (after.atom, after.start)
        return None

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
            encoded = _encode_pieces(pieces, atom, fstring)
            if encoded is None:
                return None
            edits.append((spot, spot, encoded))
        if convert:
            deleted = self.deletions.get(index, [])
            for k in range(atom.content_start, atom.content_end):
                if self.source[k] in "{}" and not any(a <= k < b for a, b in deleted):
                    edits.append((k, k, self.source[k]))
        return _merged(edits)

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
                    if "#" in separator[:newline] and not _rest_of_line_blank(
                        self.source, last.end
                    ):
                        # What follows the last gone atom (`,`, `)`) would end up inside
                        # that comment: keep the line break, remove from the next word on.
                        start = _next_line_text(self.source, start)
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


def _encode_pieces(pieces: Sequence[Piece], atom: Atom, fstring: bool) -> str | None:
    """Source for `pieces` inside the literal `atom` (an f-string when `fstring`), or None
    when one of them cannot be written there."""
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
    return "".join(out)


def _merged(edits: list[tuple[int, int, str]]) -> list[Edit]:
    """`edits` in order, those that touch or overlap joined into one."""
    edits.sort(key=lambda e: (e[0], e[1]))
    merged: list[Edit] = []
    for start, end, text in edits:
        if merged and start <= merged[-1].end:
            last = merged[-1]
            merged[-1] = Edit(last.start, max(last.end, end), last.content + text)
        else:
            merged.append(Edit(start, end, text))
    return merged


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
