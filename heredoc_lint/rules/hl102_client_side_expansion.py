r"""An expansion that the local shell performs in a string meant for another shell.

## What it does
Finds `$x`, `${x}`, `$1`, `$@`, `$(...)` and backticks in a double-quoted or
unquoted string that is handed to another shell (`ssh host "..."`,
`bash -c "..."`), which the **local** shell expands before the inner shell
ever sees the text.

## Why is this bad?
The value substituted is the local one, at the time the outer command runs.
Often that is what the author wants (`ssh h "deploy $version"` passes a local
value), so the rule warns only where the code itself shows that the inner
shell was meant to expand it:

- error: inside a heredoc of the inner string whose delimiter is quoted
  (`<< 'EOF'` asks for a literal body, yet the remote file receives the local
  values, and every backslash-newline is deleted), unless the local script
  binds the name (below); and a name that the inner
  string binds before it (`ssh h "x=1; echo $x"`, `for f in ...; do ... $f`,
  `read line; ... $line`): it is expanded before that binding exists, usually
  to nothing; and an awk field (`$2`, `$NF`) in the single-quoted program of
  an `awk` in the inner string (`ssh h "awk '{print $2}' f"`): the quotes were
  written for awk, but the local shell fills in its own `$2` first;
- warning: positional parameters of a shell that has none (an agent's command
  line, a workflow step, a Python `shell=True` string, an ssh command string);
- info (measured on code read on first look, see heredoc_lint/severities.py):
  `$?`, `$!` and `$$` in strings run on another host (the local shell's status
  and process ids; `$$` where it names the process: `kill $$`, `echo $$ >
  app.pid`, `/proc/$$`); a name the local script binds, inside a quoted-delimiter
  heredoc of the inner string (`ssh h "sudo su <<\EOF ... cd $dir ... EOF"`:
  the author fills the remote shell's script with local values);
  command substitutions that ask about the machine (`$(hostname)`,
  `$(whoami)`, `$(pgrep -f app)`), named as such in the message (on real code
  read on first look they were meant: accounts the machines share); and
  everything else, which is usually meant: a function's `$1` (the
  function's argument), a script's `$1` (a script can always be given
  arguments), `$HOME`, `$PWD`, `$USER`, a variable the local script assigns, a
  whole argument (`ssh h "$cmd"`), anything inside `eval`, `watch` or
  `tmux send-keys`, and strings run on the same host (`bash -c`); a `$$` that
  makes part of a name (`ssh h "sar 1 5 > /tmp/u.$$"; ssh h "cat /tmp/u.$$"`: a
  run id, which the calls agree on only as the local one); and a probe of what
  a container shares with its host (`docker run img sh -c "make -j$(nproc)"`,
  unless `-H`, a context or DOCKER_HOST may send it to another machine).

## Example
```bash
ssh host "cat > run.sh << 'EOF'
exec server --port $1
EOF"
ssh host "for f in /srv/*.log; do gzip $f; done"
```

## Use instead
```bash
ssh host 'cat > run.sh' << 'EOF'
exec server --port $1
EOF
ssh host "for f in /srv/*.log; do gzip \$f; done"
```

## Fix safety
Inside a quoted-delimiter heredoc the fix of HL101 delivers the literal body
and is safe. For a name bound in the inner string, `$?`, `$!`, `$$`, a command
that asks about the machine, and a positional parameter of a shell that has
none, the fix escapes the expansion (`\$x`, `` \`cmd\` ``) so that the inner
shell expands it: unsafe, as it guesses that the local value was not meant.
The other findings have no fix.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from heredoc_lint import severities
from heredoc_lint.fixes.edits import Quote, layer_fix, quote_states
from heredoc_lint.fixes.remote_heredoc import heredoc_fix
from heredoc_lint.kinds import SourceKind
from heredoc_lint.layers.grammars import FORMS
from heredoc_lint.layers.layer import Call, Layer, LocalExpansion, calls
from heredoc_lint.layers.triggers import SELF_MATCHING
from heredoc_lint.layers.wrappers import Role, command_name
from heredoc_lint.model import Applicability, Finding, Fix, Severity
from heredoc_lint.rules.base import (
    Context,
    FixAvailability,
    Invalid,
    finding,
    rule,
    script_path,
)
from heredoc_lint.shell import evidence
from heredoc_lint.shell.heredoc import Heredoc
from heredoc_lint.shell.spans import Spans, line_number
from heredoc_lint.shell.words import Expansion, Word

REMOTE_NAMES = evidence.SHELL_SET_NAMES
REMOTE_SPECIALS = frozenset({"$", "!", "?"})
# explain.py's own list of remote-natured commands (it no longer decides a severity here).
POSITIONAL_SPECIALS = frozenset({"@", "*", "#"})
# Commands whose string arguments are meant to be expanded locally, then run or typed.
LOCAL_RUNNERS = frozenset({"eval", "watch"})
_SPECIAL_MEANING = {
    "?": "the local shell's last exit status",
    "!": "the process id of the local shell's last background job",
    "$": "the local shell's own process id",
}
# By kind of input, why its outermost shell has no positional parameters (what runs it
# gives none), or None: a script's own arguments, a Markdown block's whoever runs it.
NO_ARGUMENTS: dict[SourceKind, str | None] = {
    "shell": None,
    "markdown": None,
    "command": "an agent's command line has no arguments",
    "actions": "a workflow step is run without arguments",
    "python": "the shell of a Python string is run without arguments",
}


# Characters whose meaning changes when an expansion's text becomes plain quoted text.
_NOT_LITERAL = frozenset('\\"`$')
# `pgrep -f`, `pkill -af` ...: run inside the inner shell, they find that shell too.
_SELF_MATCHING_F = re.compile(rf"\b(?:{'|'.join(sorted(SELF_MATCHING))})\b[^;&|]*\s-\w*f")


@dataclass(frozen=True)
class Verdict:
    evidence: str  # a kind of heredoc_lint.severities' HL102 rows
    message: str
    escape: bool = False  # offer the unsafe fix that escapes the expansion

    @property
    def severity(self) -> Severity:
        return severities.severity("HL102", self.evidence)


def _who(layer: Layer) -> str:
    parent = layer.parent
    return "the local shell" if parent is None or parent.depth == 0 else "the outer shell"


def _before(layer: Layer) -> str:
    if layer.role is Role.SSH:
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
    return parent.in_local_expansion(item.parent_start)


def _anchor(layer: Layer, item: LocalExpansion) -> tuple[int, int]:
    """The expansion's span from its `$` or backtick: tree-sitter-bash 0.25 starts a `$b`
    that follows a blank inside double quotes at the blank (`"echo $a $b"`)."""
    start = item.start
    while start < item.end - 1 and layer.text[start] in " \t\n":
        start += 1
    return start, item.end


_RUNNER_COMMANDS = LOCAL_RUNNERS | {"tmux"}


def _runner_name(call: Call) -> str | None:
    """`eval`, `watch` or `tmux send-keys`: a command that runs or types its arguments."""
    if call.name in LOCAL_RUNNERS:
        return call.name
    if any(w.value in ("send-keys", "send") for w in call.words[1:]):
        return "tmux send-keys"
    return None


class _Facts:
    """What the rule asks of a layer for each of its expansions, found once per layer.

    Looking through every command (or source word) of the layer for each expansion was
    quadratic: an ssh string of n `$x`s has n of each."""

    def __init__(self, layer: Layer) -> None:
        self.layer = layer

    @functools.cached_property
    def source_values(self) -> frozenset[str]:
        return frozenset(w.value for w in self.layer.source_words)

    @functools.cached_property
    def _runners(self) -> tuple[list[str], Spans]:
        """The runner commands (in the order of the text) that hold an expansion: only
        those are ever asked about, and only their words are de-quoted."""
        starts = sorted(e.start for e in self.layer.local_expansions)
        names, spans = [], []
        for call in calls(self.layer, _RUNNER_COMMANDS):
            command = call.command
            k = bisect.bisect_left(starts, command.start)
            if k == len(starts) or starts[k] >= command.end:
                continue
            name = _runner_name(call)
            if name is not None:
                names.append(name)
                spans.append((command.start, command.end))
        return names, Spans(spans)

    def local_runner(self, index: int) -> str | None:
        """`eval`, `watch` or `tmux send-keys` whose arguments hold `index`: the first
        such command in the order of the text."""
        names, spans = self._runners
        k = spans.first(index)
        return None if k is None else names[k]

    @functools.cached_property
    def _awk_words(self) -> tuple[list[tuple[str, Word]], Spans]:
        """The arguments of the awk commands, each with its command's name."""
        words: list[tuple[str, Word]] = []
        for call in calls(self.layer, _AWKS):
            words.extend((call.name, word) for word in call.words[1:])
        return words, Spans([(w.start, w.end) for _, w in words])

    @functools.cached_property
    def container_here(self) -> bool:
        return _container_here(self.layer)

    def awk_field(self, item: LocalExpansion) -> str | None:
        """The awk command whose single-quoted program holds this `$1` / `$NF`: the quotes
        show it was written for awk, yet the outer shell expands it first."""
        e = item.expansion
        if not (e.kind == "positional" or (e.kind == "variable" and e.name == "NF")):
            return None
        words, spans = self._awk_words
        k = spans.first(item.start)
        if k is None:
            return None
        name, word = words[k]
        state = quote_states(self.layer.text, word).get(item.start)
        return name if state is Quote.SINGLE else None


