"""Trigger tokens: a text without one of a rule's triggers gives that rule nothing to do.

Light on purpose (`re`, and the tables of commands): the agent hook lets a command with no
trigger at all pass without importing the parser or the rules.
"""

from __future__ import annotations

import fnmatch
import functools
import re

from heredoc_lint.layers.grammars import LAYER_COMMANDS

# How every run-time value of a Python string starts in its fragment's text (`${__hl_3}`):
# the Python frontend writes it, and HL201 and HL202 have work only where it stands.
PYTHON_PLACEHOLDER = "${__hl_"

# The commands that a rule finds by name, each set declared once, here: the rule reads it
# (and `project.launchers` reads PRIVILEGE), and the hook knows it without importing a rule.
SELF_MATCHING = frozenset({"pkill", "pgrep"})  # HL103: `-f` matches their own shell
COPYING = frozenset({"scp"})  # HL108
PRIVILEGE = frozenset({"sudo", "doas"})  # HL109: the prefixes that run a command as root

# The triggers of the rules that have work only where one of these stands (the others
# have it wherever a layer starts: LAYER_COMMANDS).  `rules.base.rule` reads a rule's
# own here, so that this module, which imports no rule, knows them all.
RULE_TRIGGERS: dict[str, frozenset[str]] = {
    "HL002": frozenset(),  # reported by the suppression filter, which always runs
    "HL103": SELF_MATCHING,
    "HL108": COPYING,
    "HL109": PRIVILEGE,
    "HL112": frozenset({"<<"}),
    "HL201": frozenset({PYTHON_PLACEHOLDER}),  # every run-time value of a Python fragment
    "HL202": frozenset({PYTHON_PLACEHOLDER}),
}

# The triggers of every rule: the agent hook lets a command without any pass unparsed.
ALL_TRIGGERS = LAYER_COMMANDS.union(*RULE_TRIGGERS.values())


def present_triggers(text: str, needed: frozenset[str]) -> frozenset[str]:
    """The triggers that stand in `text` as what they are (a command name as a word), or
    that a shell makes of its words (`$'\\x73sh'`, `ss\\<newline>h`, `"ss"h`, `{ssh,}`,
    `ss[h]`: see `_respelled`).

    Only the triggers that are there as substrings are searched for, in one pass."""
    found = _literal(text, needed)
    names = _names(needed)
    if not names <= found:
        found |= _respelled(text, names)  # the same question for each rule: cached
    return found


def holds_trigger(text: str, needed: frozenset[str]) -> bool:
    """Whether `text` holds one of `needed`, as `present_triggers` finds them."""
    if trigger_pattern(needed).search(text):
        return True
    names = _names(needed)
    return bool(names and _respelled(text, names))


def _literal(text: str, needed: frozenset[str]) -> frozenset[str]:
    candidates = frozenset(token for token in needed if token in text)
    found: set[str] = set()
    if candidates:
        for match in trigger_pattern(candidates).finditer(text):
            found.add(match.group())
            if len(found) == len(candidates):
                break
    return frozenset(found)


def _names(needed: frozenset[str]) -> frozenset[str]:
    """The command names among `needed` (not `<<`, `${__hl_`): those a shell can respell."""
    return _names_of(needed if isinstance(needed, frozenset) else frozenset(needed))


@functools.lru_cache(maxsize=64)
def _names_of(needed: frozenset[str]) -> frozenset[str]:
    return frozenset(t for t in needed if _is_name(t))


def _is_name(trigger: str) -> bool:
    return trigger.replace("-", "_").isidentifier()


# -- spellings a shell resolves to a name ---------------------------------------------------
# A superset on purpose: a text that only seems to hold a trigger costs a parse, one whose
# trigger is missed is checked by nothing.  Each layer's text is what its own shell reads;
# the remote shell of an ssh string resolves its words again, so the same rewrites apply.

