r"""A remote script fed by an unquoted heredoc (`ssh h <<EOF`): its body expands locally.

## What it does
Finds a heredoc with an unquoted delimiter (`<<EOF`) that is fed as a script
to a remote shell: `ssh host <<EOF`, `ssh host bash -s <<EOF`,
`ssh host sudo sh <<EOF`, `ssh host sudo su <<EOF` (and `su -`, `sudo -i`,
`sudo -s`), `docker exec -i c sh <<EOF`, when the body holds an
unescaped `$` expansion or a backtick.

## Why is this bad?
With an unquoted delimiter the heredoc body is expanded by the shell that
runs the `ssh` (or `docker exec`) command, before anything is sent: `$x`,
`${x}`, `$1`, `$(cmd)` and backticks are replaced by their **local** values,
and the remote shell receives the results. `$HOME` is the local home,
`$(hostname)` the local host name, a variable that the body itself assigns
(`x=1` then `echo $x`) is expanded before the assignment exists (usually to
nothing), and `$(...)` runs local commands. The remote script then does
something else than it reads, without any error.

Escaped expansions (`\$HOME`) and `$` that expands nothing (`$ ` or a lone
`$` at the end of a line) are not reported, nor are those on a line that
starts with `#`: the remote shell skips that comment (or, in a heredoc inside
the body, it is a comment of the file written). A heredoc whose body is data for a
remote command (`ssh host 'cat > f' <<EOF`) is not reported either: there a
local expansion is often what the author wants.

A local value is often sent on purpose: when every expansion of the body is a
variable that this script sets (`SERVICE=api` then `systemctl restart
$SERVICE`), that it reads on its own command lines too (`scp f
"$IP:$DEPLOY_PATH"`, a value its caller sets), or an argument of the function
around the heredoc or of the script where the remote shell is given none of its
own (`ssh h sh <<EOF` with `do_$1`: the remote `$1` would be empty), (in
Markdown also a variable that another block of the page
sets), or a variable nothing in the script sets or reads (a CI setting, a
caller's export), its evidence is `local-meaning`, else `remote-meaning` (both
info by default: see the severity table below). What can only be meant for the
remote shell is named in the message: `$?`, `$!`, `$$`, a variable the body
itself sets before using it, a variable every shell sets (`PATH`, `HOME`)
inside single quotes of the body (`echo 'export PATH=${PATH}:/opt/bin' >>
~/.bashrc`: quotes for the remote shell, which the local one ignores), and a
command substitution that asks about the machine (`$(hostname)`,
`$(command -v nvcc)`). A `# shellcheck disable=SC2087` before the command
counts as a suppression of this rule.

## Example
```bash
ssh web-1 bash -s <<EOF
cd /srv/app && echo "deployed on $(hostname) as $USER"
EOF
```

## Use instead
```bash
ssh web-1 bash -s <<'EOF'
cd /srv/app && echo "deployed on $(hostname) as $USER"
EOF
```
To pass a local value on purpose, give it as an argument
(`ssh web-1 bash -s -- "$version" <<'EOF'` and `$1` in the body) or escape
the remote expansions one by one (`\$USER`).

## Fix safety
Unsafe: quoting the delimiter guesses that every expansion was meant for the
remote shell, and some may have been meant to be local. The fix quotes the
delimiter (`<<'EOF'`) and undoes the escapes that the unquoted heredoc
processed (`\$`, `` \` `` and `\\` become `$`, `` ` `` and `\`), so the parts
that already reached the remote shell arrive unchanged. A backslash-newline,
which the unquoted heredoc joined, then reaches the remote shell as written,
which joins the lines in the same way outside quotes. Where every expansion is
a value the script sets (the info findings), the fix is display-only: applied,
it would send the names instead of the values the author meant to send.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from heredoc_lint.fixes.edits import Quote, layer_fix, quote_states
from heredoc_lint.layers.layer import Layer
from heredoc_lint.layers.wrappers import Invocation, resolve
from heredoc_lint.model import Applicability, Finding, Fix
from heredoc_lint.rules.base import Context, FixAvailability, Invalid, finding, quote_snippet, rule
from heredoc_lint.shell import evidence
from heredoc_lint.shell.heredoc import Heredoc
from heredoc_lint.shell.syntax import Command, Script, parse_script
from heredoc_lint.shell.words import Word, matching_close

MAX_NESTING = 8

# After a `$`, what starts an expansion in an unquoted heredoc body.
_NAME_START = re.compile(r"[A-Za-z_0-9@*#?$!\-{(\[]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_ESCAPABLE = frozenset("$`\\")


@dataclass(frozen=True)
class BodyExpansion:
    start: int  # offsets into the layer text
    end: int


def body_expansions(text: str, start: int, end: int) -> tuple[list[BodyExpansion], list[int]]:
    r"""Unescaped expansions of an unquoted heredoc body text[start:end], and the escapes.

    The escapes are the offsets of the backslashes in `\$`, `` \` `` and `\\`,
    which bash removes in an unquoted heredoc body.
    """
    found: list[BodyExpansion] = []
    escapes: list[int] = []
    i = start
    while i < end:
        c = text[i]
        if c == "\\":
            if i + 1 < end and text[i + 1] in _ESCAPABLE:
                escapes.append(i)
            i += 2
            continue
        if c == "`":
            close = text.find("`", i + 1, end)
            stop = end if close < 0 else close + 1
            found.append(BodyExpansion(i, stop))
            i = stop
            continue
        if c == "$" and i + 1 < end and _NAME_START.match(text, i + 1):
            nxt = text[i + 1]
            if nxt == "{":
                stop = matching_close(text, i + 1, end, "{", "}")
            elif nxt == "(":
                stop = matching_close(text, i + 1, end, "(", ")")
            elif nxt == "[":
                stop = matching_close(text, i + 1, end, "[", "]")
            else:
                match = _NAME.match(text, i + 1)
                stop = match.end() if match else i + 2
            found.append(BodyExpansion(i, stop))
            i = stop
            continue
        i += 1
    return found, escapes


