r"""A command string parsed by two or more shells, or built with escape chains.

## What it does
Finds command strings that pass through two or more shells before they run
(`ssh a "ssh b 'systemctl status x'"`, `ssh h "bash -c '...'"`), and strings
that need the `'\''` or `\\\"` escape chains to get a quote through.

A string three shells deep is a warning when the middle shell is a remote one
that only starts another ssh (`ssh -J` makes that hop without it), and that ssh
reads none of the middle host's own files (`-i`, `-F`, its known hosts: then the
hop is there on purpose). Other
strings three shells deep are info: one written with escapes for the shells
outside it (correct escaping is no bug, but each later edit must keep it), one
whose every character arrives as written, a local middle shell (`watch 'ssh h
"..."'`), and `eval` (which runs in the same shell).

## Why is this bad?
Every shell on the way removes one level of quoting and expands what is not
escaped for it. Each quote, `$` and backslash must be escaped once per shell
outside it, and one miss changes the command silently: a variable expanded
on the wrong host, a heredoc delimiter that never matches, a string cut in two.

## Example
```bash
ssh gateway "ssh internal-db 'systemctl status postgresql'"
```

## Use instead
```bash
ssh -J gateway internal-db 'systemctl status postgresql'
```
or send the inner script as data (`base64`, `scp`, or stdin) rather than as
quoted text.

## Fix safety
Display-only: the right rewrite depends on what the layers are for.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from heredoc_lint.layers.layer import Layer, child_layers
from heredoc_lint.layers.wrappers import Role
from heredoc_lint.model import Finding
from heredoc_lint.rules.base import Context, FixAvailability, Invalid, at_file, rule

ESCAPE_CHAINS = ("'\\''", '\\\\\\"')


def _chain(layer: Layer, file_text: str) -> str | None:
    if layer.parent is None or layer.parent.depth != 0:
        return None
    for word in layer.source_words:
        source = layer.parent.text[word.start : word.end]
        for chain in ESCAPE_CHAINS:
            if chain in source:
                return chain
    return None


def _outer_shells_change(layer: Layer, file_text: str) -> str | None:
    """What shows that the innermost string had to be written for the shells outside it:
    escapes in its source; None when every character stands in the file as it arrives.
    (A value an outer shell substitutes is HL102's to judge: most are meant.)"""
    a, b = _source_span(layer, file_text)
    source = file_text[a:b]
    if "\\" in source or "'\\''" in source:
        return "the innermost string is written with escapes for the shells outside it"
    return None


def _hop(outer: Layer, layer: Layer) -> bool:
    """`ssh a "ssh b '...'"`: a remote shell whose only work is to start another ssh, a
    hop that `ssh -J` makes without the middle shell. Not `watch 'ssh b "..."'` nor
    `bash -c 'ssh b "..."'`: their middle shell runs here, and is there on purpose; nor
    `ssh a "docker exec c ssh b '...'"`: that ssh runs in a container, with its keys."""
    entered = layer.invocation is not None and layer.invocation.entered
    ssh = outer.role is Role.SSH and layer.role is Role.SSH and not entered
    # More commands there (`ssh-copy-id`, a `while read` loop): it does work of its own.
    return ssh and len(outer.script.commands) == 1 and not _uses_the_middle_hosts_files(layer)


# What the inner ssh reads on the middle host and `ssh -J` would read here instead: its
# keys (`-i`), its config (`-F`), its known hosts (`ssh -o StrictHostKeyChecking=no n2`
# run on n1 to fill n1's known_hosts before a cluster job).
_MIDDLE_HOST_OPTIONS = frozenset("iF")
_MIDDLE_HOST_SETTINGS = frozenset({"identityfile", "stricthostkeychecking", "userknownhostsfile"})


def _uses_the_middle_hosts_files(layer: Layer) -> bool:
    call = layer.invocation.ssh if layer.invocation is not None else None
    if call is None:
        return False
    for letter, argument, _ in call.options:
        if letter in _MIDDLE_HOST_OPTIONS:
            return True
        if letter == "o" and argument is not None:
            setting = re.split(r"[=\s]", argument.value.strip(), maxsplit=1)[0]
            if setting.lower() in _MIDDLE_HOST_SETTINGS:
                return True
    return False


def _same_shell(layer: Layer) -> bool:
    """eval runs its text in the shell that called it: nesting evals adds no process, and
    generated code (autoconf's `eval 'as_fn_append () ...'`) is full of it."""
    return layer.role is Role.EVAL or (layer.parent is not None and layer.parent.role is Role.EVAL)


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    if layer.kind != "string":
        return
    if layer.depth == 2 and layer.parent is not None:
        outer = layer.parent
        span = outer.wrapper_span
        if span is None:
            return
        shells = f"three shells (local -> {outer.wrapper} -> {layer.wrapper})"
        if not _same_shell(layer) and _hop(outer, layer):
            evidence = "the middle shell only starts another ssh (`ssh -J` makes that hop)"
            yield at_file(
                outer,
                "HL111",
                "three-shells-changing",
                f"This command is parsed by {shells}: {evidence}; every quote, $ and backslash "
                "of the innermost string must be escaped once for each shell outside it",
                span,
            )
            return
        escaped = None if _same_shell(layer) else _outer_shells_change(layer, context.file_text)
        if escaped is None:
            yield at_file(
                outer,
                "HL111",
                "three-shells-as-written",
                f"This command is parsed by {shells}; its innermost string arrives as written, "
                "but any `$`, quote or backslash added to it later must be escaped once for "
                "each shell outside it",
                span,
            )
            return
        yield at_file(
            outer,
            "HL111",
            "three-shells-escaped",
            f"This command is parsed by {shells}: {escaped}; every quote, $ and backslash of "
            "the innermost string must be escaped once for each shell outside it",
            span,
        )
        return
    if any(child.kind == "string" for child in child_layers(layer)):
        return  # the three shells are reported at this same word, by the inner layer
    chain_text = None if layer.role is Role.EVAL else _chain(layer, context.file_text)
    span = layer.wrapper_span
    if chain_text is not None and span is not None:
        yield at_file(
            layer,
            "HL111",
            "escape-chain",
            f"The {layer.wrapper} command string needs the `{chain_text}` escape chain to carry a "
            "quote through: one missed escape silently changes what the remote shell runs",
            span,
        )


def _source_span(layer: Layer, file_text: str) -> tuple[int, int]:
    """The file span of the innermost string with the backslashes that escape its first
    character for a shell outside it (`ssh h "bash -c '\\$HOME'"`): the layer's own file
    span starts at that character, after them."""
    a, b = layer.file_span(0, len(layer.text))
    while a > 0 and file_text[a - 1] == "\\":
        a -= 1
    return a, b


# -- examples (tests/test_rule_lists.py) ---------------------------------------------------
_ESCAPED = "written with escapes"
_AS_WRITTEN = "arrives as written"
INVALID = (
    Invalid("ssh gateway \"ssh db 'systemctl status pg'\"\n", "ssh", None, "warning", "`ssh -J`"),
    Invalid("ssh h 'echo '\\''quoted'\\'' done'\n", "ssh", None, "warning", "`'\\''` escape chain"),
    # Three shells, written with escapes for the outer ones: escaped right, it is no bug (on
    # real code read on first look, none was); info, as each later edit must keep the escapes.
    Invalid("ssh h \"bash -c 'echo \\$HOME; date'\"\n", "ssh", None, "info", _ESCAPED),
    Invalid('ssh h "sudo sh -c \'echo \\"$n\\" > /proc/x\'"\n', "ssh", None, "info", _ESCAPED),
    Invalid('ssh h "bash -c \\"echo \\\\\\"x\\\\\\"\\""\n', "ssh", None, "info", _ESCAPED),
    Invalid('ssh h "bash -lc \'test -x \\"$D/bin\\"\'"\n', "ssh", None, "info", _ESCAPED),
    # Evidence before a warning: no shell outside changes the innermost string (info).
    Invalid(  # a substituted value is HL102's to judge
        "ssh h \"sudo sh -c 'echo $n > /proc/x'\"\n", "ssh", None, "info", _AS_WRITTEN
    ),
    Invalid(  # eval: the same shell
        "eval 'as_fn_append ()\n{\n  eval $1+=\\$2\n}'\n", "eval", None, "info", _AS_WRITTEN
    ),
    Invalid("ssh h \"bash -c 'echo hi; date'\"\n", "ssh", None, "info", _AS_WRITTEN),
    Invalid(
        'ssh -n "$h" "sh -c \'cd ~; nohup ./app >/dev/null 2>&1 &\'"\n',
        "ssh",
        None,
        "info",
        _AS_WRITTEN,
    ),
    Invalid(  # eval's purpose
        "sudo -u app bash -c 'eval \"$(rbenv init - bash)\"; bundle install'\n",
        "bash",
        None,
        "info",
        _AS_WRITTEN,
    ),
    Invalid(  # a local middle shell: no hop for `ssh -J` to make
        "bash -c \"ssh h 'uptime; df'\"\n", "bash", None, "info", _AS_WRITTEN
    ),
    Invalid(  # watch re-runs it here, on purpose
        "watch -n1 'ssh sw \"show x\" | grep y'\n", "watch", None, "info", _AS_WRITTEN
    ),
)
VALID = (
    "ssh h 'systemctl status pg'\n",  # one remote shell
    "ssh -J gateway db 'systemctl status pg'\n",  # the jump host runs no shell
    "bash -c 'echo hi'\n",
    'ssh h "echo \\"quoted\\""\n',  # one level of escaping
    "ssh h 'cat' <<'EOF'\nbash -c 'x'\nEOF\n",  # a heredoc on local stdin: data for cat
)


RULE = rule("HL111", "nested-quoting-depth", check, fix=FixAvailability.NONE)
