r"""ssh without -n inside a `while read` loop eats the loop's input.

## What it does
Finds `ssh` run inside a `while read` loop whose `read` takes its lines from
standard input, when that ssh has no `-n` and no input of its own (no `<`
redirection, heredoc, here-string or pipe into it). An ssh in the body of the
script's own function counts at each call of it in such a loop (`deploy "$h"`,
with `deploy() { ssh "$1" uptime; }`), and so does a function that calls such
a function with the same input (`run() { deploy "$1"; }`, then `run "$h"`):
the call is reported, without a fix, since the function may be called
elsewhere for its input. An ssh run in the background (`ssh "$h" x &`) in a loop
fed by a redirection or a pipe is info: bash gives such a job the loop's input,
not /dev/null, but ssh reads it only once connected, and by then a quick loop
has usually read every line.

## Why is this bad?
ssh forwards its standard input to the remote command, and it inherits the
loop's standard input: the rest of the file or pipe that `read` was going
through. The first ssh reads all of it and sends it to the remote side, which
usually ignores it, so `read` finds nothing left and the loop ends after the
first line. The script exits without an error, having handled one host of
many.

## Example
```bash
while read -r node; do
  ssh "$node" "systemctl restart agent"
done < nodes.txt
```

## Use instead
```bash
while read -r node; do
  ssh -n "$node" "systemctl restart agent"
done < nodes.txt
```
`ssh -n` reads its standard input from `/dev/null`; `ssh "$node" ... < /dev/null`
does the same, and `while read -r node <&3; do ...; done 3< nodes.txt` keeps the
loop's input away from everything in the body.

## Fix safety
Safe: the fix adds `-n` right after `ssh`, so the remote command gets an empty
input instead of the lines the loop was meant to read. It is unsafe when the
remote side itself reads standard input (no remote command, so a login shell
runs whatever arrives; `bash -s`, `cat`, `tee`, `head -n 1`, ...; code given to
`python3 -c` or `perl -e`, which may read it): there the author may have meant
to feed it, and the fixed command sends it nothing.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence

from heredoc_lint.fixes.edits import lift
from heredoc_lint.layers.layer import Layer, calls, calls_behind, string_layer
from heredoc_lint.layers.wrappers import Invocation, SshCall, basename
from heredoc_lint.model import Applicability, Finding, Fix
from heredoc_lint.rules.base import Context, FixAvailability, Invalid, finding, rule
from heredoc_lint.shell.definitions import function_bodies
from heredoc_lint.shell.names import SHELLS
from heredoc_lint.shell.syntax import Command, Loop, Script
from heredoc_lint.shell.words import Word

_DO = re.compile(r"(?:^|[\s;&|)])do(?:$|[\s;&|(])")
# Remote commands that read standard input when given no file operand.
_FILTERS = frozenset(
    {
        "cat",
        "base64",
        "gzip",
        "gunzip",
        "zcat",
        "xz",
        "unxz",
        "bzip2",
        "sort",
        "uniq",
        "wc",
        "head",
        "tail",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "sha512sum",
        "b2sum",
        "cksum",
        "tac",
        "cut",
        "nl",
        "od",
        "xxd",
        "fold",
        "fmt",
        "rev",
        "expand",
        "unexpand",
        "strings",
    }
)
_PROGRAM_FIRST = frozenset({"grep", "sed", "awk", "jq"})  # their first operand is a program
_INTERPRETERS = frozenset({"python", "python3", "perl", "ruby", "node"})
_ALWAYS = frozenset({"tee", "read", "xargs", "sponge", "mapfile", "readarray", "tr"})
_CLIENTS = frozenset({"mysql", "psql", "sqlite3", "redis-cli"})


_DO_BEFORE = re.compile(r"[\s;&|)]")  # what _DO takes before and after the keyword
_DO_AFTER = re.compile(r"[\s;&|(]")


def in_body(text: str, start: int, end: int, first_do_end: int | None) -> bool:
    """`_DO.search(text[start:end])`, in constant time: whether a `do` stands between the
    keyword and a command of the loop.  `first_do_end` is where the first match of _DO
    from `start` ends (searching at least up to `end`, by `pos`, which never lets `^`
    match): a first match that ends in the slice is in it; one that starts there but ends
    past it lacks the character after `do`, which the slice's `$` replaces; and `^` only
    matches a `do` right at `start`."""
    if end - start < 2:
        return False
    if first_do_end is not None and first_do_end <= end:
        return True
    if text.startswith("do", end - 2) and (
        end - 2 == start or _DO_BEFORE.match(text, end - 3) is not None
    ):
        return True
    return text.startswith("do", start) and (
        end == start + 2 or _DO_AFTER.match(text, start + 2) is not None
    )


class _Loops:
    """The loops of one script that `read` their standard input, each found once.

    Asking each ssh command about each loop around it, and each loop about every command
    of the script, was cubic in nested loops (84 KB took 14 s): here a loop's commands
    are listed once and each loop's answer is kept."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self._inside: dict[Loop, list[Command]] | None = None
        self._reads: dict[Loop, bool] = {}
        self._swallowing: dict[Loop, Loop | None] = {}

    def _commands_of(self, loop: Loop) -> list[Command]:
        """The commands whose innermost loop is `loop`, in the order of the text."""
        if self._inside is None:
            self._inside = {}
            for command in self.script.commands:
                if command.loop is not None:
                    self._inside.setdefault(command.loop, []).append(command)
        return self._inside.get(loop, [])

    def reads(self, loop: Loop) -> bool:
        """The loop's condition runs `read` on its standard input.

        The condition's commands are looked at: `while IFS= read -r x`, not `read x < file`
        nor `read -u 3`.
        """
        known = self._reads.get(loop)
        if known is None:
            known = self._reads[loop] = self._find_read(loop)
        return known

    def _find_read(self, loop: Loop) -> bool:
        text = self.script.text
        keyword_end = loop.start + 5  # past the `while`/`until` keyword: the body
        searched, first_do = False, None
        for command in self._commands_of(loop):
            if command.name != "read":
                continue
            if not searched:  # once per loop, and only for a loop with a `read` in it
                found = _DO.search(text, keyword_end, loop.end)
                searched, first_do = True, found.end() if found else None
            if in_body(text, keyword_end, command.start, first_do):
                continue
            negated = text[keyword_end : command.start].rstrip().endswith("!")
            if loop.kind == "until" and not negated:
                continue  # `until read`: the body runs when `read` fails, at the end of input
            options = [w.value for w in command.words[1:] if w.value.startswith("-")]
            if any("u" in o for o in options if not o.startswith("--")):
                continue
            if command.reads_stdin:
                return True
        return False

    def swallowing(self, command: Command) -> Loop | None:
        """The innermost loop whose `read` shares the standard input of `command`.

        Each loop's answer is the same for every command right inside it, so it is kept
        for each loop walked through."""
        walked: list[Loop] = []
        found: Loop | None = None
        loop = command.loop
        while loop is not None:
            if loop in self._swallowing:
                found = self._swallowing[loop]
                break
            walked.append(loop)
            if self.reads(loop):
                found = loop
                break
            if loop.stdin_redirected:
                break  # the command's input is that loop's, which nothing else reads
            loop = loop.outer
        for loop in walked:
            self._swallowing[loop] = found
        return found


