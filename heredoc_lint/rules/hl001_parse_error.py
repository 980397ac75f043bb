r"""A layer that cannot be parsed.

## What it does
Reports a layer that cannot be parsed as shell: a string that a wrapper
(`ssh host "..."`, `bash -c '...'`) hands to another shell, or the file itself.

## Why is this bad?
A string that does not parse fails on the remote side with a syntax error,
often after the commands before it have already run. Measured on code read for
the first time, one such finding in five was wrong (an `eval` string whose
value makes a name of the `$` before it), so it is info until it earns more
(heredoc_lint/severities.py). A file
(or a Markdown block) that does not parse cannot be checked where it fails, so
other bugs there stay hidden. That is info (`--severity info` shows it),
whether or not it holds something this tool checks (an `ssh` or another
wrapper, `pkill`, `sudo`, `scp`, a heredoc), and so is a Python file that does
not parse: on real code most of these findings were debatable. It is reported
once, at its first bad character.

Some text is not meant to be run as it stands, and is reported as "not
checked" (info) rather than as a syntax error: templates with fields to fill
in (`<<<HOST>>>`, `<VALUE>`, `<path/to/job.yaml>`, `<id/>`, an unterminated
`<<PROJECT_ID>>`, `{{ var }}`, `%VAR%`) and console transcripts
(`[root@host dir]# cmd` followed by its output, or `user@host:~$ cmd`), and in
Markdown the input of an interactive program (the SQL after a `psql` line).

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
it is not broken, and no template either, whatever looks like a field in its
strings (`echo "Usage: $0 <query>"`). The same holds for a string built from
values known only at run time (`eval "$1=..."`).

A file that holds nothing for the other rules to check (no `ssh`, `bash`,
`eval`, `pkill`, `sudo`, `scp`, `<<`...) is not parsed at all, so a syntax
error there is left to ShellCheck.

## Fix safety
No fix: only the author knows what was meant.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from heredoc_lint.layers.layer import Layer
from heredoc_lint.layers.triggers import ALL_TRIGGERS, present_triggers
from heredoc_lint.model import Finding
from heredoc_lint.rules.base import Context, FixAvailability, Invalid, finding, rule, where
from heredoc_lint.shell.bash import bash_accepts
from heredoc_lint.shell.templates import not_a_script

# A line that starts an interactive program with nothing to run of its own: in a
# runbook, the lines after it are typed into it. A client of a database or a remote
# service may have options and names (`psql -U app mydb`), but no `-c`, `-e`, `-f` and no
# redirected input; an interpreter is bare (`python3 train.py` runs a file).
_CLIENTS = "psql|mysql|mariadb|sqlite3|mongo|mongosh|redis-cli|cqlsh|clickhouse-client|ftp|sftp"
_INTERPRETERS = "python|python3|ipython|irb|node|bc"
_SESSION = re.compile(
    r"^[ \t]*(?:sudo[ \t]+(?:-u[ \t]*\S+[ \t]+)?)?"
    rf"(?:({_CLIENTS})(?:[ \t]+(?!-[cef]\b|--(?:command|file|execute|eval)\b)[^\s;&|<>#]+)*"
    rf"|({_INTERPRETERS}))"
    r"[ \t]*(?:#[^\n]*)?$",
    re.MULTILINE,
)


def _session(layer: Layer, before: int) -> str | None:
    """The interactive program whose input the text before `before` starts, if any: a
    runbook's `psql` line followed by the SQL typed into it."""
    starts = list(_SESSION.finditer(layer.text, 0, before))
    return (starts[-1].group(1) or starts[-1].group(2)) if starts else None


# Where a command name can stand in text that did not parse: a line's start, after an
# operator or `$(`, behind the usual prefixes.
_COMMAND_PLACE = r"(?:^|[;&|({`]|\$\()[ \t]*(?:(?:sudo|nohup|exec|time|command)[ \t]+)*"


def _holds_checked(layer: Layer) -> bool:
    """Whether the file holds something the other rules check: a wrapper, `pkill`, `sudo`,
    `scp`, a heredoc... (looked for in the text: the parse may have lost it), a name only
    where a command can stand, not as a word of prose (`data parallel size`)."""
    for trigger in present_triggers(layer.text, ALL_TRIGGERS):
        if not trigger.replace("-", "").isalnum():
            return True  # `<<`, a Python value
        where = _COMMAND_PLACE + r"(?:\S*/)?" + re.escape(trigger) + r"(?=[ \t\n;&|)]|$)"
        if re.search(where, layer.text, re.MULTILINE):
            return True
    return False