def _piped_into(text: str, command: Command) -> bool:
    """The command's stdin is a pipe (it is not the first command of a pipeline)."""
    before = text[: command.start].rstrip()
    return before.endswith(("|", "|&")) and not before.endswith("||")


def _own_stdin(command: Command) -> bool:
    return any(r.source_fd == 0 and not r.writes for r in command.redirects)


def script_reader(
    words: Sequence[Word], wrappers: Mapping[str, str], nesting: int = 0
) -> Invocation | None:
    """The invocation whose shell reads its script from this command's stdin, if any.

    `ssh h`, `docker exec -i c sh`: directly.  `ssh h bash -s`, `ssh h sudo sh`,
    `ssh a ssh b`: through the remote command, whose stdin is the ssh's stdin.
    """
    invocation = resolve(words, wrappers)
    if invocation is None or nesting > MAX_NESTING:
        return None
    if invocation.ssh is not None and (
        invocation.ssh.has_flag("n") or invocation.ssh.has_flag("f")
    ):
        return None  # stdin is /dev/null: the heredoc never reaches the remote side
    if invocation.stdin_script:
        return invocation
    if not invocation.remote or not invocation.words:
        return None
    inner_text = " ".join(w.value for w in invocation.words)
    inner = parse_script(inner_text)
    for command in inner.commands:
        if command.in_substitution or _own_stdin(command) or _piped_into(inner_text, command):
            continue
        if script_reader(command.words, wrappers, nesting + 1) is not None:
            return invocation
    return None


def _delimiter_span(layer: Layer, heredoc: Heredoc) -> tuple[int, int]:
    start = heredoc.op_start + (3 if heredoc.strip_tabs else 2)
    text = layer.text
    while start < heredoc.op_end and text[start] in " \t":
        start += 1
    return start, heredoc.op_end


