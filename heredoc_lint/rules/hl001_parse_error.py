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

Where tree-sitter-bash fails on text that bash itself accepts (extglob
patterns, `for i do`), checked with `bash -O extglob -n`, which parses without
running anything, the finding is only `info`: that region was not checked, but
it is not broken. The same holds for a string built from values known only at
run time (`eval "$1=..."`).

A file that holds nothing for the other rules to check (no `ssh`, `bash`,
`eval`, `pkill`, `sudo`, `scp`, `<<`...) is not parsed at all, so a syntax
error there is left to ShellCheck.

## Fix safety
No fix: only the author knows what was meant.
"""

from __future__ import annotations

from collections.abc import Iterator

from heredoc_lint.layers import Layer
from heredoc_lint.model import Finding, Severity
from heredoc_lint.rules.base import Context, Rule, finding, where
from heredoc_lint.shell.bash import bash_accepts


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    errors = layer.script.errors
    if not errors:
        return
    first = errors[0]
    bad = layer.text[first.start : first.start + 1]
    shown = repr(bad)[1:-1] if bad else "end of text"
    place = where(layer).capitalize()
    dynamic = any(e.start <= first.start for e in layer.local_expansions)
    if dynamic:
        severity = Severity.INFO
        message = (
            f"{place} is built from values known only at run time and does not parse "
            f"as written near `{shown}`; that region was not checked"
        )
    elif bash_accepts(layer.text):
        severity = Severity.INFO
        message = (
            f"tree-sitter-bash cannot parse {where(layer)} near `{shown}` (bash can); "
            "that region was not checked"
        )
    else:
        severity = Severity.WARNING
        message = (
            f"{place} does not parse near `{shown}`: the shell that runs it stops with "
            "a syntax error; the rest was checked, this region was not"
        )
    # At the very end of the text there is no character to point at: take the last one.
    start = max(0, min(first.start, len(layer.text) - 1))
    yield finding(layer, "HL001", severity, message, start, start + 1)


RULE = Rule(
    "HL001", "parse-error", Severity.WARNING, "A layer that cannot be parsed.", __doc__ or "", check
)
