"""Trigger tokens: a text without one of a rule's triggers gives that rule nothing to do.

Light on purpose (only `re`): the agent hook lets a command with no trigger at all pass
without importing the parser or the rules.
"""

from __future__ import annotations

import fnmatch
import functools
import re

# The triggers of every rule, as `rules.triggers(RULES)` derives them from the rules
# (which the engine uses), copied here so that the hook need not import the rules to know
# them; tests/test_prefilter.py fails when the two differ.
ALL_TRIGGERS = frozenset(
    {
        "${__hl_",
        "<<",
        "ansible",
        "ash",
        "autossh",
        "bash",
        "busybox-sh",
        "clush",
        "dash",
        "doas",
        "docker",
        "docker-compose",
        "eval",
        "find",
        "flock",
        "gcloud",
        "incus",
        "ksh",
        "kubectl",
        "lxc",
        "mksh",
        "mosh",
        "nsenter",
        "oc",
        "parallel",
        "pdsh",
        "pgrep",
        "pkill",
        "podman",
        "podman-compose",
        "runuser",
        "scp",
        "script",
        "sh",
        "ssh",
        "su",
        "sudo",
        "systemd-run",
        "tmux",
        "vagrant",
        "watch",
        "zsh",
    }
)


def present_triggers(text: str, needed: frozenset[str]) -> frozenset[str]:
    """The triggers that stand in `text` as what they are (a command name as a word), or
    that a shell makes of its words (`$'\\x73sh'`, `ss\\<newline>h`, `"ss"h`, `{ssh,}`,
    `ss[h]`: see `_respelled`).

    Only the triggers that are there as substrings are searched for, in one pass."""
    found = _literal(text, needed)
    hidden = frozenset(t for t in needed - found if _is_name(t))
    if hidden:
        found |= _respelled(text, hidden)
    return found


def holds_trigger(text: str, needed: frozenset[str]) -> bool:
    """Whether `text` holds one of `needed`, as `present_triggers` finds them."""
    if trigger_pattern(needed).search(text):
        return True
    names = frozenset(t for t in needed if _is_name(t))
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
# A word holding a glob or a brace group; each word is read once from its start (the
# quantifiers never give back), so the search is linear even in a 10 MB word.
_START = r"(?<![^\s;&|()<>`])"
# A case pattern (`*)`, `a*|b)`) is no command name, nor an extglob (`*.o?(.gz)`).
_GLOB_WORD = re.compile(_START + r"[^\s;&|()<>`*?[]*+[*?[][^\s;&|()<>`]*+(?![()|])")
_BRACE_WORD = re.compile(
    _START + r"(?=[^\s;&|()<>`]*?\{[^\s{}]*(?:,|\.\.)[^\s{}]*\})[^\s;&|()<>`]++"
)
_BRACE = re.compile(r"(?<!\$)\{([^\s{}]*(?:,|\.\.)[^\s{}]*)\}")
_NAMED = re.compile(r"^(?:[^[]|\[[^]]*\])*?[a-z]")
_LETTERS = re.compile(r"([A-Za-z])\.\.([A-Za-z])")
_MANY = 256  # distinct glob or brace words past which every name counts as present


def _respelled(text: str, names: frozenset[str]) -> frozenset[str]:
    """Which of `names` (command names) `text` holds once a shell has resolved its words:
    line continuations removed, ANSI-C escapes decoded, quotes and backslashes removed,
    braces expanded, and a glob word matched against each name (as against a file of
    that name)."""
    plain = text.replace("\\\n", "")
    plain = _ESCAPE.sub(_decode, plain)
    plain = re.sub("\\$(?=['\"])", "", plain).translate(_UNQUOTE)
    found = set(_literal(plain, names))
    braced = set(_BRACE_WORD.findall(plain)) if "{" in plain else set()
    if len(braced) > _MANY:
        return names
    for word in braced:
        expanded = _expand(word)
        if expanded is None:
            return names
        found |= _literal(" ".join(expanded), names - found)
    globbed = _GLOB_WORD.findall(plain) if any(c in plain for c in "*?[") else []
    # Only a glob with a letter of the name outside brackets (`ss?`, `s*h`, `ss[h]`): `*`
    # and `???` match any name (a static limit, docs/security.md).
    globs = {g for w in globbed if _NAMED.search(g := w.rsplit("/", 1)[-1])}
    if len(globs) > _MANY:
        return names
    found |= {n for n in names - found if any(fnmatch.fnmatchcase(n, g) for g in globs)}
    return frozenset(found)


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
    parts += [re.escape(t) for t in others]
    return re.compile("|".join(parts) or "(?!)", re.MULTILINE)
