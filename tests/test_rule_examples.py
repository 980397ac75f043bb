"""Each rule's documentation runs: its "Example" must produce the rule's finding, and its
"Use instead" must be clean of it (at the default severity, the one users see).

The examples are what `heredoc-lint rule CODE` and docs/rules.md show; an example that
finds nothing teaches users a rule that does not exist.
"""

from __future__ import annotations

import re

import pytest

from heredoc_lint.engine import check_text
from heredoc_lint.model import Severity
from heredoc_lint.rules import RULES, Rule

FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)
KINDS = {"bash": ("shell", "example.sh"), "sh": ("shell", "example.sh")}
KINDS |= {"python": ("python", "example.py"), "markdown": ("markdown", "example.md")}
# Rules about the file itself rather than a command: nothing to show in an example.
NO_EXAMPLE = {"HL002"}


def _section(doc: str, title: str) -> str:
    """The text of `## title` up to the next heading (headings inside fences skipped)."""
    lines = doc.splitlines()
    out: list[str] = []
    inside = fenced = False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            inside = line[3:].strip() == title
            continue
        if inside:
            out.append(line)
    return "\n".join(out)


def _blocks(rule: Rule, title: str) -> list[tuple[str, str]]:
    """(language, text) of each fenced block of a section in a language this tool reads."""
    return [
        (lang, body) for lang, body in FENCE.findall(_section(rule.doc, title)) if lang in KINDS
    ]


def _reported(rule: Rule, language: str, text: str) -> list[str]:
    kind, path = KINDS[language]
    return [
        f"{f.code} [{f.severity.value}] {f.message}"
        for f in check_text(text, kind, path)
        if f.code == rule.code and f.severity is not Severity.INFO
    ]


DOCUMENTED = [rule for rule in RULES if rule.code not in NO_EXAMPLE]


@pytest.mark.parametrize("rule", DOCUMENTED, ids=[r.code for r in DOCUMENTED])
def test_example_produces_the_finding(rule: Rule) -> None:
    blocks = _blocks(rule, "Example")
    assert blocks, f"{rule.code}: no bash/python block under '## Example'"
    for language, text in blocks:
        assert _reported(rule, language, text), (rule.code, text)


@pytest.mark.parametrize("rule", DOCUMENTED, ids=[r.code for r in DOCUMENTED])
def test_use_instead_is_clean(rule: Rule) -> None:
    blocks = _blocks(rule, "Use instead")
    assert blocks, f"{rule.code}: no bash/python block under '## Use instead'"
    for language, text in blocks:
        assert not _reported(rule, language, text), (rule.code, text)
