r"""ssh given several command words, one holding spaces or metacharacters: they are re-split.

## What it does
Finds `ssh` given its remote command as several words where one of the
words after the first holds whitespace or a shell metacharacter
(`ssh h ls "my dir"`, `ssh h git commit -m "fix the build"`,
`ssh h find . -exec rm {} \;`), and a local default that holds a blank
(`"${DIR:-/srv/my dir}"`), which is split whenever the variable is unset. It
is info by default (`--severity info` shows it): on repositories read on first
look, most rejoined words were harmless where the command rejoins its
arguments itself (`tmux new -d ...`). A warning when the word is one of the
environment assignments that start the command (`ssh h "A=$a" "B=x y" cmd`):
an assignment never joins its words again, and the rest of its value becomes
the command the remote shell runs.

## Why is this bad?
ssh does not pass an argument vector to the remote side: it joins all the
words after the host with single spaces into one string, and the remote login
shell parses that string again. The local quotes are gone by then, so
`"my dir"` arrives as the two arguments `my` and `dir`, a quoted `;` or `|`
becomes a remote operator, a `#` starts a comment and an apostrophe opens a
quote that never closes. The command runs with other arguments than the ones
written, often without an error.

## Example
```bash
ssh host "MODE=fast" "REASON=routine rollout" ./deploy.sh
```
(`ssh host ls -l "/srv/my dir"` lists `/srv/my` and `dir`: info.)

## Use instead
```bash
ssh host "MODE=fast REASON='routine rollout' ./deploy.sh"
ssh host "ls -l '/srv/my dir'"
```
Give ssh the remote command as one string, written for the remote shell: each
argument quoted for it (`shlex.quote`, `printf %q`), and the whole string
quoted once more for the local shell.

## Fix safety
Unsafe: the fix quotes the offending words for the remote shell (an
assignment's value alone, its name left bare) and passes
the command as one string, which is what the words ask for, but it guesses
that no word was meant to be split remotely. When a word holds something the
local shell expands (`"$dir"`), the fix is only displayed. Words that hold only
something the remote shell is meant to see (`'*.log'`, `'$HOME'`, an operator such
as `'|'` or `';'`, a redirection such as `'2>&1'`, a pre-quoted `"'a b'"`) are not
reported, nor an operator in a word after a first word that is itself a piece
of a command line (`ssh h "eval "sudo $J" && mkdir -p ~/.kube"`: the rejoined
text is the one meant).
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from heredoc_lint.fixes.edits import layer_fix
from heredoc_lint.layers.layer import Layer, LocalExpansion, string_layer, without_local_regions
from heredoc_lint.layers.wrappers import Invocation
from heredoc_lint.model import Applicability, Finding, Fix
from heredoc_lint.rules.base import Context, FixAvailability, Invalid, finding, quote_snippet, rule
from heredoc_lint.shell.syntax import Command, Script, parse_script
from heredoc_lint.shell.words import Word, dequote

_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_QUOTES = frozenset("'\"`")
_SPECIAL = frozenset(" \t\n;&|<>()'\"\\`#")
_REPARSES = 3  # words found wrong after which the others are read alone
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# A local `${NAME:-text}` (or `-`, `:=`, `=`) whose default is plain text.
_DEFAULTED = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):?[-=]([^}$`\"'\\]*)\}")
# What starts in a remote string: a word, a control operator, a redirection.
ItemKind = Literal["word", "control", "redirect"]


@dataclass(frozen=True)
class Fate:
    """What the remote shell makes of the text one local word put into its string: the
    items (remote words, operators, redirections) that start inside it, in order."""

    start: int  # the word's range in the remote string
    end: int
    # (start, end, kind: word|control|redirect, the operator's text) in the remote string
    items: tuple[tuple[int, int, ItemKind, str], ...]
    unclosed: bool  # a quote opened in this word never closes in the remote string

    def texts(self, kind: ItemKind) -> list[str]:
        return [text for _, _, k, text in self.items if k == kind]

    def words(self, remote: str) -> list[str]:
        """The values of the remote words that start in this word (`remote`: the string)."""
        return [dequote(remote, a, b).value for a, b, k, _ in self.items if k == "word"]

    @property
    def one_word(self) -> bool:
        """Whether the remote shell reads the word back as one word, alone."""
        return not self.unclosed and [k for _, _, k, _ in self.items] == ["word"]


def fates(remote: Script, words: Sequence[Word]) -> list[Fate]:
    """For each word of ssh's remote command, what the remote shell's parse of the
    joined string (the child layer) makes of it."""
    items = _remote_items(remote)
    quotes = _unclosed_quotes(remote)
    found = []
    base = k = q = 0
    for word in words:  # the words' ranges and the items both in order: one sweep
        end = base + len(word.value)
        # A remote word that began in an earlier local word (`\'my` `file\'`) is that
        # word's; a quote that opens here and never closes is an error starting here.
        while k < len(items) and items[k][0] < base:
            k += 1
        own = []
        while k < len(items) and items[k][0] < end:
            own.append(items[k])
            k += 1
        while q < len(quotes) and quotes[q] < base:
            q += 1
        unclosed = q < len(quotes) and quotes[q] < end
        found.append(Fate(base, end, tuple(own), unclosed))
        base = end + 1
    return found


def _remote_items(remote: Script) -> list[tuple[int, int, ItemKind, str]]:
    """The remote words, control operators and redirections of the remote string, in
    order (see Fate.items)."""
    items: list[tuple[int, int, ItemKind, str]] = []
    for command in remote.commands:
        if command.in_substitution:
            continue  # a remote `$(...)` inside one word
        # Spans alone: de-quoting every remote word costs more than the parse.
        spans = command.word_spans
        items.extend((a, b, "word", "") for a, b in spans)
        if "=" in remote.text[command.start : spans[0][0] if spans else command.end]:
            # `A=1 B=x y cmd`: the assignments before the name are remote words too
            items.extend((w.start, w.end, "word", "") for w in command.assignments)
        if command.next_op is not None:  # its start is then the operator's offset (>= 0)
            start = command.next_op_start
            items.append((start, start + len(command.next_op), "control", command.next_op))
        for r in command.redirects:
            items.append((r.start, r.end, "redirect", f"{r.fd if r.fd is not None else ''}{r.op}"))
    return sorted(set(items))


def _unclosed_quotes(remote: Script) -> list[int]:
    """Where a quote opens that never closes, in order: tree-sitter's error starts at it,
    or at the blank before it."""
    quotes = []
    for error in remote.errors:
        at = error.start
        while at < error.end and remote.text[at : at + 1] in (" ", "\t", "\n"):
            at += 1
        if remote.text[at : at + 1] in _QUOTES:
            quotes.append(at)
    quotes.sort()
    return quotes


def _shifted(fate: Fate, by: int) -> Fate:
    """`fate` read in a part of the string that starts `by` characters into it."""
    return Fate(
        fate.start + by,
        fate.end + by,
        tuple((a + by, b + by, kind, text) for a, b, kind, text in fate.items),
        fate.unclosed,
    )


def _alone(word: Word, start: int) -> Fate:
    """The fate of `word` read by the remote shell on its own, at `start` in the string."""
    if word.static:
        items, unclosed = _alone_static(word.value)
    else:
        expansions = tuple(LocalExpansion(e.start, e.end, e, e.start) for e in word.expansions)
        (fate,) = fates(without_local_regions(parse_script(word.value), expansions), (word,))
        items, unclosed = fate.items, fate.unclosed
    return _shifted(Fate(0, len(word.value), items, unclosed), start)


@functools.lru_cache(maxsize=1024)
def _alone_static(value: str) -> tuple[tuple[tuple[int, int, ItemKind, str], ...], bool]:
    """`_alone` of a static word: the same word comes back often in a long command line."""
    (fate,) = fates(
        parse_script(value), (Word(0, len(value), value, tuple(range(len(value) + 1))),)
    )
    return fate.items, fate.unclosed


def _problem(
    words: Sequence[Word],
    fates: Sequence[Fate],
    index: int,
    remote: str,
    first_exec: int,
    assignments: range,
) -> str | None:
    """What the remote shell does to words[index], if it does not get it back as one word.
    `first_exec`: the index of the first of find's `-exec` words (len(words) if none);
    `assignments`: the words that are the command's leading assignments (`_assignments`)."""
    word, fate = words[index], fates[index]
    if word.value == ";" and first_exec < index:
        return (
            "the `;` that ends find's `-exec` reaches the remote shell unescaped and ends the "
            "remote command there, so find fails with `missing argument to -exec`"
        )
    shown = quote_snippet(word.value, 30)
    if fate.unclosed:
        return f"`{shown}` opens a quote that never closes on the remote side"
    kinds = [k for _, _, k, _ in fate.items]
    if not kinds:
        if word.value.lstrip().startswith("#"):
            return f"`{shown}` becomes a comment on the remote side"
        return None  # an empty word just disappears, or one a comment before it took
    if _on_purpose(word, kinds):
        return None
    controls = fate.texts("control")
    if controls:
        return (
            f"the `{controls[0]}` in `{shown}` becomes an operator of the remote shell, which "
            "runs the pieces as separate commands"
        )
    redirects = fate.texts("redirect")
    if redirects:
        return f"the `{redirects[0]}` in `{shown}` becomes a redirection of the remote shell"
    return _pieces_problem(words, index, fate.words(remote), shown, assignments)


