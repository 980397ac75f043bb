"""Heredoc scanner that follows bash's reading rules.

tree-sitter-bash loses the rest of a line after a heredoc operator
(`cat <<'EOF'; echo done`), fails on `<<A <<B`, drops body lines that start
with a backslash and misplaces body spans.  So heredocs are found here, by a
small lexer that knows enough of bash's quoting to tell a real `<<` from one
inside quotes, comments or arithmetic, and each heredoc is then masked with
same-length filler before tree-sitter sees the text.  The operator and its
delimiter word become `<____`, an ordinary input redirection that keeps the
heredoc attached to its command; the body and terminator become blanks with
the newlines kept, so every offset and line number stays valid.
"""

from __future__ import annotations

from dataclasses import dataclass

_METACHARS = frozenset(" \t\n;&|()<>")


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
    end: int  # end of the terminator line (its newline excluded), or end of text
    terminated: bool

    @property
    def terminator_start(self) -> int | None:
        return self.body_end if self.terminated else None

    def raw_body(self, text: str) -> str:
        return text[self.body_start : self.body_end]

    def body_lines(self, text: str) -> list[tuple[int, str]]:
        """The body's lines as (offset, text) with `<<-` tab stripping applied."""
        lines = []
        pos = self.body_start
        while pos < self.body_end:
            nl = text.find("\n", pos, self.body_end)
            stop = self.body_end if nl < 0 else nl + 1
            line_start = pos
            if self.strip_tabs:
                while line_start < stop and text[line_start] == "\t":
                    line_start += 1
            lines.append((line_start, text[line_start:stop]))
            pos = stop
        return lines

    def literal_value(self, text: str) -> str:
        """What bash feeds to the command for a quoted delimiter."""
        return "".join(line for _, line in self.body_lines(text))


def _delimiter_word(text: str, start: int) -> tuple[str, bool, int]:
    """Read the heredoc delimiter word at `start`; return (value, quoted, end)."""
    out: list[str] = []
    quoted = False
    i = start
    n = len(text)
    while i < n and text[i] not in _METACHARS:
        c = text[i]
        if c == "\\":
            quoted = True
            if i + 1 < n:
                out.append(text[i + 1])
            i += 2
        elif c == "'":
            quoted = True
            j = text.find("'", i + 1)
            j = n if j < 0 else j
            out.append(text[i + 1 : j])
            i = j + 1
        elif c == '"':
            quoted = True
            j = i + 1
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n and text[j + 1] in '"\\$`':
                    out.append(text[j + 1])
                    j += 2
                    continue
                out.append(text[j])
                j += 1
            i = j + 1
        elif c == "$" and i + 1 < n and text[i + 1] in "'\"":
            # $'..' and $".." in a delimiter: bash keeps the quoted text literally.
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out), quoted, min(i, n)


def _line_is_terminator(line: str, delimiter: str, strip_tabs: bool) -> bool:
    if strip_tabs:
        line = line.lstrip("\t")
    return line == delimiter


