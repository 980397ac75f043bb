"""Shared by the Markdown and workflow frontends: texts cut out of a file, line by line.

A fenced block in Markdown or a `run: |` block scalar in YAML is shell text
whose lines carry a prefix in the file (indentation, `> ` quote markers, a
`$ ` prompt).  `TextBuilder` collects such a text with the file offset of each
character; `block_encoder` turns an edit of the text back into an edit of the
file, putting the prefix back after every newline the edit inserts, and
refusing any edit it cannot map exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from heredoc_lint.frontends import EditEncoder
from heredoc_lint.model import Edit


@dataclass
class TextBuilder:
    """A text and the file offset of each of its characters."""

    chars: list[str] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)

    def add(self, file_text: str, start: int, end: int) -> None:
        """Append file_text[start:end] as it stands (a carriage return before a newline
        is left out: a pasted runbook or a runner's script file has none)."""
        segment = file_text[start:end]
        if "\r" not in segment:
            self.chars.extend(segment)
            self.offsets.extend(range(start, end))
            return
        for k in range(start, end):
            c = file_text[k]
            if c == "\r" and k + 1 < len(file_text) and file_text[k + 1] == "\n":
                continue
            self.chars.append(c)
            self.offsets.append(k)

    def add_char(self, char: str, offset: int) -> None:
        self.chars.append(char)
        self.offsets.append(offset)

    @property
    def text(self) -> str:
        return "".join(self.chars)

    def finish(self, empty_end: int) -> tuple[str, tuple[int, ...]]:
        """The text and its offsets, with the end: just after the last character's source
        (`empty_end` for an empty text)."""
        end = self.offsets[-1] + 1 if self.offsets else empty_end
        return self.text, (*self.offsets, end)


@dataclass(frozen=True)
class Prefix:
    """What stands before a line's text in the file."""

    full: str  # before a line with text: `> ` markers and indentation
    blank: str = ""  # before an empty line (a blockquote needs its `>` there too)
    gap_chars: str = " "  # characters a prefix in the file may consist of


def is_verbatim(file_text: str, text: str, offsets: Sequence[int]) -> bool:
    if len(offsets) < len(text):
        return False
    try:
        return "".join(map(file_text.__getitem__, offsets[: len(text)])) == text
    except IndexError:  # an offset at the end of the file: a character it does not hold
        return False


def block_encoder(
    file_text: str,
    text: str,
    offsets: Sequence[int],
    prefix: Prefix | None,
    content_ok: Callable[[str, int, int], bool] = lambda content, a, b: True,
    protected: Sequence[str] = (),
    transform: Callable[[str], str] = lambda content: content,
) -> EditEncoder:
    """An encoder for a text whose characters are file characters, line by line.

    `prefix` None: the text's lines are not contiguous in the file (prompts and
    output between them), so an edit may neither insert a newline nor span a gap.
    `content_ok(content, a, b)` may refuse content for the file span [a, b).
    `protected`: strings that stand for something else in the file (a `${{ }}`
    placeholder): content holding one is refused.  `transform` re-encodes content
    for the file (doubling `'` in a YAML single-quoted scalar...).
    """

    def encode(start: int, end: int, content: str) -> Edit | None:
        if not 0 <= start <= end <= len(text):
            return None
        if not is_verbatim(file_text, text[start:end], offsets[start:end]):
            return None  # a placeholder or an escape: the file holds other characters
        if any(p in content for p in protected):
            return None
        for k in range(start, end):
            # What the file holds between this character and the next one of the text.
            gap = file_text[offsets[k] + 1 : offsets[k + 1]]
            if not gap or (k == end - 1 and text[k] == "\n"):
                continue  # nothing, or after the range's last line: left as it is
            if gap == "\r" and k + 1 < len(text) and text[k + 1] == "\n":
                continue
            if prefix is None or text[k] != "\n" or gap.strip(prefix.gap_chars):
                return None  # an escape, a prompt or output lines: no exact edit
        a = offsets[start]
        b = offsets[end - 1] + 1 if end > start else a
        if end > start and text[end - 1] == "\n" and end < len(text) and prefix is not None:
            # Whole lines replaced: the next line's prefix goes too, and comes back below,
            # so that the prefix before `a` is not doubled.
            gap = file_text[b : offsets[end]]
            if not gap.strip(prefix.gap_chars):
                b = offsets[end]
        if not content_ok(content, a, b):
            return None
        if "\n" not in content:
            return Edit(a, b, transform(content))
        if prefix is None:
            return None
        out: list[str] = []
        at_line_start = a == 0 or file_text[a - 1] == "\n"
        if at_line_start and content[0] != "\n":
            out.append(prefix.full)
        rest_blank = b >= len(file_text) or file_text[b] in "\r\n"
        rest_at_line_start = b == 0 or file_text[b - 1] == "\n"
        for i, c in enumerate(content):
            out.append(c)
            if c != "\n":
                continue
            if i + 1 < len(content):
                out.append(prefix.blank if content[i + 1] == "\n" else prefix.full)
            elif not rest_at_line_start:
                out.append(prefix.blank if rest_blank else prefix.full)
        return Edit(a, b, transform("".join(out)))

    return encode
