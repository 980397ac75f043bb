"""What a run needs installed: the module each declared dependency provides, and the one
line that says which is missing (a Python without them is an installation problem, not an
internal error). tests/test_dependencies.py keeps the table and pyproject.toml in step.

Light on purpose (no imports from the package): the entry point reads it last, whatever
failed to import.
"""

from __future__ import annotations

import sys

# The top-level module of each runtime dependency of pyproject.toml (and of the `lsp`
# extra), with the distribution that provides it.
DISTRIBUTIONS = {
    "tree_sitter": "tree-sitter",
    "tree_sitter_bash": "tree-sitter-bash",
    "typer": "typer",
    "yaml": "PyYAML",
    "libcst": "libcst",
    "markdown_it": "markdown-it-py",
    "zstandard": "zstandard",
    "pygls": "pygls",
    "lsprotocol": "lsprotocol",
}


def missing(error: BaseException) -> str | None:
    """What to say when `error` is a dependency that this Python does not have; None for
    any other error."""
    if not isinstance(error, ModuleNotFoundError) or not error.name:
        return None
    module = error.name.split(".")[0]
    distribution = DISTRIBUTIONS.get(module)
    if distribution is None:
        return None
    return (
        f"the package {distribution} (module `{module}`) is not installed for "
        f"{sys.executable}: install heredoc-lint with its dependencies "
        "(`python3 -m pip install .` in a checkout, or `pip install heredoc-lint`)"
    )
