r"""## What it does
(placeholder: to be written)

## Why is this bad?

## Example

## Use instead

## Fix safety
"""

from __future__ import annotations

from collections.abc import Iterator

from heredoc_lint.layers import Layer
from heredoc_lint.model import Finding, Severity
from heredoc_lint.rules.base import Context, Rule


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    return iter(())


RULE = Rule(
    "HL201", "shell-interpolation-unquoted", Severity.WARNING, "(placeholder)", __doc__ or "", check
)
