r"""## What it does
Finds `ssh` given its remote command as several words where one of the
words after the first holds whitespace or a shell metacharacter
(`ssh h ls "my dir"`, `ssh h git commit -m "fix the build"`,
`ssh h find . -exec rm {} \;`).

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
ssh host ls -l "/srv/my dir"
```

## Use instead
```bash
ssh host "ls -l '/srv/my dir'"
```
Give ssh the remote command as one string, written for the remote shell: each
argument quoted for it (`shlex.quote`, `printf %q`), and the whole string
quoted once more for the local shell.

## Fix safety
Unsafe: the fix quotes the offending words for the remote shell and passes
the command as one string, which is what the words ask for, but it guesses
that no word was meant to be split remotely. When a word holds something the
local shell expands (`"$dir"`), the fix is only displayed. Words that hold only
something the remote shell is meant to see (`'*.log'`, `'$HOME'`, an operator such
as `'|'` or `';'`, a redirection such as `'2>&1'`, a pre-quoted `"'a b'"`) are not
reported.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from heredoc_lint.edits import lift
from heredoc_lint.layers import Layer
from heredoc_lint.model import Applicability, Finding, Fix, Severity
from heredoc_lint.rules.base import Context, Rule, finding, quote_snippet
from heredoc_lint.shell.words import Word, matching_close

_CONTROL = ("&&", "||", ";;", ";&", "|&", "&", "|", ";", "(", ")")
_REDIRECTIONS = ("&>>", "<<<", "<<-", "&>", "<<", "<>", "<&", ">&", ">>", ">|", "<", ">")
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


@dataclass(frozen=True)
class Token:
    kind: str  # word, control, redirect
    text: str




def remote_tokens(text: str) -> list[Token] | None:
    """How a POSIX shell splits `text` into words and operators; None: an open quote."""
    tokens: list[Token] = []
    word: list[str] = []
    started = False

    def flush() -> None:
        nonlocal started
        if started:
            tokens.append(Token("word", "".join(word)))
        word.clear()
        started = False

    i = 0
    while i < len(text):
        c = text[i]
        if c in " \t\n":
            flush()
            i += 1
        elif c == "#" and not started:
            newline = text.find("\n", i)
            i = len(text) if newline < 0 else newline
        elif c == "\\":
            word.append(text[i + 1 : i + 2])
            started = True
            i += 2
        elif c == "'":
            close = text.find("'", i + 1)
            if close < 0:
                return None
            word.append(text[i + 1 : close])
            started = True
            i = close + 1
        elif c == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= len(text):
                return None
            word.append(text[i + 1 : j])
            started = True
            i = j + 1
        elif c == "`":
            close = text.find("`", i + 1)
            if close < 0:
                return None
            word.append(text[i : close + 1])
            started = True
            i = close + 1
        elif c == "$" and text[i + 1 : i + 2] in ("(", "{"):
            opener = text[i + 1]
            end = matching_close(text, i + 1, len(text), opener, ")" if opener == "(" else "}")
            word.append(text[i:end])
            started = True
            i = end
        elif c in "<>" or text.startswith("&>", i):
            op = next(r for r in _REDIRECTIONS if text.startswith(r, i))
            fd = "".join(word) if started and "".join(word).isdigit() else ""
            if not fd:
                flush()
            word.clear()
            started = False
            tokens.append(Token("redirect", fd + op))
            i += len(op)
        elif c in ";&|()":
            flush()
            op = next(o for o in _CONTROL if text.startswith(o, i))
            tokens.append(Token("control", op))
            i += len(op)
        else:
            word.append(c)
            started = True
            i += 1
    flush()
    return tokens


def _placeholder(word: Word) -> str:
    """The word's value with each local expansion replaced by one plain character."""
    value = word.value
    for expansion in sorted(word.expansions, key=lambda e: e.start, reverse=True):
        value = value[: expansion.start] + "X" + value[expansion.end :]
    return value


def _redirection(tokens: Sequence[Token]) -> bool:
    """Only redirections, each with its target: `2>&1`, `> /dev/null`, `<in >out`."""
    return len(tokens) % 2 == 0 and all(
        t.kind == ("redirect" if k % 2 == 0 else "word") for k, t in enumerate(tokens)
    )


