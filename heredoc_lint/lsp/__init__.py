"""`heredoc-lint lsp`: a Language Server Protocol server (see server.py).

This package's modules import pygls and lsprotocol, an optional dependency (the `lsp`
extra): nothing else in heredoc-lint imports them, and `main` says how to install them.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    try:
        from heredoc_lint.lsp import server
    except ImportError as error:
        sys.stderr.write(
            f"heredoc-lint lsp: {error}: install the language server's dependencies with "
            "`pip install 'heredoc-lint[lsp]'` (pygls)\n"
        )
        return 2
    return server.main(argv)