# -- `$$` in a name: a run id that the calls of the script share ---------------------------
_WORD_ENDS = frozenset(" \t\n;&|<>()")  # what ends a word of the inner shell
_QUOTE_MARKS = str.maketrans("", "", "'\"`")
_VALUE_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=|--?[A-Za-z0-9][A-Za-z0-9-]*=")


def _pid_in_a_name(text: str, start: int, end: int) -> bool:
    """Whether the `$$` (or `${$}`) at text[start:end] makes part of a name (`/tmp/u.$$`,
    `log.$$.txt`, `--log=/tmp/l.$$`): a run id, which two ssh calls (`sar > /tmp/u.$$`, then
    `cat /tmp/u.$$`) agree on only as the local one. Not a `$$` alone (`kill $$`, `echo
    $$ > app.pid`, `pid=$$`), nor one that names the process in a longer word
    (`/proc/$$/status`, `-p$$`)."""
    a, b = start, end
    while a > 0 and text[a - 1] not in _WORD_ENDS:
        a -= 1
    while b < len(text) and text[b] not in _WORD_ENDS:
        b += 1
    prefix = text[a:start].translate(_QUOTE_MARKS)
    value = _VALUE_PREFIX.match(prefix)
    prefix = prefix[value.end() :] if value else prefix
    if prefix.endswith("/proc/") or prefix.startswith("-"):
        return False
    return bool(prefix or text[end:b].translate(_QUOTE_MARKS))


