r"""pkill -f / pgrep -f whose pattern matches the shell running it.

## What it does
Finds `pkill -f PATTERN` and `pgrep -f PATTERN` run by a shell whose own
command line matches PATTERN: the remote `bash -c '...'` of an ssh command
string, a `bash -c` string, or a script whose file name matches; or by a
shell fed a script written in such a string (`ssh h "sudo bash <<EOF ...
EOF"`), whose feeding shell waits with the script on its command line. A pattern
filled in before that shell starts (`ssh h "pkill -f $APP; ..."` expanded
locally, a Python f-string `{name}`) stands on its command line as well, so it
matches itself whatever plain word it holds.

## Why is this bad?
With `-f` the pattern is matched against full command lines, and the shell
running the string has the whole string on its command line, pattern
included. `pkill -f sglang` kills its own shell: nothing after it runs, no
file is written, and ssh exits with status 255 or 143 without an error
message. `pgrep -f` finds itself and reports a process that is not there.
bash replaces itself with the command when a string is one bare command, so
`ssh h 'pkill -f x'` alone is safe; with a redirection or anything else in the
string it is not. dash (`/bin/sh` on Debian, what `os.system` and
`subprocess.run(..., shell=True)` run) keeps its shell even for one bare
command: the pkill kills it and the caller gets the signal's status instead of
pkill's (`check=True` raises). `pgrep -f P | head -1` and `pgrep -o -f P` ask
for the oldest match: the process meant while it runs, the shell only when it
does not (info). bash 5.2 runs the last bare command of a string
in place of its shell too (`ssh h "cd /srv && pkill -f worker"`): where the
pkill ends the string, older shells lose only their exit status, and that is
reported at info; so is a pkill followed only by itself again (`pkill -f app ;
pkill -f app`), which loses nothing but the status. A lone pkill in a call whose
status the program drops (a bare `os.system(...)`, `subprocess.run(...)` without
`check=True`) is reported at info: the processes it meant die all the same. So is a pattern
that matches only the directory of a script's path (`pkill -f code-server` in
code-server/stop.sh): bash shows the path it was started by, and `./stop.sh`
from that directory does not hold it. `pgrep -af P | grep -v grep` is not reported:
pgrep lists the shell's own command line, which holds the word `grep` of the
pipeline's text, and the grep drops that line.

## Example
```bash
ssh gpu-1 "pkill -f sglang; sleep 2; ./launch.sh"
```

## Use instead
```bash
ssh gpu-1 "pkill -f '[s]glang'; sleep 2; ./launch.sh"
```
The bracket expression matches `sglang` but not its own text `[s]glang`, as
long as nothing else on the command line contains the plain word; otherwise run
the pkill in its own ssh call first.

## Fix safety
The bracket trick is safe: `[s]glang` matches exactly the processes `sglang`
matches, except the shell whose command line holds the text `[s]glang`. When
the string holds the plain word elsewhere too, the fix moves the pkill into an
ssh call of its own before the rest; that opens a second connection and is
unsafe. A script whose own file name matches gets no fix.
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from heredoc_lint import severities
from heredoc_lint.fixes.edits import Quote, encode, lift, quote_states
from heredoc_lint.layers.layer import Layer, calls
from heredoc_lint.layers.triggers import SELF_MATCHING
from heredoc_lint.layers.wrappers import Role
from heredoc_lint.model import Applicability, Edit, Finding, Fix, Severity
from heredoc_lint.rules.base import (
    Context,
    FixAvailability,
    Invalid,
    finding,
    quote_snippet,
    rule,
)
from heredoc_lint.shell.structure import last_simple_command
from heredoc_lint.shell.syntax import Command
from heredoc_lint.shell.words import Word

# procps-ng pgrep/pkill options that take an argument.
_ARG_OPTIONS = frozenset("dgGPstuUFrq")
_LONG_ARG_OPTIONS = frozenset(
    {
        "--delimiter",
        "--pgroup",
        "--group",
        "--parent",
        "--session",
        "--terminal",
        "--euid",
        "--uid",
        "--pidfile",
        "--ns",
        "--nslist",
        "--runstates",
        "--signal",
        "--queue",
    }
)
_POSIX_CLASSES = {
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "alnum": "a-zA-Z0-9",
    "upper": "A-Z",
    "lower": "a-z",
    "space": r"\s",
    "blank": r" \t",
    "punct": r"!-/:-@\[-`{-~",
    "xdigit": "0-9A-Fa-f",
    "cntrl": r"\x00-\x1f\x7f",
    "graph": "!-~",
    "print": " -~",
}
_CLASS = re.compile(r"\[:([a-z]*):\]")


def parse_pkill(words: Sequence[Word]) -> tuple[bool, bool, int | None]:
    """(full, exact, index of the pattern word) for `pkill`/`pgrep` argv."""
    full = exact = False
    i = 1
    while i < len(words):
        value = words[i].value if words[i].static else ""
        if value == "--":
            i += 1
            break
        if value.startswith("--"):
            name = value.split("=", 1)[0]
            full = full or name == "--full"
            exact = exact or name == "--exact"
            i += 2 if name in _LONG_ARG_OPTIONS and "=" not in value else 1
            continue
        if value.startswith("-") and len(value) > 1:
            letters = value[1:]
            if letters.isdigit() or letters.isupper():
                i += 1  # a signal: -9, -KILL, -HUP
                continue
            letters = letters.lstrip("0123456789")  # -9f: a signal number, then flags
            takes_arg = False
            for k, letter in enumerate(letters):
                if letter == "f":
                    full = True
                elif letter == "x":
                    exact = True
                elif letter in _ARG_OPTIONS:
                    takes_arg = k == len(letters) - 1
                    break
            i += 2 if takes_arg else 1
            continue
        break
    return full, exact, i if i < len(words) else None


def to_python_regex(pattern: str) -> re.Pattern[str] | None:
    """An extended regular expression (regcomp REG_EXTENDED) as a Python regex."""
    if any(m.group(1) not in _POSIX_CLASSES for m in _CLASS.finditer(pattern)):
        return None  # `[[:word:]]`: regcomp refuses the pattern, pkill exits 2
    converted = _CLASS.sub(lambda m: _POSIX_CLASSES[m.group(1)], pattern)
    try:
        return re.compile(converted)
    except (re.error, RecursionError, OverflowError):
        return None


def own_cmdline(layer: Layer, path: str | None) -> str | None:
    """The command line of the process that runs the layer: the inner shell's, or
    `bash PATH` for a script run as a file; None when it cannot be known."""
    if layer.kind == "stdin":
        return feeder_cmdline(layer)
    if layer.depth > 0 or layer.cmdline is not None:
        return layer.cmdline
    return f"bash {path}" if path is not None else None


def feeder_cmdline(layer: Layer) -> str | None:
    """A script read from stdin is on no command line; but when it is written in a string
    a shell runs (`bash -c 'sudo bash <<EOF ... EOF'`, the remote string of an ssh), that
    shell has it on its own command line, and it waits, alive, for the shell it feeds (it
    keeps its process for a command with a redirection or in a pipeline).  That shell's
    command line, found through local stdin layers only (another host's shell is not
    this one's ancestor); None when the script is in no such string."""
    current = layer
    while current.kind == "stdin":
        if current.parent is None or current.invocation is None or current.invocation.remote:
            return None
        current = current.parent
    cmdline = current.cmdline
    if cmdline is None or (current.kind != "string" and " -c " not in cmdline):
        return None  # a script file (`bash PATH`), a pasted runbook (`-bash`)
    return cmdline


def _alone(layer: Layer, command: Command) -> bool:
    parent, eval_command = layer.parent, layer.command
    # eval runs its string in its parent's shell: alone only if eval is alone there
    if layer.role is Role.EVAL and parent is not None and eval_command is not None:
        return _alone(parent, eval_command) and _alone_here(layer, command)
    return _alone_here(layer, command)


def _alone_here(layer: Layer, command: Command) -> bool:
    # all(): a list of the others per call made many pkill calls quadratic
    alone = all(c is command for c in layer.script.commands)
    return alone and command.next_op in (None, ";", "\n")


def _followed_by_itself(layer: Layer) -> set[int]:
    """The commands of `layer` (by id) after which the string runs only the same command
    again: `pkill -f app ; pkill -f app` loses only a repeat of what already ran (round z:
    mahi-mahi's kill_instances), so killing the shell changes only its status.  Not one
    with a `|| true` after it: the status it was there to keep is what the self-kill
    changes.  Read from the end, once per layer: one pass however many calls it holds."""
    texts = [layer.text[c.start : c.end] for c in layer.script.commands]
    found: set[int] = set()
    # From the end: a command qualifies while it equals the next one, which qualifies too.
    for k in range(len(texts) - 2, -1, -1):
        if texts[k] != texts[k + 1]:
            break
        found.add(id(layer.script.commands[k]))
    return found


def _evidence(layer: Layer, command: Command, repeated: set[int]) -> tuple[str | None, str]:
    """What keeps the shell alive for pkill to kill it (a kind of the HL103 rows of
    heredoc_lint.severities), or None and why the shell is gone before pkill runs."""
    if layer.kind == "stdin":
        return "fed-by-stdin", "the shell that feeds the script waits for it"
    if not _alone(layer, command):
        if _replaces_its_shell(layer, command):
            return "last-command", "bash runs the string's last bare command in its place"
        if id(command) in repeated:
            return "repeat-lost", "only the same command again comes after it"
        return "shares-string", "other commands share the string"
    if layer.depth == 0 and layer.cmdline is None:
        return "script-last-command", "a script keeps its process for its last command too"
    if command.redirects or layer.shell in ("sh", "dash"):
        if _status_ignored(layer):
            return "lone-status-ignored", "the shell's status, all it changes, is dropped"
        if command.redirects:
            why = "bash keeps its shell for a command with a redirection"
            return "redirection-keeps-shell", why
        return "dash-keeps-shell", "dash keeps its shell even for one bare command"
    return None, (
        "bash replaces itself with a lone simple command, so that shell is gone before "
        "pkill runs: no finding"
    )


# `| head -1`, `| head -n1`, `| head -n 1`, `| head --lines=1` right after the pgrep,
# ending that pipeline.
_HEAD_ONE = re.compile(r"[ \t]*\|[ \t]*head[ \t]+(?:-1|-n[ \t]*1|--lines=1)[ \t]*(?:[;&|)\n]|\Z)")


def _oldest_first(layer: Layer, call: PkillCall) -> bool:
    """`pgrep -o -f P`, `pgrep -f P | head -1`: the oldest match (pgrep lists by pid, and
    a running process is older than the shell that looks for it)."""
    for word in call.words[1 : call.pattern_index]:
        value = word.value if word.static else ""
        if value == "--oldest" or (value[:1] == "-" and value[1:2] != "-" and "o" in value):
            return True
    return _HEAD_ONE.match(layer.text, call.command.end) is not None


# `| grep [-v] [-F|-E|-i|-w] WORD` stages right after the pgrep, one at a time.
_GREP_STAGE = re.compile(
    r"[ \t]*\|[ \t]*grep((?:[ \t]+-[A-Za-z]+)*)[ \t]+"
    r"('[^'\n]*'|\"[^\"\n$`\\]*\"|[^\s'\"|;&()<>$`\\]+)(?=[ \t\n|;&)<>]|\Z)"
)
_SPECIAL = {False: re.compile(r"[][*^$\\]"), True: re.compile(r"[][*^$\\+?(){}|]")}


def _lists_command_lines(call: PkillCall) -> bool:
    """`pgrep -a` / `--list-full`: each line is a pid and that process's command line."""
    for word in call.words[1 : call.pattern_index]:
        value = word.value if word.static else ""
        if value == "--list-full":
            return True
        if value[:1] == "-" and value[1:2] != "-":
            for letter in value[1:]:
                if letter == "a":
                    return True
                if letter in _ARG_OPTIONS:
                    break
    return False


def _grep_dropping_its_shell(layer: Layer, call: PkillCall, cmdline: str) -> str | None:
    """`pgrep -af P | grep -v grep`: the line pgrep lists for its own shell holds that
    shell's command line, the pipeline's text included, so a `grep -v` of a plain word of
    that text drops it (a plain `grep WORD` always keeps it: the word is in the text).
    That grep stage, or None when the line gets through or a stage is not plain."""
    if not _lists_command_lines(call):
        return None
    at = call.command.end
    while (stage := _GREP_STAGE.match(layer.text, at)) is not None:
        letters = "".join(option[1:] for option in stage.group(1).split())
        word = stage.group(2)
        word = word[1:-1] if word[0] in "'\"" else word
        if set(letters) - set("vFEiw") or not word:
            return None
        if "F" in letters:
            pattern = re.escape(word)
        elif _SPECIAL["E" in letters].search(word):
            return None
        else:
            pattern = ".".join(re.escape(part) for part in word.split("."))
        if "w" in letters:
            pattern = rf"(?<!\w)(?:{pattern})(?!\w)"
        found = re.search(pattern, cmdline, re.IGNORECASE if "i" in letters else 0)
        if (found is None) != ("v" in letters):
            return stage.group(0).strip()
        at = stage.end()
    return None


_TRAP = re.compile(r"(?<![\w-])trap\b")


def _replaces_its_shell(layer: Layer, command: Command) -> bool:
    """`ssh h "cd /srv && pkill -f worker"`: bash (5.2 measured; not dash, not an older
    bash) runs the last bare command of a `-c` string in place of its shell, unless an
    EXIT trap needs the shell afterwards."""
    return (
        layer.shell == "bash"
        and layer.kind == "string"
        and layer.role is not Role.EVAL  # eval runs in its caller's shell, whose string goes on
        and last_simple_command(layer.script) == command.start
        and _TRAP.search(layer.text) is None
    )


def _status_ignored(layer: Layer) -> bool:
    """A Python call's shell whose exit status the program drops (`os.system(...)` as a
    statement): when pkill is its only command, that status is all the self-kill changes,
    as the processes pkill meant die all the same."""
    if layer.parent is not None or layer.origin is None:
        return False
    from heredoc_lint.frontends.python.model import PyFragment

    return isinstance(layer.origin, PyFragment) and layer.origin.status_ignored


def bracket_position(pattern: str) -> int | None:
    """Index of the first letter or digit that stands alone as a regex atom."""
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            close = pattern.find("]", i + 2)
            if close < 0:
                return None
            i = close + 1
            continue
        if c == "{":
            close = pattern.find("}", i)
            i = len(pattern) if close < 0 else close + 1
            continue
        if c.isalnum():
            return i
        i += 1
    return None


def _bracket_edits(layer: Layer, word: Word, at: int) -> list[tuple[int, int, str]]:
    """Layer-text edits that put value character `at` of `word` in brackets."""
    position = word.offsets[at]
    state = quote_states(layer.text, word).get(position)
    char = layer.text[position]
    if state in (Quote.SINGLE, Quote.DOUBLE):
        return [(position, position + 1, f"[{char}]")]
    # Unquoted, `[s]` could glob against a file named `s...`: quote the bracket.
    return [(position, position + 1, f"'[{char}]'"), (position, position + 1, f"\\[{char}]")]


def _shortest_lift(
    layer: Layer, edits: list[tuple[int, int, str]]
) -> tuple[tuple[int, int, str], Edit] | None:
    """The candidate edit that reads best once quoted for every outer shell."""
    usable: list[tuple[tuple[int, int, str], Edit]] = []
    for edit in edits:
        file_edit = lift(layer, *edit)
        if file_edit is not None:
            usable.append((edit, file_edit))
    if not usable:
        return None
    return min(usable, key=lambda pair: len(pair[1].content))


def _blank_literal_heredocs(layer: Layer) -> str:
    """The layer's text with quoted heredoc bodies blanked: HL101's fix takes them out of the
    string."""
    text = layer.text
    for heredoc in layer.script.heredocs:
        if heredoc.quoted:
            size = heredoc.body_end - heredoc.body_start
            text = text[: heredoc.body_start] + " " * size + text[heredoc.body_end :]
    return text


def _split_fix(layer: Layer, command: Command, brackets: list[tuple[int, int, str]]) -> Fix | None:
    """Run the pkill in an ssh call of its own, before the rest of the string."""
    parent, invocation = layer.parent, layer.invocation
    if (
        parent is None
        or parent.depth != 0
        or layer.command is None
        or invocation is None
        or invocation.ssh is None
        or invocation.ssh.host_index is None
        or command.next_op not in (";", "\n")
        or command.in_substitution
        or layer.script.commands[0] is not command
        or layer.text[: command.start].strip()
    ):
        return None
    ssh_words = layer.command.words
    line_start = parent.text.rfind("\n", 0, layer.command.start) + 1
    if parent.text[line_start : layer.command.start].strip():
        return None  # the ssh is not at the start of its statement
    statement_end = command.next_op_start
    own = min(
        (
            encode(
                layer.text[command.start : start]
                + content
                + layer.text[end:statement_end].rstrip(),
                Quote.UNQUOTED,
            )
            for start, end, content in brackets
        ),
        key=len,
    )
    head = parent.text[ssh_words[invocation.index].start : ssh_words[invocation.ssh.host_index].end]
    rest = command.next_op_start + 1
    while rest < len(layer.text) and layer.text[rest] in " \t\n":
        rest += 1
    removal = lift(layer, command.start, rest, "")
    if removal is None:
        return None
    insertion = lift(parent, layer.command.start, layer.command.start, f"{head} {own}; ")
    if insertion is None:
        return None
    return Fix(
        (insertion, removal),
        Applicability.UNSAFE,
        "Run the pkill in an ssh call of its own before the rest",
        "split",
    )


def _fix(layer: Layer, command: Command, pattern: Word, pattern_text: str) -> Fix | None:
    if layer.depth == 0 and layer.cmdline is None:
        return None  # the script's own file name matches: only renaming helps
    if layer.kind == "stdin":
        return None  # the matching command line is the feeding shell's: not checked here
    at = bracket_position(pattern_text)
    if at is None or pattern.continuations or len(pattern.value) != len(pattern_text):
        return None
    candidates = _bracket_edits(layer, pattern, at)
    chosen = _shortest_lift(layer, candidates)
    new_pattern = pattern_text[:at] + f"[{pattern_text[at]}]" + pattern_text[at + 1 :]
    regex = to_python_regex(new_pattern)
    if regex is None or chosen is None:
        return None
    bracket, edit = chosen
    start, end, content = bracket
    new_text = layer.text[:start] + content + layer.text[end:]
    shell = layer.shell
    if not regex.search(f"{shell} -c {new_text}"):
        return Fix(
            (edit,),
            Applicability.SAFE,
            f"Write the pattern as `{new_pattern}`: it matches the same processes but "
            "not its own text",
            "bracket",
        )
    # The bodies are blanked where they stand in the layer's text, before the bracket edit
    # (which shifts what follows it) is made.
    blanked = _blank_literal_heredocs(layer)
    if regex.search(f"{shell} -c {blanked[:start]}{content}{blanked[end:]}") is None:
        return None  # only a heredoc body matches: HL101's fix removes it first
    return _split_fix(layer, command, candidates)


@dataclass(frozen=True)
class PkillCall:
    """A `pkill -f P` / `pgrep -f P` (not `-x`) whose pattern text stands on the command
    line of the shell running it: written there, or filled in before that shell starts."""

    command: Command
    words: tuple[Word, ...]  # from the pkill or pgrep word on, past sudo/timeout/...
    tool: str
    pattern_index: int  # in `words`
    filled_in: bool = False  # the pattern is a value put into the text before it runs

    @property
    def pattern(self) -> str:
        word = self.words[self.pattern_index]
        return word.value if self.filled_in else word.received()


def _filled_in(layer: Layer, word: Word) -> bool:
    """Whether the word's value is text with values put into it before this shell starts
    (by the outer shell, or a Python f-string), standing as written on the command line,
    and a regex that matches its own text whatever plain word those values are."""
    outer = [(e.start, e.end) for e in layer.local_expansions]
    characters = word.offsets[: len(word.value)]  # (the offsets end with the word's end)
    if any(b != a + 1 for a, b in itertools.pairwise(characters)):
        return False  # quotes inside the word: its text on the command line differs
    filled = [any(a <= k < b for a, b in outer) or layer.is_runtime(k) for k in characters]
    if not any(filled):
        return False
    if not all(filled[k] for e in word.expansions for k in range(e.start, e.end)):
        return False  # an expansion this shell performs: its value is not on the line
    # Each filled-in run as a plain word: does the pattern then match its own text?
    shown = "".join(
        "x" if filled[k] else c
        for k, c in enumerate(word.value)
        if not (filled[k] and k and filled[k - 1])
    )
    regex = to_python_regex(shown)
    return regex is not None and regex.search(shown) is not None


_SETS_IFS = re.compile(r"\bIFS\+?=|\b(?:unset|local|declare|typeset|read)\b[^\n;]*\bIFS\b")


def pkill_calls(layer: Layer) -> Iterator[PkillCall]:
    if layer.kind == "stdin" and feeder_cmdline(layer) is None:
        return  # a script read from stdin is on no command line
    # `pkill${IFS}-f${IFS}x` is `pkill -f x` where the layer leaves IFS as it came.
    split_ifs = "IFS" in layer.text and not _SETS_IFS.search(layer.text)
    for call in calls(layer, SELF_MATCHING, split_ifs=split_ifs):
        command, words, tool = call.command, call.words, call.name
        full, exact, pattern_index = parse_pkill(words)
        if not full or exact or pattern_index is None:
            continue
        word = words[pattern_index]
        # A value filled into the text is on a command line only if the text itself is
        # (a string layer, `sh -c TEXT`): a script file's command line is only its path.
        on_command_line = layer.depth > 0 or " -c " in (layer.cmdline or "")
        if on_command_line and _filled_in(layer, word):
            yield PkillCall(command, words, tool, pattern_index, filled_in=True)
        elif word.static:
            yield PkillCall(command, words, tool, pattern_index)


@dataclass(frozen=True)
class SelfMatch:
    """HL103's verdict on one `pkill -f`/`pgrep -f`: where its pattern matches the command
    line of the shell running it, and whether that is reported (`severity`) or not."""

    call: PkillCall
    cmdline: str
    matches: tuple[tuple[int, int], ...]  # in `cmdline`; empty: no self-match
    evidence: str | None  # a kind of heredoc_lint.severities' HL103 rows; None: not reported
    why: str  # the finding's message, or why there is none

    @property
    def reported(self) -> bool:
        return self.evidence is not None

    @property
    def severity(self) -> Severity | None:
        return None if self.evidence is None else severities.severity("HL103", self.evidence)


def decide(layer: Layer, context: Context) -> Iterator[SelfMatch]:
    """Every pkill/pgrep -f call of `layer` with a known pattern, each with its verdict."""
    path = context.path
    cmdline: str | None = None
    # The command line is the whole layer's text: searching it, or quoting it, once per
    # call was quadratic in a string of n `pkill -f` calls.  Once per pattern.
    matches: dict[str, tuple[tuple[int, int], ...]] = {}
    shown: str | None = None
    repeated: set[int] | None = None
    for call in pkill_calls(layer):
        cmdline = cmdline if cmdline is not None else own_cmdline(layer, path)
        if cmdline is None:
            return
        found = _self_matches(call, cmdline, matches)
        if not found and not call.filled_in:
            why = "the pattern does not match the command line of the shell running it"
            yield SelfMatch(call, cmdline, (), None, why)
            continue
        if repeated is None:
            repeated = _followed_by_itself(layer)
        kind, reason = _evidence(layer, call.command, repeated)
        if kind is None:
            yield SelfMatch(call, cmdline, found, None, reason)
            continue
        if call.tool == "pgrep" and (grep := _grep_dropping_its_shell(layer, call, cmdline)):
            why = f"pgrep lists its own shell, and `{grep}` drops that line: no finding"
            yield SelfMatch(call, cmdline, found, None, why)
            continue
        if call.tool == "pgrep" and _oldest_first(layer, call):
            kind = "oldest-first"
        shown = shown or quote_snippet(cmdline)
        directory = _only_in_directory(layer, path, found)
        owner = _owner(layer, path, shown, directory)
        message = _message(layer, context, call, owner, _effect(layer, call, kind))
        yield SelfMatch(call, cmdline, found, "path-directory" if directory else kind, message)


def _self_matches(
    call: PkillCall, cmdline: str, matches: dict[str, tuple[tuple[int, int], ...]]
) -> tuple[tuple[int, int], ...]:
    """Where the call's pattern matches `cmdline`, searched once per pattern (`matches`
    keeps them); none for a pattern filled in, whose value is not known."""
    if call.filled_in:
        return ()
    pattern = call.pattern
    if pattern not in matches:
        regex = to_python_regex(pattern)
        matches[pattern] = () if regex is None else tuple(m.span() for m in regex.finditer(cmdline))
    return matches[pattern]


def _owner(layer: Layer, path: str | None, shown: str, directory: str) -> str:
    """Whose command line the pattern matches, in the message's words (`shown`: that
    command line, quoted; `directory`: see _only_in_directory)."""
    if layer.kind == "stdin":
        return f"the shell that feeds it this script (`{shown}`), which waits for it,"
    if layer.depth == 0 and layer.cmdline is None:
        owner = f"the script `{path}`"
    else:
        owner = f"its own shell (`{shown}`)"
    if directory:
        owner += f" when it is started by a path through `{directory}` (`./` does not)"
    return owner


def _effect(layer: Layer, call: PkillCall, kind: str) -> str:
    """What the call does to the shell its pattern matches, by the evidence `kind`."""
    if kind == "oldest-first":
        return (
            "finds that shell too; it asks for the oldest match, which is the process you "
            "mean while it runs (it is older than this shell), and this shell when it does not"
        )
    if call.tool != "pkill":
        return "always finds that shell, so it reports a match that is not the process you mean"
    status = "137/255" if _kills_outright(call) else "143/255"
    if kind == "last-command":
        return (
            "kills that shell where it keeps its process for its last command (dash, "
            "bash before 5.2; bash 5.2 runs the command in its place): it then dies with "
            f"exit status {status} instead of pkill's"
        )
    if kind not in ("fed-by-stdin", "shares-string"):  # pkill is the shell's only command
        return f"kills that shell: it dies with exit status {status} instead of pkill's"
    if layer.kind == "stdin":
        kills = "kills that shell: its commands after this script never run"
    else:
        kills = "kills that shell: the commands after it never run"
    return f"{kills} and the exit status is {status}"


def _message(layer: Layer, context: Context, call: PkillCall, owner: str, effect: str) -> str:
    """The finding's message, for a pattern written out or filled in."""
    if call.filled_in:
        word = call.words[call.pattern_index]
        a, b = layer.file_span(word.start, word.end)
        source = context.file_text[a:b] or call.pattern
        return (
            f"`{call.tool} -f {source}`: the value of `{source}` is put into the text "
            f"before the shell runs it, so it stands on the command line of {owner} too; "
            f"unless that value is a regex that cannot match its own text, {call.tool} "
            f"{effect}"
        )
    return (
        f"`{call.tool} -f {shlex.quote(call.pattern)}` matches the command line of {owner} "
        f"and {effect}"
    )


def _only_in_directory(layer: Layer, path: str | None, found: Sequence[tuple[int, int]]) -> str:
    """The directory part of a script's path, when the pattern matches `bash PATH` only
    there: whether it matches the running script depends on how it is started (`cd dir &&
    ./x.sh` shows no directory); "" otherwise."""
    if path is None or layer.depth != 0 or layer.cmdline is not None or not found:
        return ""
    head = len("bash ")
    directory = path[: path.rfind("/") + 1]
    if not directory or not all(head <= a and b <= head + len(directory) for a, b in found):
        return ""
    return directory


_SIGKILL = frozenset({"9", "KILL", "SIGKILL"})


def _kills_outright(call: PkillCall) -> bool:
    """Whether the pkill sends SIGKILL (`-9`, `-KILL`, `--signal 9`, `--signal=KILL`): its shell
    then ends with status 137, not 143."""
    options = [w.value for w in call.words[1 : call.pattern_index]]
    for k, option in enumerate(options):
        if option.startswith("-") and option[1:] in _SIGKILL:
            return True
        if option.startswith("--signal="):
            return option.split("=", 1)[1] in _SIGKILL
        if option == "--signal" and k + 1 < len(options):  # pkill's `-s` is a session
            return options[k + 1] in _SIGKILL
    return False


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    for verdict in decide(layer, context):
        if verdict.evidence is None:
            continue
        call = verdict.call
        words = call.words
        fix = (
            None
            if call.filled_in
            else _fix(layer, call.command, words[call.pattern_index], call.pattern)
        )
        yield finding(
            layer, "HL103", verdict.evidence, verdict.why, words[0].start, words[0].end, fix
        )


# -- examples (tests/test_rule_lists.py) ---------------------------------------------------
_OWN = "matches the command line of its own shell"
_FILLED = "is put into the text before the shell runs it"
INVALID = (
    Invalid(
        "ssh h 'pkill -f sglang; sleep 2'\n",
        "pkill",
        "ssh h 'pkill -f \\[s]glang; sleep 2'\n",
        "error",
        _OWN,
    ),
    Invalid(
        "ssh h 'pkill -9 -f sglang || true'\n",
        "pkill",
        "ssh h 'pkill -9 -f \\[s]glang || true'\n",
        "error",
        _OWN,
    ),
    Invalid(
        "ssh h 'pkill -9f sglang && echo'\n",
        "pkill",
        "ssh h 'pkill -9f \\[s]glang && echo'\n",
        "error",
        _OWN,
    ),
    Invalid(
        "ssh h 'pgrep -af sglang; echo'\n",
        "pgrep",
        "ssh h 'pgrep -af \\[s]glang; echo'\n",
        "error",
        _OWN,
    ),
    Invalid(
        "ssh h 'pkill --full sglang; echo'\n",
        "pkill",
        "ssh h 'pkill --full \\[s]glang; echo'\n",
        "error",
        _OWN,
    ),
    Invalid(  # -u's value after f
        "ssh h 'pkill -fu app sglang; echo'\n",
        "pkill",
        "ssh h 'pkill -fu app \\[s]glang; echo'\n",
        "error",
        _OWN,
    ),
    Invalid(  # attached value
        "ssh h 'pkill -uroot -f sglang; echo'\n",
        "pkill",
        "ssh h 'pkill -uroot -f \\[s]glang; echo'\n",
        "error",
        _OWN,
    ),
    Invalid(
        "ssh h 'pkill -u root -f sglang; echo'\n",
        "pkill",
        "ssh h 'pkill -u root -f \\[s]glang; echo'\n",
        "error",
        _OWN,
    ),
    Invalid(  # past the prefix
        "ssh h 'sudo pkill -f sglang; echo'\n",
        "pkill",
        "ssh h 'sudo pkill -f \\[s]glang; echo'\n",
        "error",
        _OWN,
    ),
    Invalid(
        "ssh h 'timeout 5 pkill -f sglang; echo'\n",
        "pkill",
        "ssh h 'timeout 5 pkill -f \\[s]glang; echo'\n",
        "error",
        _OWN,
    ),
    Invalid(  # ERE
        "ssh h 'pkill -f \"python.*serve\"; ./serve'\n",
        "pkill",
        "ssh h 'pkill -f \"[p]ython.*serve\"; ./serve'\n",
        "error",
        _OWN,
    ),
    Invalid(  # bash keeps its shell
        "ssh h 'pkill -f sglang 2>/dev/null'\n",
        "pkill",
        "ssh h 'pkill -f \\[s]glang 2>/dev/null'\n",
        "warning",
        _OWN,
    ),
    Invalid(  # dash keeps its shell
        "sh -c 'pkill -f sglang'\n",
        "pkill",
        "sh -c 'pkill -f \\[s]glang'\n",
        "warning",
        _OWN,
    ),
    Invalid(  # layer 2
        "ssh a \"ssh b 'pkill -f worker; echo'\"\n",
        "pkill",
        "ssh a \"ssh b 'pkill -f \\\\[w]orker; echo'\"\n",
        "error",
        _OWN,
    ),
    Invalid(
        "ssh h 'kill $(pgrep -f worker); echo'\n",
        "pgrep",
        "ssh h 'kill $(pgrep -f \\[w]orker); echo'\n",
        "error",
        _OWN,
    ),
    # The bracket fix (safe), also on an agent's command line: tests/test_rule_hl103.py.
    Invalid('ssh h "pkill -f sglang; sleep 1"', "pkill", "ssh h \"pkill -f '[s]'glang; sleep 1\""),
    Invalid("ssh h 'pkill -f sglang; sleep 1'", "pkill", "ssh h 'pkill -f \\[s]glang; sleep 1'"),
    Invalid(
        "ssh h 'pkill -f \"rq worker\"; sleep 1'",
        "pkill",
        "ssh h 'pkill -f \"[r]q worker\"; sleep 1'",
    ),
    Invalid("ssh h 'pkill -f -- -worker; echo'", "pkill", "ssh h 'pkill -f -- -\\[w]orker; echo'"),
    # A pattern filled in before the shell starts: no bracket to place, no fix.
    Invalid('ssh h "pkill -f $APP; ./start"\n', "pkill", None, "error", _FILLED),
    Invalid('ssh h "pkill -f ${APP}-worker || true"\n', "pkill", None, "error", _FILLED),
    Invalid('ssh h "pgrep -f $APP 2>/dev/null"\n', "pgrep", None, "warning", _FILLED),
)
VALID = (
    "ssh h 'pkill -f sglang'\n",  # bash execs a lone simple command
    "ssh h pkill -f sglang\n",
    "ssh h \"pkill -f '[s]glang'; echo\"\n",  # cannot match its own text
    "ssh h 'pkill -xf sglang; echo'\n",  # -x: the whole command line must be `sglang`
    "ssh h 'pkill -f \"^python3 -m sglang\"; echo'\n",  # anchored: `bash -c ...` cannot match
    "ssh h 'pkill sglang; echo'\n",  # without -f only process names are matched
    "ssh h 'pkill -u sglang worker; echo'\n",  # `sglang` is -u's value, no -f
    "ssh h 'pgrep -f \"$NAME\"; echo'\n",  # pattern not known before it runs
    "pkill -f sglang\nsleep 1\n",  # a script whose name does not match
    "ssh h 'cat <<EOF\npkill -f x; y\nEOF'\n",  # a heredoc body is data
    # A pattern filled in before the shell starts, where it cannot match:
    'ssh h "pkill -f $APP"\n',  # bash execs the lone command
    "ssh h 'pkill -f \"$APP\"; x'\n",  # the remote shell expands it: `$APP` on its line
    'ssh h "pkill -f [${APP:0:1}]x; y"\n',  # an expansion inside a bracket
)


RULE = rule(
    "HL103",
    "pkill-self-match",
    check,
    fix=FixAvailability.SOMETIMES,
)