def _fix(layer: Layer, heredoc: Heredoc, escapes: list[int], intended: bool) -> Fix | None:
    """Quote the delimiter: unsafe, and only a suggestion where every expansion is a value
    the script evidently meant to send (applied, it would send the names instead)."""
    start, end = _delimiter_span(layer, heredoc)
    word = layer.text[start:end]
    if "'" in word:
        return None
    return layer_fix(
        layer,
        [(start, end, f"'{word}'"), *((k, k + 1, "") for k in escapes)],
        Applicability.DISPLAY_ONLY if intended else Applicability.UNSAFE,
        f"Quote the delimiter (<<'{heredoc.delimiter}') so the remote shell expands the body",
    )


def _effect(layer: Layer, wrapper: str, names: str) -> str:
    if layer.depth == 0:
        return (
            f"the local shell expands {names} in the body before {wrapper} sends it: the "
            "remote shell receives the local values (empty if unset), not the expansions"
        )
    runner = "the remote shell" if layer.remote else "the shell"
    what = "this script" if layer.kind == "stdin" else "this string"
    return (
        f"{runner} that runs {what} expands {names} in the body before {wrapper} passes it "
        f"on: the shell behind {wrapper} receives that shell's values, not the expansions"
    )


@dataclass(frozen=True)
class _Judged:
    """The expansions of one body, sorted by what the code shows of their intent."""

    remote: list[tuple[str, str]]  # (text, why it can only be meant remotely)
    other: list[str]  # nothing shows which side they are meant for
    local: list[str]  # variables the local script sets: meant to be sent as values