# -- a container on the machine that runs the command ------------------------------------
# `docker run img sh -c S` runs S on the machine that runs docker (its default daemon is
# local): a command there gets this machine's kernel, processors and memory, and the host's
# own name and user are what is usually passed in (`make -j$(nproc)`, `--node
# $(hostname)`, `chown $(id -u)`). Not its files, processes or network: the container has
# its own (`$(which python)`, `$(pgrep app)`, `$(cat /etc/...)`).
_CONTAINER_TOOLS = frozenset({"docker", "podman", "docker-compose", "podman-compose"})
_HOST_PROBES = frozenset(
    "nproc uname arch lscpu free getconf nvidia-smi hostid hostname whoami id logname".split()
)
# The other commands that reach another machine (ssh, kubectl, mosh, pdsh, ansible...).
_REMOTE_HOPS = (
    frozenset({form.command for form in FORMS if form.remote})
    | frozenset({"ssh", "autossh", "gcloud", "vagrant"})
) - _CONTAINER_TOOLS
# What may point docker or podman at a daemon on another machine: an option before the
# subcommand (`-H ssh://h`, `--context c`), a variable (`DOCKER_HOST=ssh://h`).
_DAEMON_OPTIONS = ("-H", "--host", "-c", "--context", "--url", "--connection", "-r", "--remote")
_DAEMON_VARIABLES = frozenset(
    {"DOCKER_HOST", "DOCKER_CONTEXT", "CONTAINER_HOST", "CONTAINER_CONNECTION"}
)


