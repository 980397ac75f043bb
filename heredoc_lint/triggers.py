"""Trigger tokens: a text without one of a rule's triggers gives that rule nothing to do.

Light on purpose (only `re`): the agent hook lets a command with no trigger at all pass
without importing the parser or the rules.
"""

from __future__ import annotations

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
    """The triggers that stand in `text` as what they are (a command name as a word).

    Only the triggers that are there as substrings are searched for, in one pass."""
    candidates = frozenset(token for token in needed if token in text)
    found: set[str] = set()
    if candidates:
        for match in trigger_pattern(candidates).finditer(text):
            found.add(match.group())
            if len(found) == len(candidates):
                break
    return frozenset(found)


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
