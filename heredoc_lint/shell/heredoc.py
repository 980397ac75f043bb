"""Heredoc scanner that follows bash's reading rules.

tree-sitter-bash loses the rest of a line after a heredoc operator
(`cat <<'EOF'; echo done`), fails on `<<A <<B`, drops body lines that start
with a backslash and misplaces body spans.  So heredocs are found here, by a
small lexer that knows enough of bash's quoting to tell a real `<<` from one
inside quotes, comments, arithmetic or a here-string `<<<`, and each heredoc is
then masked with same-length filler before tree-sitter sees the text.  The
operator and its delimiter word become `<____`, an ordinary input redirection
that keeps the heredoc attached to its command; the body and terminator become
blanks with the newlines kept, so every offset and line number stays valid.

bash's rules, as checked against bash 5.2 (tests/test_heredoc.py and the corpus oracle
in tests/test_oracle_bash.py):

* Bodies are read at the newline that ends the line of the operator, at the same
  nesting level: newlines inside quotes, `$(...)`, `${...}` or arithmetic do not count.
  A heredoc opened inside `$(...)` is read at a newline inside it; if the substitution
  closes first, its body is read at the next newline outside, after the bodies already
  pending there.
* Inside `$(...)` a body line that starts with the delimiter and holds a `)` later on
  also ends the body (`EOF)`); bash reads on from just after the delimiter.
* A backtick substitution ends at its closing backtick, wherever heredoc bodies are:
  a heredoc still open there is unterminated.
* For an unquoted delimiter a backslash-newline joins lines before the terminator test,
  and `<<-` strips tabs at the start of each joined line only.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field

from heredoc_lint.shell.words import Quoting, dequote

_METACHARS = frozenset(" \t\n;&|()<>")
_BLANKS = " \t"
# Words after which the next word is in command position (where `case` is a keyword).
_RESERVED = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!", "{", "time"})
_QUOTED = frozenset({Quoting.SINGLE, Quoting.DOUBLE, Quoting.ANSI, Quoting.ESCAPED})
# Runs that change nothing the scanner tracks: word characters inside a word, and blanks.
_WORD_RUN = re.compile(r"[A-Za-z0-9_./,:=@%+\-]+")
_BLANK_RUN = re.compile(r"[ \t]+")
_TO_METACHAR = re.compile(r"[^ \t\n;&|()<>]*")
_CASE_WORD = re.compile(r"(case|esac)(?=[ \t\n;&|()<>]|$)")
# Python frames `scan_heredocs` may use: 4,000 nested substitutions and more.
_RECURSION_LIMIT = 20_000


@dataclass(frozen=True)
class Heredoc:
    """One here-document, with offsets into the text it was scanned from."""

    op_start: int  # the `<<`
    op_end: int  # end of the delimiter word
    strip_tabs: bool  # `<<-`
    delimiter: str  # the delimiter after quote removal
    quoted: bool  # any quoting in the delimiter word: the body is literal
    body_start: int  # first character of the first body line
    body_end: int  # end of the body: start of the terminator line, or end of text
    end: int  # end of the terminator (its newline excluded), or end of text
    terminated: bool

    def body_lines(self, text: str) -> list[tuple[int, str]]:
        """The body's physical lines as (offset, text), `<<-` tab stripping applied.

        With an unquoted delimiter a line that continues a backslash-newline is not
        stripped: bash strips at the start of the joined line only.
        """
        lines = []
        pos = self.body_start
        continued = False
        while pos < self.body_end:
            nl = text.find("\n", pos, self.body_end)
            stop = self.body_end if nl < 0 else nl + 1
            line_start = pos
            if self.strip_tabs and not continued:
                while line_start < stop and text[line_start] == "\t":
                    line_start += 1
            lines.append((line_start, text[line_start:stop]))
            continued = not self.quoted and nl >= 0 and _odd_backslashes(text, nl, pos)
            pos = stop
        return lines

    def literal_value(self, text: str) -> str:
        """What bash feeds to the command for a quoted delimiter."""
        return "".join(line for _, line in self.body_lines(text))

    def read_value(self, text: str) -> str:
        """The body as bash stores it, before any expansion.

        For a quoted delimiter that is `literal_value`; for an unquoted one bash has
        already removed each backslash-newline (`$x`, backticks and the other
        backslashes are left for expansion when the command runs).
        """
        value = self.literal_value(text)
        return value if self.quoted else _join_continuations(value)


@dataclass(frozen=True)
class _Pending:
    """A heredoc operator whose body has not been read yet."""

    op_start: int
    op_end: int
    strip_tabs: bool
    delimiter: str
    quoted: bool

    def read(self, body_start: int, body_end: int, end: int, terminated: bool) -> Heredoc:
        return Heredoc(
            self.op_start,
            self.op_end,
            self.strip_tabs,
            self.delimiter,
            self.quoted,
            body_start,
            body_end,
            end,
            terminated,
        )


def _odd_backslashes(text: str, end: int, start: int = 0) -> bool:
    """Is text[end] escaped by the run of backslashes before it (from `start` on)?"""
    k = end - 1
    while k >= start and text[k] == "\\":
        k -= 1
    return (end - 1 - k) % 2 == 1


def _join_continuations(body: str) -> str:
    """Remove backslash-newline pairs as bash's read_secondary_line does."""
    out: list[str] = []
    i = 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            if body[i + 1] != "\n":
                out.append(body[i : i + 2])
            i += 2
            continue
        out.append(body[i])
        i += 1
    return "".join(out)