def _container_here(layer: Layer) -> bool:
    """Whether the layer runs in a docker or podman container of the machine whose shell
    expands its text (`docker run img sh -c S`), not through ssh, kubectl, or a daemon
    chosen elsewhere (`docker -H ssh://h`, `DOCKER_HOST=ssh://h`, an export of it)."""
    invocation, command, parent = layer.invocation, layer.command, layer.parent
    if invocation is None or command is None or parent is None or not invocation.words:
        return False
    before = [w for w in command.words if w.end <= invocation.words[0].start]
    names = [command_name(w, layer.wrappers) for w in before]
    hops = _REMOTE_HOPS | {name for name, kind in layer.wrappers.items() if kind == "ssh"}
    tool = next((k for k, name in enumerate(names) if name in _CONTAINER_TOOLS), None)
    if tool is None or any(name in hops for name in names) or _daemon_option(before[tool + 1 :]):
        return False
    assigned = {w.value.partition("=")[0] for w in (*command.assignments, *before)}
    exported = {name for name, _ in parent.script.assigned}
    return not (assigned | exported) & _DAEMON_VARIABLES


def _daemon_option(options: list[Word]) -> bool:
    """Whether the options after docker or podman, up to its subcommand, choose a daemon
    (`-H ssh://h`, `--context c`)."""
    for word in options:
        if not word.static or not word.value.startswith("-"):
            break  # the subcommand (`run`, `exec`), or options of unknown count
        if word.value.startswith(_DAEMON_OPTIONS):
            return True
    return False


def _line_of(layer: Layer, index: int, context: Context) -> int:
    """The file line of layer.text[index]."""
    return line_number(context.file_text, layer.file_offset(index))


def _positional_scope(layer: Layer, item: LocalExpansion, context: Context) -> tuple[str, bool]:
    """Whose arguments a positional parameter comes from, and whether that shell has none."""
    parent = layer.parent
    if parent is None:
        return "the outer shell's arguments", False
    function = evidence.function_at(parent.script, item.parent_start)
    if function is not None:
        return f"the arguments of the function `{function.name}` around it", False
    if parent.depth == 0 and parent.parent is None:
        reason = NO_ARGUMENTS[context.kind]
        if reason is not None:
            return reason, True
        if context.kind == "shell":
            return "this script's own arguments", False
        return "the local shell's arguments", False
    if parent.kind == "string" and parent.role is Role.SSH:
        return "the shell of an ssh command string is run without arguments", True
    return "the outer shell's arguments", False


def _outer_value(layer: Layer, name: str) -> str:
    """What the outer shell puts in place of `$name`: a value it set before the command
    (a loop's last, `for v in ...; do mnt=...; done`), or, as far as the text says, none."""
    parent, command = layer.parent, layer.command
    if parent and command and evidence.bound_before(parent.bindings, name, command.start):
        return f"the value that shell gave `{name}` before this command"
    return "the local value (usually empty)"


def _escape_advice(text: str) -> str:
    if text.startswith("`"):
        return f"write `\\`{text[1:-1]}\\`` to run it on the other side"
    return f"write `\\{text}` if the inner shell should expand it"


# Programs whose own language reads `$1`, `$NF` as fields: their program text in single
# quotes is written for them, not for a shell.
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})  # `busybox awk` too: busybox is a prefix


@dataclass(frozen=True)
class _Expander:
    """Who expands an expansion and when, in a message's words, and whether that is on
    another machine than the one meant, so that a warning may follow."""

    who: str  # "the local shell", ...
    before: str  # "before ssh sends the string", ...
    may_warn: bool  # the layer crossed to another machine, and nothing says it is meant
    inside: str  # " (inside `find -exec`, ...)" when a local runner holds it, or ""

    @property
    def use(self) -> str:
        """The evidence kind's qualifier: none where a warning may follow."""
        return "" if self.may_warn else "-local-use"


