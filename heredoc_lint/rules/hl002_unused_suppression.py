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
from heredoc_lint.rules.base import Context, FixAvailability, Invalid, rule


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    """Reported by the suppression filter (suppress.py), which sees the whole file."""
    return iter(())


# -- examples (tests/test_rule_lists.py) ---------------------------------------------------
# Run with every rule and `--warn-unused-suppressions` (tests/test_rule_lists.py).
INVALID = (
    Invalid(
        "echo x  # heredoc-lint: disable=HL103\n",
        "# heredoc-lint: disable=HL103",
        severity="warning",
        says="This suppression (HL103) silences no finding",
    ),
    Invalid(
        "# heredoc-lint: disable-file=HL109\necho hi\n",
        "# heredoc-lint: disable-file=HL109",
        says="(HL109)",
    ),
    Invalid(  # `sudo tee` opens the file as root: nothing for HL109 to silence
        "echo 1 | sudo tee /proc/sys/vm/overcommit_memory  # heredoc-lint: disable=HL109\n",
        "# heredoc-lint: disable=HL109",
        says="(HL109)",
    ),
)
VALID = (
    'ssh h "pkill -f app; ./app"  # heredoc-lint: disable=HL103\n',  # it silences HL103
    "ssh h uptime\n",  # no directive
    'echo "# heredoc-lint: disable=HL103"\nssh h uptime\n',  # a string, not a comment
    "# shellcheck disable=SC2087\nssh h uptime\n",  # ShellCheck's directive, not ours
)


RULE = rule(
    "HL002",
    "unused-suppression",
    check,
    fix=FixAvailability.NONE,
)