def _on_purpose(word: Word, kinds: list[ItemKind]) -> bool:
    """Whether what the remote shell reads in `word` (`kinds`: its items, at least one) is
    what the word was written for: one word again, or shell syntax for the remote shell."""
    if kinds == ["word"]:
        return True  # one word again: a pre-quoted or a remote-expanded word
    if kinds[0] == "control" or kinds[-1] == "control":
        return True  # shell syntax written for the remote shell on purpose: `'| grep x'`
    # a redirection passed on purpose: `'>'`, `'2>&1'`, `'> /dev/null 2>&1'`
    return (
        "control" not in kinds
        and "word" not in kinds
        and (len(kinds) == 1 or any(c in word.value for c in " \t"))
    )


def _pieces_problem(
    words: Sequence[Word], index: int, pieces: list[str], shown: str, assignments: range
) -> str | None:
    """What the remote shell does to words[index] by reading it as the words `pieces`
    (`shown`: the word in the message)."""
    if words[0].value == "echo" and " ".join(pieces) == words[index].value:
        return None  # echo joins its arguments with one space again: the same output
    if index in assignments:  # the first piece is the assignment, cut short
        rest = ", ".join(f"`{quote_snippet(p, 20)}`" for p in pieces[1:5])
        more = ", ..." if len(pieces) > 5 else ""
        assigned = quote_snippet(pieces[0], 30)
        return (
            f"`{shown}` assigns only `{assigned}`: the rest ({rest}{more}) is read as the command"
        )
    listed = ", ".join(f"`{quote_snippet(p, 20)}`" for p in pieces[:4])
    more = ", ..." if len(pieces) > 4 else ""
    return f"`{shown}` arrives as {len(pieces)} separate arguments ({listed}{more})"


