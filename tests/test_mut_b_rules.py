"""Pinned behaviours of HL107-HL112 and HL201/HL202: exact spans, counts and messages.

Each test kills a mutant that survived `bench/mutation.py` (issue 20, run 4b,
bench/MUTATION-run4b.md); each was planted by hand, the test failed, and passes without.
"""

from __future__ import annotations

from heredoc_lint.engine import Settings, check_shell
from heredoc_lint.model import Finding


def _findings(text: str, code: str) -> list[Finding]:
    return check_shell(text, "t.sh", Settings(select=frozenset({code})))


# -- HL107 --------------------------------------------------------------------------------


def test_hl107_names_each_expansion_once() -> None:
    """The message names the body's expansions once each, in order, the first three and
    a count of the rest (`$HOME` twice is one name)."""
    (one,) = _findings("ssh h bash <<EOF\necho $HOME $HOME $(date)\nEOF\n", "HL107")
    assert (one.start, one.end) == (11, 13)
    assert "expands `$HOME`, `$(date)` in the body" in one.message
    (many,) = _findings("ssh h bash <<EOF\necho $HOME $1 $2 $3 $4 $HOME\nEOF\n", "HL107")
    assert "expands `$HOME`, `$1`, `$2` and 2 more in the body" in many.message


def test_hl107_body_ending_in_a_backslash_at_the_end_of_the_file() -> None:
    """An unterminated body whose last character is a backslash (the file ends there):
    the findings are made, nothing reads past the end of the text (an IndexError)."""
    text = "ssh h bash <<EOF\necho $HOME \\"
    found = [(f.code, f.start, f.end) for f in check_shell(text, "t.sh", Settings())]
    assert found == [("HL107", 11, 13), ("HL112", 11, 13)]  # and HL112: never terminated


def test_hl107_backquoted_probe_of_the_machine_is_named() -> None:
    """`` `hostname` `` asks about the machine it runs on, as `$(hostname)` does: the
    message says so for both spellings, and not for `` `date` ``."""
    for body, probes in (("`hostname`", True), ("$(hostname)", True), ("`date`", False)):
        (one,) = _findings(f"ssh h bash <<EOF\necho {body}\nEOF\n", "HL107")
        assert (one.start, one.end) == (11, 13)
        assert (f"`{body}` asks about the machine it runs on" in one.message) is probes