class _Scanner:
    """Walks bash text, tracking quotes and nesting, collecting heredocs."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.heredocs: list[Heredoc] = []
        self.pending: list[tuple[int, int, bool, str, bool]] = []

    # -- bodies ---------------------------------------------------------------
    def read_bodies(self, nl: int) -> int:
        """At the newline `nl`, read every pending body; return where to resume."""
        pos = nl + 1
        for op_start, op_end, strip, delim, quoted in self.pending:
            body_start = pos
            terminated = False
            body_end = end = self.n
            while pos < self.n:
                line_end = self.text.find("\n", pos)
                line_end = self.n if line_end < 0 else line_end
                logical_end = line_end
                # Unquoted bodies join backslash-newline before the terminator test.
                if not quoted:
                    while logical_end < self.n and _odd_backslashes(self.text, logical_end):
                        nxt = self.text.find("\n", logical_end + 1)
                        logical_end = self.n if nxt < 0 else nxt
                line = self.text[pos:logical_end]
                if not quoted and "\\\n" in line:
                    line = line.replace("\\\n", "")
                if _line_is_terminator(line, delim, strip):
                    body_end, end, terminated = pos, logical_end, True
                    pos = min(logical_end + 1, self.n)
                    break
                pos = logical_end + 1
            else:
                pos = self.n
            self.heredocs.append(
                Heredoc(op_start, op_end, strip, delim, quoted, body_start, body_end, end, terminated)
            )
        self.pending = []
        return pos

    # -- lexing ---------------------------------------------------------------
    def scan(self) -> None:
        self.scan_commands(0, closer=None)
        if self.pending:  # no newline after the operator's line: empty, unterminated
            self._unterminated_at_eof()

    def _unterminated_at_eof(self) -> None:
        for op_start, op_end, strip, delim, quoted in self.pending:
            self.heredocs.append(
                Heredoc(op_start, op_end, strip, delim, quoted, self.n, self.n, self.n, False)
            )
        self.pending = []

    def scan_commands(self, i: int, closer: str | None) -> int:
        """Scan command text from i until `closer` (")" or "`") at depth 0."""
        text, n = self.text, self.n
        depth = 0
        word_start = True
        while i < n:
            c = text[i]
            if c == "\n":
                i = self.read_bodies(i) if self.pending else i + 1
                word_start = True
                continue
            if closer == "`" and c == "`":
                return i + 1
            if closer == ")" and c == ")":
                if depth == 0:
                    return i + 1
                depth -= 1
                i += 1
                word_start = True
                continue
            if c == "#" and word_start:
                nl = text.find("\n", i)
                i = n if nl < 0 else nl
                continue
            if c == "\\":
                i += 2
                word_start = False
                continue
            if c == "'":
                j = text.find("'", i + 1)
                i = n if j < 0 else j + 1
                word_start = False
                continue
            if c == '"':
                i = self.scan_double(i + 1)
                word_start = False
                continue
            if c == "`":
                i = self.scan_commands(i + 1, "`")
                word_start = False
                continue
            if c == "$" and i + 1 < n:
                i = self.scan_dollar(i)
                word_start = False
                continue
            if c == "(":
                if word_start and text.startswith("((", i):
                    i = _skip_arith(text, i + 2)
                    continue
                if closer == ")":
                    depth += 1
                i += 1
                word_start = True
                continue
            if c == "<" and text.startswith("<<", i) and not text.startswith("<<<", i):
                i = self.take_heredoc(i)
                word_start = True
                continue
            word_start = c in _METACHARS
            i += 1
        return n

    def take_heredoc(self, i: int) -> int:
        op_start = i
        i += 2
        strip = False
        if i < self.n and self.text[i] == "-":
            strip = True
            i += 1
        while i < self.n and self.text[i] in " \t":
            i += 1
        if i >= self.n or self.text[i] in _METACHARS:
            return i  # `<<` with no word: a syntax error that tree-sitter reports
        delim, quoted, end = _delimiter_word(self.text, i)
        self.pending.append((op_start, end, strip, delim, quoted))
        return end

    def scan_double(self, i: int) -> int:
        text, n = self.text, self.n
        while i < n:
            c = text[i]
            if c == '"':
                return i + 1
            if c == "\\":
                i += 2
            elif c == "`":
                i = self.scan_commands(i + 1, "`")
            elif c == "$" and i + 1 < n:
                i = self.scan_dollar(i)
            else:
                i += 1
        return n

    def scan_dollar(self, i: int) -> int:
        text = self.text
        nxt = text[i + 1]
        if text.startswith("$((", i):
            return _skip_arith(text, i + 3)
        if nxt == "(":
            return self.scan_commands(i + 2, ")")
        if nxt == "{":
            return self.scan_brace(i + 2)
        if nxt == "'":
            return _skip_ansi(text, i + 2)
        return i + 1

    def scan_brace(self, i: int) -> int:
        text, n = self.text, self.n
        depth = 0
        while i < n:
            c = text[i]
            if c == "}":
                if depth == 0:
                    return i + 1
                depth -= 1
                i += 1
            elif c == "{":
                depth += 1
                i += 1
            elif c == "\\":
                i += 2
            elif c == "'":
                j = text.find("'", i + 1)
                i = n if j < 0 else j + 1
            elif c == '"':
                i = self.scan_double(i + 1)
            elif c == "`":
                i = self.scan_commands(i + 1, "`")
            elif c == "$" and i + 1 < n:
                i = self.scan_dollar(i)
            else:
                i += 1
        return n


def _odd_backslashes(text: str, end: int) -> bool:
    k = end - 1
    count = 0
    while k >= 0 and text[k] == "\\":
        count += 1
        k -= 1
    return count % 2 == 1


def _skip_arith(text: str, i: int) -> int:
    """Skip to after the `))` closing an arithmetic expression opened before i."""
    depth = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return i + 2 if text.startswith("))", i) else i + 1
            depth -= 1
        elif c == "\n":
            return i  # let the caller see the newline (pending heredocs)
        i += 1
    return n


def _skip_ansi(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "'":
            return i + 1
        i += 1
    return n


def scan_heredocs(text: str) -> tuple[Heredoc, ...]:
    """Every heredoc of `text`, in the order bash reads their bodies."""
    if "<<" not in text:
        return ()
    scanner = _Scanner(text)
    scanner.scan()
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