def _double_quoted(text: str) -> str:
    return "".join("\\" + c if c in '\\"`$' else c for c in text)


def _remote_word(
    words: Sequence[Word], fates: Sequence[Fate], index: int, flagged: set[int], assignments: range
) -> str:
    """A static word as the remote shell must read it to get the same argument."""
    value = words[index].value
    if index not in flagged:
        if index == 0 or not fates[index].one_word:
            return value  # the command name, or remote shell syntax written on purpose
        if value.startswith("~") or any(c in value for c in "$`"):
            return value  # meant for the remote shell to expand
    # An assignment keeps its name unquoted, or it is a command's name (`'A=b c'`).
    name = _assignment_name(words[index], index in assignments)
    value = value[len(name) :]
    if "'" in value and not any(c in value for c in '"$`\\!'):
        return f'{name}"{value}"'
    return name + shlex.quote(value)


def _assignment_name(word: Word, assignment: bool) -> str:
    """`NAME=` of a word that is one of the assignments that start the command."""
    match = _ASSIGNMENT.match(word.value) if assignment else None
    return match[0] if match else ""


def _local_word(text: str, nested: bool) -> str:
    """`text` as one word for the layer's shell: single quotes, else double quotes."""
    plain = not any(c in text for c in '"$`\\!')
    if plain and (nested or "'" in text):
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    return f'"{_double_quoted(text)}"'


