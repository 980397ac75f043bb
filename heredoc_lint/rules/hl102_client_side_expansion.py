"""## What it does
Finds `$x`, `${x}`, `$1`, `$@`, `$(...)` and backticks in a double-quoted or
unquoted string that is handed to another shell (`ssh host "..."`,
`bash -c "..."`), which the **local** shell expands before the inner shell
ever sees the text.

## Why is this bad?
The value substituted is the local one, at the time the outer command runs:
`$1` is the local script's first argument (usually empty), `$HOME` is the local
home, and a variable assigned inside the string (`ssh h "x=1; echo $x"`) is
expanded before the assignment exists. Inside a heredoc whose delimiter is
quoted (`<< 'EOF'`) the author asked for a literal body, yet the remote file
receives the local values, and every backslash-newline is deleted.

Severity: error inside a quoted-delimiter heredoc of the inner string and for
variables assigned in that string; warning for positional parameters and
names that are usually meant for the remote side (`HOME PWD USER HOSTNAME
SHLVL $$ $! $?`, `$(hostname)`, `$(whoami)`); info for other variables, which
are usually intended (`ssh h "deploy $version"`), and for positional and
remote-natured names in strings run on the same host (`bash -c`, `eval`).

## Example
```bash
ssh host "cat > run.sh << 'EOF'
exec server --port $1
EOF"
```

## Use instead
```bash
ssh host 'cat > run.sh' << 'EOF'
exec server --port $1
EOF
```
or escape what the remote shell should expand: `ssh host "echo \\$HOME"`.

## Fix safety
Inside a quoted-delimiter heredoc the fix of HL101 delivers the literal body
and is safe. Elsewhere escaping the `$` guesses intent and is unsafe.
"""

from __future__ import annotations

from collections.abc import Iterator

from heredoc_lint.fixes.remote_heredoc import heredoc_fix
from heredoc_lint.layers import Layer, LocalExpansion
from heredoc_lint.model import Finding, Fix, Severity
from heredoc_lint.rules.base import Context, Rule, finding, script_path
from heredoc_lint.shell.heredoc import Heredoc

REMOTE_NAMES = frozenset({"HOME", "PWD", "OLDPWD", "USER", "LOGNAME", "HOSTNAME", "SHLVL"})
REMOTE_SPECIALS = frozenset({"$", "!", "?"})
REMOTE_COMMANDS = frozenset({"hostname", "whoami", "id -un", "uname -n", "pwd"})
POSITIONAL_SPECIALS = frozenset({"@", "*", "#", "0"})


def _who(layer: Layer) -> str:
    parent = layer.parent
    return "the local shell" if parent is None or parent.depth == 0 else "the outer shell"


def _before(layer: Layer) -> str:
    if (layer.wrapper or "").endswith("ssh"):
        return "before ssh sends the command"
    return f"before `{layer.wrapper}` runs the string"


def _inside_quoted_heredoc(layer: Layer, index: int) -> str | None:
    heredoc = layer.heredoc_at(index)
    if heredoc is not None and heredoc.quoted:
        return heredoc.delimiter
    return None


def _expanded_by_grandparent(layer: Layer, item: LocalExpansion) -> bool:
    """A `$x` that reached this layer only as the value of the parent's own expansion."""
    parent = layer.parent
    if parent is None:
        return False
    return any(e.start <= item.parent_start < e.end for e in parent.local_expansions)


def _assigned_before(layer: Layer, name: str, index: int) -> bool:
    return any(var == name and end <= index for var, end in layer.script.assigned)


def _classify(layer: Layer, item: LocalExpansion) -> tuple[Severity, str]:
    e = item.expansion
    text = layer.text[item.start : item.end]
    who, before = _who(layer), _before(layer)
    delimiter = _inside_quoted_heredoc(layer, item.start)
    parent = layer.parent
    if (
        delimiter is not None
        and e.kind == "variable"
        and parent is not None
        and any(name == e.name for name, _ in parent.script.assigned)
    ):
        return Severity.ERROR, (
            f"`{text}` is expanded by {who} {before}, although the quoted '{delimiter}' heredoc "
            f"says its body is literal: the body gets the local `{e.name}`, assigned in the "
            "outer script; if that is meant, say so with an unquoted delimiter"
        )
    if delimiter is not None:
        return Severity.ERROR, (
            f"`{text}` is expanded by {who} {before}: the quoted '{delimiter}' heredoc asks "
            "for it literally, but the body receives the local value (empty if unset)"
        )
    if e.kind == "variable" and _assigned_before(layer, e.name, item.start):
        return Severity.ERROR, (
            f"`{text}` is expanded by {who} {before}, not after `{e.name}=` in the same "
            "string: it gets the local value (usually empty)"
        )
    # On the same host (`bash -c`, `eval`) the local value is usually the one meant, and
    # so it is when the expansion is a whole argument (`ssh h "$@"`, `ssh h "$cmd"`).
    whole_word = any(w.value == text for w in layer.source_words)
    tier = Severity.WARNING if layer.remote and not whole_word else Severity.INFO
    if e.kind == "positional" or (e.kind == "special" and e.name in POSITIONAL_SPECIALS):
        return tier, (
            f"`{text}` is the local script's argument, expanded by {who} {before}; "
            f"write `\\{text}` if the inner shell should expand it"
        )
    remote_natured = (
        (e.kind == "variable" and e.name in REMOTE_NAMES)
        or (e.kind == "special" and e.name in REMOTE_SPECIALS)
        or (e.kind in ("command", "backtick") and " ".join(e.name.split()) in REMOTE_COMMANDS)
    )
    if remote_natured:
        return tier, (
            f"`{text}` is expanded by {who} {before}, so it is the local value, not the "
            f"remote one; write `\\{text}` to expand it on the other side"
        )
    return Severity.INFO, f"`{text}` is expanded by {who} {before}"


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    if layer.kind != "string":
        return
    fixes: dict[Heredoc, Fix | None] = {}

    def fix_at(index: int) -> Fix | None:
        """Inside a quoted heredoc the HL101 rewrite delivers the literal body."""
        heredoc = layer.heredoc_at(index)
        if heredoc is None or not heredoc.quoted:
            return None
        if heredoc not in fixes:
            fixes[heredoc] = heredoc_fix(layer, heredoc, context.fix_strategy, script_path(context))
        return fixes[heredoc]

    for item in layer.local_expansions:
        if (
            item.expansion.kind == "tilde"
            or _expanded_by_grandparent(layer, item)
            or layer.is_runtime(item.start)
        ):
            continue
        severity, message = _classify(layer, item)
        yield finding(layer, "HL102", severity, message, item.start, item.end, fix_at(item.start))
    for index in layer.continuations:
        delimiter = _inside_quoted_heredoc(layer, index)
        if delimiter is None:
            continue
        yield finding(
            layer,
            "HL102",
            Severity.ERROR,
            f"{_who(layer).capitalize()} deletes this backslash-newline {_before(layer)}: "
            f"in the quoted '{delimiter}' heredoc the two lines arrive joined",
            index,
            index + 1,
            fix_at(index),
        )


RULE = Rule(
    "HL102",
    "client-side-expansion",
    Severity.ERROR,
    "An expansion that the local shell performs in a string meant for another shell.",
    __doc__ or "",
    check,
    fixable=True,
)
