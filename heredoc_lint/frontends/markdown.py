"""Markdown runbooks: the shell in fenced code blocks.

A block fenced with three or more backticks or tildes (CommonMark) whose info
string's first word is `bash`, `sh`, `shell` or `zsh` is one layer-0 text, as
if pasted into an interactive shell.  In a `console` block (also
`shell-session`, `sh-session`) only the commands count: a line starting with
the prompt `$ ` starts one (the prompt is not part of it), the lines that
continue it are kept (after a trailing backslash, a trailing `|` or `&&`,
inside an open quote or heredoc, or shown with the continuation prompt `> `,
which is removed), and every other line is output and skipped.  A `#` prompt
is not recognised: in a shell block it is a comment.

Fences may be indented or inside a blockquote (`> `): the indentation and
markers are taken off every line, and each character of the text keeps the
file offset it came from, so findings land on the exact line and column, and
fixes are put back with the prefix restored.  As in CommonMark, a fence in a
list item (`- ```bash`, or indented under `1. step`) ends with the item, at a
line indented less than the item's content, and one in a blockquote ends with
the blockquote; the test suite checks block contents against markdown-it-py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from heredoc_lint.frontends import Fragment
from heredoc_lint.frontends.blocks import (
    Prefix,
    TextBuilder,
    block_encoder,
    is_verbatim,
    line_spans,
)
from heredoc_lint.shell.heredoc import mask_heredocs, scan_heredocs

SHELL_TAGS = frozenset({"bash", "sh", "shell", "zsh"})
CONSOLE_TAGS = frozenset({"console", "shell-session", "sh-session", "shellsession"})

_CONTAINER = re.compile(r"(?:[ ]{0,3}>[ ]?)*")
_OPENING = re.compile(r"(?P<indent>[ ]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)")


@dataclass(frozen=True)
class _Line:
    start: int  # file offset of the line
    end: int  # end of its text (before `\r\n` or `\n`)
    next: int  # start of the next line


@dataclass
class _Block:
    tag: str
    markers: str  # the blockquote prefix of the opening line, as written
    depth: int  # how many `>` markers that is
    indent: int  # spaces before the opening fence
    lines: list[tuple[_Line, int]]  # each content line, and where it starts after the markers
    end: int  # where the text ends in the file: the closing fence's line, or the end


def _after_markers(text: str, line: _Line, depth: int) -> int | None:
    """Offset after the line's first `depth` blockquote markers; None if it has fewer."""
    if depth == 0:
        return line.start
    match = re.compile(rf"(?:[ ]{{0,3}}>[ ]?){{{depth}}}").match(text, line.start, line.end)
    return None if match is None else match.end()


def _tag(info: str) -> str:
    info = info.strip().lstrip("{").strip()
    words = re.split(r"[\s,{}]+", info, maxsplit=1)
    return words[0].lstrip(".").lower() if words else ""


_LIST_ITEM = re.compile(r"( *)([-+*]|[0-9]{1,9}[.)])( *)(?=\S|$)")


def _indentation(text: str, start: int, end: int) -> int:
    """Spaces at text[start:end]; a blank line counts as indented without limit."""
    pos = start
    while pos < end and text[pos] == " ":
        pos += 1
    return 1 << 30 if not text[pos:end].strip() else pos - start


def _item_column(
    text: str,
    lines: list[_Line],
    at: int,
    depth: int,
    indent: int,
    code: set[int],
    fences: set[int],
) -> int | None:
    """The content column of the list item that an indented fence at lines[at - 1] is in.

    Going back from the fence, the first list marker less indented than it starts the
    item (lines between are the item's own); a new paragraph at the margin, after a
    blank line, means the fence is in no list.  A fence in a list item ends with the
    item: at a line indented less than the item's content.
    """
    for k in range(at - 1, -1, -1):
        if k in code:
            continue  # the text of an earlier code block: no markers in it count
        body = _after_markers(text, lines[k], depth)
        if body is None:
            return None
        own = _indentation(text, body, lines[k].end)
        if own >= indent:
            continue
        match = _LIST_ITEM.match(text, body, lines[k].end)
        spaces = len(match.group(3)) if match is not None else 0
        if match is None or (spaces == 0 and match.end() < lines[k].end):  # `-x`: no item
            previous = _after_markers(text, lines[k - 1], depth) if k else None
            blank_before = k == 0 or (
                previous is not None and not text[previous : lines[k - 1].end].strip()
            )
            if own == 0 and blank_before:
                return None
            continue
        # Content after 1-4 spaces starts there; after 5 or more (indented code), or on
        # the next line, it starts one space after the marker.
        width = spaces if 1 <= spaces <= 4 and match.end() < lines[k].end else 1
        column = len(match.group(1)) + len(match.group(2)) + width
        goes_on = _item_goes_on(text, lines, k, at - 1, depth, column, code | fences)
        return column if goes_on else None
    return None


