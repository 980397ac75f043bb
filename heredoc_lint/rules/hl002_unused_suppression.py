r"""A suppression comment that silences nothing.

## What it does
Reports a `# heredoc-lint: disable=...` (or, in Python, `# noqa: HL...`) comment
that silences no finding. Only with `--warn-unused-suppressions`.

## Why is this bad?
A suppression outlives the bug it was written for: once the command is fixed,
the stale comment would silently hide the next real finding on that line.

## Example
```bash
ssh h 'uptime'  # heredoc-lint: disable=HL103
```

## Use instead
```bash
ssh h 'uptime'
```

## Fix safety
No fix: delete the comment.
"""

from __future__ import annotations

from collections.abc import Iterator

from heredoc_lint.layers.layer import Layer
from heredoc_lint.model import Finding
from heredoc_lint.rules.base import Context, FixAvailability, rule


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    """Reported by the suppression filter (suppress.py), which sees the whole file."""
    return iter(())


RULE = rule(
    "HL002",
    "unused-suppression",
    check,
    fix=FixAvailability.NONE,
    triggers=frozenset(),  # reported by the suppression filter, which always runs
)
