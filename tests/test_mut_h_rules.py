"""Pinned behaviours of the rules found by the mutation run of issue 20 (run 7, seed 41,
bench/mutation_runs/run7.md).

Each test kills a mutant that `bench/mutation.py` left alive: it was planted in a scratch
copy of the tree, the test failed there, and it passes without.
"""

from __future__ import annotations

from heredoc_lint.engine import check_shell
from heredoc_lint.model import Finding


def _found(text: str, code: str) -> list[Finding]:
    return [f for f in check_shell(text, "t.sh") if f.code == code]


def _line(text: str, finding: Finding) -> int:
    return text.count("\n", 0, finding.start) + 1


# -- HL110: `|| return` is a local fallback ---------------------------------------------------


def test_hl110_return_after_a_failed_ssh_is_meant_to_run_locally() -> None:
    """`ssh h cd /srv/app || return 1` in a function: the `return` is what the function
    does here when the ssh fails, as `|| exit 1` is; only `|| echo failed` is reported,
    the command the user may have meant for the remote shell.  (Run 7: `return` was not
    among the local fallbacks.)"""
    text = (
        "deploy() {\n"
        "  ssh h cd /srv/app || return 1\n"
        "  ssh h cd /srv/app || exit 1\n"
        "  ssh h cd /srv/app || echo failed\n"
        "}\n"
    )
    found = _found(text, "HL110")
    assert [(_line(text, f), text[f.start : f.end]) for f in found] == [(4, "||")]
    assert "`echo failed` runs on this machine" in found[0].message


# -- HL111: a command of four shells is reported once, at its outer word ------------------------


def test_hl111_four_shells_are_reported_once_at_the_outer_ssh() -> None:
    """`ssh a "ssh b \\"ssh c '...'\\""`, the innermost string written with `'\\\\''`: one
    warning at the outer `ssh` (the hop through a remote shell); the innermost layer, two
    shells below the file, does not add an escape-chain warning of its own at the middle
    `ssh`.  (Run 7: the escape chain was looked for in every layer below the first.)"""
    text = "ssh a \"ssh b \\\"ssh c 'echo '\\\\\\\\''x'\\\\\\\\'''\\\"\"\n"
    found = _found(text, "HL111")
    assert [(f.start, f.severity.value) for f in found] == [(0, "warning")]
    assert "the middle shell only starts another ssh" in found[0].message
