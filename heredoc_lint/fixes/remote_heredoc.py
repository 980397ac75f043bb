"""Rewrites of a heredoc inside a remote string into forms that cannot break.

Every strategy delivers the *intended body*: the heredoc body as the author
wrote it, with the outer layer's escapes undone and nothing expanded, which is
the text of the inner layer (see layers.py).  A body is only rewritten when it
is literal: a quoted delimiter, or no `$`, backtick or backslash in it.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

from heredoc_lint.edits import lift
from heredoc_lint.layers import Layer
from heredoc_lint.model import Applicability, Edit, Fix
from heredoc_lint.shell.heredoc import Heredoc
from heredoc_lint.shell.syntax import Command

STRATEGIES = ("base64", "scp", "stdin")


@dataclass(frozen=True)
class HeredocSite:
    """A heredoc of a string layer with the command it feeds."""

    layer: Layer
    heredoc: Heredoc
    command: Command

    @property
    def body(self) -> str:
        return self.heredoc.literal_value(self.layer.text)

    @property
    def literal(self) -> bool:
        return self.heredoc.quoted or not any(c in self.body for c in "$`\\")

    def removal_end(self) -> int:
        """End of the terminator line, its newline included."""
        end = self.heredoc.end
        text = self.layer.text
        return end + 1 if end < len(text) and text[end] == "\n" else end

    def operator_start(self) -> int:
        """Start of the `<<` with the blanks before it."""
        start = self.heredoc.op_start
        while start > self.command.start and self.layer.text[start - 1] in " \t":
            start -= 1
        return start


def find_site(layer: Layer, heredoc: Heredoc) -> HeredocSite | None:
    for command in layer.script.commands:
        if any(r.heredoc == heredoc for r in command.redirects):
            return HeredocSite(layer, heredoc, command)
    return None


def _lift_all(layer: Layer, edits: list[tuple[int, int, str]]) -> tuple[Edit, ...] | None:
    lifted = []
    for start, end, content in edits:
        edit = lift(layer, start, end, content)
        if edit is None:
            return None
        lifted.append(edit)
    return tuple(lifted)


def base64_fix(site: HeredocSite) -> Fix | None:
    """`cat > P << 'EOF' ... EOF` becomes `printf %s B64 | base64 -d > P`."""
    if not site.literal or not site.heredoc.terminated:
        return None
    heredocs = [r for r in site.command.redirects if r.heredoc is not None]
    if len(heredocs) != 1 or not site.command.words:
        return None
    encoded = base64.b64encode(site.body.encode("utf-8", "surrogateescape")).decode("ascii")
    feed = f"printf %s {encoded} | base64 -d"
    words = site.command.words
    edits: list[tuple[int, int, str]]
    if len(words) == 1 and words[0].static and words[0].value == "cat":
        edits = [(words[0].start, words[0].end, feed)]
    else:
        edits = [(site.command.start, site.command.start, feed + " | ")]
    edits.append((site.operator_start(), site.heredoc.op_end, ""))
    edits.append((site.heredoc.body_start, site.removal_end(), ""))
    lifted = _lift_all(site.layer, edits)
    if lifted is None:
        return None
    return Fix(
        lifted,
        Applicability.SAFE,
        "Send the body as base64 (`printf %s ... | base64 -d`): it passes every layer of "
        "quoting unchanged",
        "base64",
    )


def heredoc_fix(layer: Layer, heredoc: Heredoc, strategy: str) -> Fix | None:
    site = find_site(layer, heredoc)
    if site is None:
        return None
    if strategy == "base64":
        return base64_fix(site)
    return None
