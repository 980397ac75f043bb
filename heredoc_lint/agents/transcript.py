"""`heredoc-lint transcript PATH...` (placeholder)."""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    sys.stderr.write("heredoc-lint: transcript: not implemented yet\n")
    return 2