def _classify(
    layer: Layer, item: LocalExpansion, text: str, context: Context, facts: _Facts
) -> Verdict:
    e = item.expansion
    name = e.name.split("[", 1)[0]  # `${ids[0]}` reads the array `ids`
    who, before = _who(layer), _before(layer)
    delimiter = _inside_quoted_heredoc(layer, item.start)
    if delimiter is not None:
        return _in_quoted_heredoc(layer, e, name, text, delimiter, who, before)
    if e.kind == "variable" and evidence.bound_before(layer.bindings, name, item.start):
        return Verdict(
            "binding-inside",
            f"`{text}` is expanded by {who} {before}, before the binding of `{name}` in "
            f"the same string exists: it gets {_outer_value(layer, name)}; " + _escape_advice(text),
            escape=True,
        )
    awk = facts.awk_field(item)
    if awk is not None:
        return Verdict(
            "awk-field",
            f"`{text}` is a field of the {awk} program, in single quotes written for {awk}, "
            f"but {who} expands it {before}: {awk} gets the local value (usually empty) "
            "instead of the field; " + _escape_advice(text),
            escape=True,
        )
    runner = facts.local_runner(item.start)
    # On the same host (`bash -c`, `eval`) the local value is usually the one meant, and
    # so it is when the expansion is a whole argument (`ssh h "$@"`, `ssh h "$cmd"`).
    whole_word = text in facts.source_values
    # The expanding shell is on another machine only where this layer crossed to one
    # (ssh): a `bash -c` inside a remote string is expanded on its own machine.
    crosses = layer.invocation is not None and layer.invocation.remote
    how = _Expander(
        who,
        before,
        crosses and not whole_word and runner is None,
        f" (inside `{runner}`, where local expansion is usually the point)" if runner else "",
    )
    if e.kind == "positional" or (e.kind == "special" and e.name in POSITIONAL_SPECIALS):
        return _positional(layer, item, text, context, how)
    if e.kind == "special" and e.name in REMOTE_SPECIALS:
        return _special(layer, item, text, how)
    if e.kind in ("command", "backtick") and evidence.probes_machine(e.name):
        return _machine_probe(e, text, facts, how)
    if e.kind == "variable":
        return _variable(layer, e, name, text, context, how)
    return Verdict("local-expansion", f"`{text}` is expanded by {who} {before}")


def _variable(
    layer: Layer, e: Expansion, name: str, text: str, context: Context, how: _Expander
) -> Verdict:
    if layer.parent is not None:
        bound = evidence.binding_end(layer.parent.script, name)
        if bound is not None:
            line = _line_of(layer.parent, bound - 1, context)
            return Verdict(
                "local-variable",
                f"`{text}` is the local variable set on line {line}, expanded by "
                f"{how.who} {how.before}",
            )
    if e.name in REMOTE_NAMES:
        return Verdict(
            "machine-variable",
            f"`{text}` is this machine's value, expanded by {how.who} {how.before}; "
            + _escape_advice(text),
        )
    return Verdict("local-expansion", f"`{text}` is expanded by {how.who} {how.before}")


def _in_quoted_heredoc(
    layer: Layer, e: Expansion, name: str, text: str, delimiter: str, who: str, before: str
) -> Verdict:
    parent = layer.parent
    if (
        e.kind == "variable"
        and parent is not None
        and evidence.binding_end(parent.script, name) is not None
    ):
        return Verdict(
            "quoted-delimiter-binding",
            f"`{text}` is expanded by {who} {before}, although the quoted '{delimiter}' "
            f"heredoc says its body is literal: the body gets the local `{name}`, "
            "assigned in the outer script; if that is meant, say so with an unquoted "
            "delimiter",
        )
    return Verdict(
        "quoted-delimiter",
        f"`{text}` is expanded by {who} {before}: the quoted '{delimiter}' heredoc asks "
        "for it literally, but the body receives the local value (empty if unset)",
    )


def _positional(
    layer: Layer, item: LocalExpansion, text: str, context: Context, how: _Expander
) -> Verdict:
    scope, none = _positional_scope(layer, item, context)
    if none:
        return Verdict(
            "positional-empty" + how.use,
            f"`{text}` is expanded by {how.who} {how.before}, and there it is empty: "
            f"{scope}{how.inside}; " + _escape_advice(text),
            escape=how.may_warn,
        )
    return Verdict("positional", f"`{text}` is expanded by {how.who} {how.before}, from {scope}")