# `\xHH`, `\NNN`, `\uHHHH`, `\UHHHHHHHH`: what `$'...'` (and `printf`, `echo -e`) make.
_ESCAPE = re.compile(
    r"\\(?:x([0-9A-Fa-f]{1,2})|([0-7]{1,3})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8}))"
)
# Where a brace group or a glob next to a character of a name is; the word around each
# is then read out (its head at most _HEAD characters back).  Each pattern starts with a
# rare character, so the search skips the rest of the text fast.
_BRACE_AT = re.compile(r"\{(?<!\$\{)[^\s{}]*(?:,|\.\.)[^\s{}]*\}")
_GLOB_AT = re.compile(r"[*?](?<=[a-z][*?])|[*?\]](?=[a-z])|\[(?<=[a-z]\[)[^]\s]*\](?=[a-z]|\s|$)")
_WORD_TAIL = re.compile(r"[^\s;&|()<>`]*")
_WORD_HEAD = re.compile(r"[^\s;&|()<>`]*\Z")
_HEAD = 256
_BRACE = re.compile(r"(?<!\$)\{([^\s{}]*(?:,|\.\.)[^\s{}]*)\}")
_NAMED = re.compile(r"^(?:[^[]|\[[^]]*\])*?[a-z]")
_LETTERS = re.compile(r"([A-Za-z])\.\.([A-Za-z])")
_MANY = 256  # distinct glob or brace words past which every name counts as present


@functools.lru_cache(maxsize=8)  # the engine asks for a text's root, then for its layer 0
def _respelled(text: str, names: frozenset[str]) -> frozenset[str]:
    """Which of `names` (command names) `text` holds once a shell has resolved its words:
    line continuations removed, ANSI-C escapes decoded, quotes and backslashes removed,
    braces expanded, and a glob word matched against each name (as against a file of
    that name)."""
    signed = _words_at(text, _SIGNS)
    if not signed:
        return frozenset()  # the usual command: nothing in it respells a name
    if len(signed) <= _MANY:
        text = " ".join(signed)  # a name is respelled within the word of a sign
    plain = text.replace("\\\n", "") if "\\\n" in text else text
    if "\\" in plain:
        plain = _ESCAPE.sub(_decode, plain)
    plain = _DOLLAR_QUOTE.sub("", plain).translate(_UNQUOTE)
    found = set(_literal(plain, names)) if plain != text else set()
    if "{" in plain:
        braced = _words_at(plain, _BRACE_AT)
        if len(braced) > _MANY:
            return names
        for word in braced:
            expanded = _expand(word)
            if expanded is None:
                return names
            found |= _literal(" ".join(expanded), names - found)
    if "*" in plain or "?" in plain or "[" in plain:
        # Only a glob with a letter of the name outside brackets (`ss?`, `s*h`, `ss[h]`):
        # `*` and `???` would match every name (a static limit: not looked for).  Not a
        # case pattern (`*)`, `a*|b)`) nor an extglob (`*.o?(.gz)`).
        globs = {
            g
            for w in _words_at(plain, _GLOB_AT)
            if w[-1:] not in ("(", ")", "|") and _NAMED.search(g := w.rsplit("/", 1)[-1])
        }
        if len(globs) > _MANY:
            return names
        left = sorted(names - found)
        for glob in globs:
            found.update(fnmatch.filter(left, glob))
    return frozenset(found)


# What can make a name of other characters, next to a character of one: a backslash-
# newline inside a word, an escape that can make a letter (`\x73`, `\163`, `\u0073`),
# quotes or a backslash inside a word (`"ss"h`, `pk""ill`, `p\kill`), a brace group
# (`{ssh,}`), a glob next to a letter (`ss?`, `*sh`, `ss[h]`; not `-*`).  A text without
# any is not read again.
# Every branch starts with one character (no set, no lookbehind first): the regex engine
# then skips to where one of those characters is, three times faster on real scripts.
_QUOTED_TAIL = r"""(?:["'\\]|\$')*[a-z_-]"""
_SIGNS = re.compile(
    r"\\(?<=\S\\)\n\S"
    r"|\\[0-7xuU][0-9A-Fa-f]"
    rf"""|"(?<=[a-z_-]"){_QUOTED_TAIL}|'(?<=[a-z_-]'){_QUOTED_TAIL}"""
    rf"|\\(?<=[a-z_-]\\){_QUOTED_TAIL}"
    r"|\$'(?<=[a-z_-]\$')"
    r"|\{(?<!\$\{)[^\s{}]*(?:,|\.\.)"
    r"|\*(?<=[a-z]\*)|\?(?<=[a-z]\?)|\*[a-z]|\?[a-z]|\][a-z]"
    r"|\[(?<=[a-z]\[)[^]\s]*\](?:[a-z]|\s|$)",
    re.MULTILINE,
)
_DOLLAR_QUOTE = re.compile(r"\$(?=['\"])")


