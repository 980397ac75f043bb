"""markdown files (placeholder: finds nothing yet)."""

from __future__ import annotations

from heredoc_lint.frontends import Fragment


def fragments(text: str, path: str | None = None) -> list[Fragment]:
    return []
