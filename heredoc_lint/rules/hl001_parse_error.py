r"""## What it does
Reports a layer that cannot be parsed as shell: the file itself, or a string
that a wrapper (`ssh host "..."`, `bash -c '...'`) hands to another shell.

## Why is this bad?
A string that does not parse fails on the remote side with a syntax error,
often after the commands before it have already run. And nothing inside an
unparsable region can be checked, so other bugs there stay hidden.

## Example
```bash
ssh web-1 "if true; then echo ok"
```

## Use instead
```bash
ssh web-1 "if true; then echo ok; fi"
```

## Fix safety
No fix: only the author knows what was meant.
"""

from __future__ import annotations

from collections.abc import Iterator

from heredoc_lint.layers import Layer
from heredoc_lint.model import Finding, Severity
from heredoc_lint.rules.base import Context, Rule, finding, where


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    errors = layer.script.errors
    if not errors:
        return
    first = errors[0]
    bad = layer.text[first.start : first.start + 1]
    shown = repr(bad)[1:-1] if bad else "end of text"
    yield finding(
        layer,
        "HL001",
        Severity.WARNING,
        f"{where(layer).capitalize()} cannot be parsed near `{shown}`; the rest of it "
        "was checked, this region was not",
        first.start,
        first.start + 1,
    )


RULE = Rule("HL001", "parse-error", Severity.WARNING, "A layer that cannot be parsed.",
            __doc__ or "", check)
