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

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from heredoc_lint.layers.layer import Layer
from heredoc_lint.model import Finding
from heredoc_lint.rules.base import Context, FixAvailability, Invalid, finding, rule
from heredoc_lint.shell.heredoc import Heredoc

if TYPE_CHECKING:
    from heredoc_lint.frontends.python.model import Interp


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
        fix = None
        if layer.parent is None:
            from heredoc_lint.fixes.python_fixes import runtime_base64_fix

            fix = runtime_base64_fix(layer, frag, heredoc)
        width = 3 if heredoc.strip_tabs else 2
        yield finding(
            layer,
            "HL202",
            "runtime-body",
            f"The body of this heredoc is filled in at run time from {_source(interps)}: "
            + _effect(heredoc),
            heredoc.op_start,
            heredoc.op_start + width,
            fix,
        )


def _source(interps: Sequence[Interp | None]) -> str:
    """The values filled into the body, each named once, for the message."""
    names = [f"`{i.source.strip()}`" for i in interps if i is not None]
    return ", ".join(dict.fromkeys(names)) or "a run-time value"


def _effect(heredoc: Heredoc) -> str:
    """What a value filled into the body may do, by the heredoc's delimiter."""
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
    return effect


# -- examples (tests/test_rule_lists.py) ---------------------------------------------------
# Python files. tests/test_rule_hl202.py checks, with every rule run, that the message says
# `$`, backticks and backslashes are expanded exactly where the delimiter is unquoted, and
# that HL101 says nothing of a heredoc the Python string itself holds.
EXAMPLES_KIND = "python"
_HEAD = "import subprocess\ndef push(c, h, body):\n"
_FIXED = (
    "import base64\nimport subprocess\ndef push(c, h, body):\n"
    '    body_b64 = base64.b64encode((str(body) + "\\n").encode()).decode()\n'
)
_SAYS = "filled in at run time from `body`: a value holding the line `EOF`"
INVALID = (
    Invalid(
        _HEAD + "    c.exec_command(f\"cat > /a << 'EOF'\\n{body}\\nEOF\")\n",
        "<<",
        _FIXED + '    c.exec_command(f"printf %s {body_b64} | base64 -d > /a")\n',
        "warning",
        _SAYS,
    ),
    Invalid(
        _HEAD + "    c.exec_command(f\"cat > /a << 'EOF'\\n{body}EOF\")\n",
        "<<",
        "import base64\n"
        + _HEAD
        + '    c.exec_command(f"printf %s {base64.b64encode(str(body).encode()).decode()}'
        + ' | base64 -d > /a")\n',
        "warning",
        "filled in at run time from `body`: the terminator `EOF` is not on a line of its own "
        "unless the value ends",
    ),
    Invalid(
        _HEAD + '    c.exec_command(f"cat > /a <<EOF\\n{body}\\nEOF")\n',
        "<<",
        _FIXED + '    c.exec_command(f"printf %s {body_b64} | base64 -d > /a")\n',
        "warning",
        _SAYS,
    ),
    Invalid(
        _HEAD + '    c.exec_command("tee /a << \'END\'\\n" + body + "\\nEND")\n',
        "<<",
        _FIXED + '    c.exec_command(f"printf %s {body_b64} | base64 -d | tee /a")\n',
        "warning",
        "filled in at run time from `body`: a value holding the line `END`",
    ),
    Invalid(
        _HEAD + "    subprocess.run(['ssh', h, f\"cat > /a << 'EOF'\\n{body}\\nEOF\"])\n",
        "<<",
        _FIXED + "    subprocess.run(['ssh', h, f\"printf %s {body_b64} | base64 -d > /a\"])\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        _HEAD + "    subprocess.run(f\"cat > /a << 'EOF'\\n{body}\\nEOF\", shell=True)\n",
        "<<",
        _FIXED + '    subprocess.run(f"printf %s {body_b64} | base64 -d > /a", shell=True)\n',
        "warning",
        _SAYS,
    ),
    Invalid(  # in the quotes of an ssh in the shell string (no fix is offered there)
        "import subprocess\n\n"
        "def f(body: str) -> None:\n"
        "    subprocess.run(f\"ssh h 'cat > f << EOF\\n{body}\\nEOF'\", shell=True)\n",
        "<<",
        says="is filled in at run time from `body`:",
    ),
    Invalid(  # two values, one of them twice: each named once, in their order
        "def push(c, head, body):\n"
        "    c.exec_command(f\"cat > /a << 'EOF'\\n{head}\\n{body}\\n{head}\\nEOF\")\n",
        "<<",
        "import base64\n\ndef push(c, head, body):\n"
        '    head_b64 = base64.b64encode((str(head) + "\\n" + str(body) + "\\n" + str(head)'
        ' + "\\n").encode()).decode()\n'
        '    c.exec_command(f"printf %s {head_b64} | base64 -d > /a")\n',
        "warning",
        "is filled in at run time from `head`, `body`: a value holding the line `EOF`",
    ),
)
_NEGATIVE = "import subprocess\ndef push(c, h, body, path):\n"
VALID = (
    _NEGATIVE  # nothing at run time
    + "    c.exec_command(\"cat > /a << 'EOF'\\nconstant\\nEOF\")\n",
    _NEGATIVE  # the value is outside the body
    + "    c.exec_command(f\"cat > {path} << 'EOF'\\nconstant\\nEOF\")\n",
    _NEGATIVE + '    c.exec_command(f"printf %s {body} | base64 -d > /a")\n',  # no heredoc
    _NEGATIVE  # stdin, locally
    + "    subprocess.run(['ssh', h, 'cat > /a'], input=body, text=True)\n",
)


RULE = rule(
    "HL202",
    "runtime-heredoc-body",
    check,
    fix=FixAvailability.SOMETIMES,
)
