"""The page a diagnostic's codeDescription links to, for a copy installed without docs/."""

from __future__ import annotations

import os
from pathlib import Path

from heredoc_lint import severities
from heredoc_lint.lsp.diagnostics import rendered_rules_doc
from heredoc_lint.rules import RULES
from heredoc_lint.rules.doc import anchor, render


def test_the_installed_copy_links_to_a_rendered_page_with_every_rule(tmp_path: Path) -> None:
    path = rendered_rules_doc(tmp_path)
    assert path.parent == tmp_path / "heredoc-lint"
    page = path.read_text(encoding="utf-8")
    assert page == render() == (Path(__file__).parents[1] / "docs" / "rules.md").read_text()
    for rule in RULES:
        # The fragment the diagnostic carries names the rule's own heading.
        assert f"(#{anchor(rule.code, rule.name)})" in page
        assert f"\n## {rule.code} {rule.name}\n" in page
        # Its section ends with the severity each evidence of the rule gets.
        own = page.split(f"\n## {rule.code} {rule.name}\n", 1)[1].split("\n## ", 1)[0]
        assert "\n### Severity by evidence\n" in own
        table = own.split("\n### Severity by evidence\n", 1)[1]
        for evidence, row in severities.rows(rule.code):
            assert f"\n| `{evidence}` | {row.severity.value} |" in table, (rule.code, evidence)


def test_the_page_is_written_once_and_mended_when_changed(tmp_path: Path) -> None:
    path = rendered_rules_doc(tmp_path)
    os.utime(path, ns=(1, 1))
    assert rendered_rules_doc(tmp_path) == path and path.stat().st_mtime_ns == 1
    path.write_text("stale", encoding="utf-8")
    assert rendered_rules_doc(tmp_path).read_text(encoding="utf-8") == render()


def test_an_unwritable_cache_falls_back_to_the_temp_directory(tmp_path: Path) -> None:
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    path = rendered_rules_doc(blocker)
    assert not path.is_relative_to(blocker)
    assert path.read_text(encoding="utf-8") == render()