def _fix(
    layer: Layer,
    words: Sequence[Word],
    fates: Sequence[Fate],
    flagged: set[int],
    assignments: range,
) -> Fix | None:
    if all(w.static for w in words):
        remote = " ".join(
            _remote_word(words, fates, k, flagged, assignments) for k in range(len(words))
        )
        content = _local_word(remote, layer.depth > 0)
        applicability = Applicability.UNSAFE
    else:
        # Keep the local expansions local: one double-quoted string, each offending
        # word in single quotes for the remote shell.
        pieces = []
        for k, w in enumerate(words):
            if any(c in w.value for c in "'\\") and not w.static:
                return None
            text = _source_in_double_quotes(w)
            name = _assignment_name(w, k in assignments)
            pieces.append(f"{name}'{text[len(name) :]}'" if k in flagged else text)
        content = '"' + " ".join(pieces) + '"'
        applicability = Applicability.DISPLAY_ONLY
    return layer_fix(
        layer,
        [(words[0].start, words[-1].end, content)],
        applicability,
        f"Pass the remote command as one string, each argument quoted for the remote shell: "
        f"{content}",
    )


def _source_in_double_quotes(word: Word) -> str:
    """The word's value for a double-quoted string, its expansions kept for the local shell."""
    out: list[str] = []
    last = 0
    for expansion in sorted(word.expansions, key=lambda e: e.start):
        out.append(_double_quoted(word.value[last : expansion.start]))
        out.append(word.value[expansion.start : expansion.end])
        last = expansion.end
    out.append(_double_quoted(word.value[last:]))
    return "".join(out)


def _judge(
    layer: Layer, command: Command, invocation: Invocation, assignments: range
) -> tuple[dict[int, str], list[Fate]]:
    """The words the remote shell does not get back as written, with what it does to each,
    and the fates of all words once those are set right.

    The remote string is the child layer's; after a word is found wrong it is replaced by
    a plain word of its length and the string parsed again, so that a quote it leaves
    open or a redirection it starts does not change what the next words look like."""
    words = invocation.words
    child = string_layer(layer, command, invocation)
    told = fates(child.script, words)
    problems: dict[int, str] = {}
    text = child.text
    # Assignments given as separate words (`"A=$a" "B=$b" cmd`) are one word each, the
    # first too: a blank in one starts the command early.
    first = _first_judged(assignments)
    # Once a word holds a remote operator on purpose, the words are shell text.
    shell_text = first == 1 and bool(told[0].texts("control"))
    # A first word with blanks (`ssh h "eval "sudo $J" && mkdir x"`: `eval sudo`, then
    # `$J && mkdir x`) is a piece of a command line, not a command's name: an operator in a
    # later word continues that text, and the remote shell reads it as the author meant.
    command_text = first == 1 and any(c in words[0].value for c in " \t\n")
    # Found once: looking back over the words at each `;` was quadratic.
    first_exec = next((k for k, w in enumerate(words) if w.value in _FIND_EXEC), len(words))
    for index in range(first, len(words)):
        if len(problems) > _REPARSES:
            # Past a few words found wrong, each word is read alone: a parse per word
            # found wrong would cost quadratic time on a long command line.
            told[index] = _alone(words[index], told[index].start)
        problem = _problem(words, told, index, text, first_exec, assignments)
        if problem is not None and command_text and told[index].texts("control"):
            problem = None
        if problem is None:
            problem = _problem_when_unset(words, index, first_exec, assignments)
        if problem is None:
            shell_text = shell_text or bool(told[index].texts("control"))
            continue
        if shell_text:
            break
        problems[index] = problem
        if len(problems) <= _REPARSES and index + 1 < len(words):
            # The rest of the string again, without this word: what it does to the words
            # after it is its own problem, not theirs.
            rest = told[index].end + 1
            expansions = tuple(
                replace(e, start=e.start - rest, end=e.end - rest)
                for e in child.local_expansions
                if e.start >= rest
            )
            script = without_local_regions(parse_script(text[rest:]), expansions)
            told[index + 1 :] = [_shifted(f, rest) for f in fates(script, words[index + 1 :])]
    return problems, told