_CONDITION = {"while": "while read", "until": "until ! read"}


def _stdin_null(ssh: SshCall) -> bool:
    """Whether ssh reads /dev/null: `-n`, `-f`, `-o StdinNull=yes`, or maybe (`$OPTS`)."""
    if ssh.open_options or ssh.has_flag("n") or ssh.has_flag("f"):
        return True
    for letter, arg, _ in ssh.options:
        if letter == "o" and arg is not None and arg.static:
            setting = arg.value.replace(" ", "=").replace("\t", "=").lower()
            if setting.startswith("stdinnull=") and setting.split("=", 1)[1] in ("yes", "true"):
                return True
    return False


# The short options that take an argument (`head -n 1`: `1` is no file), per command.
# A long option without `=` is taken to take one: a file counted as its argument makes
# the command look like a stdin reader, which only makes the fix unsafe.
_ARGUMENT_OPTIONS = {
    "head": "nc",
    "tail": "ncs",
    "sort": "ktoST",
    "uniq": "fsw",
    "wc": "",
    "cut": "bcdf",
    "nl": "bdfhilnsvw",
    "od": "AjNtw",
    "xxd": "cglos",
    "fold": "w",
    "fmt": "pw",
    "base64": "w",
    "gzip": "S",
    "grep": "efmABCD",
    "sed": "efl",
    "awk": "fvF",
    "jq": "f",
}
# Options that give the program in their argument: the operands are then all files.
_PROGRAM_OPTIONS = {"grep": "ef", "sed": "ef", "awk": "f", "jq": "f"}
# Options that give an interpreter its code: what the code reads is not known here.
_CODE_OPTIONS = {"python": "c", "python3": "c", "perl": "eE", "ruby": "e", "node": "ep"}
# Prefix commands that read stdin themselves before they run the program they are given.
_READING_PREFIXES = frozenset({"xargs"})
# Every program _reads_stdin knows by name: the commands HL105 looks for in a remote string.
_STDIN_READERS = (
    _FILTERS
    | _PROGRAM_FIRST
    | _INTERPRETERS
    | _ALWAYS
    | _CLIENTS
    | SHELLS
    | frozenset({*_PROGRAM_OPTIONS, *_CODE_OPTIONS, "dd"})
)