def _words_at(text: str, pattern: re.Pattern[str]) -> set[str]:
    """The words of `text` (between blanks and operators) that hold a match of `pattern`,
    each with the character after it when that is `(`, `)` or `|`."""
    words: set[str] = set()
    end = -1
    for match in pattern.finditer(text):
        if match.start() < end:
            continue  # in the word just read
        tail = _WORD_TAIL.match(text, match.end())
        end = tail.end() if tail else match.end()
        head = _WORD_HEAD.search(text, max(0, match.start() - _HEAD), match.start())
        start = head.start() if head else match.start()
        words.add(text[start : end + (text[end : end + 1] in ("(", ")", "|"))])
        if len(words) > _MANY:
            break
    return words


_UNQUOTE = str.maketrans("", "", "'\"\\")


def _decode(match: re.Match[str]) -> str:
    hexa, octal, short, long = match.groups()
    code = int(hexa or short or long, 16) if octal is None else int(octal, 8)
    return chr(code) if code <= 0x10FFFF else match.group()


def _expand(word: str) -> list[str] | None:
    """The words bash makes of `word` by brace expansion (`{a,b}`, `{a..c}`), innermost
    group first; None past _MANY words."""
    words = [word]
    while True:
        grown: list[str] = []
        for one in words:
            group = _BRACE.search(one)
            if group is None:
                grown.append(one)
                continue
            inside = group.group(1)
            letters = _LETTERS.fullmatch(inside)
            if letters:
                low, high = sorted(map(ord, letters.groups()))
                parts = [chr(c) for c in range(low, high + 1)]
            else:
                parts = re.split(r",|\.\.", inside)  # numbers: no name holds a digit
            head, tail = one[: group.start()], one[group.end() :]
            grown += [head + part + tail for part in parts]
        if grown == words:
            return words
        if len(grown) > _MANY:
            return None
        words = grown


# Triggers that also count as the value of an assignment: sudo kept in a variable.
ASSIGNED = PRIVILEGE


@functools.lru_cache(maxsize=256)
def trigger_pattern(needed: frozenset[str]) -> re.Pattern[str]:
    """One regex for all triggers; command names only as whole words (`sh`, not `shift`).

    A match is always exactly one trigger: `present_triggers` reads them off the matches.
    """
    words = sorted(t for t in needed if t.replace("-", "_").isidentifier())
    others = sorted(t for t in needed if t not in words)
    # A command name stands at the start, after a separator or a path, and before a
    # blank or the end of a line, or an unquoted `$` (`pkill${IFS}-f`: bash splits there).
    names = "|".join(map(re.escape, words))
    parts = [rf"(?<![^\s;&|(`/{{!\\\"'])(?:{names})(?=[\s\"'$]|$)"] if words else []
    # sudo kept in a variable to run (`SUDO=sudo; $SUDO cmd`: HL109); not every `=NAME`,
    # which vim's `filetype=sh` modeline would make of each completion file.
    assigned = "|".join(sorted(map(re.escape, ASSIGNED & needed)))
    parts += [rf"(?<==)(?:{assigned})(?=[\s\"';]|$)"] if assigned else []
    parts += [re.escape(t) for t in others]
    return re.compile("|".join(parts) or "(?!)", re.MULTILINE)
