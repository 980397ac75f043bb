"""`heredoc-lint explain` (placeholder)."""

from __future__ import annotations


def explain(
    text: str, kind: str = "command", path: str | None = None, line: int | None = None
) -> str:
    return ""