def _operands(words: Sequence[Word], name: str = "") -> tuple[list[str], str]:
    """The operands of a command (its option arguments left out), and the letters of the
    options it was given."""
    takes = _ARGUMENT_OPTIONS.get(name, "")
    operands: list[str] = []
    letters = ""
    skip = False
    for k, word in enumerate(words[1:], 1):
        value = word.value
        if skip:
            skip = False
        elif value == "--":
            operands.extend(w.value for w in words[k + 1 :])
            break
        elif value.startswith("--"):
            skip = "=" not in value and name in _ARGUMENT_OPTIONS
        elif value.startswith("-") and value != "-":
            for at, letter in enumerate(value[1:], 1):
                letters += letter
                if letter in takes:
                    skip = at == len(value) - 1  # `-n1` holds its argument
                    break
        else:
            operands.append(value)
    return operands, letters


def _remote_reads_stdin(layer: Layer, ssh_command: Command, invocation: Invocation) -> bool:
    """Whether the remote command seems to read its standard input (the fix then guesses):
    read in the ssh invocation's child layer, the remote string as the shell parses it."""
    if not invocation.words:
        return True  # a login shell that runs what arrives on stdin
    remote = string_layer(layer, ssh_command, invocation)
    if _prefix_reads_stdin(remote):
        return True
    return any(
        call.command.reads_stdin and _reads_stdin(call.name, call.words)
        for call in calls(remote, _STDIN_READERS)
    )


def _prefix_reads_stdin(remote: Layer) -> bool:
    """`xargs CMD`, or `xargs` alone (it runs echo): xargs reads the arguments from stdin."""
    if any(call.command.reads_stdin for call in calls_behind(remote, _READING_PREFIXES)):
        return True
    # A look at the head first (`may_be`): most commands are never de-quoted at all.
    return any(
        command.may_be(_READING_PREFIXES)
        and basename(command.name or "") in _READING_PREFIXES
        and command.reads_stdin
        for command in remote.script.commands
    )


def _reads_stdin(name: str, words: Sequence[Word]) -> bool:
    """Whether one remote program (not redirected from elsewhere) reads stdin, by name:
    `words` are its argv, its name first (behind `sudo`, `env`... as calls() finds it)."""
    values = [w.value for w in words[1:]]
    operands, letters = _operands(words, name)
    if name in _ALWAYS:
        return True
    if any(c in letters for c in _CODE_OPTIONS.get(name, "")):
        return True  # `python3 -c CODE`: the code may read stdin
    if any(c in letters for c in _PROGRAM_OPTIONS.get(name, "")):
        return not operands or operands == ["-"]  # `grep -e x`: the program given, no file
    if name in SHELLS:
        return _shell_reads_stdin(values, operands)
    if name in _FILTERS:
        return not operands or operands == ["-"]
    if name in _PROGRAM_FIRST:
        return len(operands) <= 1
    if name in _INTERPRETERS:
        return not operands or operands[0] == "-"
    if name == "dd":
        return not any(v.startswith("if=") for v in values)
    if name in _CLIENTS:
        return not any(v in ("-c", "-e", "--execute", "--command") for v in values)
    return False


