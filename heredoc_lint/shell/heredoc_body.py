"""The body of an unquoted heredoc (`<<EOF`) as the command it feeds receives it.

bash(1), Here Documents: with an unquoted delimiter "all lines of the here-document are
subjected to parameter expansion, command substitution, and arithmetic expansion, the
character sequence \\<newline> is ignored, and \\ must be used to quote the characters
\\, $, and `".  `read_unquoted` gives the body with those escapes done and each
expansion kept as its source text, with where it stands: what a layer keeps for the
expansions its parent shell performs (`layers.LocalExpansion`).  Nothing else in the
body is special: quotes are plain characters there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from heredoc_lint.shell.heredoc import Heredoc
from heredoc_lint.shell.words import Expansion, matching_close

# After a `$`, what starts an expansion in an unquoted heredoc body (as HL107 reads it).
_NAME_START = re.compile(r"[A-Za-z_0-9@*#?$!\-{(\[]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_ESCAPABLE = frozenset("$`\\")


@dataclass(frozen=True)
class BodyText:
    text: str
    offsets: tuple[int, ...]  # the source offset of each character of `text`
    expansions: tuple[tuple[int, int, Expansion], ...]  # (start, end) in `text`, and what


def read_unquoted(source: str, heredoc: Heredoc) -> BodyText:
    """The body of `heredoc` (unquoted) in `source`, as the command it feeds receives it,
    its expansions kept as written."""
    kept = {
        k for start, line in heredoc.body_lines(source) for k in range(start, start + len(line))
    }
    chars: list[str] = []
    where: list[int] = []
    found: list[tuple[int, int, Expansion]] = []
    i, end = heredoc.body_start, heredoc.body_end
    while i < end:
        if i not in kept:  # a tab `<<-` strips
            i += 1
            continue
        c = source[i]
        if c == "\\" and i + 1 == end == len(source):
            break  # bash drops a backslash that ends the file inside an unterminated body
        if c == "\\" and i + 1 < end:
            if source[i + 1] == "\n":
                i += 2  # the lines are joined
                continue
            if source[i + 1] in _ESCAPABLE:
                chars.append(source[i + 1])
                where.append(i + 1)
                i += 2
                continue
        stop = _expansion_end(source, i, end)
        if stop is None:
            chars.append(c)
            where.append(i)
            i += 1
            continue
        at = len(chars)
        chars.extend(source[i:stop])
        where.extend(range(i, stop))
        found.append((at, len(chars), _expansion(source[i:stop])))
        i = stop
    return BodyText("".join(chars), tuple(where), tuple(found))


def _expansion_end(source: str, i: int, end: int) -> int | None:
    c = source[i]
    if c == "`":
        close = source.find("`", i + 1, end)
        return end if close < 0 else close + 1
    if c != "$" or i + 1 >= end or not _NAME_START.match(source, i + 1):
        return None
    nxt = source[i + 1]
    if nxt == "{":
        return matching_close(source, i + 1, end, "{", "}")
    if nxt == "(":
        return matching_close(source, i + 1, end, "(", ")")
    if nxt == "[":
        return matching_close(source, i + 1, end, "[", "]")
    match = _NAME.match(source, i + 1)
    return match.end() if match else i + 2


def _expansion(text: str) -> Expansion:
    """What an expansion's source text is: its kind and name, as the word reader gives
    them.  Not split by the shell: a heredoc body is one string."""
    n = len(text)
    if text.startswith("`"):
        return Expansion(0, n, "backtick", text[1:-1], True)
    if text.startswith("$(("):
        return Expansion(0, n, "arithmetic", text[3:-2], True)
    if text.startswith("$("):
        return Expansion(0, n, "command", text[2:-1], True)
    if text.startswith("$["):
        return Expansion(0, n, "arithmetic", text[2:-1], True)
    inner = text[2:] if text.startswith("${") else text[1:]
    name = _NAME.match(inner.lstrip("#!"))  # `${#x}`, `${!x}`
    if name is not None:
        return Expansion(0, n, "variable", name.group(), True)
    if inner[:1].isdigit():
        return Expansion(0, n, "special" if inner[0] == "0" else "positional", inner[0], True)
    return Expansion(0, n, "special", inner[:1], True)