@dataclass
class _Level:
    """What the scanner tracks for one level of nesting (the file, a `$(...)`, ...)."""

    limit: int  # where the level's text ends at the latest
    in_comsub: bool  # inside `$(...)`, `<(...)` or `>(...)`: a `)` may close it
    pending: list[_Pending] = field(default_factory=list)  # bodies to read at a newline
    depth: int = 0  # open parentheses inside the level
    cases: int = 0  # open `case` statements: their `)` end patterns, not the level
    word_start: bool = True
    command_position: bool = True  # a `case` here is a keyword

    def plain(self, c: str) -> None:
        """Account for an ordinary character."""
        if c == "(":
            self.depth += 1
        elif c == ")" and self.depth > 0:
            self.depth -= 1
        if c in ";&|()":
            self.command_position = True
        self.word_start = c in _METACHARS


class _Scanner:
    """Walks bash text, tracking quotes and nesting, collecting heredocs."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.heredocs: list[Heredoc] = []

    # -- bodies ---------------------------------------------------------------------
    def read_bodies(self, pending: list[_Pending], nl: int, limit: int, in_comsub: bool) -> int:
        """At the newline `nl`, read every pending body; return where to resume."""
        pos = nl + 1
        for item in pending:
            pos = self.read_body(item, pos, limit, in_comsub)
        pending.clear()
        return pos

    def read_body(self, item: _Pending, start: int, limit: int, in_comsub: bool) -> int:
        """Read one body from `start`; return where reading goes on."""
        text = self.text
        pos = start
        while pos < limit:
            line_end = self.line_end(pos, limit, join=not item.quoted)
            line = text[pos:line_end]
            if not item.quoted:
                line = _join_continuations(line)
            tabs = len(line) - len(line.lstrip("\t")) if item.strip_tabs else 0
            # bash tests the line before stripping tabs too (a delimiter may start with one).
            if line == item.delimiter or line[tabs:] == item.delimiter:
                self.heredocs.append(item.read(start, pos, line_end, True))
                return min(line_end + 1, limit)
            line = line[tabs:]
            if in_comsub and line.startswith(item.delimiter) and ")" in line[len(item.delimiter) :]:
                # bash's compatibility rule for `EOF)`: the rest of the line is code again.
                # Tabs and the delimiter are plain characters here: no joined lines.
                resume = pos + tabs + len(item.delimiter)
                self.heredocs.append(item.read(start, pos, resume, True))
                return resume
            pos = line_end + 1
        self.heredocs.append(item.read(start, limit, limit, False))
        return limit

    def line_end(self, pos: int, limit: int, join: bool) -> int:
        """End of the line at pos (its newline), joined over backslash-newlines if asked."""
        while True:
            nl = self.text.find("\n", pos, limit)
            if nl < 0:
                return limit
            if not (join and _odd_backslashes(self.text, nl, pos)):
                return nl
            pos = nl + 1

    def unterminated(self, pending: list[_Pending], at: int) -> None:
        """Heredocs whose text ended before their line did: empty and unterminated."""
        for item in pending:
            self.heredocs.append(item.read(at, at, at, False))
        pending.clear()

    # -- lexing ---------------------------------------------------------------------
    def scan(self) -> None:
        self.scan_commands(0, self.n, None, [])

    def scan_commands(self, i: int, limit: int, closer: str | None, outer: list[_Pending]) -> int:
        """Scan command text from i until the `)` closing a `$(` (closer ")") or `limit`.

        Heredocs still pending when a `$(...)` closes are read at the next newline of
        the enclosing level: they are handed to `outer`.
        """
        level = _Level(limit, closer == ")")
        while i < limit:
            c = self.text[i]
            if c == "\n":
                i = (
                    self.read_bodies(level.pending, i, limit, level.in_comsub)
                    if level.pending
                    else i + 1
                )
                level.word_start = level.command_position = True
                continue
            if level.word_start and c not in _METACHARS:
                self.note_word(level, i)
            if c == ")" and level.in_comsub and level.depth == 0 and level.cases == 0:
                outer.extend(level.pending)
                return i + 1
            stop = self.skip_special(level, i)
            if stop is not None:
                i = stop
                level.word_start = False
                continue
            level.plain(c)
            i += 1
            # Skip in one step what would not change the state: the rest of a plain word,
            # or a run of blanks.
            run = (_BLANK_RUN if level.word_start else _WORD_RUN).match(self.text, i, limit)
            if run is not None and (not level.word_start or c in _BLANKS):
                i = run.end()
        if level.in_comsub:  # an unclosed `$(`: its heredocs are still the enclosing level's
            outer.extend(level.pending)
        else:
            self.unterminated(level.pending, limit)
        return limit

    def skip_special(self, level: _Level, i: int) -> int | None:
        """Skip a comment, arithmetic, a substitution, quotes or a heredoc operator at i."""
        text, c = self.text, self.text[i]
        if c == "#" and level.word_start:
            nl = text.find("\n", i, level.limit)
            return level.limit if nl < 0 else nl
        if c == "(" and level.word_start and text.startswith("((", i):
            return _skip_arith(text, i + 2, level.limit)
        if c in "<>" and text.startswith("(", i + 1):  # process substitution
            return self.scan_commands(i + 2, level.limit, ")", level.pending)
        if text.startswith("<<<", i):  # a here-string, not a heredoc
            return i + 3
        if text.startswith("<<", i):
            return self.take_heredoc(i, level.limit, level.pending)
        return self.skip_quoted(i, level.limit, level.pending)

    def note_word(self, level: _Level, i: int) -> None:
        """At the start of a word: track `case` ... `esac` and command positions."""
        match = _CASE_WORD.match(self.text, i)
        if match is not None and match.group(1) == "case" and level.command_position:
            level.cases += 1
        elif match is not None and match.group(1) == "esac" and level.cases > 0:
            level.cases -= 1
        j = _TO_METACHAR.match(self.text, i).end()  # type: ignore[union-attr]
        level.command_position = self.text[i:j] in _RESERVED

    def skip_quoted(self, i: int, limit: int, pending: list[_Pending]) -> int | None:
        """Skip a backslash escape, quotes or an expansion at i; None if there is none."""
        text, c = self.text, self.text[i]
        if c == "\\":
            return i + 2
        if c == "'":
            j = text.find("'", i + 1, limit)
            return limit if j < 0 else j + 1
        if c == '"':
            return self.scan_double(i + 1, limit, pending)
        if c == "`":
            return self.scan_backtick(i, limit)
        if c == "$" and i + 1 < limit:
            return self.scan_dollar(i, limit, pending, in_double=False)
        return None

    def take_heredoc(self, i: int, limit: int, pending: list[_Pending]) -> int:
        op_start = i
        i += 2
        strip = i < limit and self.text[i] == "-"
        if strip:
            i += 1
        while i < limit and self.text[i] in _BLANKS:
            i += 1
        if i >= limit or self.text[i] in _METACHARS:
            return i  # `<<` with no word: a syntax error that tree-sitter reports
        end = self.word_end(i, limit)
        delimiter, quoted = _delimiter(self.text, i, end)
        pending.append(_Pending(op_start, end, strip, delimiter, quoted))
        return end

    def word_end(self, i: int, limit: int) -> int:
        """End of the shell word at i (quotes and substitutions may hold blanks)."""
        ignored: list[_Pending] = []  # a heredoc inside a delimiter word means nothing
        while i < limit and self.text[i] not in _METACHARS:
            stop = self.skip_quoted(i, limit, ignored)
            i = i + 1 if stop is None else stop
        return min(i, limit)

    def scan_double(self, i: int, limit: int, pending: list[_Pending]) -> int:
        text = self.text
        while i < limit:
            c = text[i]
            if c == '"':
                return i + 1
            if c == "\\":
                i += 2
            elif c == "`":
                i = self.scan_backtick(i, limit)
            elif c == "$" and i + 1 < limit:
                i = self.scan_dollar(i, limit, pending, in_double=True)
            else:
                i += 1
        return limit

    def scan_backtick(self, i: int, limit: int) -> int:
        """bash finds the closing backtick first; heredocs inside cannot run past it."""
        close = i + 1
        while close < limit and self.text[close] != "`":
            close += 2 if self.text[close] == "\\" else 1
        close = min(close, limit)
        inner: list[_Pending] = []
        self.scan_commands(i + 1, close, None, inner)
        return min(close + 1, limit)

    def scan_dollar(self, i: int, limit: int, pending: list[_Pending], in_double: bool) -> int:
        text = self.text
        nxt = text[i + 1]
        if text.startswith("$((", i):
            return _skip_arith(text, i + 3, limit)
        if nxt == "(":
            return self.scan_commands(i + 2, limit, ")", pending)
        if nxt == "[":
            return _skip_brackets(text, i + 2, limit)
        if nxt == "{":
            return self.scan_brace(i + 2, limit, pending)
        if nxt == "'" and not in_double:
            return _skip_ansi(text, i + 2, limit)
        return i + 1

    def scan_brace(self, i: int, limit: int, pending: list[_Pending]) -> int:
        text = self.text
        depth = 0
        while i < limit:
            c = text[i]
            if c == "}":
                if depth == 0:
                    return i + 1
                depth -= 1
                i += 1
            elif c == "{":
                depth += 1
                i += 1
            else:
                stop = self.skip_quoted(i, limit, pending)
                i = i + 1 if stop is None else stop
        return limit


def _delimiter(text: str, start: int, end: int) -> tuple[str, bool]:
    """The delimiter of the word text[start:end], and whether it is quoted.

    A quote, a backslash, `$'...'` or `$"..."` makes it quoted: the delimiter is then
    the word after quote removal (`$'E\\x41'` is `EA`), else the word as written (a
    `$x` or backtick in it is never expanded).
    """
    word = dequote(text, start, end)
    if word.quoting & _QUOTED:
        return word.received(), True
    # Unquoted, the only thing bash removes is a line continuation.
    return text[start:end].replace("\\\n", ""), False


def _skip_arith(text: str, i: int, limit: int) -> int:
    """Skip to after the `))` closing an arithmetic expression opened before i."""
    depth = 0
    while i < limit:
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return min(i + 2, limit) if text.startswith("))", i) else i + 1
            depth -= 1
        i += 1
    return limit


def _skip_brackets(text: str, i: int, limit: int) -> int:
    """Skip the `$[...]` arithmetic whose content starts at i."""
    depth = 0
    while i < limit:
        if text[i] == "[":
            depth += 1
        elif text[i] == "]":
            if depth == 0:
                return i + 1
            depth -= 1
        i += 1
    return limit


def _skip_ansi(text: str, i: int, limit: int) -> int:
    while i < limit:
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "'":
            return i + 1
        i += 1
    return limit


def scan_heredocs(text: str) -> tuple[Heredoc, ...]:
    """Every heredoc of `text`, in the order bash reads their bodies."""
    if "<<" not in text:
        return ()
    scanner = _Scanner(text)
    # The scanner recurses into each `$(`, `<(` and backquote (four calls a level): at
    # the default limit a script nesting 250 of them was an internal error, where bash
    # runs it.  Python 3.11 calls between Python functions use no C stack (as in
    # frontends/python), so a higher limit is safe here.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))
    try:
        scanner.scan()
    finally:
        sys.setrecursionlimit(limit)
    return tuple(scanner.heredocs)


def mask_heredocs(text: str, heredocs: tuple[Heredoc, ...]) -> str:
    """Replace each heredoc by filler of the same length (see module doc)."""
    if not heredocs:
        return text
    chars = list(text)
    for h in heredocs:
        chars[h.op_start] = "<"
        for k in range(h.op_start + 1, h.op_end):
            chars[k] = "\n" if chars[k] == "\n" else "_"
        for k in range(h.body_start, h.end):
            if chars[k] != "\n":
                chars[k] = " "
    return "".join(chars)