def _problem_when_unset(
    words: Sequence[Word], index: int, first_exec: int, assignments: range
) -> str | None:
    """What the remote shell does to words[index] when its variables are unset and the
    local shell puts their defaults in the string."""
    unset = _unset(words[index])
    if unset is None:
        return None
    name, word = unset
    shown = [*words[:index], word, *words[index + 1 :]]
    fate = _alone(word, 0)
    problem = _problem(shown, [fate] * (index + 1), index, word.value, first_exec, assignments)
    return None if problem is None else f"with `{name}` unset, {problem}"


def _plain(word: Word) -> bool:
    """A word that the remote shell reads back as itself, seen without parsing: not empty,
    and no blank, quote, backslash or operator outside its local expansions."""
    value = word.value
    for expansion in sorted(word.expansions, key=lambda e: e.start, reverse=True):
        value = value[: expansion.start] + "X" + value[expansion.end :]
    return bool(value) and not _SPECIAL & set(value) and _unset(word) is None


def _unset(word: Word) -> tuple[str, Word] | None:
    """`word` as the local shell leaves it when its variables are unset and each takes its
    default (`"REASON=${REASON:-routine rollout}"`), with the first such variable's name:
    when a default holds a blank or a metacharacter, and every expansion has one."""
    pieces: list[str] = []
    names: list[str] = []
    last = 0
    for expansion in sorted(word.expansions, key=lambda e: e.start):
        match = _DEFAULTED.fullmatch(word.value, expansion.start, expansion.end)
        if match is None:
            return None
        pieces += [word.value[last : expansion.start], match[2]]
        if _SPECIAL & set(match[2]):
            names.append(match[1])
        last = expansion.end
    if not names:
        return None
    text = "".join(pieces) + word.value[last:]
    return names[0], Word(0, len(text), text, tuple(range(len(text) + 1)))


def _assignments(words: Sequence[Word]) -> range:
    """Which words are the environment assignments (`NAME=value`) that start the command,
    or `env`'s."""
    start = 1 if words[0].value == "env" else 0
    end = next(
        (k for k in range(start, len(words)) if not _ASSIGNMENT.match(words[k].value)), len(words)
    )
    return range(start, end)


def _first_judged(assignments: range) -> int:
    """The first word that must reach the remote shell as one word: the second (the first
    names the command, or is a piece of a command line), or the first of two or more
    assignments given as separate words."""
    return 0 if assignments.start == 0 and len(assignments) >= 2 else 1


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    for command, invocation in layer.invocations:
        if invocation.ssh is None or len(invocation.words) < 2:
            continue
        words = invocation.words
        assignments = _assignments(words)  # once: asked of every word, it was quadratic
        if all(_plain(w) for w in words[_first_judged(assignments) :]):
            continue  # the common `ssh h sudo systemctl restart x`: no string to parse
        problems, told = _judge(layer, command, invocation, assignments)
        if not problems:
            continue
        ssh_word = command.words[invocation.ssh.index]
        index, first = next(iter(problems.items()))
        extra = f" (and {len(problems) - 1} more such word(s))" if len(problems) > 1 else ""
        # An assignment never joins its words again, as a command may (`tmux new -d ...`).
        split_assignment = index in assignments and index + 1 < len(words)
        yield finding(
            layer,
            "HL106",
            "split-assignment" if split_assignment else "rejoined-word",
            f"ssh joins the {len(words)} words of the remote command with spaces and the remote "
            f"shell splits the string again: {first}{extra}; pass the remote command as one "
            "quoted string with each argument quoted for the remote shell",
            ssh_word.start,
            ssh_word.end,
            _fix(layer, words, told, set(problems), assignments),
        )