def _shell_reads_stdin(values: Sequence[str], operands: Sequence[str]) -> bool:
    """`bash`, `sh -s ARG`: a shell with no -c and no script file reads its script from
    stdin."""
    if any(v.startswith("-") and "c" in v for v in values):
        return False
    return not operands or any(v.startswith("-") and "s" in v for v in values)


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    loops = _Loops(layer.script)
    reported: set[int] = set()
    for command, invocation in layer.invocations:
        if command.loop is None or invocation.ssh is None:
            continue
        ssh = invocation.ssh
        job = not command.reads_stdin  # no input of its own but, maybe, its loop's
        if _stdin_null(ssh) or (job and not _job_may_keep_input(layer, command)):
            continue
        loop = loops.swallowing(command)
        if loop is None or (job and not loop.stdin_redirected):
            continue
        reported.add(command.start)
        word = command.words[ssh.index]
        # Behind a function the word is the call's name: `-n` belongs in the body's ssh.
        edit = None if ssh.forwarded else lift(layer, word.end, word.end, " -n")
        cure = (
            f"`ssh -n` in the function `{word.value}`{_defined_in(layer, word.value)} (or "
            f"`{word.value} ... < /dev/null`)"
            if ssh.forwarded
            else f"`{word.value} -n` (or `< /dev/null`)"
        )
        fix = None
        if edit is not None:
            applicability = (
                Applicability.UNSAFE
                if _remote_reads_stdin(layer, command, invocation)
                else Applicability.SAFE
            )
            fix = Fix((edit,), applicability, "Add `-n`: ssh reads its stdin from /dev/null")
        if job:
            evidence = "job-in-read-loop"
            message = (
                f"`{word.value}` runs in the background inside this `{_CONDITION[loop.kind]}` "
                "loop, whose input is redirected or piped into it: bash gives such a job the "
                "loop's standard input, not /dev/null, so it swallows lines that `read` has "
                "not read yet (which ones depends on timing) and those entries are never "
                f"processed; use {cure}"
            )
        else:
            evidence = "ssh-in-read-loop"
            message = (
                f"`{word.value}` inside this `{_CONDITION[loop.kind]}` loop reads the loop's "
                "standard input: it swallows the lines that `read` has not read yet and "
                "sends them to the remote command, so the loop ends after the first line "
                f"and the other entries are never processed; use {cure}"
            )
        yield finding(layer, "HL105", evidence, message, word.start, word.end, fix)

    yield from _function_calls(layer, context, loops, reported)


def _job_may_keep_input(layer: Layer, command: Command) -> bool:
    """Whether a command with no input of its own is a background job that may keep its
    loop's: bash gives a job /dev/null only where no loop around it is fed by a
    redirection or a pipe, so in `while read h; do ssh $h x & done < hosts` the job reads
    `hosts` (measured, bash 5.2: `{ read x; } & wait` in such a loop reads the next line;
    dash, an `sh -c` string's shell here, gives /dev/null)."""
    return command.in_job and command.reads_stdin_unless_job and layer.shell != "sh"


def _defined_in(layer: Layer, name: str) -> str:
    """Where a function another file defines is: ` (lib/remote.sh line 3)`."""
    defined = layer.definitions
    body = None if defined is None else defined.functions.get(name)
    return f" ({body.where})" if body is not None and body.where else ""


def _through_calls(
    layer: Layer,
    bodies: dict[str, tuple[int, int]],
    ssh_in: dict[str, tuple[Command, SshCall, tuple[str, ...]]],
) -> None:
    """Add to `ssh_in` the functions that call one of its functions, with the same
    stdin, outside a loop of their own (`run() { deploy "$1"; }`, `deploy() { ssh ...;
    }`): a call of them in the loop runs that ssh too; each with the names it goes
    through. To a fixed point: every function is added once at most."""
    calls: dict[str, list[str]] = {name: [] for name in bodies}
    spans = sorted((start, end, name) for name, (start, end) in bodies.items())
    starts = [start for start, _, _ in spans]  # top-level bodies: apart, in order
    for command in layer.script.commands:
        if command.loop is not None or not command.reads_stdin or command.name is None:
            continue
        k = bisect.bisect_right(starts, command.start) - 1
        if k >= 0 and command.start < spans[k][1] and command.name != spans[k][2]:
            calls[spans[k][2]].append(command.name)
    added = True
    while added:
        added = False
        for name, called in calls.items():
            if name in ssh_in:
                continue
            inner = next((c for c in called if c in ssh_in), None)
            if inner is not None:
                body, ssh, via = ssh_in[inner]
                ssh_in[name] = (body, ssh, (inner, *via))
                added = True