def _run_by_a_shell(layer: Layer, context: Context) -> bool:
    """A layer that some shell is handed as a command string, not a file."""
    return layer.depth > 0 or (context.kind == "python" and layer.offsets is not None)


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    errors = layer.script.errors
    if not errors:
        return
    first = errors[0]
    bad = layer.text[first.start : first.start + 1]
    shown = repr(bad)[1:-1] if bad else "end of text"
    # A `$` just before a value makes a name of it at run time (`eval echo "\$$(echo
    # $name)"` runs `echo $HOST`): the text as written is not what the shell parses.
    dynamic = any(
        e.start <= first.start or (e.start == first.start + 1 and bad == "$")
        for e in layer.local_expansions
    )
    reading = not_a_script(layer.text, layer.script.heredocs)
    accepted = None  # what bash says of the text, asked once at most
    if reading is not None and reading.field and not dynamic:
        # A text that bash parses has no field to fill in, whatever `<option>` or `date
        # +%Y_%H` its strings hold: tree-sitter failed elsewhere.
        accepted = bash_accepts(layer.text)
    template = None if reading is None or accepted else reading.what
    if template is None and context.kind == "markdown" and layer.depth == 0:
        program = _session(layer, layer.text.rfind("\n", 0, first.start) + 1)
        if program is not None:
            template = f"a session of `{program}` (the lines after it are typed into it)"
    kind, message = _verdict(layer, context, shown, dynamic, template, accepted)
    # At the very end of the text there is no character to point at: take the last one.
    start = max(0, min(first.start, len(layer.text) - 1))
    yield finding(layer, "HL001", kind, message, start, start + 1)


def _verdict(
    layer: Layer,
    context: Context,
    shown: str,
    dynamic: bool,
    template: str | None,
    accepted: bool | None,
) -> tuple[str, str]:
    """The evidence kind and message of a text that does not parse near `shown`: built at
    run time, not a script (`template`: what it looks like), or one that bash accepts
    (`accepted`, when already asked) or refuses."""
    place = where(layer).capitalize()
    if dynamic:
        return "runtime-built", (
            f"{place} is built from values known only at run time and does not parse "
            f"as written near `{shown}`; that region was not checked"
        )
    if template is not None:
        return "not-a-script", (
            f"{place} looks like {template}, not a script to run: it does not parse "
            f"near `{shown}` and was not checked"
        )
    if accepted if accepted is not None else bash_accepts(layer.text):
        return "bash-accepts", (
            f"tree-sitter-bash cannot parse {where(layer)} near `{shown}` (bash can); "
            "that region was not checked"
        )
    if _run_by_a_shell(layer, context):
        return "shell-string-refused", (
            f"{place} does not parse near `{shown}`: the shell that runs it refuses it "
            "with a syntax error; the rest was checked, this region was not"
        )
    kind = "script-refused" if _holds_checked(layer) else "script-without-checked"
    return kind, (
        f"{place} does not parse near `{shown}`: the shell that runs it stops with "
        "a syntax error; the rest was checked, this region was not"
    )


# -- examples (tests/test_rule_lists.py) ---------------------------------------------------
# The finding covers one character, the first one that does not parse. Each text was
# checked with `bash -n` (the string a wrapper runs, with `bash -n -c`): bash refuses every
# INVALID one and accepts every VALID one. tests/test_templates.py runs bash on the
# templates.
INVALID = (
    Invalid(  # the ssh command string: `if` without `fi`
        'ssh web-1 "if true; then echo ok"\n',
        "i",
        severity="info",
        says="The ssh command string does not parse near `i`",
    ),
    Invalid(  # `do` without `done`
        "bash -c 'for f in *.log; do gzip \"$f\"'\n",
        "f",
        severity="info",
        says="The bash -c command string does not parse",
    ),
    Invalid(  # the script itself: bash finds no matching `"` before the end
        'ssh h "echo $(( 1 + "\n',
        '"',
        severity="info",
        says='This script does not parse near `"`',
    ),
    # a template's field to fill in, not a script to run
    Invalid(
        "kubectl apply -f <path/to/fio-benchmark.yaml>\n",
        "\n",
        severity="info",
        says="looks like a template (the field `<path/to/fio-benchmark.yaml>`)",
    ),
    Invalid(
        "gcloud compute ssh login-001 --project <walkthrough-project-id/>\n",
        ">",
        severity="info",
        says="looks like a template (the field `<walkthrough-project-id/>`)",
    ),
)
VALID = (
    'ssh web-1 "if true; then echo ok; fi"\n',
    "bash -c 'for f in *.log; do gzip \"$f\"; done'\n",
    "ssh h 'echo \"Usage: $0 <query>\"'\n",  # a field's look in a string is no template
    "cat <<'EOF' | ssh h bash\necho '<path/to/job.yaml>'\nEOF\n",
)


RULE = rule("HL001", "parse-error", check, fix=FixAvailability.NONE)
