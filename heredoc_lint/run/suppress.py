"""Inline suppressions: `# heredoc-lint: disable=HL101`, `disable-file=...`, `# noqa: HL101`.

A directive at the end of a line, or alone on the line before, silences the
named codes for findings on that line. Because a finding often sits inside a
string that spans many lines, where no comment can go, a directive on the
first line of a statement (or alone just before it), or at the end of its last
line (after the closing quote), covers the whole statement.  In Python a statement
is a logical line, and a string over several lines is a statement of its own.

A ShellCheck directive for the same bug counts as one of ours: `# shellcheck
disable=SC2087` silences HL107, SC2029 HL102 and SC2024 HL109, where it stands
(ShellCheck's own scope, the next command, is the statement after it here too).

A directive is a comment of the file's own language, as ruff reads only comments:
text that merely looks like one (`echo "# heredoc-lint: disable-file=ALL"`, a heredoc
body, a Markdown heading, a YAML value, a Python string) silences nothing, since a
repository could otherwise switch the gate off from inside a string (issue 18).  The
comments are those of
- shell (and an agent's command): tree-sitter-bash's comment tokens at layer 0, in
  the heredoc-masked text, so neither a string nor a heredoc body holds one;
- Python: tokenize's COMMENT tokens;
- Markdown: comments in the shell of a fenced block, and an HTML comment
  `<!-- heredoc-lint: disable-file=CODES -->` that is a block of its own;
- workflows: comments in the shell of a `run:` step, and YAML comments.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from heredoc_lint import severities
from heredoc_lint.kinds import SourceKind
from heredoc_lint.model import Finding
from heredoc_lint.report.lines import LineIndex

if TYPE_CHECKING:
    from heredoc_lint.layers.layer import Layer
    from heredoc_lint.shell.syntax import Script

_DIRECTIVE = re.compile(
    r"#\s*heredoc-lint:\s*(?P<kind>disable-file|disable)\s*=\s*(?P<codes>[A-Za-z0-9_, ]+)"
)
# A ShellCheck directive for the same bug says the author knows: SC2087 (an unquoted
# heredoc to ssh expands on the client side), SC2029 (an ssh string expands on the client
# side), SC2024 (sudo does not affect redirects).
_SHELLCHECK = re.compile(r"#\s*shellcheck\s+disable\s*=\s*(?P<codes>[A-Za-z0-9_, ]+)")
SHELLCHECK_CODES = {"SC2087": "HL107", "SC2029": "HL102", "SC2024": "HL109"}
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z0-9_, ]+))?", re.IGNORECASE)
# Markdown's own comment, on a block of its own (`<!-- heredoc-lint: disable-file=HL103 -->`).
_HTML = re.compile(
    r"<!--\s*heredoc-lint:\s*(?P<kind>disable-file|disable)\s*=\s*(?P<codes>[A-Za-z0-9_, ]+)"
    r"\s*-->"
)
_ALL = frozenset({"ALL"})
_WIDE = re.compile(r"[^\x00-\x7f]")


@dataclass(frozen=True)
class Directive:
    line: int  # 1-based
    codes: frozenset[str]
    whole_file: bool
    alone: bool  # the comment is the only thing on its line: it covers the next line
    start: int  # file offset of the comment, for an unused-suppression finding
    end: int
    foreign: bool = False  # another tool's directive: never reported as unused


def _codes(text: str | None) -> frozenset[str]:
    if not text:
        return _ALL
    return frozenset(c.strip().upper() for c in text.split(",") if c.strip())


def _shellcheck_codes(text: str) -> frozenset[str]:
    """Our codes for the ShellCheck codes of a `shellcheck disable=` directive."""
    return frozenset(
        SHELLCHECK_CODES[c.strip().upper()]
        for c in text.split(",")
        if c.strip().upper() in SHELLCHECK_CODES
    )


def directives(
    text: str, kind: SourceKind = "shell", roots: Sequence[Layer] = ()
) -> list[Directive]:
    """The directives of `text` read as `kind`: those that are comments of its language.
    `roots`: layers the engine parsed already (the whole text of a script), to reuse."""
    python = kind == "python"
    shellcheck = "shellcheck" in text
    if "heredoc-lint:" not in text and not shellcheck and not (python and "noqa" in text.lower()):
        return []
    found = _candidates(text, python, shellcheck, markdown=kind == "markdown")
    if not found:
        return []
    in_comment = _comment_test(text, kind, roots)
    return [d for d in found if in_comment(d.start)]


def _candidates(text: str, python: bool, shellcheck: bool, markdown: bool) -> list[Directive]:
    """Every directive the text spells, comment or not."""
    found: list[Directive] = []
    offset = 0
    # Lines end at "\n" only, as LineIndex's, which places the findings.
    for number, line in enumerate(text.split("\n"), start=1):
        line += "\n"
        matches = [
            (m, _codes(m.group("codes")), m.group("kind") == "disable-file", False)
            for m in _DIRECTIVE.finditer(line)
        ]
        if markdown:
            matches += [
                (m, _codes(m.group("codes")), m.group("kind") == "disable-file", False)
                for m in _HTML.finditer(line)
            ]
        if python:
            matches += [(m, _codes(m.group("codes")), False, False) for m in _NOQA.finditer(line)]
        if shellcheck and not python:
            for m in _SHELLCHECK.finditer(line):
                codes = _shellcheck_codes(m.group("codes"))
                if codes:
                    matches.append((m, codes, False, True))
        for match, codes, whole_file, foreign in matches:
            alone = line[: match.start()].strip() == ""
            found.append(
                Directive(
                    number,
                    codes,
                    whole_file,
                    alone,
                    offset + match.start(),
                    offset + match.end(),
                    foreign,
                )
            )
        offset += len(line)
    return found


# --- which offsets are inside a comment of the file's language -----------------------------


def _comment_test(text: str, kind: SourceKind, roots: Sequence[Layer]) -> Callable[[int], bool]:
    """A test of whether a file offset lies inside a comment of `text` read as `kind`."""
    if kind == "python":
        return _within(_python_comments(text))
    tests = [_shell_comment_test(text, kind, roots)]
    if kind == "markdown":
        tests.append(_within(_html_comment_blocks(text)))
    elif kind == "actions":
        tests.append(_yaml_comment_test(text))
    return lambda offset: any(test(offset) for test in tests)


def _within(spans: list[tuple[int, int]]) -> Callable[[int], bool]:
    """A test of whether an offset lies in one of `spans` (sorted, not overlapping)."""
    starts = [a for a, _ in spans]

    def test(offset: int) -> bool:
        k = bisect.bisect_right(starts, offset) - 1
        return k >= 0 and offset < spans[k][1]

    return test


def _python_comments(text: str) -> list[tuple[int, int]]:
    """File spans of the COMMENT tokens of Python source, up to where tokenizing fails
    (such a file is HL001 anyway)."""
    import io
    import tokenize

    starts = LineIndex(text).starts  # lines end at "\n", as StringIO.readline's
    spans: list[tuple[int, int]] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                (row, col), (end_row, end_col) = token.start, token.end
                spans.append((starts[row - 1] + col, starts[end_row - 1] + end_col))
    except (tokenize.TokenError, SyntaxError):
        pass
    return spans


def python_statements(text: str) -> list[tuple[int, int]]:
    """File spans of Python's logical lines and of its strings that span lines, up to
    where tokenizing fails.  A multi-line string is a statement of its own (as ruff reads
    a `noqa` after its closing quote): no comment can go on the lines inside it."""
    import io
    import tokenize

    starts = LineIndex(text).starts
    skipped = {tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}
    fstring_start = getattr(tokenize, "FSTRING_START", None)  # 3.12: an f-string is tokens
    fstring_end = getattr(tokenize, "FSTRING_END", None)
    spans: list[tuple[int, int]] = []
    line_start: int | None = None
    opened: list[int] = []  # where each f-string still open starts
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            (row, col), (end_row, end_col) = token.start, token.end
            start, end = starts[row - 1] + col, starts[end_row - 1] + end_col
            if token.type == tokenize.NEWLINE:
                if line_start is not None:
                    spans.append((line_start, end))
                line_start = None
                continue
            if token.type not in skipped and line_start is None:
                line_start = start
            if token.type == fstring_start:
                opened.append(start)
            elif token.type == fstring_end and opened:
                start = opened.pop()
            if token.type in (tokenize.STRING, fstring_end) and text.find("\n", start, end) >= 0:
                spans.append((start, end))
    except (tokenize.TokenError, SyntaxError):
        pass
    return spans


def _shell_comment_test(
    text: str, kind: SourceKind, roots: Sequence[Layer]
) -> Callable[[int], bool]:
    """Whether an offset is in a comment of the shell the file holds at layer 0 (the
    file itself, a Markdown fence, a `run:` step).  Only fragments that spell a
    directive are parsed; a script the engine parsed already is not parsed again."""
    from heredoc_lint.frontends import fragments
    from heredoc_lint.shell.syntax import parse_script

    parsed: list[tuple[Script, Sequence[int] | None]]
    if kind in ("shell", "command") and roots and roots[0].offsets is None:
        parsed = [(roots[0].script, None)]
    else:
        # No SourceError here: the engine applies directives only to a text its frontend
        # read (a workflow that is no YAML is HL001 alone), and the frontends of the
        # other kinds but Python (read apart) raise none.
        texts = fragments(kind, text)
        parsed = [
            (parse_script(f.text), f.offsets)
            for f in texts
            if "heredoc-lint:" in f.text or "shellcheck" in f.text
        ]
    scripts = [(_comment_finder(script), offsets) for script, offsets in parsed]

    def test(offset: int) -> bool:
        for in_comment, offsets in scripts:
            at = offset
            if offsets is not None:
                k = bisect.bisect_left(offsets, offset)
                if k >= len(offsets) - 1 or offsets[k] != offset:
                    continue
                at = k
            if in_comment(at):
                return True
        return False

    return test


def _comment_finder(script: Script) -> Callable[[int], bool]:
    """A test of whether character `at` of a parsed script lies in a comment token."""
    tree = script.tree
    if tree is None:
        return lambda at: False
    positions, extra = _wide_characters(script)

    def test(at: int) -> bool:
        k = bisect.bisect_left(positions, at)  # the wide characters before `at`
        byte = at + (extra[k - 1] if k else 0)
        node = tree.root_node.descendant_for_byte_range(byte, byte + 1)
        return node is not None and node.type == "comment"

    return test


def _wide_characters(script: Script) -> tuple[list[int], list[int]]:
    """Where the characters wider than a byte are in the text tree-sitter parsed (the
    heredoc-masked text, whose bodies are blanks), and the extra bytes up to each and
    with it: tree-sitter speaks bytes.  Computed once per script, as a file may hold a
    directive on every line."""
    from heredoc_lint.shell.heredoc import mask_heredocs

    masked = mask_heredocs(script.text, script.heredocs)
    positions: list[int] = []
    extra: list[int] = []
    total = 0
    if not masked.isascii():
        for match in _WIDE.finditer(masked):
            total += len(match.group().encode("utf-8", "surrogatepass")) - 1
            positions.append(match.start())
            extra.append(total)
    return positions, extra


def _html_comment_blocks(text: str) -> list[tuple[int, int]]:
    """File spans of the HTML blocks that are comments (CommonMark's HTML block type 2):
    not a heading, a paragraph, a code span or a fence that merely spells one."""
    from markdown_it import MarkdownIt

    starts = LineIndex(text).starts + [len(text)]
    spans = []
    for token in MarkdownIt("commonmark").disable("inline").parse(text):
        comment = token.type == "html_block" and token.content.lstrip().startswith("<!--")
        if comment and token.map is not None:
            first, last = (min(line, len(starts) - 1) for line in token.map)  # 0-based
            spans.append((starts[first], starts[last]))
    return sorted(spans)


def _yaml_comment_test(text: str) -> Callable[[int], bool]:
    """Whether an offset is in a YAML comment: after a `#` that starts a line or follows
    a blank, outside every token (a quoted or block scalar holds no comment)."""
    import importlib

    yaml: Any = importlib.import_module("yaml")  # no type stubs
    spans: list[tuple[int, int]] = []
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if token.end_mark.index > token.start_mark.index:
                spans.append((token.start_mark.index, token.end_mark.index))
    except yaml.YAMLError:
        return lambda offset: False  # not a workflow at all: HL001
    in_token = _within(sorted(spans))

    def test(offset: int) -> bool:
        start = text.rfind("\n", 0, offset) + 1
        for p in range(start, offset + 1):
            if text[p] == "#" and (p == start or text[p - 1] in " \t") and not in_token(p):
                return True
        return False

    return test


def _covers(codes: frozenset[str], code: str) -> bool:
    return codes == _ALL or any(code.startswith(c) for c in codes)


def apply(
    text: str,
    findings: Sequence[Finding],
    statements: Iterable[tuple[int, int]],
    *,
    kind: SourceKind = "shell",
    roots: Sequence[Layer] = (),
    enabled: bool = True,
    report_unused: bool = False,
) -> list[Finding]:
    """The findings no directive silences, plus unused directives when asked.  With
    `enabled` false (an agent's command, unless the user's configuration allows them),
    directives count for nothing."""
    if not findings and not report_unused:
        return []
    found = directives(text, kind, roots) if enabled else []
    if not report_unused:  # only a directive for one of the findings' codes matters
        reported = {f.code for f in findings}
        found = [d for d in found if any(_covers(d.codes, code) for code in reported)]
    if not found:
        return list(findings)
    index = LineIndex(text)
    first_of, last_of = _statement_lines(index, statements)
    whole_file = [d for d in found if d.whole_file]
    by_line = _by_line(found)
    used: set[Directive] = set()
    kept: list[Finding] = []
    for finding in findings:
        line = index.position(finding.start)[0]
        # A directive covers its line, and a statement from its first or its last line.
        places = {line, first_of.get(line, line), last_of.get(line, line)}
        candidates = whole_file + [d for place in places for d in by_line.get(place, [])]
        hit = next((d for d in candidates if _covers(d.codes, finding.code)), None)
        if hit is None:
            kept.append(finding)
        else:
            used.add(hit)
    if report_unused:
        kept += _unused(found, used)
    return kept


def _statement_lines(
    index: LineIndex, statements: Iterable[tuple[int, int]]
) -> tuple[dict[int, int], dict[int, int]]:
    """For each line, the first and last line of the innermost statement around it: inner
    statements start later, so painting in order of start leaves the innermost on top."""
    first_of: dict[int, int] = {}
    last_of: dict[int, int] = {}
    for a, b in sorted(statements):
        first, last = index.position(a)[0], index.position(max(a, b - 1))[0]
        for line in range(first, last + 1):
            first_of[line], last_of[line] = first, last
    return first_of, last_of


def _by_line(found: list[Directive]) -> dict[int, list[Directive]]:
    """The directives not for the whole file, by the line they cover: their own, or the
    next when alone on theirs."""
    by_line: dict[int, list[Directive]] = {}
    for directive in found:
        if not directive.whole_file:
            by_line.setdefault(
                directive.line + 1 if directive.alone else directive.line, []
            ).append(directive)
    return by_line


def _unused(found: list[Directive], used: set[Directive]) -> list[Finding]:
    """An HL002 for each directive of ours (not another tool's) that silenced nothing."""
    unused: list[Finding] = []
    for directive in found:
        ours = directive.codes == _ALL or any(c.startswith("HL") for c in directive.codes)
        if directive not in used and ours and not directive.foreign:
            codes = ",".join(sorted(directive.codes))
            unused.append(
                Finding(
                    "HL002",
                    severities.severity("HL002", "unused"),
                    f"This suppression ({codes}) silences no finding",
                    directive.start,
                    directive.end,
                    evidence="unused",
                )
            )
    return unused
