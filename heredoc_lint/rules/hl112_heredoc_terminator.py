r"""A heredoc whose delimiter line never matches, so it swallows the rest of the text.

## What it does
Finds a heredoc whose delimiter never appears alone on a line of the text
it is in, so that the heredoc has no terminator: the closing `EOF` is
indented (with spaces, or at all without `<<-`), has trailing spaces or a
carriage return, or has text glued to it (`EOF; echo done`, `EOF)`). When a
line looks like the intended terminator, the message names it and says what
is wrong with it.

## Why is this bad?
bash only ends a heredoc at a line that is exactly the delimiter (`<<-`
strips leading tabs, never spaces). Without one, the body runs to the end of
the file (or of the `ssh`/`bash -c` string): every command after the heredoc
becomes heredoc text and never runs, and the file or remote command receives
them as data. bash says so only in a warning on stderr,
`warning: here-document at line N delimited by end-of-file (wanted 'EOF')`,
and the exit status is still 0.

## Example
```bash
if [ -n "$motd" ]; then
    cat > /etc/motd <<EOF
Hello
    EOF
fi
echo done
```

## Use instead
```bash
if [ -n "$motd" ]; then
    cat > /etc/motd <<EOF
Hello
EOF
fi
echo done
```
or `<<-EOF` with the body and the terminator indented with tabs.

## Fix safety
The fix rewrites the likely terminator line into the bare delimiter. It is
safe with `<<-`, whose dash declares an indented terminator, when that line
differs only by its (space) indentation: the indentation becomes the tabs of
the line of `<<-`, or nothing. Everywhere else it is unsafe: the line may belong to
the body, and the fix makes the commands after the heredoc run, which they
never did. Text glued to the delimiter (`EOF; echo done`, `EOF)`) is moved to
its own line; after an operator (`EOF && next`) there is no fix, since the
author's intent cannot be read from the line.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass

from heredoc_lint.fixes.edits import layer_fix
from heredoc_lint.layers.layer import Layer
from heredoc_lint.model import Applicability, Finding, Fix
from heredoc_lint.rules.base import (
    Context,
    FixAvailability,
    Invalid,
    finding,
    quote_snippet,
    rule,
    where,
)
from heredoc_lint.shell.heredoc import Heredoc, scan_heredocs
from heredoc_lint.shell.templates import field_heredoc

_WORD_CHAR = re.compile(r"[A-Za-z0-9_]")


@dataclass(frozen=True)
class Candidate:
    """A line that looks like the intended terminator."""

    start: int  # offsets into the layer text; end excludes the newline
    end: int
    lead: str  # whitespace before the delimiter
    rest: str  # what follows the delimiter


def _lines(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    pos = start
    while pos < end:
        nl = text.find("\n", pos, end)
        stop = end if nl < 0 else nl
        yield pos, stop
        pos = stop + 1


def find_candidate(text: str, heredoc: Heredoc) -> Candidate | None:
    """The first line of the body whose text, stripped, starts with the delimiter word."""
    delimiter = heredoc.delimiter
    if not delimiter:
        return None
    for start, stop in _lines(text, heredoc.body_start, heredoc.body_end):
        line = text[start:stop]
        body = line.lstrip(" \t")
        if not body.startswith(delimiter):
            continue
        rest = body[len(delimiter) :]
        if rest[:1] and _WORD_CHAR.match(rest[:1]) and _WORD_CHAR.match(delimiter[-1]):
            continue  # `EOFX`: another word
        lead = line[: len(line) - len(body)]
        if not lead and not rest:
            continue  # cannot happen for an unterminated heredoc
        return Candidate(start, stop, lead, rest)
    return None


def _problem(heredoc: Heredoc, candidate: Candidate) -> str:
    parts = []
    if candidate.lead:
        if not heredoc.strip_tabs:
            parts.append("is indented; without <<- the terminator must start the line")
        else:
            parts.append("is indented with spaces; <<- strips only leading tabs")
    rest = candidate.rest
    if rest and not rest.strip(" \t\r"):
        if "\r" in rest:
            parts.append("ends in a carriage return (CRLF line end)")
        if rest.strip("\r"):
            parts.append("has trailing whitespace after the delimiter")
    elif rest:
        parts.append(
            f"has `{quote_snippet(rest.strip(), 30)}` after the delimiter; the terminator "
            "must be alone on its line"
        )
    return " and ".join(parts)


def _line_number(layer: Layer, context: Context, index: int) -> int:
    if not context.file_text:
        return layer.text.count("\n", 0, index) + 1
    return context.file_text.count("\n", 0, layer.file_offset(index)) + 1


def _after(layer: Layer, start: int) -> str | None:
    """The first non-blank line at or after `start`, for the message."""
    for a, b in _lines(layer.text, start, len(layer.text)):
        line = layer.text[a:b].strip()
        if line:
            return line
    return None


def _end_of(layer: Layer) -> str:
    if layer.depth == 0:
        return "the end of the script"
    return f"the end of {where(layer)}"


def _op_indent(layer: Layer, heredoc: Heredoc) -> str:
    text = layer.text
    line_start = text.rfind("\n", 0, heredoc.op_start) + 1
    k = line_start
    while k < heredoc.op_start and text[k] == "\t":
        k += 1
    return text[line_start:k]


def _fix(layer: Layer, heredoc: Heredoc, candidate: Candidate) -> Fix | None:
    rest = candidate.rest
    delimiter_line: str
    applicability = Applicability.UNSAFE
    if not rest.strip(" \t\r"):
        indent = _op_indent(layer, heredoc) if heredoc.strip_tabs else ""
        delimiter_line = indent + heredoc.delimiter
        if heredoc.strip_tabs and not rest and candidate.lead:
            applicability = Applicability.SAFE
        message = f"Make the line exactly `{heredoc.delimiter}`"
    else:
        tail = rest.lstrip(" \t")
        if tail.startswith(";") and not tail.startswith(";;"):
            tail = tail[1:].lstrip(" \t")
        elif not tail.startswith(")"):
            return None  # `EOF && next`, `EOF | cmd`: where was it meant to go?
        if not tail.strip():
            return None
        delimiter_line = f"{heredoc.delimiter}\n{tail}"
        message = f"Put `{heredoc.delimiter}` alone on its line"
    span = (candidate.start, candidate.end, delimiter_line)
    return layer_fix(layer, [span], applicability, message)


# How many heredocs, each swallowed by the one before, are looked for: every level scans
# the rest of the text again.
_NESTING = 16


def _swallowed(layer: Layer, after: int) -> list[Heredoc]:
    """The unterminated heredocs in the text from `after` (the line past a broken
    terminator): what bash would read there once that terminator is mended."""
    found = scan_heredocs(layer.text[after:])
    return [
        dataclasses.replace(
            h,
            op_start=h.op_start + after,
            op_end=h.op_end + after,
            body_start=h.body_start + after,
            body_end=h.body_end + after,
            end=h.end + after,
        )
        for h in found
        if not h.terminated
    ]


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    for heredoc in layer.script.heredocs:
        if heredoc.terminated or layer.is_runtime(heredoc.body_start, heredoc.end):
            continue  # a body filled in at run time: HL202 says what can go wrong
        field = field_heredoc(layer.text, heredoc)
        if field is not None:
            yield _template_field(layer, heredoc, field)
            continue
        outer: Heredoc | None = None
        for _ in range(_NESTING):
            candidate = find_candidate(layer.text, heredoc)
            yield _finding(layer, context, heredoc, candidate, outer)
            if candidate is None or candidate.end >= len(layer.text):
                break
            inner = _swallowed(layer, candidate.end + 1)
            if not inner:
                break
            outer, heredoc = heredoc, inner[0]


def _template_field(layer: Layer, heredoc: Heredoc, field: str) -> Finding:
    message = (
        f"`{field}` looks like a field of a template, to be replaced before the command "
        f"runs (a runbook's placeholder); as it stands, bash reads a heredoc "
        f"`<<{heredoc.delimiter}` that is never terminated"
    )
    return finding(
        layer, "HL112", "template-field", message, heredoc.op_start, heredoc.op_start + 2
    )


def _finding(
    layer: Layer,
    context: Context,
    heredoc: Heredoc,
    candidate: Candidate | None,
    outer: Heredoc | None,
) -> Finding:
    """HL112 at `heredoc`; `outer`: the unterminated heredoc whose body holds it."""
    width = 3 if heredoc.strip_tabs else 2
    op = layer.text[heredoc.op_start : heredoc.op_end]
    end = _end_of(layer)
    op_line = layer.text.count("\n", 0, heredoc.op_start) + 1
    hidden = ""
    if outer is not None:
        outer_op = layer.text[outer.op_start : outer.op_end]
        outer_line = _line_number(layer, context, outer.op_start)
        hidden = (
            f" either (it is inside the text that `{outer_op}` of line {outer_line} swallows, "
            "and breaks the script again once that one is mended)"
        )
    if candidate is None:
        message = (
            f"The heredoc `{op}` is never terminated{hidden}: no line is exactly "
            f'`{heredoc.delimiter}`, so bash reads its body to {end} ("warning: '
            f'here-document at line {op_line} delimited by end-of-file") and everything '
            "after it becomes heredoc text instead of commands"
        )
        return finding(
            layer, "HL112", "never-terminated", message, heredoc.op_start, heredoc.op_start + width
        )
    line = _line_number(layer, context, candidate.start)
    shown = layer.text[candidate.start : candidate.end].replace("\r", "\\r")
    following = _after(layer, candidate.end + 1)
    if following is not None:
        swallowed = (
            f"the commands after it (from `{quote_snippet(following, 40)}` on) become "
            "heredoc text and never run"
        )
    else:
        swallowed = f"the line `{shown.strip()}` ends up in the heredoc text"
    message = (
        f"The heredoc `{op}` is never terminated{hidden}: line {line} `{shown}` "
        f'{_problem(heredoc, candidate)}. bash reads the body to {end} ("warning: '
        f'here-document at line {op_line} delimited by end-of-file"), so {swallowed}'
    )
    return finding(
        layer,
        "HL112",
        "near-miss-terminator",
        message,
        heredoc.op_start,
        heredoc.op_start + width,
        _fix(layer, heredoc, candidate),
    )


# -- examples (tests/test_rule_lists.py) ---------------------------------------------------
INVALID = (
    Invalid(
        "#!/bin/bash\ncat > /etc/motd <<EOF\nHello\n  EOF\necho done\n",
        "<<",
        "#!/bin/bash\ncat > /etc/motd <<EOF\nHello\nEOF\necho done\n",
        "error",
        "never terminated: line 4 `  EOF` is indented; "
        "without <<- the terminator must start the line",
    ),
    Invalid(
        "cat <<-EOF\n\thi\n    EOF\necho done\n",
        "<<-",
        "cat <<-EOF\n\thi\nEOF\necho done\n",
        "error",
        "never terminated: line 3 `    EOF` is indented with spaces; <<- strips only leading tabs",
    ),
    Invalid(
        "cat <<EOF\nhi\n\tEOF\necho done\n",
        "<<",
        "cat <<EOF\nhi\nEOF\necho done\n",
        "error",
        "never terminated: line 3 `\tEOF` is indented",
    ),
    Invalid(
        "cat <<EOF\nhi\nEOF  \necho done\n",
        "<<",
        "cat <<EOF\nhi\nEOF\necho done\n",
        "error",
        "never terminated: line 3 `EOF  ` has trailing whitespace after the delimiter",
    ),
    Invalid(
        "cat <<EOF\nhi\nEOF\r\necho done\n",
        "<<",
        "cat <<EOF\nhi\nEOF\necho done\n",
        "error",
        "never terminated: line 3 `EOF\\r` ends in a carriage return",
    ),
    Invalid(
        "cat <<EOF\nhi\nEOF; echo done\necho more\n",
        "<<",
        "cat <<EOF\nhi\nEOF\necho done\necho more\n",
        "error",
        "never terminated: line 3 `EOF; echo done` has `; echo done` after the delimiter",
    ),
    Invalid(
        "cat << 'END' > f\nhi\nEND && echo ok\n",
        "<<",
        None,
        "error",
        "never terminated: line 3 `END && echo ok` has `&& echo ok` after the delimiter",
    ),
    Invalid(
        "cat <<EOF\nhi\nEOFX\necho done\n",
        "<<",
        None,
        "info",
        "never terminated: no line is exactly `EOF`",
    ),
    Invalid(
        "echo start\ncat <<EOF", "<<", None, "info", "never terminated: no line is exactly `EOF`"
    ),
    # fixes: the terminator the author meant, written right
    Invalid("cat <<EOF\nhi\n  EOF\necho done\n", "<<", "cat <<EOF\nhi\nEOF\necho done\n"),
    Invalid("cat <<EOF\nhi\nEOF \t\necho done\n", "<<", "cat <<EOF\nhi\nEOF\necho done\n"),
    Invalid("cat <<EOF\nhi\nEOF; echo done\n", "<<", "cat <<EOF\nhi\nEOF\necho done\n"),
    Invalid(
        "if true; then\n\tcat <<-EOF\n\thi\n  EOF\nfi\n",
        "<<-",
        "if true; then\n\tcat <<-EOF\n\thi\n\tEOF\nfi\n",
    ),
    Invalid(
        'ssh h "cat > f <<EOF\nhi\n  EOF\necho ok"\n',
        "<<",
        'ssh h "cat > f <<EOF\nhi\nEOF\necho ok"\n',
    ),
)
VALID = (
    "cat <<EOF\nhi\nEOF\necho done\n",
    "cat <<-EOF\n\thi\n\tEOF\necho done\n",
    "cat <<'EOF'\n  EOF is fine inside\nEOF\n",
    "cat <<EOF\r\nhi\r\nEOF\r\necho done\r\n",  # CRLF throughout: the word ends in \r too
    "x=$(cat <<EOF\nhi\nEOF\n)\n",
    "cat <<EOF\nhi\nEOF",  # no final newline
    "cat <<A <<B\na\nA\nb\nB\n",
    'ssh web-1 "cat > f <<EOF\nhi\nEOF"\n',
    "echo '<<EOF'\n",
)


RULE = rule(
    "HL112",
    "heredoc-terminator",
    check,
    fix=FixAvailability.SOMETIMES,
)
