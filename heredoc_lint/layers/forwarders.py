"""Wrappers a script defines itself: a function that forwards its arguments to `ssh`, a
variable that holds a wrapper's command word.

    remote() { ssh "$HOST" "$@"; }
    remote "pkill -f app; ./start"          # runs: ssh "$HOST" "pkill -f app; ./start"

    SSH="ssh -p 2222 -o BatchMode=yes"
    $SSH host "pkill -f app; ./start"       # runs: ssh -p 2222 -o BatchMode=yes host ...

`forwarded` rewrites such a command into the words bash runs, as far as they are known
before run time (`shell.definitions`), and resolves the result with the wrapper table.
The layer it finds is kept only when its words are the command's own words (the call's
arguments, the words after `$SSH`): the function body's own layer is checked where it is
written, and a value whose words are not known gives no layer at all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from heredoc_lint.layers.wrappers import (
    WRAPPERS,
    Invocation,
    SshCall,
    command_name,
    cut_word,
    resolve,
)
from heredoc_lint.shell.definitions import Definitions, FunctionBody, Literal
from heredoc_lint.shell.syntax import Command
from heredoc_lint.shell.words import Expansion, Quoting, Word

# `${@:2}`: the arguments from the second on.
_FROM = re.compile(r"\$\{@:([1-9][0-9]*)\}")
_BLANKS = re.compile(r"[^ \t\n]+")
_GLOB = frozenset("*?[")
# Calls of one function by another that are followed: more is no script written by hand.
_MAX_CALLS = 16


class _Unknown(Exception):
    """A word whose expansion is not known here: the command gives no layer."""


def forwarded(
    definitions: Definitions,
    command: Command,
    wrappers: Mapping[str, str],
) -> Invocation | None:
    """The layer a call of a forwarding function, or a command behind a literal variable,
    starts; None when it starts none or what it starts is not known."""
    words = command.words
    if not words:
        return None
    try:
        rewritten = _rewrite(definitions, command, wrappers)
    except _Unknown:
        return None
    if rewritten is None:
        return None
    new_words, origin, own, called = rewritten
    found = resolve(new_words, wrappers)
    if found is None or not found.words:
        return None
    if not _own_after_fixed(found.words, own):
        return None  # the layer holds words of the body or the value, checked where written
    ssh = None if found.ssh is None else _as_called(found.ssh, new_words, origin, own, called)
    # The anchor is the call's word the wrapper came from.
    return replace(found, index=origin[found.index], ssh=ssh)


def _own_after_fixed(words: Sequence[Word], own: set[int]) -> bool:
    """Whether the layer's words are the call's own, after maybe some fixed words of a
    body (`remote() { ssh h sudo "$@"; }`: `sudo`, then the call's arguments).  A fixed
    word is static: it says the same at each call, and the rest is the call's."""
    k = 0
    while k < len(words) and id(words[k]) not in own:
        if not words[k].static:
            return False
        k += 1
    return k < len(words) and all(id(w) in own for w in words[k:])


def _as_called(
    call: SshCall, words: Sequence[Word], origin: Sequence[int], own: set[int], called: bool
) -> SshCall:
    """The ssh call of rewritten `words` as the rules read it off the command: each index
    is the command's word it came from, so that a `-t`, `-f`, `-n` (HL104, HL105) or the
    login user (HL109) is read as written in the body or the value.

    Behind a function (`called`), ssh's own words are the body's: the call is marked
    `forwarded` (no fix edits them through the call) and has no `host_index` (a fix that
    repeats the destination would repeat the function's name); the destination's user
    (`root@h`) is then given as the `-l` it is the same as, which HL109 reads."""
    options = tuple((letter, arg, origin[k]) for letter, arg, k in call.options)
    host_index = None
    if call.host_index is not None:
        host, where = words[call.host_index], origin[call.host_index]
        if not called and id(host) in own:
            host_index = where
        elif host.static and "@" in host.value[1:] and call.option("l") is None:
            options += (("l", cut_word(host, 0, host.value.rindex("@")), where),)
    start = call.command_start
    return SshCall(
        origin[call.index],
        options,
        host_index,
        None if start is None or start >= len(origin) else origin[start],
        call.open_options,
        forwarded=called,
    )


# The words bash runs, the command's word each came from, the ids of those that are the
# command's own, and whether a function was called.
_Rewritten = tuple[tuple[Word, ...], list[int], set[int], bool]


def _rewrite(
    definitions: Definitions, command: Command, wrappers: Mapping[str, str]
) -> _Rewritten | None:
    words = command.words
    body, origin = list(words), list(range(len(words)))
    own = {id(w) for w in words}
    called = _calls(definitions, command.start, body, origin, own, wrappers)
    expanded, origin, changed = _expand_literals(definitions, command.start, body, origin, own)
    if not called and not changed:
        return None
    return tuple(expanded), origin, own, called


def _calls(
    definitions: Definitions,
    at: int,
    words: list[Word],
    origin: list[int],
    own: set[int],
    wrappers: Mapping[str, str],
) -> bool:
    """Replace, in place, a call of a forwarding function with the command its body runs,
    again while that command calls one (`deploy() { r sudo "$@"; }` with `r() { ssh
    "$HOST" "$@"; }`): to a fixed point, by a loop.  A function met twice (`a` calls `b`
    calls `a`) recurses until bash gives up, and more than _MAX_CALLS hops is no script
    written by hand: both give no layer.  Whether any call was replaced."""
    seen: set[str] = set()
    while True:
        function = _function(definitions, at, words[0], wrappers) if words else None
        if function is None:
            return bool(seen)
        if function.name in seen or len(seen) >= _MAX_CALLS:
            raise _Unknown
        seen.add(function.name)
        body, where, forwarded = _call(function, words, own)
        origin[:] = [origin[k] for k in where]
        words[:] = body
        own.clear()
        own.update(forwarded)


def _function(
    definitions: Definitions, at: int, head: Word, wrappers: Mapping[str, str]
) -> FunctionBody | None:
    """The forwarding function a command whose first word is `head` calls, if any: one
    defined before `at`, where the call is (bash looks a function up when it is called)."""
    name = command_name(head) if head.quoting <= {Quoting.UNQUOTED} else None
    if name is None or name in WRAPPERS or name in wrappers or "/" in head.value:
        return None
    function = definitions.functions.get(name)
    if function is None or function.end > at:
        return None  # defined after this command (or inside its own body)
    return function


def _call(
    function: FunctionBody, call: Sequence[Word], own: set[int]
) -> tuple[list[Word], list[int], set[int]]:
    """The body's words with the call's arguments in place of `"$@"`, `"$1"`, ..., the
    index in `call` each came from (0 for the body's own words), and the ids of those
    that come from the `own` words of the call."""
    args = list(call[1:])
    out: list[Word] = []
    origin: list[int] = []
    kept: set[int] = set()

    def put(word: Word, index: int, forwarded: bool) -> None:
        out.append(word)
        origin.append(index)
        if forwarded:
            kept.add(id(word))

    for word in function.command.words:
        e = _forwarding(word)
        if e is None:
            put(word, 0, False)
            continue
        first, every, joined = _selection(word, e)
        picked = [(a, first + k + 1) for k, a in enumerate(args[first:])]
        if not every:
            picked = picked[:1]
            if not picked:
                raise _Unknown  # `"$2"` with one argument: an empty word
        if joined and len(picked) > 1:
            together = _join(tuple(a for a, _ in picked))
            put(together, picked[0][1], all(id(a) in own for a, _ in picked))
            continue
        for arg, index in picked:
            if e.quoted:
                put(arg, index, id(arg) in own)
            else:
                for piece in _split(arg):
                    put(piece, index, id(arg) in own)
    return out, origin, kept


def _forwarding(word: Word) -> Expansion | None:
    """The expansion of the call's arguments that a word of the body is (`"$@"`, `$1`,
    `"$*"`), or None for a word that uses none; _Unknown for one that uses them otherwise."""
    forwards = [e for e in word.expansions if e.kind in ("positional", "special")]
    forwards = [e for e in forwards if e.kind == "positional" or e.name in ("@", "*", "#")]
    if not forwards:
        return None
    e = forwards[0]
    if len(word.expansions) != 1 or e.start or e.end != len(word.value) or e.name == "#":
        raise _Unknown  # `"cd /x && $1"`, `"$1$2"`, `$#`: the function's own use
    return e


def _selection(word: Word, e: Expansion) -> tuple[int, bool, bool]:
    """Which arguments a forwarding word stands for: the index of the first, whether it
    takes all from there on, whether they are joined into one word (`"$*"`)."""
    if e.kind == "positional":
        digits = word.value.strip("${}")
        if not digits.isdigit():
            raise _Unknown
        return int(digits) - 1, False, False
    if word.value in ("$@", "${@}"):
        return 0, True, False
    if word.value in ("$*", "${*}"):
        return 0, True, e.quoted
    match = _FROM.fullmatch(word.value)
    if match is None:
        raise _Unknown  # `${@:1:2}`, `${@/x/y}`: not read here
    return int(match[1]) - 1, True, False


def _split(word: Word) -> list[Word]:
    """An argument as an unquoted `$@` passes it on: split at blanks (the default IFS) and
    globbed, which is known only for a static word without pattern characters."""
    if not word.static or _GLOB & set(word.value):
        raise _Unknown
    return [cut_word(word, m.start(), m.end()) for m in _BLANKS.finditer(word.value)]


def _join(words: tuple[Word, ...]) -> Word:
    """`"$*"`: the arguments joined with spaces into one word."""
    value: list[str] = []
    offsets: list[int] = []
    expansions: list[Expansion] = []
    continuations: list[int] = []
    quoting: set[Quoting] = set()
    base = 0
    for n, word in enumerate(words):
        if n:
            value.append(" ")
            offsets.append(words[n - 1].end)
            base += 1
        value.append(word.value)
        offsets.extend(word.offsets[:-1])
        expansions.extend(
            replace(e, start=base + e.start, end=base + e.end, quoted=True) for e in word.expansions
        )
        continuations.extend(base + k for k in word.continuations)
        quoting |= word.quoting
        base += len(word.value)
    offsets.append(words[-1].end)
    return Word(
        words[0].start,
        words[-1].end,
        "".join(value),
        tuple(offsets),
        tuple(expansions),
        tuple(continuations),
        frozenset(quoting | {Quoting.DOUBLE}) if expansions else frozenset(quoting),
    )


def _expand_literals(
    definitions: Definitions, at: int, words: list[Word], origin: list[int], own: set[int]
) -> tuple[list[Word], list[int], bool]:
    """`$SSH` and `"${OPTS[@]}"` replaced with the words of their literal value."""
    out: list[Word] = []
    where: list[int] = []
    changed = False
    for word, index in zip(words, origin, strict=True):
        literal = _literal_use(definitions, at, word)
        if literal is None:
            out.append(word)
            where.append(index)
            continue
        pieces = _literal_words(literal, word)
        own.discard(id(word))
        out.extend(pieces)
        where.extend([index] * len(pieces))
        changed = True
    return out, where, changed


def _literal_use(definitions: Definitions, at: int, word: Word) -> Literal | None:
    """The literal a word that is one whole `$NAME`, `${NAME}` or `${NAME[@]}` stands for."""
    if len(word.expansions) != 1:
        return None
    e = word.expansions[0]
    if e.kind != "variable" or e.start or e.end != len(word.value):
        return None
    name = e.name.removesuffix("[@]")
    literal = definitions.literals.get(name)
    if literal is None or literal.end > at:
        return None
    if literal.array != e.name.endswith("[@]") or (e.quoted and not literal.array):
        return None  # `$ARR` (its first element), `"$SSH"` (one word): left as written
    if word.value not in (f"${name}", f"${{{e.name}}}"):
        return None  # `${SSH:-ssh}`, `${OPTS[@]/x/y}`: not read here
    return literal


def _literal_words(literal: Literal, word: Word) -> list[Word]:
    """The words a literal's value makes where `word` uses it: a quoted array's elements
    as they are, an unquoted value split at blanks (and globbed: refused if it could be)."""
    quoted = word.expansions[0].quoted
    if literal.array and quoted:
        return list(literal.words)
    pieces: list[Word] = []
    for value in literal.words:
        pieces.extend(_split(value))
    return pieces


def with_literals(
    definitions: Definitions | None, at: int, words: Sequence[Word]
) -> tuple[tuple[Word, ...], tuple[int, ...]]:
    """`words` (of a command at offset `at`) with each use of a literal variable replaced
    by the words of its value, and for each word the index of the word it came from:
    `scp "${SCP_OPTS[@]}" f h:` with `SCP_OPTS=(-p 2222)` is `scp -p 2222 f h:`.  The
    words as given when there is no such use or its words are not known."""
    given = tuple(words), tuple(range(len(words)))
    if definitions is None or not definitions.literals:
        return given
    try:
        out, origin, changed = _expand_literals(definitions, at, list(words), list(given[1]), set())
    except _Unknown:
        return given
    return (tuple(out), tuple(origin)) if changed else given