def _special(layer: Layer, item: LocalExpansion, text: str, how: _Expander) -> Verdict:
    name = item.expansion.name
    start = item.end - len(text)
    if how.may_warn and name == "$" and _pid_in_a_name(layer.text, start, item.end):
        return Verdict(
            "special-parameter-local-use",
            f"`{text}` is {_SPECIAL_MEANING[name]}, expanded by {how.who} {how.before}: a "
            "part of a name (a run id), the same for every call of this run, which is "
            "usually meant; " + _escape_advice(text),
        )
    return Verdict(
        "special-parameter" + how.use,
        f"`{text}` is {_SPECIAL_MEANING[name]}, expanded by {how.who} {how.before}, not the "
        f"inner shell's{how.inside}; " + _escape_advice(text),
        escape=how.may_warn,
    )


def _machine_probe(e: Expansion, text: str, facts: _Facts, how: _Expander) -> Verdict:
    probe = e.name.split()
    host_probe = bool(probe) and probe[0].rsplit("/", 1)[-1] in _HOST_PROBES
    if how.may_warn and host_probe and facts.container_here:
        return Verdict(
            "machine-probe-local-use",
            f"`{text}` runs on this machine {how.before}, and so does the container: it "
            "describes the host the container shares (its kernel, processors, name, "
            "users), which is usually meant; " + _escape_advice(text),
        )
    return Verdict(
        "machine-probe" + how.use,
        f"`{text}` runs on this machine {how.before}, so it describes this machine, not the "
        f"one that runs the string{how.inside}; " + _escape_advice(text),
        escape=how.may_warn,
    )


def _reopen_advice(text: str) -> str:
    return (
        f"write `'\\\"\\{text}\\\"'` (out of the inner single quotes) if the inner shell "
        "should expand it"
    )


def _in_inner_single_quotes(layer: Layer, index: int) -> bool:
    """Whether the inner shell reads `index` inside single quotes (`sed -i '\\|$x|d'` in
    an ssh string): an escaped `\\$x` would stay `$x` there for good."""
    for command in layer.script.commands:
        for word in command.words:
            if word.start <= index < word.end:
                return quote_states(layer.text, word).get(index) is Quote.SINGLE
    return False


def _escape_fix(layer: Layer, item: LocalExpansion, reopen: bool) -> Fix | None:
    """Make the parent shell pass the expansion on as written (`\\$x`), and with `reopen`
    out of the inner shell's single quotes (`'\\"\\$x\\"'`: `'"$x"'` reaches it).

    The edit spans the expansion as the parent word holds it (with the blank that
    tree-sitter may have put before it), so that it ends where the word's expansion ends."""
    text = layer.text[item.start : item.end]
    body = text.strip()
    body = body[1:-1] if body.startswith("`") else body[1:]
    if any(c in body for c in _NOT_LITERAL):
        # `$(cat \"f\")`: the source text is no longer what the inner shell would get once
        # the `$` is escaped (the parent would now undo `\"`): no edit says it for sure.
        return None
    if item.expansion.kind in ("command", "backtick") and _SELF_MATCHING_F.search(body):
        # `kill $(pgrep -f app)` run by the inner shell: pgrep finds that shell, whose
        # command line holds `app`, and kill ends it (HL103): the fix would write a bug.
        return None
    if reopen:
        blank = text[: len(text) - len(text.lstrip())]
        text = f"{blank}'\"{text.lstrip()}\"'"
    return layer_fix(
        layer,
        [(item.start, item.end, text)],
        Applicability.UNSAFE,
        f"Escape `{layer.text[item.start : item.end].strip()}` so that the inner shell expands it",
    )


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    if layer.kind != "string":
        return
    fixes: dict[Heredoc, Fix | None] = {}
    facts = _Facts(layer)

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
        start, end = _anchor(layer, item)
        text = layer.text[start:end]
        verdict = _classify(layer, item, text, context, facts)
        message, fix = verdict.message, fix_at(item.start)
        # Only a variable the string binds is the inner shell's for sure; in its single
        # quotes `\$2` is meant for the program (awk's field), and `\$2` gives it that.
        reopen = verdict.evidence == "binding-inside" and _in_inner_single_quotes(layer, item.start)
        if reopen:
            message = message.replace(_escape_advice(text), _reopen_advice(text))
        if fix is None and verdict.escape:
            fix = _escape_fix(layer, item, reopen)
        yield finding(layer, "HL102", verdict.evidence, message, start, end, fix)
    for index in layer.continuations:
        delimiter = _inside_quoted_heredoc(layer, index)
        if delimiter is None:
            continue
        yield finding(
            layer,
            "HL102",
            "continuation-in-quoted-heredoc",
            f"{_who(layer).capitalize()} deletes this backslash-newline {_before(layer)}: "
            f"in the quoted '{delimiter}' heredoc the two lines arrive joined",
            index,
            index + 1,
            fix_at(index),
        )