def _problem(words: Sequence[Word], index: int) -> str | None:
    """What the remote shell does to words[index], if it does not get it back as one word."""
    word = words[index]
    value = _placeholder(word)
    if value == ";" and any(w.value in _FIND_EXEC for w in words[:index]):
        return (
            "the `;` that ends find's `-exec` reaches the remote shell unescaped and ends the "
            "remote command there, so find fails with `missing argument to -exec`"
        )
    tokens = remote_tokens(value)
    if tokens is None:
        shown = quote_snippet(word.value, 30)
        return f"`{shown}` opens a quote that never closes on the remote side"
    if not tokens:
        if value.lstrip().startswith("#"):
            return f"`{quote_snippet(word.value, 30)}` becomes a comment on the remote side"
        return None  # an empty word just disappears: rarely meant, rarely harmful
    if len(tokens) == 1 and tokens[0].kind == "word":
        return None  # one word again: a pre-quoted or a remote-expanded word
    if tokens[0].kind == "control" or tokens[-1].kind == "control":
        return None  # shell syntax written for the remote shell on purpose: `'| grep x'`
    if all(t.kind != "word" for t in tokens):
        return None  # operators alone: `'>'`, `'2>'`
    if _redirection(tokens) and (len(tokens) == 2 or any(c in value for c in " \t")):
        return None  # a redirection passed on purpose: `'2>&1'`, `'> /dev/null 2>&1'`
    shown = quote_snippet(word.value, 30)
    controls = [t.text for t in tokens if t.kind == "control"]
    if controls:
        return (
            f"the `{controls[0]}` in `{shown}` becomes an operator of the remote shell, which "
            "runs the pieces as separate commands"
        )
    redirects = [t.text for t in tokens if t.kind == "redirect"]
    if redirects:
        return f"the `{redirects[0]}` in `{shown}` becomes a redirection of the remote shell"
    pieces = [t.text for t in tokens]
    listed = ", ".join(f"`{quote_snippet(p, 20)}`" for p in pieces[:4])
    more = ", ..." if len(pieces) > 4 else ""
    return f"`{shown}` arrives as {len(pieces)} separate arguments ({listed}{more})"


def _operators(word: Word) -> bool:
    tokens = remote_tokens(_placeholder(word))
    return tokens is not None and any(t.kind == "control" for t in tokens)


def _double_quoted(text: str) -> str:
    return "".join("\\" + c if c in '\\"`$' else c for c in text)


def _remote_word(words: Sequence[Word], index: int, flagged: set[int]) -> str:
    """A static word as the remote shell must read it to get the same argument."""
    value = words[index].value
    if index not in flagged:
        tokens = remote_tokens(value)
        if index == 0 or tokens is None or len(tokens) != 1 or tokens[0].kind != "word":
            return value  # the command name, or remote shell syntax written on purpose
        if value.startswith("~") or any(c in value for c in "$`"):
            return value  # meant for the remote shell to expand
    if "'" in value and not any(c in value for c in '"$`\\!'):
        return f'"{value}"'
    return shlex.quote(value)


def _local_word(text: str, nested: bool) -> str:
    """`text` as one word for the layer's shell: single quotes, else double quotes."""
    plain = not any(c in text for c in '"$`\\!')
    if plain and (nested or "'" in text):
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    return f'"{_double_quoted(text)}"'


def _fix(layer: Layer, words: Sequence[Word], flagged: set[int]) -> Fix | None:
    if all(w.static for w in words):
        remote = " ".join(_remote_word(words, k, flagged) for k in range(len(words)))
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
            pieces.append(f"'{text}'" if k in flagged else text)
        content = '"' + " ".join(pieces) + '"'
        applicability = Applicability.DISPLAY_ONLY
    edit = lift(layer, words[0].start, words[-1].end, content)
    if edit is None:
        return None
    return Fix(
        (edit,),
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


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    for command, invocation in layer.invocations:
        if invocation.ssh is None or len(invocation.words) < 2:
            continue
        words = invocation.words
        problems: dict[int, str] = {}
        # Once a word holds a remote operator on purpose, the words are shell text.
        shell_text = _operators(words[0])
        for index in range(1, len(words)):
            problem = _problem(words, index)
            if problem is None:
                shell_text = shell_text or _operators(words[index])
            elif not shell_text:
                problems[index] = problem
        if not problems:
            continue
        ssh_word = command.words[invocation.ssh.index]
        first = next(iter(problems.values()))
        extra = f" (and {len(problems) - 1} more such word(s))" if len(problems) > 1 else ""
        yield finding(
            layer,
            "HL106",
            Severity.WARNING,
            f"ssh joins the {len(words)} words of the remote command with spaces and the remote "
            f"shell splits the string again: {first}{extra}; pass the remote command as one "
            "quoted string with each argument quoted for the remote shell",
            ssh_word.start,
            ssh_word.end,
            _fix(layer, words, set(problems)),
        )


RULE = Rule(
    "HL106",
    "ssh-argument-rejoin",
    Severity.WARNING,
    "ssh given several command words, one holding spaces or metacharacters: they are re-split.",
    __doc__ or "",
    check,
    fixable=True,
)
