"""The one reader of a rule module's docstring.

A rule's docstring is its documentation, in ruff's sections:

    One-line summary for the rules table.

    ## What it does
    ...
    ## Why is this bad?
    ...
    ## Example
    ```bash
    ...
    ```
    ## Use instead
    ...
    ## Fix safety
    ...

`rules.base.rule()` reads it once, when the rule module is imported; `heredoc-lint rule`,
docs/rules.md, SARIF and the tests that run the examples all read what it found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety")
# A "Fix safety" section that opens with one of these says the rule offers no fix that
# `--fix` applies (a display-only one is shown, never written).
NO_FIX = ("No fix", "Display-only")
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


class RuleDocError(ValueError):
    """A rule docstring without its summary or one of its sections: raised at import."""


@dataclass(frozen=True)
class RuleDoc:
    summary: str  # the docstring's first line
    text: str  # the sections, from `## What it does` to the end, as printed
    sections: tuple[tuple[str, str], ...]  # (title, body), in order

    def section(self, title: str) -> str:
        return next((body for name, body in self.sections if name == title), "")

    def blocks(self, title: str) -> tuple[tuple[str, str], ...]:
        """(language, text) of each fenced code block of a section."""
        return tuple((lang, body) for lang, body in _FENCE.findall(self.section(title)))

    @property
    def fixable(self) -> bool:
        """Whether the rule says it has a fix that `--fix` applies: its Fix safety section."""
        return not self.section("Fix safety").startswith(NO_FIX)


def sections(text: str) -> tuple[tuple[str, str], ...]:
    """The `## Heading` sections of `text`, outside code fences, with their stripped text;
    text before the first heading comes under the title ""."""
    found: list[tuple[str, list[str]]] = []
    fenced = False
    for line in text.strip().splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            found.append((line[3:].strip(), []))
        elif found:
            found[-1][1].append(line)
        elif line.strip():
            found.append(("", [line]))
    return tuple((title, "\n".join(body).strip()) for title, body in found)


def read(docstring: str | None, where: str) -> RuleDoc:
    """Split a rule docstring into its summary and sections; RuleDocError names what is
    missing (`where` says whose docstring it is)."""
    head, sep, rest = (docstring or "").partition("\n## ")
    summary = head.strip()
    if not summary or "\n" in summary:
        raise RuleDocError(f"{where}: the docstring must open with a one-line summary")
    if not sep:
        raise RuleDocError(f"{where}: the docstring has no `## What it does` section")
    text = "## " + rest
    found = sections(text)
    titles = tuple(title for title, _ in found)
    if titles != SECTIONS:
        raise RuleDocError(f"{where}: sections {titles}, expected {SECTIONS}")
    for title, body in found:
        if not body:
            raise RuleDocError(f"{where}: section {title!r} is empty")
    for title in ("Example", "Use instead"):
        if not _FENCE.search(dict(found)[title]):
            raise RuleDocError(f"{where}: section {title!r} has no code block")
    return RuleDoc(summary, text, found)