def _item_goes_on(
    text: str, lines: list[_Line], first: int, stop: int, depth: int, column: int, code: set[int]
) -> bool:
    """Does the list item starting at lines[first] still hold lines[stop]?

    A non-blank line indented less than the item's content ends it, unless it is a
    lazy continuation of a paragraph (the line before it is paragraph text).
    """
    text_before = True
    for j in range(first + 1, stop):
        body = _after_markers(text, lines[j], depth)
        if body is None:
            return False
        own = _indentation(text, body, lines[j].end)
        if own == 1 << 30:
            text_before = False
            continue
        if own < column and not (text_before and j not in code):
            return False
        text_before = j not in code
    return True


def _blocks(text: str) -> list[_Block]:
    lines = [_Line(*span) for span in line_spans(text)]
    blocks: list[_Block] = []
    code: set[int] = set()  # the content lines of earlier blocks
    fences: set[int] = set()  # their opening and closing lines
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        container = _CONTAINER.match(text, line.start, line.end)
        assert container is not None  # the pattern matches the empty string
        start = container.end()
        opening = _OPENING.fullmatch(text, start, line.end)
        item_start = _LIST_ITEM.match(text, start, line.end)
        if opening is None and item_start is not None and item_start.group(3):
            opening = _OPENING.fullmatch(text, item_start.end(), line.end)  # `- ```bash`
        if opening is None:
            continue
        fence = opening.group("fence")
        info = opening.group("info")
        if fence[0] == "`" and "`" in info:
            continue  # not a fence: an inline code span
        markers = container.group(0)
        depth = markers.count(">")
        indent = opening.start("fence") - start
        block = _Block(_tag(info), markers, depth, indent, [], len(text))
        item = _item_column(text, lines, i, depth, indent, code, fences) if indent else None
        fences.add(i - 1)
        if item is not None and indent < item:
            item = None  # less indented than the item's content: the list has ended
        # A closing fence is indented at most 3 spaces past its container's margin.
        limit = (item or 0) + 3
        closing = re.compile(rf"[ ]{{0,{limit}}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*")
        while i < len(lines):
            inner = lines[i]
            body = _after_markers(text, inner, depth)
            if body is None:
                block.end = inner.start  # the blockquote ended, and the block with it
                break
            if item is not None and _indentation(text, body, inner.end) < item:
                block.end = inner.start  # the list item ended, and the block with it
                break
            i += 1
            if closing.fullmatch(text, body, inner.end):
                fences.add(i - 1)
                block.end = inner.start
                break
            code.add(i - 1)
            block.lines.append((inner, body))
        blocks.append(block)
    return blocks


def _content_start(text: str, line: _Line, body: int, indent: int) -> int:
    """Offset of the line's content: after the markers and up to `indent` spaces."""
    pos = body
    while pos < line.end and pos - body < indent and text[pos] == " ":
        pos += 1
    return pos


def _odd_backslash_end(line: str) -> bool:
    stripped = len(line) - len(line.rstrip("\\"))
    return stripped % 2 == 1


def _open_quotes(text: str) -> bool:
    """Does `text` (heredoc bodies blanked) end inside a quote or a substitution?"""
    stack: list[str] = []
    i, n = 0, len(text)
    word_start = True
    while i < n:
        c = text[i]
        top = stack[-1] if stack else ""
        if top == '"':
            if c == "\\":
                i += 2
                continue
            if c == '"':
                stack.pop()
            elif c == "`":
                stack.append("`")
            elif text.startswith("$(", i):
                stack.append(")")
                i += 1
            i += 1
            continue
        if top == "`":
            if c == "\\":
                i += 2
                continue
            if c == "`":
                stack.pop()
            i += 1
            continue
        # unquoted, or inside $( ... )
        if c == "#" and word_start:
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
            continue
        if c == "\\":
            i += 2
            word_start = False
            continue
        if c == "'" or text.startswith("$'", i):
            i += 1 if c == "'" else 2
            while i < n and text[i] != "'":
                i += 2 if c == "$" and text[i] == "\\" else 1
            if i >= n:
                return True
            i += 1
            word_start = False
            continue
        if c == '"':
            stack.append('"')
        elif c == "`":
            stack.append("`")
        elif text.startswith("$(", i):
            stack.append(")")
            c = "("
            i += 1
        elif c == ")" and top == ")":
            stack.pop()
        word_start = c in " \t\n;&|()<>"
        i += 1
    return bool(stack)