# -- examples (tests/test_rule_lists.py) ---------------------------------------------------
INVALID = (
    # Errors, warnings and `special-parameter` (info by its first look, 2 TP / 1 FP / 2
    # debatable).
    Invalid(
        'ssh h "x=1; echo $x"\n',
        "$x",
        'ssh h "x=1; echo \\$x"\n',
        "error",
        "binding of `x` in the same string exists: it gets the local value (usually empty); "
        "write `\\$x`",
    ),
    Invalid(  # the local shell set `m` before: its value; in the inner single quotes, reopened
        "m=/a\nssh h \"for m in /a /b; do sed -i '\\|$m|d' t; done\"\n",
        "$m",
        "m=/a\nssh h \"for m in /a /b; do sed -i '\\|'\\\"\\$m\\\"'|d' t; done\"\n",
        "error",
        "it gets the value that shell gave `m` before this command; write `'\\\"\\$m\\\"'` (out "
        "of the inner single quotes)",
    ),
    # A local literal of the same name changes nothing: the remote binding is meant.
    Invalid(
        'x=0\nssh h "x=1; echo $x"\n',
        "$x",
        'x=0\nssh h "x=1; echo \\$x"\n',
        "error",
        "binding of `x`",
    ),
    Invalid(
        'ssh h "for f in /srv/*.log; do gzip $f; done"\n',
        "$f",
        'ssh h "for f in /srv/*.log; do gzip \\$f; done"\n',
        "error",
        "binding of `f`",
    ),
    Invalid(
        'ssh h "while read -r line; do echo $line; done < /etc/hosts"\n',
        "$line",
        'ssh h "while read -r line; do echo \\$line; done < /etc/hosts"\n',
        "error",
        "binding of `line`",
    ),
    Invalid(
        'ssh h "mapfile -t ids < f; echo ${ids[0]}"\n',
        "${ids[0]}",
        'ssh h "mapfile -t ids < f; echo \\${ids[0]}"\n',
        "error",
        "`ids`",
    ),
    Invalid(  # HL101's fix, safe: the literal body
        "ssh h \"cat > run.sh << 'EOF'\nexec srv --port $1\nEOF\"\n",
        "$1",
        'ssh h "printf %s ZXhlYyBzcnYgLS1wb3J0ICQxCg== | base64 -d > run.sh"\n',
        "error",
        "quoted 'EOF' heredoc asks for it literally",
    ),
    Invalid('ssh h "kill $$"\n', "$$", None, "info", "the local shell's own process id"),
    Invalid(
        'ssh h "false; echo $?"\n',
        "$?",
        'ssh h "false; echo \\$?"\n',
        "info",
        "last exit status, expanded by the local shell before ssh sends the command, not the "
        "inner shell's; write `\\$?`",
    ),
    Invalid(
        'ssh h "sleep 9 & wait $!"\n',
        "$!",
        'ssh h "sleep 9 & wait \\$!"\n',
        "info",
        "last background job",
    ),
    Invalid(  # layer 2: host a's login shell expands `$1`; an ssh command string has no arguments
        'ssh a "ssh b \\"echo \\$1\\""\n',
        "$1",
        'ssh a "ssh b \\"echo \\\\\\$1\\""\n',
        "warning",
        "the shell of an ssh command string is run without arguments",
    ),
    # A command that describes the machine: evidence `machine-probe`, info by default.
    Invalid(
        'ssh h "echo $(hostname)"\n',
        "$(hostname)",
        'ssh h "echo \\$(hostname)"\n',
        "info",
        "describes this machine",
    ),
    Invalid(  # no fix: escaped, `pgrep -f app` would find the remote shell and kill it
        'ssh h "kill $(pgrep -f app)"\n',
        "$(pgrep -f app)",
        None,
        "info",
        "describes this machine",
    ),
    Invalid(
        'ssh h "kill $(pidof app)"\n',
        "$(pidof app)",
        'ssh h "kill \\$(pidof app)"\n',
        "info",
        "describes this machine",
    ),
    Invalid(
        'ssh h "echo `whoami`"\n',
        "`whoami`",
        'ssh h "echo \\`whoami\\`"\n',
        "info",
        "describes this machine, not the one that runs the string; write `\\`whoami\\``",
    ),
    # Intended local expansion: info, with the scope named, and no fix.
    Invalid(  # a function's $1 is the function's argument
        'deploy() { ssh "$HOST" "systemctl restart $1"; }\ndeploy api\n',
        "$1",
        None,
        "info",
        "from the arguments of the function `deploy` around it",
    ),
    Invalid('ssh "$h" "cd $PWD && make"\n', "$PWD", None, "info", "this machine's value"),
    Invalid('ssh "$h" "echo $USER"\n', "$USER", None, "info", "this machine's value"),
    # (A literal value is put in the remote text itself: tests/test_layers.py.)
    Invalid(
        'version=$(cat VERSION)\nssh h "deploy $version"\n',
        "$version",
        None,
        "info",
        "the local variable set on line 1",
    ),
    Invalid('ssh h "echo $1"\n', "$1", None, "info", "from this script's own arguments"),
    Invalid('ssh h "$@"\n', "$@", None, "info", "from this script's own arguments"),
    Invalid('ssh h "$cmd"\n', "$cmd", None, "info", "expanded by the local shell"),
    Invalid('bash -c "kill $$"\n', "$$", None, "info", "before `bash -c` runs the string"),
    Invalid(
        "ssh h \"tmux send-keys -t s 'cd $(hostname)' Enter\"\n",
        "$(hostname)",
        None,
        "info",
        "inside `tmux send-keys`",
    ),
    Invalid('ssh h "watch -n 1 cat /proc/$$/status"\n', "$$", None, "info", "inside `watch`"),
    Invalid(
        'ssh h "deploy $(date +%s)"\n', "$(date +%s)", None, "info", "expanded by the local shell"
    ),
    # The escape fix (unsafe).
    Invalid("ssh h echo go\\; x=1\\; echo $x\n", "$x", "ssh h echo go\\; x=1\\; echo '$x'\n"),
    Invalid(
        "ssh h \"kill $(cat '/run/app.pid')\"\n",
        "$(cat '/run/app.pid')",
        "ssh h \"kill \\$(cat '/run/app.pid')\"\n",
    ),
    # An awk field in single quotes: the author meant awk's field.
    Invalid(
        'ssh "$HOST" "awk \'{print $2}\' /etc/hosts"\n',
        "$2",
        'ssh "$HOST" "awk \'{print \\$2}\' /etc/hosts"\n',
        "error",
        "a field of the",
    ),
    Invalid(
        "ssh h \"ps aux | awk '{print $NF}'\"\n",
        "$NF",
        "ssh h \"ps aux | awk '{print \\$NF}'\"\n",
        "error",
        "a field of the",
    ),
)
VALID = (
    "ssh host 'cat > run.sh' << 'EOF'\nexec server --port $1\nEOF\n"
    'ssh host "for f in /srv/*.log; do gzip \\$f; done"\n',
    "ssh h 'x=1; echo $x'\n",  # single quotes: the remote shell expands it
    'ssh h "x=1; echo \\$x"\n',  # escaped for the remote shell
    "ssh h \"awk '{print \\$2}' /etc/hosts\"\n",
    'x=1\necho "$x"\n',  # no other shell
)


RULE = rule("HL102", "client-side-expansion", check, fix=FixAvailability.SOMETIMES)