# -- examples (tests/test_rule_lists.py) ---------------------------------------------------
_MY_DIR = "`my dir` arrives as 2 separate arguments (`my`, `dir`)"
_ROLLOUT = "assigns only `REASON=routine`"
_TWO = "arrives as 2 separate arguments"
INVALID = (
    Invalid('ssh h ls "my dir"\n', "ssh", "ssh h \"ls 'my dir'\"\n", "info", _MY_DIR),
    Invalid("ssh h ls my\\ dir\n", "ssh", "ssh h \"ls 'my dir'\"\n", "info", _TWO),
    Invalid(
        'ssh h git commit -m "fix the build"\n',
        "ssh",
        "ssh h \"git commit -m 'fix the build'\"\n",
        "info",
        "arrives as 3 separate arguments",
    ),
    Invalid(
        "ssh h find . -name '*.pyc' -exec rm {} \\;\n",
        "ssh",
        "ssh h \"find . -name '*.pyc' -exec rm '{}' ';'\"\n",
        "info",
        "missing argument to -exec",
    ),
    Invalid(
        "ssh h find . -exec rm {} ';' -print\n",
        "ssh",
        "ssh h \"find . -exec rm '{}' ';' -print\"\n",
        "info",
        "find's `-exec`",
    ),
    Invalid(
        'ssh h echo "it\'s"\n',
        "ssh",
        'ssh h "echo \\"it\'s\\""\n',
        "info",
        "opens a quote that never closes",
    ),
    Invalid("ssh h echo '#x'\n", "ssh", "ssh h \"echo '#x'\"\n", "info", "becomes a comment"),
    Invalid(
        'ssh h bash -c "echo a; echo b"\n',
        "ssh",
        "ssh h \"bash -c 'echo a; echo b'\"\n",
        "info",
        "the `;` in `echo a; echo b`",
    ),
    Invalid(
        'ssh h sh -c "cd /srv && make"\n',
        "ssh",
        "ssh h \"sh -c 'cd /srv && make'\"\n",
        "info",
        "the `&&`",
    ),
    Invalid(
        "ssh h echo 'a>b'\n",
        "ssh",
        "ssh h \"echo 'a>b'\"\n",
        "info",
        "the `>` in `a>b` becomes a redirection",
    ),
    Invalid(
        "ssh h printf '<%s>\\n' x\n",
        "ssh",
        "ssh h \"printf '<%s>\\\\n' x\"\n",
        "info",
        "the `<` in `<%s>\\n` becomes a redirection",
    ),
    Invalid(
        'ssh h echo "it\'s" \\; ls\n',
        "ssh",
        'ssh h "echo \\"it\'s\\" ; ls"\n',
        "info",
        "opens a quote",
    ),
    Invalid(  # and `b` too
        "ssh h echo \\'a b\n",
        "ssh",
        'ssh h "echo \\"\'a\\" b"\n',
        "info",
        "`'a` opens a quote that never closes",
    ),
    Invalid(  # each word judged with the ones found wrong before it set right
        "ssh h printf '<%s>' \"my dir\"\n",
        "ssh",
        "ssh h \"printf '<%s>' 'my dir'\"\n",
        "info",
        "(and 1 more such word(s))",
    ),
    Invalid(  # a local expansion: the fix is only displayed
        'ssh h grep "$pat x" file\n', "ssh", None, "info", _TWO
    ),
    Invalid(
        'ssh -p 2222 -o BatchMode=yes ops@h ls "my dir" other\n',
        "ssh",
        "ssh -p 2222 -o BatchMode=yes ops@h \"ls 'my dir' other\"\n",
        "info",
        "`my dir`",
    ),
    Invalid('sudo ssh h ls "my dir"\n', "ssh", "sudo ssh h \"ls 'my dir'\"\n", "info", "`my dir`"),
    Invalid(
        'for h in a b; do ssh "$h" touch "/srv/new file"; done\n',
        "ssh",
        'for h in a b; do ssh "$h" "touch \'/srv/new file\'"; done\n',
        "info",
        "`/srv/new file`",
    ),
    Invalid(  # the inner ssh's words, inside a bash -c string
        "bash -c 'ssh h ls \"my dir\"'\n",
        "ssh",
        "bash -c 'ssh h \"ls '\\''my dir'\\''\"'\n",
        "info",
        "`my dir`",
    ),
    Invalid('ssh h ls -l "/srv/my dir" /tmp\n', "ssh", "ssh h \"ls -l '/srv/my dir' /tmp\"\n"),
    Invalid(
        'ssh -p 2222 h bash -c "echo a; echo b"\n',
        "ssh",
        "ssh -p 2222 h \"bash -c 'echo a; echo b'\"\n",
    ),
    # Assignments given as separate words: each is one assignment, and a blank in one starts
    # the remote command early (assembledhq/143's deploy.sh, `"DEPLOY_REASON=${...:-routine
    # worker rollout}"`); an assignment never joins its words again, so these are warnings.
    Invalid(
        'ssh h "A=x" "REASON=routine worker rollout" ./deploy\n',
        "ssh",
        "ssh h \"A=x REASON='routine worker rollout' ./deploy\"\n",
        "warning",
        "`REASON=routine worker rollout` assigns only `REASON=routine`: the rest (`worker`, "
        "`rollout`) is read as the command",
    ),
    Invalid(
        'ssh h "REASON=routine worker rollout" "A=x" ./deploy\n',
        "ssh",
        "ssh h \"REASON='routine worker rollout' A=x ./deploy\"\n",
        "warning",
        _ROLLOUT,
    ),
    Invalid(
        'ssh h env "REASON=routine worker rollout" ./deploy\n',
        "ssh",
        "ssh h \"env REASON='routine worker rollout' ./deploy\"\n",
        "warning",
        _ROLLOUT,
    ),
    Invalid(
        'ssh h "A=${A:-x}" "REASON=${REASON:-routine worker rollout}" ./deploy\n',
        "ssh",
        None,
        "warning",
        "with `REASON` unset, `REASON=routine worker rollout` assigns only `REASON=routine`",
    ),
)
VALID = (
    'ssh h "systemctl restart agent"\n',  # one word
    "ssh h sudo systemctl restart x\n",  # no word with whitespace or metacharacters
    'ssh h grep "$pat" file\n',  # a pure expansion: unknown
    'ssh h "$@"\n',
    'ssh h cmd "$1" "${2}" "$(date +%s)"\n',
    "ssh h ls '*.log' '$HOME' '~/x'\n",  # meant for the remote shell to expand
    "ssh h cat /etc/hosts '|' grep x\n",  # an operator passed on purpose
    "ssh h cat log '| grep x'\n",
    "ssh h ./run '2>&1' '>/dev/null'\n",  # redirections passed on purpose
    "ssh h ./run '> \"my log\"'\n",
    "ssh h nohup ./run '>' /dev/null '2>&1' '&'\n",
    "ssh h bash -c \"'echo a; echo b'\"\n",  # pre-quoted for the remote shell
    "ssh h echo \"'a b'\"\n",
    'ssh h "cd /tmp;" "ls -l"\n',  # shell text across words
    "ssh h cat \\'my file\\'\n",  # quotes for the remote shell, across words
    'ssh h grep -r \\"a b\\" /etc\n',
    'ssh h "ls -l" /tmp\n',  # the first word is the command string
    'ssh h "FOO=1 make" install\n',  # an assignment, then the command, in one string
    'ssh h "A=1" "B=${B:-x}" cmd\n',  # a default with no blank
    'ssh h echo ""\n',
    "ssh h printf '%s\\n' x\n",
    "ssh h echo a=b --x=y,z\n",
    "ssh -p 2222 h\n",
    'scp "my file" h:/tmp/\n',
    "ssh gw \"ssh inner 'ls my dir'\"\n",
)


RULE = rule("HL106", "ssh-argument-rejoin", check, fix=FixAvailability.SOMETIMES)