def needs_more(command: str) -> bool:
    """Would an interactive shell ask for another line after `command`?"""
    text = command if command.endswith("\n") else command + "\n"
    heredocs = scan_heredocs(text)
    if any(not h.terminated for h in heredocs):
        return True
    if _open_quotes(mask_heredocs(text, heredocs)):
        return True
    last = text[:-1].rsplit("\n", 1)[-1]
    if _odd_backslash_end(last):
        return True
    stripped = last.rstrip()
    return stripped.endswith(("|", "&&")) and not stripped.lstrip().startswith("#")


def _shell_fragment(text: str, block: _Block) -> Fragment | None:
    builder = TextBuilder()
    for line, body in block.lines:
        builder.add(text, _content_start(text, line, body, block.indent), line.next)
    if not builder.chars:
        return None
    fragment_text, offsets = builder.finish(block.end)
    return _fragment(text, fragment_text, offsets, block, console=False)


def _ps2(text: str, line: _Line, content: int) -> int | None:
    """Offset after a `> ` continuation prompt at the line's content, if there is one."""
    if text.startswith("> ", content, line.end):
        return content + 2
    if content + 1 == line.end and text[content] == ">":
        return content + 1
    return None


def _console_fragment(text: str, block: _Block) -> Fragment | None:
    builder = TextBuilder()
    lines = block.lines
    i = 0
    while i < len(lines):
        line, body = lines[i]
        content = _content_start(text, line, body, block.indent)
        i += 1
        if not text.startswith("$ ", content, line.end):
            continue  # output
        command = TextBuilder()
        command.add(text, content + 2, line.next)
        prompts = True  # every continuation line so far had the `> ` prompt
        while i < len(lines):
            nxt, nxt_body = lines[i]
            start = _content_start(text, nxt, nxt_body, block.indent)
            if text.startswith("$ ", start, nxt.end) or (
                start + 1 == nxt.end and text[start] == "$"
            ):
                break
            after_prompt = _ps2(text, nxt, start)
            if prompts and after_prompt is not None:
                command.add(text, after_prompt, nxt.next)
            elif needs_more(command.text):
                prompts = False
                command.add(text, start, nxt.next)
            else:
                break
            i += 1
        if not command.text.strip():
            continue
        if command.chars[-1] != "\n":
            command.add_char("\n", command.offsets[-1] + 1)
        builder.chars.extend(command.chars)
        builder.offsets.extend(command.offsets)
    if not builder.chars:
        return None
    fragment_text, offsets = builder.finish(block.end)
    return _fragment(text, fragment_text, offsets, block, console=True)


def _fragment(
    text: str, body: str, offsets: tuple[int, ...], block: _Block, *, console: bool
) -> Fragment:
    indent = " " * block.indent
    markers = block.markers
    prefix = None if console else Prefix(markers + indent, markers.rstrip(), " >")

    def content_ok(content: str, a: int, b: int) -> bool:
        # An inserted line must not close the fence early.
        return not any(re.match(r"\s*(?:```|~~~)", line) for line in content.split("\n")[1:])

    shell = "zsh" if block.tag == "zsh" else "bash"
    return Fragment(
        body,
        offsets,
        shell=shell,
        cmdline=f"-{shell}",  # an interactive login shell: what a runbook is pasted into
        verbatim=is_verbatim(text, body, offsets[:-1]),
        encode_edit=block_encoder(text, body, offsets, prefix, content_ok),
    )


def fragments(text: str, path: str | None = None) -> list[Fragment]:
    found: list[Fragment] = []
    for block in _blocks(text):
        if block.tag in SHELL_TAGS:
            fragment = _shell_fragment(text, block)
        elif block.tag in CONSOLE_TAGS:
            fragment = _console_fragment(text, block)
        else:
            continue
        if fragment is not None:
            found.append(fragment)
    return found
