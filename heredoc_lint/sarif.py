"""SARIF 2.1.0 output (placeholder)."""

from __future__ import annotations

from collections.abc import Sequence

from heredoc_lint.output import FileReport


def render_sarif(reports: Sequence[FileReport]) -> str:
    return "{}\n"
