"""`layers.calls` / `calls_behind`: the one way a shell rule finds the commands it reads.

A command is found by the program bash runs for it: its name without a directory,
de-quoted as bash de-quotes it (`$'pkill'`), behind prefix commands (`sudo`, `env A=1`,
`timeout 5`), and, when asked, with its words split at an unquoted `$IFS`.  Each rule that
finds its commands this way names them once, in `layers.triggers`: its `triggers` are
that declaration.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from heredoc_lint.engine import check_text
from heredoc_lint.layers.layer import calls, calls_behind, file_layer
from heredoc_lint.layers.triggers import PRIVILEGE, SELF_MATCHING
from heredoc_lint.rules import hl103_pkill_self_match as hl103
from heredoc_lint.rules import hl109_sudo_redirect as hl109

RULES = Path(__file__).resolve().parent.parent / "heredoc_lint" / "rules"


def _found(text: str, names: frozenset[str], *, split_ifs: bool = False) -> list[tuple[str, str]]:
    """(name, the program's argv as text) of each call."""
    return [
        (c.name, " ".join(w.value for w in c.words))
        for c in calls(file_layer(text), names, split_ifs=split_ifs)
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pkill -f x\n", [("pkill", "pkill -f x")]),
        ("/usr/bin/pkill -f x\n", [("pkill", "/usr/bin/pkill -f x")]),
        ("sudo -u app timeout 5 pgrep -af x\n", [("pgrep", "pgrep -af x")]),
        ("env A=1 nohup pkill x &\n", [("pkill", "pkill x")]),
        ("$'pkill' -f x\n", [("pkill", "pkill -f x")]),  # bash runs pkill
        ("'pk'ill -f x\n", [("pkill", "pkill -f x")]),
        ("busybox pkill -f x\n", [("pkill", "pkill -f x")]),
        ("echo pkill -f x; xpkill -f x; $P -f x\n", []),
        ("sudo -l\n", []),  # sudo runs no command
    ],
)
def test_calls_by_name_through_prefixes(text: str, expected: list[tuple[str, str]]) -> None:
    assert _found(text, frozenset({"pkill", "pgrep"})) == expected


def test_split_ifs_reads_the_words_bash_runs() -> None:
    text = "pkill${IFS}-f${IFS}x\n"
    assert _found(text, frozenset({"pkill"})) == []
    assert _found(text, frozenset({"pkill"}), split_ifs=True) == [("pkill", "pkill -f x")]


def test_calls_behind_a_prefix() -> None:
    layer = file_layer("sudo tee f; env A=1 doas -u x cat > f; tee g; nice sudo -n ls\n")
    found = [(c.name, c.behind(PRIVILEGE)) for c in calls_behind(layer, PRIVILEGE)]
    # `behind`: the index in argv of the sudo/doas word
    assert found == [("tee", 0), ("cat", 2), ("ls", 1)]


def test_dollar_quoted_pkill_is_a_self_match() -> None:
    # `$'pkill'` is pkill to bash: the shell kills itself (exit 143), `after` never runs.
    # It used to be missed (the head was looked at before de-quoting).
    script = "$'pkill' -f hlzqcallmark; echo after"
    text = f'bash -c "{script}"\n'
    found = [(f.code, text[f.start : f.end]) for f in check_text(text, "shell", "t.sh")]
    assert found == [("HL103", "$'pkill'")]
    done = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, timeout=10, check=False
    )
    assert (done.returncode, done.stdout) == (-15, "")


def test_triggers_are_the_declared_commands() -> None:
    assert hl103.RULE.triggers == SELF_MATCHING == {"pkill", "pgrep"}
    assert hl109.RULE.triggers == PRIVILEGE == {"sudo", "doas"}


# The shell rules of this list find their commands with `calls`; none does it by hand.
OWN_LOOKUP = re.compile(r"\bmay_be\(|\bunwrap_prefixes\b|rsplit\(\"/\", 1\)")
ON_CALLS = ["hl103_", "hl104_", "hl109_", "hl110_", "hl111_", "hl112_"]


@pytest.mark.parametrize("prefix", ON_CALLS)
def test_no_rule_finds_commands_by_hand(prefix: str) -> None:
    (path,) = RULES.glob(f"{prefix}*.py")
    assert OWN_LOOKUP.findall(path.read_text()) == []