_SPECIALS = frozenset("?!$")
# Names whose value differs between the machines: a local read of them shows nothing.
REMOTE_NAMES = evidence.SHELL_SET_NAMES
# What every shell sets for itself: in single quotes in the body (`echo 'export
# PATH=${PATH}:/opt/bin' >> ~/.bashrc`) it was written for the remote shell to keep. Any
# other name in single quotes may be a local value the quotes protect (`'$PASSWORD'`).
_EVERY_SHELLS = REMOTE_NAMES | {"PATH"}
_SIMPLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z_0-9]*|[0-9?!$@*#])")


def _gives_arguments(reader: Invocation) -> bool:
    """Whether the remote shell that reads the body gets arguments: words after its `-s`
    or `--` (`ssh h bash -s -- "$v" <<EOF`)."""
    values = [w.value for w in reader.words]
    marks = [k for k, v in enumerate(values) if v in ("-s", "--")]
    return bool(marks) and marks[-1] + 1 < len(values)


def _judge(
    layer: Layer,
    reader: Invocation,
    heredoc: Heredoc,
    found: list[BodyExpansion],
    context: Context,
    read_locally: Callable[[], frozenset[str]],
) -> _Judged:
    text = layer.text
    body = parse_script(text[heredoc.body_start : heredoc.body_end])
    bound_in_body = evidence.bindings(body)
    bound_here = evidence.bindings(layer.script)
    in_function = evidence.function_at(layer.script, heredoc.op_start) is not None
    # `$1` of the body: the local one, unless the remote shell is given arguments of its
    # own (`bash -s -- "$v"`); without them its `$1` is empty, which no author means.
    local_positionals = in_function or not _gives_arguments(reader)
    judged = _Judged([], [], [])
    for e in found:
        shown = text[e.start : e.end]
        if shown.startswith("`") or shown.startswith("$("):
            if _probes_machine(shown):
                judged.remote.append((shown, "asks about the machine it runs on"))
            else:
                judged.other.append(shown)
            continue
        name = _simple_name(shown)
        if name in _EVERY_SHELLS and _single_quoted(body, e.start - heredoc.body_start):
            why = "stands inside single quotes in the body, to reach the remote shell as written"
            judged.remote.append((shown, why))
            continue
        local_end = bound_in_body.get(name)
        if name in _SPECIALS:
            judged.remote.append((shown, "only has a meaning in the shell that runs the body"))
        elif local_end is not None and heredoc.body_start + local_end <= e.start:
            judged.remote.append((shown, "is set by the body itself, before it"))
        elif name in bound_here or (local_positionals and name[:1].isdigit()):
            judged.local.append(shown)
        else:
            judged.other.append(shown)
    if judged.other:
        _move_script_values(judged, context, read_locally())
    return judged


def _probes_machine(shown: str) -> bool:
    """Whether the command substitution `shown` (`$(...)`, a backtick one) asks about the
    machine it runs on; an arithmetic `$((...))` runs no command."""
    command = shown[1:-1] if shown.startswith("`") else shown[2:-1]
    return not shown.startswith("$((") and evidence.probes_machine(command)


def _simple_name(shown: str) -> str:
    """The name of the expansion `shown` (`$x`, `${x...}`, `$1`, `$?`), or ""."""
    match = _SIMPLE.match(shown)
    return match.group(1) if match else ""


def _move_script_values(judged: _Judged, context: Context, read_here: frozenset[str]) -> None:
    """Move to judged.local each of judged.other that is a value of the script. A variable
    that the script also reads outside the heredoc, on its own command lines (`scp f
    "$USER@$IP:$DEPLOY_PATH"`, `read_here`), is one: set by its caller, and meant for the
    body the same way."""
    still: list[str] = []
    for shown in judged.other:
        name = _simple_name(shown)
        local_value = name not in REMOTE_NAMES and (
            name in read_here or _set_in_another_block(context, name)
        )
        (judged.local if local_value else still).append(shown)
    judged.other[:] = still


def _single_quoted(body: Script, at: int) -> bool:
    """Whether offset `at` of the body stands inside single quotes of the body's own
    script: quotes for the remote shell, which the local shell does not honour in an
    unquoted heredoc."""
    for command in body.commands:
        if command.start <= at < command.end:
            for word in (*command.words, *command.assignments):
                if word.start <= at < word.end:
                    return quote_states(body.text, word).get(at) is Quote.SINGLE
    return False


def _telling(shown: str) -> bool:
    """An expansion the script neither sets nor reads that still shows the body was
    meant for the remote shell: a command run here instead, a name every login shell
    sets for itself (`$HOME`, `$USER`), a positional parameter of the remote script.
    A plain variable (`$DEPLOY_DIR`, `$x`) shows nothing: a CI setting, an export."""
    if shown.startswith(("`", "$(")):
        return not shown.startswith("$((")
    name = _simple_name(shown)
    return name in REMOTE_NAMES or name[:1].isdigit() or name in ("@", "*", "#")


def _set_in_another_block(context: Context, name: str) -> bool:
    """In Markdown the blocks are one session: a variable set in an earlier block
    (`NODE_IP=$(...)`, `export NODE_IP=...`) is the reader's local value."""
    if context.kind != "markdown" or not name:
        return False
    pattern = rf"(?m)(?:^|[\s;&|{{(])(?:export\s+)?{re.escape(name)}="
    return re.search(pattern, context.file_text) is not None


def _read_locally(layer: Layer) -> frozenset[str]:
    """The variables the layer's own commands expand (heredoc bodies are not commands)."""
    return frozenset(
        e.name
        for command in layer.script.commands
        for word in (*command.words, *command.assignments)
        for e in word.expansions
        if e.kind == "variable"
    )


def _names(texts: list[str]) -> str:
    texts = list(dict.fromkeys(texts))
    names = ", ".join(f"`{quote_snippet(t, 30)}`" for t in texts[:3])
    return names + (f" and {len(texts) - 3} more" if len(texts) > 3 else "")


def _on_comment_line(text: str, index: int) -> bool:
    line_start = text.rfind("\n", 0, index) + 1
    return text[line_start:index].lstrip(" \t").startswith("#")


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    if not layer.script.heredocs:
        return  # without one, no command's redirections need reading
    # Found once per layer, and only when a heredoc asks: once per heredoc was quadratic.
    read_locally = functools.cache(lambda: _read_locally(layer))
    for command in layer.script.commands:
        heredocs = [
            r.heredoc
            for r in command.redirects
            if r.heredoc is not None and r.source_fd == 0 and not r.heredoc.quoted
        ]
        if not heredocs:
            continue
        invocation = script_reader(command.words, context.wrappers)
        if invocation is None or not invocation.remote:
            continue
        for heredoc in heredocs:
            found, escapes = _expanded_here(layer, heredoc)
            if not found:
                continue
            judged = _judge(layer, invocation, heredoc, found, context, read_locally)
            kind, message = _message(layer, heredoc, invocation.wrapper, judged)
            width = 3 if heredoc.strip_tabs else 2
            yield finding(
                layer,
                "HL107",
                kind,
                message,
                heredoc.op_start,
                heredoc.op_start + width,
                _fix(layer, heredoc, escapes, intended=kind == "local-meaning"),
            )


def _expanded_here(layer: Layer, heredoc: Heredoc) -> tuple[list[BodyExpansion], list[int]]:
    """The expansions of the body that this layer's shell makes (body_expansions), and
    the escapes."""
    found, escapes = body_expansions(layer.text, heredoc.body_start, heredoc.body_end)
    # `$x` that the parent shell already expanded is HL102's: this layer never sees it.
    found = [e for e in found if not layer.in_local_expansion(e.start)]
    # On a line that starts with `#`, the value changes a comment: one the remote
    # shell skips, or one of a file a heredoc inside the body writes.
    found = [e for e in found if not _on_comment_line(layer.text, e.start)]
    return found, escapes


def _message(layer: Layer, heredoc: Heredoc, wrapper: str, judged: _Judged) -> tuple[str, str]:
    """The finding's evidence kind and message, by what the code shows of the intent."""
    quote = f"quote the delimiter (<<'{heredoc.delimiter}') to send the body as written"
    # A variable nothing here sets or reads is no evidence either way (a CI
    # setting, a caller's export): info; a command run locally is.
    telling = [t for t in judged.other if _telling(t)]
    if judged.remote or telling:
        texts = [t for t, _ in judged.remote] + judged.other
        evidence_note = "".join(f"; `{quote_snippet(t, 30)}` {why}" for t, why in judged.remote[:2])
        return "remote-meaning", (
            f"The heredoc delimiter `{heredoc.delimiter}` is unquoted, so "
            + _effect(layer, wrapper, _names(texts))
            + f"{evidence_note}; {quote}"
        )
    return "local-meaning", (
        f"The heredoc delimiter `{heredoc.delimiter}` is unquoted, so the shell "
        f"that runs {wrapper} expands {_names(judged.local + judged.other)} in "
        "the body first: "
        "values of this script or of its environment (variables it sets, reads or "
        "is given), which are usually meant to be sent; "
        f"if not, {quote}"
    )


# -- examples (tests/test_rule_lists.py) ---------------------------------------------------
_SAYS = "quote the delimiter (<<'"
INVALID = (
    Invalid(
        "ssh web-1 <<EOF\necho $USER\nEOF\n",
        "<<",
        "ssh web-1 <<'EOF'\necho $USER\nEOF\n",
        "info",
        _SAYS,
    ),
    Invalid(
        'ssh web-1 bash -s <<EOF\ncd /srv && echo "on $(hostname)"\nEOF\n',
        "<<",
        "ssh web-1 bash -s <<'EOF'\ncd /srv && echo \"on $(hostname)\"\nEOF\n",
        "info",
        _SAYS,
    ),
    Invalid(
        "ssh -p 2022 ops@web-1 sh <<EOF\necho ${HOME}\nEOF\n",
        "<<",
        "ssh -p 2022 ops@web-1 sh <<'EOF'\necho ${HOME}\nEOF\n",
        "info",
        _SAYS,
    ),
    Invalid(
        "ssh web-1 sudo bash -s -- a b <<EOF\necho $1\nEOF\n",
        "<<",
        "ssh web-1 sudo bash -s -- a b <<'EOF'\necho $1\nEOF\n",
        "info",
        _SAYS,
    ),
    Invalid(
        "ssh web-1 'bash -s' <<EOF\necho `date`\nEOF\n",
        "<<",
        "ssh web-1 'bash -s' <<'EOF'\necho `date`\nEOF\n",
        "info",
        _SAYS,
    ),
    Invalid(
        "ssh jump ssh web-1 <<EOF\necho $PWD\nEOF\n",
        "<<",
        "ssh jump ssh web-1 <<'EOF'\necho $PWD\nEOF\n",
        "info",
        _SAYS,
    ),
    Invalid(
        "docker exec -i app sh <<EOF\necho $USER\nEOF\n",
        "<<",
        "docker exec -i app sh <<'EOF'\necho $USER\nEOF\n",
        "info",
        _SAYS,
    ),
    Invalid(
        "kubectl exec -i pod -- bash <<EOF\necho $USER\nEOF\n",
        "<<",
        "kubectl exec -i pod -- bash <<'EOF'\necho $USER\nEOF\n",
        "info",
        _SAYS,
    ),
    Invalid(
        "ssh web-1 bash -s <<-EOF\n\techo $USER\n\tEOF\n",
        "<<-",
        "ssh web-1 bash -s <<-'EOF'\n\techo $USER\n\tEOF\n",
        "info",
        _SAYS,
    ),
    Invalid(
        "ssh web-1 bash -s << EOF 2>&1 | tee log\necho $?\nEOF\n",
        "<<",
        "ssh web-1 bash -s << 'EOF' 2>&1 | tee log\necho $?\nEOF\n",
        "info",
        _SAYS,
    ),
    Invalid(
        "if true; then\n  ssh web-1 <<END\nrm -rf $HOME/cache\nEND\nfi\n",
        "<<",
        "if true; then\n  ssh web-1 <<'END'\nrm -rf $HOME/cache\nEND\nfi\n",
        "info",
        _SAYS,
    ),
    # What already reached the remote shell stays the same: `\$` was `$`, `\\` was `\`.
    Invalid(
        "ssh web-1 bash -s << END\necho $USER \\$HOME a\\\\b \\`pwd\\`\nEND\n",
        "<<",
        "ssh web-1 bash -s << 'END'\necho $USER $HOME a\\b `pwd`\nEND\n",
    ),
    Invalid(  # in a double-quoted ssh string: its `\$` is the local shell's, and stays
        'ssh a "ssh b <<EOF\necho \\$USER\nEOF"\n',
        "<<",
        "ssh a \"ssh b <<'EOF'\necho \\$USER\nEOF\"\n",
    ),
)
VALID = (
    "ssh web-1 bash -s <<'EOF'\necho \"deployed on $(hostname) as $USER\"\nEOF\n",
    'ssh web-1 bash -s <<"EOF"\necho $x\nEOF\n',
    "ssh web-1 bash -s <<\\EOF\necho $x\nEOF\n",
    'ssh web-1 bash -s <<E"O"F\necho $x\nEOF\n',
    "ssh web-1 <<EOF\necho \\$x \\`date\\` costs 5 $ and $\nEOF\n",  # escaped, or no expansion
    "ssh web-1 <<EOF\nuptime\nEOF\n",
    "ssh web-1 'cat > /etc/app.conf' <<EOF\nport=$port\nEOF\n",  # data for a command
    "ssh web-1 tee /etc/app.conf <<EOF\nport=$port\nEOF\n",
    "bash <<EOF\necho $x\nEOF\n",  # a local shell
    "sudo -u app bash -s <<EOF\necho $x\nEOF\n",
    "cat <<EOF | ssh web-1 'cat > f'\n$x\nEOF\n",
    "ssh -n web-1 <<EOF\necho $x\nEOF\n",  # stdin is /dev/null: nothing is sent
    "ssh web-1 'echo uptime | bash' <<EOF\necho $x\nEOF\n",  # bash reads the pipe
    "ssh web-1 'bash -s < /tmp/x' <<EOF\necho $x\nEOF\n",
    "docker exec -i app sh -c 'cat > f' <<EOF\n$x\nEOF\n",
    "ssh web-1 bash -s < deploy.sh\n",
    # Only on commented-out lines: the remote shell skips them.
    "ssh web-1 bash <<EOF\ncd /srv\n  # was: rm -rf $(date +%F)/$OLD\n./run\nEOF\n",
)


RULE = rule("HL107", "unquoted-heredoc-to-remote", check, fix=FixAvailability.SOMETIMES)
