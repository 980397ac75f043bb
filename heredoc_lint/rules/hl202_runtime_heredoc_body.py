r"""A heredoc whose body is a value filled in at run time.

## What it does
Finds a heredoc in a Python-built shell string whose body is filled in at run
time: `f"cat > {path} << 'EOF'\n{content}\nEOF"` given to paramiko's
`exec_command`, `subprocess.run(..., shell=True)`, fabric's `run`, or an `ssh`
argument list. It is reported instead of HL101 for that heredoc. Values whose
text can hold no line break, `$`, backtick or backslash (numbers, an option
declared `type=int`, `str()` of one, f-strings and sums of such) are left
alone when the delimiter stands on a line of its own.

## Why is this bad?
The heredoc only works for some values. A value holding the line `EOF` ends the
body early: the rest of the value runs as shell commands and the file is cut
short. A template like `<< 'EOF'\n{content}EOF` relies on the value ending with
a newline: without one the delimiter is glued to the last line, the body never
ends, and the command swallows everything after it. With an unquoted delimiter
every `$`, backtick and backslash in the value is expanded by the shell too.
None of this shows in testing with tidy values.

## Example
```python
client.exec_command(f"cat > /etc/app.conf << 'EOF'\n{content}\nEOF")
```

## Use instead
```python
body_b64 = base64.b64encode(f"{content}\n".encode()).decode()
client.exec_command(f"printf %s {body_b64} | base64 -d > /etc/app.conf")
```
The base64 alphabet means nothing to any shell, so every value arrives intact.

## Fix safety
The fix computes the base64 of exactly the body the template describes (the
constant text around the values included, so the file gets the same bytes as
before for every value that worked) and adds `import base64`; when the body
expression cannot sit inside the f-string (a `\n` needs Python 3.12 there) it is
computed on a line of its own before the statement. Safe for a quoted
delimiter, which declares the body literal; unsafe for an unquoted one (the
shell no longer expands the value). Heredocs inside a `shell=True` string that
runs `ssh` are reported without a fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from heredoc_lint.frontends import PYTHON_PLACEHOLDER
from heredoc_lint.layers.layer import Layer
from heredoc_lint.model import Finding
from heredoc_lint.rules.base import Context, FixAvailability, finding, rule


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    # Only Python fragments hold these values (their root's interpolations): the frontend
    # is imported for them alone, never for a shell script every rule reads.
    if not layer.root.interpolations:
        return
    from heredoc_lint.frontends.python import fragment_of, root_index, runtime_spans

    spans = runtime_spans(layer)
    if not spans or not layer.script.heredocs:
        return
    found = fragment_of(layer)
    if found is None:
        return
    frag, _ = found
    for heredoc in layer.script.heredocs:
        inside = [(a, b) for a, b in spans if a < heredoc.body_end and heredoc.body_start < b]
        if not inside:
            continue
        indexes = [root_index(layer, a) for a, _ in inside]
        interps = [frag.interp_at(i) if i is not None else None for i in indexes]
        if heredoc.terminated and all(i is not None and i.plain for i in interps):
            continue  # numbers and the like: no line to end the body, nothing to expand
        names = [f"`{i.source.strip()}`" for i in interps if i is not None]
        source = ", ".join(dict.fromkeys(names)) or "a run-time value"
        delimiter = heredoc.delimiter
        if heredoc.terminated:
            effect = (
                f"a value holding the line `{delimiter}` ends the body early and the rest "
                "of it runs as shell commands"
            )
        else:
            effect = (
                f"the terminator `{delimiter}` is not on a line of its own unless the value "
                "ends with a newline, so the body runs to the end of the command"
            )
        if not heredoc.quoted:
            effect += ", and `$`, backticks and backslashes in it are expanded"
        fix = None
        if layer.parent is None:
            from heredoc_lint.fixes.python_fixes import runtime_base64_fix

            fix = runtime_base64_fix(layer, frag, heredoc)
        width = 3 if heredoc.strip_tabs else 2
        yield finding(
            layer,
            "HL202",
            "runtime-body",
            f"The body of this heredoc is filled in at run time from {source}: {effect}",
            heredoc.op_start,
            heredoc.op_start + width,
            fix,
        )


RULE = rule(
    "HL202",
    "runtime-heredoc-body",
    check,
    fix=FixAvailability.SOMETIMES,
    triggers=frozenset({PYTHON_PLACEHOLDER}),  # every run-time value of a Python fragment
)
