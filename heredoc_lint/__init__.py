"""heredoc-lint: find and fix the shell-quoting bugs that break remote commands."""

from __future__ import annotations

__version__ = "0.1.0"
