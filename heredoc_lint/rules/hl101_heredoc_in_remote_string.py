r"""A heredoc inside a string that another shell runs.

## What it does
Finds a heredoc inside a string that another shell runs after an outer shell
has parsed it: an `ssh` command string or a `bash -c` string in a script, or in
a Python `shell=True` string. A string that reaches its shell without an outer
shell (paramiko's `exec_command`, fabric's `run`, an `["ssh", host, CMD]`
argument list) arrives byte for byte as written and is not reported.

A heredoc that arrives exactly as it is written in the file (a single-quoted
string with no `'\''` in it) is info: nothing is wrong with it yet. So is an
unquoted heredoc (`<<EOF`: both shells expand its body) in which the outer shell
expands nothing, its `$`, backticks and backslashes all escaped for it, and the
inner shell only names that the same string sets before it (`IP=\$(hostname -I)`,
then `\${IP}`; `\\\\` for one backslash in the file): it is written for both. A
quoted delimiter (`<< 'EOF'`) says the body is literal, so there an escape that
the outer shell needs is a warning. Info too: an unquoted heredoc whose body the
outer shell changes only by filling in variables that the script itself sets
(`NAME=$(hostname -s)` above it, `export NAME=value` in a file it sources, or in
an earlier block of a runbook): that is what its author meant; and so is a
quoted one that a shell runs at once as its script (`ssh h "sudo su <<\EOF
... cd $dir ... EOF"`): the quotes keep the remote shell from expanding the
local values again. A body filled
in at run time (an f-string field) is also HL202's; this rule reports what the
outer shell does to the rest of the body, without a fix.

## Why is this bad?
The body passes through the outer shell first. In a double-quoted string the
local shell expands every `$x`, `$1`, `$(...)` and backtick and deletes every
backslash-newline before ssh sends anything, even though the quoted `'EOF'`
says the body is literal; in a single-quoted string the first `'` in the body
ends the quoting. Such commands often fail silently: the remote file gets
empty values or is never written.

## Example
```bash
ssh host "cat > /srv/run.sh << 'EOF'
exec python3 app.py --port \$1
EOF"
```

## Use instead
```bash
printf %s 'ZXhlYyBweXRob24zIGFwcC5weSAtLXBvcnQgJDEK' | ssh host 'base64 -d > /srv/run.sh'
```
or copy a local file with `scp`, or feed the heredoc to `ssh host 'cat > /srv/run.sh'`
on the local side.

## Fix safety
Safe when the body is literal (a quoted delimiter, or no `$`, backtick or
backslash): the fix delivers exactly the intended body, with the base64,
scp or stdin strategy.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from heredoc_lint.fixes.remote_heredoc import heredoc_fix
from heredoc_lint.layers.layer import Layer, LocalExpansion, calls
from heredoc_lint.model import Finding
from heredoc_lint.rules.base import (
    Context,
    FixAvailability,
    Invalid,
    finding,
    rule,
    script_path,
    where,
)
from heredoc_lint.shell import evidence
from heredoc_lint.shell.heredoc import Heredoc
from heredoc_lint.shell.names import SHELLS

# What runs a heredoc's body at once as its script (`sudo su <<\EOF`, `bash <<'EOF'`).
_BODY_RUNNERS = SHELLS | {"su"}
_COMMAND_OPTION = re.compile(r"-[A-Za-z]*c[A-Za-z]*|--(?:session-)?command(?:=.*)?")  # no stdin


def _changed(
    layer: Layer, body_start: int, body_end: int
) -> tuple[list[LocalExpansion], list[int]]:
    """What the outer shell changes in a body: its expansions (not the run-time values of
    a Python fragment) and the backslash-newlines it deletes."""
    inside = [
        e
        for e in layer.local_expansions
        if body_start <= e.start < body_end and not layer.is_runtime(e.start, e.end)
    ]
    return inside, [k for k in layer.continuations if body_start <= k < body_end]


def _problems(layer: Layer, inside: list[LocalExpansion], removed: list[int]) -> str:
    parts = []
    if inside:
        names = ", ".join(dict.fromkeys(layer.text[e.start : e.end].strip() for e in inside))
        parts.append(f"the local shell expands {names} in its body")
    if removed:
        parts.append(f"deletes {len(removed)} backslash-newline(s)")
    if not parts:
        return ""
    return "; " + " and ".join(parts)


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    if layer.kind != "string" or layer.parent is None:
        # A root string (paramiko's exec_command, fabric's run, an ssh argument list
        # from Python) has no outer shell: its shell receives the heredoc byte for byte.
        return
    for heredoc in layer.script.heredocs:
        # A body filled in at run time (a Python f-string field): what the value may do is
        # HL202's; what the outer shell does to the rest of the body is still this rule's,
        # but no static fix can carry the value.
        runtime = layer.is_runtime(heredoc.body_start, heredoc.body_end)
        width = 3 if heredoc.strip_tabs else 2
        inside, removed = _changed(layer, heredoc.body_start, heredoc.body_end)
        problems = _problems(layer, inside, removed)
        local = _local_values(layer, heredoc, context, inside, removed)
        if not problems and (runtime or _as_written(layer, heredoc.op_start, heredoc.end, context)):
            kind = "arrives-as-written"
            message = (
                f"Heredoc inside {where(layer)}: it arrives as written (nothing in it is "
                "changed by the outer shell's quoting), but a quote or `$` added to its body "
                "later must be escaped for that shell too"
            )
        elif local:
            kind = "local-values"
            message = (
                f"Heredoc inside {where(layer)}: the local shell fills in {local} in its "
                "body, variables set before it (meant so: it works); any other $, `, \\ or "
                "quote in the body must be escaped for that shell too"
            )
        elif not (heredoc.quoted or inside or removed) and _inner_values_bound(layer, heredoc):
            kind = "escaped-for-both-shells"
            message = (
                f"Heredoc inside {where(layer)}: its unquoted body is read by two shells, and "
                "every $, ` and \\ in it is escaped for the outer one (it works as written); "
                "one added later must be escaped twice"
            )
        else:
            kind = "body-parsed-by-outer-shell"
            message = (
                f"Heredoc inside {where(layer)}: its body is parsed by the outer shell first, "
                f"so every $, `, \\ and quote in it must be escaped for that layer{problems}"
            )
        yield finding(
            layer,
            "HL101",
            kind,
            message,
            heredoc.op_start,
            heredoc.op_start + width,
            None
            if runtime
            else heredoc_fix(layer, heredoc, context.fix_strategy, script_path(context)),
        )


# What the inner shell expands in an unquoted body: `$name`, `${name}`; a backslash escapes
# the next character; any other `$` form is an expansion of another kind.
_INNER_NAME = re.compile(r"\$(?:([A-Za-z_]\w*)|\{([A-Za-z_]\w*)\})")
_INNER_OTHER = re.compile(r"\$[{(\d@*#?$!-]")


def _inner_values_bound(layer: Layer, heredoc: Heredoc) -> bool:
    """Whether every expansion the inner shell makes in the unquoted body is of a variable
    that the inner string sets before it (`IP=$(hostname -I); cat > f <<EOF ... ${IP}`):
    then the escapes were written for both shells.  `$1`, `$(...)`, a backtick, or a name
    the string does not set (`\\$1` meant for a script the body writes, which the inner
    shell empties) keep the warning."""
    text, i = layer.text, heredoc.body_start
    while i < heredoc.body_end:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        named = _INNER_NAME.match(text, i) if c == "$" else None
        if named:
            name = named.group(1) or named.group(2)
            if not evidence.bound_before(layer.bindings, name, heredoc.op_start):
                return False
            i = named.end()
            continue
        if c == "`" or (c == "$" and _INNER_OTHER.match(text, i)):
            return False
        i += 1
    return True


# A runbook's code blocks run in one terminal, in order: what an earlier one assigns is set.
_ASSIGNED = re.compile(r"^[ \t]*(?:export[ \t]+)?([A-Za-z_]\w*)=", re.MULTILINE)


def _local_values(
    layer: Layer,
    heredoc: Heredoc,
    context: Context,
    inside: list[LocalExpansion],
    removed: list[int],
) -> str:
    """The names, when the outer shell's only change to the body of an unquoted heredoc
    is to fill in variables that the outer script sets (`HOST=$(hostname -s)` above
    `bash -c "cat > f <<EOL ... $HOST ..."`, or an earlier block of a runbook): what the
    author meant; "" otherwise."""
    parent = layer.parent
    if parent is None or (heredoc.quoted and not _runs_the_body(layer, heredoc)):
        return ""
    # A variable set to literal text is in the text already, as its value (with_literal_text)
    filled = [
        (start, f"${name}")
        for start, _, name in layer.literal_values
        if heredoc.body_start <= start < heredoc.body_end
    ]
    if removed or not (inside or filled) or any(e.expansion.kind != "variable" for e in inside):
        return ""
    unbound = {e.expansion.name for e in inside} - evidence.bindings(parent.script).keys()
    if unbound and context.kind == "markdown":
        before = layer.root.file_offset(0)
        unbound -= set(_ASSIGNED.findall(context.file_text, 0, before))
    if unbound:
        return ""
    names = [(e.start, layer.text[e.start : e.end].strip()) for e in inside]
    return ", ".join(dict.fromkeys(name for _, name in sorted([*names, *filled])))


def _runs_the_body(layer: Layer, heredoc: Heredoc) -> bool:
    """Whether the heredoc is the script of a shell that runs it at once (`ssh h "sudo su
    <<\\EOF ... cd $dir ... EOF"`): its author fills it with the local script's values
    whatever the delimiter (round y); a file it writes (`cat > f <<'EOF'`) keeps its `$x`
    for later."""
    for call in calls(layer, _BODY_RUNNERS):
        ops = {r.start for r in call.command.redirects if r.op.startswith("<<")}
        if heredoc.op_start in ops:
            return not any(_COMMAND_OPTION.fullmatch(w.value) for w in call.words[1:])
    return False


def _as_written(layer: Layer, start: int, end: int, context: Context) -> bool:
    """Whether the file holds layer.text[start:end] character for character (a
    single-quoted string without `'\\''`): no escape was written for the outer shell."""
    a, b = layer.file_span(start, end)
    return context.file_text[a:b] == layer.text[start:end]


# -- examples (tests/test_rule_lists.py) ---------------------------------------------------
_PARSED = "parsed by the outer shell first"
_AS_WRITTEN = "arrives as written"  # the file holds what the shell receives: test_rule_hl101
INVALID = (
    Invalid(
        "ssh host \"cat > /srv/run.sh << 'EOF'\nexec python3 app.py --port \\$1\nEOF\"\n",
        "<<",
        'ssh host "printf %s ZXhlYyBweXRob24zIGFwcC5weSAtLXBvcnQgJDEK | base64 -d > /srv/run.sh"\n',
        "warning",
        _PARSED,
    ),
    Invalid(
        "ssh h \"cat > /a << 'EOF'\n$x\nEOF\"\n",
        "<<",
        'ssh h "printf %s JHgK | base64 -d > /a"\n',
        "warning",
        _PARSED,
    ),
    Invalid(  # the '\\'' chain of an unquoted body: written for both shells
        "ssh h 'cat > /a <<EOF\nit'\\''s\nEOF'\n",
        "<<",
        "ssh h 'printf %s aXQncwo= | base64 -d > /a'\n",
        "info",
        "escaped for the outer one",
    ),
    Invalid(  # a value the remote string sets, escaped for the local shell
        'ssh h "ip=\\$(hostname -I); cat > /a <<EOF\nIP=\\${ip}\nEOF"\n',
        "<<",
        None,
        "info",
        "escaped for the outer one",
    ),
    Invalid(  # `\\$1` reaches the remote shell, which empties it: not written for both
        'ssh h "cat > /run.sh <<EOF\nexec app --port \\$1\nEOF"\n',
        "<<",
        None,
        "warning",
        _PARSED,
    ),
    # an escape for the outer shell
    Invalid('bash -c "cat > /a <<-EOF\n\t\\$x\n\tEOF"\n', "<<-", None, "warning", _PARSED),
    Invalid("ssh gw \"ssh h 'cat > /a << EOF\n\\$HOME\nEOF'\"\n", "<<", None, "warning", _PARSED),
    # Arriving as written: nothing in it is changed by the outer quoting.
    Invalid(
        "sudo bash -c 'cat << EOF > /etc/hosts\n127.0.0.1 localhost\nEOF'\n",
        "<<",
        "sudo bash -c 'printf %s MTI3LjAuMC4xIGxvY2FsaG9zdAo= | base64 -d > /etc/hosts\n'\n",
        "info",
        _AS_WRITTEN,
    ),
    Invalid(
        "ssh h 'cat > /etc/app.conf <<EOF\nkey = \"value\"\nEOF\nsystemctl restart app'\n",
        "<<",
        "ssh h 'printf %s a2V5ID0gInZhbHVlIgo= | base64 -d > /etc/app.conf\n"
        "systemctl restart app'\n",
        "info",
        _AS_WRITTEN,
    ),
    Invalid("eval 'cat <<_LTECHO_EOF\n$1\n_LTECHO_EOF'\n", "<<", None, "info", _AS_WRITTEN),
)
VALID = (
    "printf %s 'ZXhlYyBweXRob24zIGFwcC5weSAtLXBvcnQgJDEK' | ssh host 'base64 -d > /srv/run.sh'\n",
    "cat > /a << 'EOF'\n$x\nEOF\n",  # layer 0: no outer shell
    "ssh h 'cat > /a' << 'EOF'\n$x\nEOF\n",  # fed to ssh on the local side
)


RULE = rule("HL101", "heredoc-in-remote-string", check, fix=FixAvailability.SOMETIMES)