def _function_calls(
    layer: Layer, context: Context, loops: _Loops, reported: set[int]
) -> Iterator[Finding]:
    """A call, inside a `while read` loop, of the script's own function whose body runs
    ssh on the input it is given (`deploy() { ssh "$1" uptime; }`, then `deploy "$h"` in
    the loop): the body's ssh stands in no loop, and the call's words are not ssh's, so
    neither is read above.  The call is the finding: the function may be called where
    its input is meant for ssh, so no fix edits its body."""
    readers = [
        (command, invocation.ssh)
        for command, invocation in layer.invocations
        if invocation.ssh is not None
        and command.loop is None
        and command.reads_stdin
        and not _stdin_null(invocation.ssh)
    ]
    if not readers:
        return
    bodies = function_bodies(layer.script)
    ssh_in: dict[str, tuple[Command, SshCall, tuple[str, ...]]] = {}
    for name, (start, end) in bodies.items():
        inside = next(((c, ssh) for c, ssh in readers if start <= c.start < end), None)
        if inside is not None:
            ssh_in[name] = (*inside, ())
    _through_calls(layer, bodies, ssh_in)
    for command in layer.script.commands:
        if command.loop is None or command.start in reported or command.name not in ssh_in:
            continue
        body, ssh, via = ssh_in[command.name]
        if body.start > command.start:
            continue  # defined after the loop: bash looks a function up when it is called
        loop = loops.swallowing(command) if command.reads_stdin else None
        if loop is None:
            continue
        line = context.file_text.count("\n", 0, layer.file_offset(body.start)) + 1
        word = command.words[0]
        through = "".join(f", through `{name}`" for name in via)
        yield finding(
            layer,
            "HL105",
            "function-in-read-loop",
            f"`{word.value}` inside this `{_CONDITION[loop.kind]}` loop runs "
            f"`{body.words[ssh.index].value}` (line {line}{through}), which reads the loop's "
            "standard input: it swallows the lines that `read` has not read yet and sends them to "
            "the remote command, so the loop ends after the first line and the other "
            f"entries are never processed; use `ssh -n` in the function `{word.value}` (or "
            f"`{word.value} ... < /dev/null`)",
            word.start,
            word.end,
        )


