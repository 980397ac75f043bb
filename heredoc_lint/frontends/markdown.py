"""Markdown runbooks: the shell in fenced code blocks.

Fenced blocks are found by a CommonMark parser (markdown-it-py, imported only when
a document may hold a shell fence), so a fence is what a renderer shows: one
indented past its list item's content is paragraph text, one in a nested list
ends with its item, one in an HTML comment or in indented code is no fence.
mkdocs admonitions, details and content tabs (`!!! note`, `??? tip`,
`=== "Tab"`) hold Markdown indented four spaces, which CommonMark reads as
indented code; mkdocs renders it as Markdown, so the body of each is read again
as a document of its own, fences and all.  A line like ```` ```bash ```` closes
no fence (a closing fence has no info string), but its author meant it to: the
block is cut there, and the prose between such a line and the next one is not
read as shell (see `_parts`).

A block whose info string's first word is `bash`, `sh`, `shell` or `zsh` is one
layer-0 text, as if pasted into an interactive shell; so is a block with no info
string whose first line is a shell's shebang (`#!/bin/bash`): a script shown whole.
A `console` block (also `shell-session`, `sh-session`) is a transcript: only the
commands count.  A line that starts with a prompt starts one (the prompt is not part
of it): `$ `, or a prompt with a user, host or directory before the `$`, `#` or `%`
(`user@host:~$ `, `[root@host dir]# `, `~/src$ `, `(venv) $ `), or a bare word before
it (`zynq$ `)
when the block's first line that is no comment starts with that same prompt.  A
bare `# ` or `% ` is a root or zsh prompt only in a block with no other kind of
prompt that starts with one, and before a command word (`# Install it` is a
comment).  The lines that continue a command are kept (after a trailing
backslash, a trailing `|` or `&&`, inside an open quote or heredoc, or shown
with the continuation prompt `> `, which is removed; the lines of a heredoc or a quoted
string set under the command lose the prompt's width of spaces), and every other line is
output and skipped.  A shell-tagged block whose first line that is no comment
starts with a prompt is a transcript too: no script starts so (`$ ls` runs a
command named `$`). A block with no language (a fence without an info string, or
indented code) is read only as such a transcript, when its first line that is no
comment starts with a `$ ` prompt: it shows commands typed at a shell.  A fence with
no language, or indented code, whose first line that is no comment is a `sudo` command
is a bash block: commands to paste into a shell (no other language starts a line with
`sudo `).

Each character of a text keeps the file offset it came from (container markers,
list indentation and prompts are not part of the text), so findings land on the
exact line and column, and fixes are put back with each line's prefix restored.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from heredoc_lint.frontends import Fragment
from heredoc_lint.frontends.blocks import Prefix, TextBuilder, block_encoder, is_verbatim
from heredoc_lint.shell.heredoc import mask_heredocs, scan_heredocs

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

SHELL_TAGS = frozenset({"bash", "sh", "shell", "zsh"})
CONSOLE_TAGS = frozenset({"console", "shell-session", "sh-session", "shellsession"})
_TAGS = SHELL_TAGS | CONSOLE_TAGS

# A document without a fence whose info string may name one of the tags holds no block
# to check: it is not parsed at all (nor is the parser imported).
_MAY_HOLD_SHELL = re.compile(
    r"(?:`{3}|~{3})[^\S\n]*\{?[^\S\n]*\.?"
    r"(?:bash|sh|shell|zsh|console|shell-?session|sh-session)(?![^\s,{}])"
    r"|(?:`{3}|~{3})[^\S\n]*\n[ \t>]*#!"  # a fence with no language, then a shebang
    r"|(?:`{3}|~{3})[^\S\n]*\n(?:[ \t>]*#[^\n]*\n)*[ \t>]*(?:\$[ ]|sudo[ \t])"  # `$ `, `sudo`
    r"|(?:^|\n)(?:[ ]{4}|\t)[ \t]*(?:\$[ ]|sudo[ \t])",  # indented code: a prompt, `sudo`
    re.IGNORECASE,
)
# A block with no language (a fence without an info string, or indented code) is read
# only as a transcript: when its first line that is no comment starts with a `$ ` prompt.
_TRANSCRIPT = "transcript"
# A shell script's first line: a fence with no language that starts so holds one.
_SHEBANG = re.compile(r"#![ \t]*/(?:usr/)?bin/(?:env[ \t]+)?(bash|sh|zsh|dash|ksh)\b")
_LINE_BREAK = re.compile(r"\r\n?|\n")  # CommonMark's line endings, as markdown-it splits
_MKDOCS_HEADER = re.compile(r'([ ]*)(?:(?:!!!|\?\?\?\+?)[ ]?[\w-]|===(?:\+!?|!\+?)?[ ]+")')
_MKDOCS_INDENT = 4
_MKDOCS_NESTING = 8  # deeper bodies are not read again (each level is parsed once more)


@dataclass(frozen=True)
class _Line:
    start: int  # file offset of the line
    end: int  # end of its text (before `\r\n`, `\r` or `\n`)
    next: int  # start of the next line


@dataclass(frozen=True)
class _Document:
    """What the parser reads: lines of the file, each from an offset on (an mkdocs
    body's lines start past the indentation of its block)."""

    firsts: tuple[int, ...]  # file offset of each line
    starts: tuple[int, ...]  # where its text for the parser starts
    ends: tuple[int, ...]  # where it ends (before the line break)
    nexts: tuple[int, ...]  # where the next line starts
    whole: bool = False  # the whole file, as it is

    def __len__(self) -> int:
        return len(self.firsts)

    def line(self, k: int) -> _Line:
        return _Line(self.firsts[k], self.ends[k], self.nexts[k])

    def text(self, file_text: str) -> str:
        if self.whole:
            return file_text  # the parser takes the same line breaks as _file_document
        # Every line ends with a break, as in the file (where the last one may have none:
        # that changes nothing the parser sees, and an empty last line stays a line).
        return "".join(f"{file_text[s:e]}\n" for s, e in zip(self.starts, self.ends, strict=True))


@dataclass(frozen=True)
class _Row:
    """One line of a block's content: `virtual` + file_text[start:end], and its break."""

    virtual: str  # spaces the parser made of a tab partly used as indentation
    anchor: int  # the file offset they stand for (that tab)
    start: int
    end: int
    newline: int | None  # file offset of the line break; None at the end of the file

    def text(self, file_text: str) -> str:
        return self.virtual + file_text[self.start : self.end]

    def add(self, builder: TextBuilder, file_text: str, skip: int = 0) -> None:
        """Append the row from its `skip`th character on, with its line break."""
        for c in self.virtual[skip:]:
            builder.add_char(c, self.anchor)
        builder.add(file_text, self.start + max(0, skip - len(self.virtual)), self.end)
        if self.newline is not None:
            builder.add_char("\n", self.newline)


@dataclass(frozen=True)
class _Block:
    tag: str
    prefix: str  # what stands before a content line in the file: markers and indentation
    rows: tuple[_Row, ...]


@functools.cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    # Only the block structure matters: inline parsing (emphasis, links) is off.
    return MarkdownIt("commonmark").disable("inline")


def _file_document(text: str) -> _Document:
    breaks = [(m.start(), m.end()) for m in _LINE_BREAK.finditer(text)]
    if not breaks or breaks[-1][1] < len(text):
        breaks.append((len(text), len(text)))  # the last line, without a break
    if not text:
        breaks = []
    nexts = tuple(b for _, b in breaks)
    firsts = (0, *nexts[:-1]) if nexts else ()
    return _Document(firsts, firsts, tuple(a for a, _ in breaks), nexts, whole=True)


def _tag(info: str) -> str:
    info = info.strip().lstrip("{").strip()
    words = re.split(r"[\s,{}]+", info, maxsplit=1)
    return words[0].lstrip(".").lower() if words else ""


def _columns_to(text: str, start: int, end: int, width: int) -> int | None:
    """Offset after `width` columns of indentation at text[start:end] (a tab goes to the
    next multiple of four); None if the line is indented less."""
    column = 0
    pos = start
    while column < width:
        if pos >= end:
            return None
        c = text[pos]
        if c == " ":
            column += 1
        elif c == "\t":
            column += 4 - column % 4
        else:
            return None
        pos += 1
    return pos


def _mkdocs_body(file_text: str, doc: _Document, at: int) -> _Document | None:
    """The body of the mkdocs block whose header is the line `at`, dedented; None if the
    line is no header or nothing is indented under it."""
    header = _MKDOCS_HEADER.match(file_text, doc.starts[at], doc.ends[at])
    if header is None:
        return None
    width = len(header.group(1)) + _MKDOCS_INDENT
    starts: list[int] = []
    kept = 0  # lines up to the last one with text: trailing blank lines are not the body's
    for k in range(at + 1, len(doc)):
        start, end = doc.starts[k], doc.ends[k]
        if not file_text[start:end].strip():
            starts.append(end)
            continue
        cut = _columns_to(file_text, start, end, width)
        if cut is None:
            break
        starts.append(cut)
        kept = len(starts)
    if not kept:
        return None
    body = slice(at + 1, at + 1 + kept)
    return _Document(doc.firsts[body], tuple(starts[:kept]), doc.ends[body], doc.nexts[body])


def _row(file_text: str, line: _Line, start: int, content: str) -> _Row:
    """The row whose parsed content is `content`: the end of the line's text from `start`
    (the parser took the markers and indentation off), but for spaces it made of a tab."""
    newline = line.next - 1 if line.next > line.end else None
    if file_text.endswith(content, start, line.end):
        return _Row("", line.end - len(content), line.end - len(content), line.end, newline)
    # The parser wrote U+FFFD for NUL, and spaces for the columns of a tab it split.
    i, j = len(content) - 1, line.end - 1
    while (
        i >= 0
        and j >= start
        and (content[i] == file_text[j] or (content[i] == "\ufffd" and file_text[j] == "\0"))
    ):
        i -= 1
        j -= 1
    return _Row(content[: i + 1], max(start, j), j + 1, line.end, newline)


def _prefix(file_text: str, line: _Line, start: int, markup: str) -> str:
    """What stands before the opening fence: blockquote markers kept, a list marker as
    the spaces it stands for on the item's other lines."""
    fence = file_text.find(markup, start, line.end)
    before = file_text[line.start : fence if fence >= 0 else start]
    return re.sub(r"[^>\s]", " ", before)


def _parts(texts: list[str], markup: str, info: str, closed: bool) -> list[tuple[int, int, str]]:
    """The spans of `texts` (a fence's content lines) that its author meant as code, and
    the tag of each.

    A line like ```` ```bash ```` closes no fence (a closing fence has no info string),
    and a renderer shows what follows as code; but it was meant to close one, or (when
    the closing fence was forgotten) to open the next.  So the content is cut at each
    such line: the first part is code, then every other one (prose between a mistaken
    closing line and the next opening one), and the last part too when a real closing
    fence ends it; a part after such a line has that line's tag.
    """
    opening = re.compile(
        rf"[ ]{{0,3}}{re.escape(markup[0])}{{{len(markup)},}}[ \t]*(?P<info>[^\s`~].*)"
    )
    cuts = [(k, m.group("info")) for k, m in enumerate(map(opening.match, texts)) if m]
    bounds = [(-1, info), *cuts, (len(texts), "")]
    spans = [(bounds[i][0] + 1, bounds[i + 1][0], bounds[i][1]) for i in range(len(bounds) - 1)]
    return [
        (a, b, _tag(tag) or _script_tag(texts[a] if a < b else ""))
        for i, (a, b, tag) in enumerate(spans)
        if i % 2 == 0 or (closed and i == len(spans) - 1)
    ]


def _script_tag(first: str) -> str:
    """The tag a fence with no language has when its first line is a shell's shebang
    (`#!/bin/bash`, `#!/usr/bin/env sh`): that shell's ("bash" for dash and ksh)."""
    shebang = _SHEBANG.match(first.strip())
    if shebang is None:
        return ""
    shell = shebang.group(1)
    return shell if shell in SHELL_TAGS else "bash"


def _fence_blocks(file_text: str, doc: _Document, token: Token) -> list[_Block]:
    assert token.map is not None
    content = token.content
    untagged = not token.info.strip()
    untagged_script = untagged and _SHEBANG.match(content.lstrip()) is not None
    if (
        _tag(token.info) not in _TAGS
        and token.markup[0] * 3 not in content
        and not untagged_script
        and not (untagged and (_DOLLAR_LEAD.match(content) or _SUDO_LEAD.match(content)))
    ):
        return []  # another language, and no line in it that was meant as a fence
    opening, after = token.map
    texts = content.split("\n") if content else []
    if content.endswith("\n"):
        texts.pop()
    if opening + len(texts) >= len(doc):
        return []  # never: the parser's lines are the document's
    closed = after - opening == len(texts) + 2  # the closing fence is the last line
    prefix = _prefix(file_text, doc.line(opening), doc.starts[opening], token.markup)
    return [
        _Block(
            tag,
            prefix,
            tuple(
                _row(file_text, doc.line(opening + 1 + k), doc.starts[opening + 1 + k], texts[k])
                for k in range(a, b)
            ),
        )
        for a, b, tag in _untagged_tags(texts, _parts(texts, token.markup, token.info, closed))
        if tag in _TAGS or tag == _TRANSCRIPT
    ]


# The first line that is no comment and not blank starts with `$ `, or with `sudo `.
_DOLLAR_LEAD = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*\$[ ]")
_SUDO_LEAD = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*sudo[ \t]")


def _untagged_tags(
    texts: list[str], parts: list[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """`parts` with each part that has no tag tagged by how it starts: a transcript with
    a prompt, bash with a `sudo` command (commands to paste into a shell)."""
    tagged = []
    for a, b, tag in parts:
        if not tag:
            part = "\n".join(texts[a:b])
            if _DOLLAR_LEAD.match(part):
                tag = _TRANSCRIPT
            elif _SUDO_LEAD.match(part):
                tag = "bash"
        tagged.append((a, b, tag))
    return tagged


def _indented_block(file_text: str, doc: _Document, token: Token) -> list[_Block]:
    """Indented code that starts with a `$ ` prompt (a transcript) or with a `sudo`
    command (bash, as a fence without a language that starts so)."""
    assert token.map is not None
    if _DOLLAR_LEAD.match(token.content):
        tag = _TRANSCRIPT
    elif _SUDO_LEAD.match(token.content):
        tag = "bash"
    else:
        return []
    opening, _ = token.map
    texts = token.content.split("\n")
    if token.content.endswith("\n"):
        texts.pop()
    if opening + len(texts) > len(doc):
        return []  # never: the parser's lines are the document's
    rows = tuple(
        _row(file_text, doc.line(opening + k), doc.starts[opening + k], texts[k])
        for k in range(len(texts))
    )
    if tag == _TRANSCRIPT:
        return [_Block(tag, "", rows)]
    # What stands before the code on its first line (the block's indentation, list and
    # blockquote markers as spaces): a line a fix adds gets it too, to stay in the block.
    first = next((k for k, text in enumerate(texts) if text.strip()), 0)
    line = doc.line(opening + first)
    if rows[first].virtual:
        return []  # a tab split into columns: no prefix of whole characters
    prefix = re.sub(r"[^>\s]", " ", file_text[line.start : rows[first].start])
    return [_Block(tag, prefix, rows)]


def _blocks(file_text: str, doc: _Document, nesting: int = 0) -> list[_Block]:
    tokens = _parser().parse(doc.text(file_text))
    blocks: list[_Block] = []
    read_again = -1  # the lines before this one are an mkdocs body, read on their own
    for token in tokens:
        if token.map is None:
            continue
        first, last = token.map
        if token.type == "paragraph_open" and nesting < _MKDOCS_NESTING:
            for at in range(first, last):
                body = _mkdocs_body(file_text, doc, at) if at >= read_again else None
                if body is not None:
                    blocks.extend(_blocks(file_text, body, nesting + 1))
                    read_again = at + 1 + len(body)
        elif token.type == "fence" and first >= read_again:
            blocks.extend(_fence_blocks(file_text, doc, token))
        elif token.type == "code_block" and first >= read_again:
            blocks.extend(_indented_block(file_text, doc, token))
    return blocks


# A prompt: what an interactive shell prints before a command, as transcripts show it.
_PROMPT = re.compile(
    r"""
    (?:\([\w.@-]+\)[ ])?                              # (venv), (base)
    (?:
        (?P<strong>
            \[[^\[\]]*[@:\s][^\[\]]*\]                # [root@host dir]
          | [\w.-]+@[\w.-]+(?::\S*?)?                 # user@host, user@host:~/src
          | [\w.-]+:[~/]\S*?(?:[ ][\w.-]+)?           # host:~/src, host:~ user
          | [~/]\S*?                                  # ~/src, / (busybox)
        )[ ]?
      | (?P<word>[A-Za-z][\w.-]*)                     # zynq, bash-5.1
    )?
    (?P<sigil>[$\#%])(?:[ ]|$)
    """,
    re.VERBOSE,
)


_LEADS = re.compile(r"[ \t]*[^\s#]")
_COMMAND_WORD = re.compile(r"[a-z_./~][\w./~+-]*(?:[ \t]|$)")


def _prompts(rows: list[str], *, console: bool) -> list[int | None] | None:
    """Where the command starts on each row that starts with a prompt (None: output);
    None for a shell-tagged block that is no transcript."""
    matches = [_PROMPT.match(row) for row in rows]
    # The first line that is no comment: a transcript starts with a prompt there.
    lead = next((m for m, row in zip(matches, rows, strict=True) if _LEADS.match(row)), None)

    def bare_hash(m: re.Match[str]) -> bool:
        return not m.group("strong") and not m.group("word") and m.group("sigil") != "$"

    word = lead.group("word") if lead is not None else None

    def command_after(m: re.Match[str]) -> bool:
        # What reads as a command, not as a sentence (`# Create the user`).
        return _COMMAND_WORD.match(m.string, m.end()) is not None

    # A bare `#` or `%` is a prompt only where no other kind of prompt is (it is a
    # comment in a transcript with `$ ` prompts, and in a script), and where the
    # block starts with one, before a command: `kubectl get pods` and then
    # `# output` is a script with comments.
    first = next((m for m, row in zip(matches, rows, strict=True) if row.strip()), None)
    hashes = (
        first is not None
        and bare_hash(first)
        and command_after(first)
        and all(bare_hash(m) for m in matches if m is not None)
    )

    def accepted(m: re.Match[str] | None) -> bool:
        if m is None:
            return False
        if bare_hash(m):
            return hashes and command_after(m)
        return m.group("word") is None or m.group("word") == word

    if not console and (not accepted(lead) or (lead is not None and bare_hash(lead))):
        return None
    return [m.end() if m is not None and accepted(m) else None for m in matches]


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
        if top in ('"', "`"):
            i = _through_quotes(text, i, stack)
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
            end = _single_quoted_end(text, i)
            if end is None:
                return True
            i = end
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


def _through_quotes(text: str, i: int, stack: list[str]) -> int:
    """Read on from `i` while the innermost open quote (the top of `stack`) is a double
    quote or a backtick, opening and closing them on `stack`: where the text is next
    unquoted or inside a `$(`, or its end."""
    n = len(text)
    while i < n and stack and stack[-1] in ('"', "`"):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if stack[-1] == '"':
            if c == '"':
                stack.pop()
            elif c == "`":
                stack.append("`")
            elif text.startswith("$(", i):
                stack.append(")")
                i += 1
        elif c == "`":
            stack.pop()
        i += 1
    return i


def _single_quoted_end(text: str, i: int) -> int | None:
    """The offset after the `'...'` or `$'...'` string that starts at `i` (in `$'...'` a
    backslash escapes the next character, a quote too); None when it does not end."""
    dollar = text[i] == "$"
    i += 2 if dollar else 1
    n = len(text)
    while i < n and text[i] != "'":
        i += 2 if dollar and text[i] == "\\" else 1
    return i + 1 if i < n else None


def needs_more(command: str) -> bool:
    """Would an interactive shell ask for another line after `command`?"""
    text = _whole_lines(command)
    return _inside(text) or _continued(text)


def _whole_lines(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def _continued(text: str) -> bool:
    """Whether the last line of `text` (whole lines) goes on past its end: a trailing
    backslash, `|` or `&&`."""
    last = text[:-1].rsplit("\n", 1)[-1]
    if _odd_backslash_end(last):
        return True
    stripped = last.rstrip()
    return stripped.endswith(("|", "&&")) and not stripped.lstrip().startswith("#")


def _inside(text: str) -> bool:
    """Whether the line after `text` (whole lines) is in a heredoc's body or a quoted
    string: a line whose leading spaces are its text."""
    heredocs = scan_heredocs(text)
    return any(not h.terminated for h in heredocs) or bool(
        _open_quotes(mask_heredocs(text, heredocs))
    )


def _shell_fragment(text: str, block: _Block) -> Fragment | None:
    builder = TextBuilder()
    for row in block.rows:
        row.add(builder, text)
    if not builder.chars:
        return None
    fragment_text, offsets = builder.finish(0)
    return _fragment(text, fragment_text, offsets, block, console=False)


def _ps2(row: str) -> int | None:
    """Where a row shown with the `> ` continuation prompt goes on, if it has one."""
    if row.startswith("> "):
        return 2
    return 1 if row == ">" else None


def _console_fragment(text: str, block: _Block, prompts: list[int | None]) -> Fragment | None:
    builder = TextBuilder()
    rows = block.rows
    root_spans: list[tuple[int, int]] = []
    i = 0
    while i < len(rows):
        prompt = prompts[i]
        i += 1
        if prompt is None:
            continue  # output
        # `#` is the prompt of root's shell (bash's `\$`, zsh's `%#`): `root@host:~# cmd`.
        shown = rows[i - 1].text(text)[:prompt].rstrip()
        as_root = shown.endswith("#")
        command = TextBuilder()
        rows[i - 1].add(command, text, prompt)
        continued = True  # every continuation line so far had the `> ` prompt
        # A heredoc's body and terminator, or a quoted string's lines, set under the
        # command past the prompt's width of spaces: those spaces are the page's
        # layout, as `> ` is the shell's.  Known from the first such line not blank.
        aligned: int | None = None
        while i < len(rows) and prompts[i] is None:
            row = rows[i].text(text)
            after_prompt = _ps2(row)
            if continued and after_prompt is not None:
                rows[i].add(command, text, after_prompt)
            elif (inside := _inside(lines := _whole_lines(command.text))) or _continued(lines):
                continued = False
                skip = 0
                if inside:
                    spaces = len(row) - len(row.lstrip(" "))
                    if aligned is None and row.strip():
                        aligned = prompt if spaces >= prompt else 0
                    skip = min(spaces, aligned or 0)
                rows[i].add(command, text, skip)
            else:
                break
            i += 1
        if not command.text.strip():
            continue
        if command.chars[-1] != "\n":
            command.add_char("\n", command.offsets[-1] + 1)
        if as_root:
            root_spans.append((len(builder.chars), len(builder.chars) + len(command.chars)))
        builder.chars.extend(command.chars)
        builder.offsets.extend(command.offsets)
    if not builder.chars:
        return None
    fragment_text, offsets = builder.finish(0)
    fragment = _fragment(text, fragment_text, offsets, block, console=True)
    return replace(fragment, root_spans=tuple(root_spans)) if root_spans else fragment


def _fragment(
    text: str, body: str, offsets: tuple[int, ...], block: _Block, *, console: bool
) -> Fragment:
    markers = block.prefix[: block.prefix.rfind(">") + 1]  # what a blank line needs
    prefix = None if console else Prefix(block.prefix, markers, " >")

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
    if _MAY_HOLD_SHELL.search(text) is None:
        return []
    found: list[Fragment] = []
    for block in _blocks(text, _file_document(text)):
        console = block.tag in CONSOLE_TAGS
        prompts = _prompts([row.text(text) for row in block.rows], console=console)
        if prompts is None and block.tag == _TRANSCRIPT:
            continue  # no prompt the transcript reading accepts: not read as shell
        if prompts is None:
            fragment = _shell_fragment(text, block)
        else:
            fragment = _console_fragment(text, block, prompts)
        if fragment is not None:
            found.append(fragment)
    return found
