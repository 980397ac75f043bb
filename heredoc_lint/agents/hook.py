"""`heredoc-lint hook AGENT` (placeholder)."""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    sys.stderr.write("heredoc-lint: hook: not implemented yet\n")
    return 0