# -- examples (tests/test_rule_lists.py) ---------------------------------------------------
_SAYS = "the loop ends after the first line and the other entries are never processed; use `ssh -n`"
INVALID = (
    Invalid(
        'while read -r node; do\n  ssh "$node" "systemctl restart agent"\ndone < nodes.txt\n',
        "ssh",
        'while read -r node; do\n  ssh -n "$node" "systemctl restart agent"\ndone < nodes.txt\n',
        "warning",
        _SAYS,
    ),
    Invalid(
        "while read -r h; do ssh $h uptime; done < hosts\n",
        "ssh",
        "while read -r h; do ssh -n $h uptime; done < hosts\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        "while IFS= read -r h; do ssh $h uptime; done < hosts\n",
        "ssh",
        "while IFS= read -r h; do ssh -n $h uptime; done < hosts\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        "while IFS=, read -r h port; do ssh -p $port $h uptime; done < hosts.csv\n",
        "ssh",
        "while IFS=, read -r h port; do ssh -n -p $port $h uptime; done < hosts.csv\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        "cat hosts | while read h; do ssh -o BatchMode=yes $h uptime; done\n",
        "ssh",
        "cat hosts | while read h; do ssh -n -o BatchMode=yes $h uptime; done\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        "while read h; do out=$(ssh $h hostname); echo $out; done < hosts\n",
        "ssh",
        "while read h; do out=$(ssh -n $h hostname); echo $out; done < hosts\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        "while read h; do timeout 5 ssh $h uptime || echo fail; done < hosts\n",
        "ssh",
        "while read h; do timeout 5 ssh -n $h uptime || echo fail; done < hosts\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        "while read h; do for c in a b; do ssh $h $c; done; done < hosts\n",
        "ssh",
        "while read h; do for c in a b; do ssh -n $h $c; done; done < hosts\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        "until ! read h; do ssh $h uptime; done < hosts\n",
        "ssh",
        "until ! read h; do ssh -n $h uptime; done < hosts\n",
        "warning",
        _SAYS,
    ),
    Invalid(
        "while read h; do\n  if true; then\n    ssh -tq $h uptime\n  fi\ndone\n",
        "ssh",
        "while read h; do\n  if true; then\n    ssh -n -tq $h uptime\n  fi\ndone\n",
        "warning",
        _SAYS,
    ),
    Invalid(  # the loop inside a remote layer
        "bash -c 'while read h; do ssh $h uptime; done' < hosts\n",
        "ssh",
        "bash -c 'while read h; do ssh -n $h uptime; done' < hosts\n",
        "warning",
        _SAYS,
    ),
    Invalid(  # `&` inside a substitution: its job keeps the loop's stdin
        "while read h; do x=$(ssh $h uptime &); done < hosts\n",
        "ssh",
        "while read h; do x=$(ssh -n $h uptime &); done < hosts\n",
        "warning",
        _SAYS,
    ),
    # A background job in a loop fed by a redirection or a pipe: bash gives it that input.
    Invalid(
        "while read -r h; do ssh $h uptime & done < hosts\n",
        "ssh",
        "while read -r h; do ssh -n $h uptime & done < hosts\n",
        "info",
        "bash gives such a job the loop's standard input, not /dev/null",
    ),
    Invalid(
        "cat hosts | while read -r h; do (ssh $h uptime) & done\n",
        "ssh",
        "cat hosts | while read -r h; do (ssh -n $h uptime) & done\n",
    ),
    Invalid(
        "while read -r h; do { ssh $h uptime; } & done < hosts\n",
        "ssh",
        "while read -r h; do { ssh -n $h uptime; } & done < hosts\n",
    ),
    Invalid(
        "while read -r h; do ssh $h uptime && echo ok & done < hosts\n",
        "ssh",
        "while read -r h; do ssh -n $h uptime && echo ok & done < hosts\n",
    ),
    Invalid(  # `-n` goes right after `ssh`, before its other options
        "while read h; do timeout 5 ssh -p 2222 $h uptime; done < hosts\n",
        "ssh",
        "while read h; do timeout 5 ssh -n -p 2222 $h uptime; done < hosts\n",
    ),
)
VALID = (
    'while read -r node; do ssh -n "$node" uptime; done < nodes.txt\n',
    "while read -r h; do ssh -nT $h uptime; done < hosts\n",
    "while read -r h; do ssh -f -N -L 8080:localhost:80 $h; done < hosts\n",
    "while read -r h; do ssh -o StdinNull=yes $h uptime; done < hosts\n",
    "while read -u 3 h; do ssh $h uptime; done 3< hosts\n",
    "while read -r h <&3; do ssh $h uptime; done 3< hosts\n",
    "while read -r h < /dev/tty; do ssh $h uptime; done\n",
    "for h in a b c; do ssh $h uptime; done\n",
    "for h in $(cat hosts); do ssh $h uptime; done\n",
    "while true; do ssh h uptime; sleep 5; done\n",
    "while read -r h; do ssh $h uptime < /dev/null; done < hosts\n",
    "while read -r h; do ssh $h 'cat > f' < local.txt; done < hosts\n",
    "while read -r h; do echo hi | ssh $h cat; done < hosts\n",
    "while read -r h; do ssh $h bash -s <<'EOF'\nuptime\nEOF\ndone < hosts\n",
    "while read -r h; do ssh $h cat <<< data; done < hosts\n",
    'sh -c "while read h; do ssh \\$h x & done < hosts"\n',  # dash: a job reads /dev/null
    "while read -r h; do\n  while read -r x; do :; done < other\n  true\ndone < hosts\n",
    "while read -r h; do scp f $h:/tmp; done < hosts\n",
    "ssh h uptime\n",
    # an inner loop fed by a file that nothing else reads
    "for h in a b; do while sleep 1; do ssh $h uptime; done < /dev/null; done\n",
)


RULE = rule("HL105", "ssh-swallows-loop-stdin", check, fix=FixAvailability.SOMETIMES)
