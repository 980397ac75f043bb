"""The prefilter (texts without any rule's trigger are never parsed) changes no finding."""

from __future__ import annotations

from pathlib import Path

from corpus import corpus_files

from heredoc_lint.engine import Settings, check_text, trigger_pattern
from heredoc_lint.model import Severity
from heredoc_lint.rules import RULES, triggers
from heredoc_lint.triggers import ALL_TRIGGERS

HERE = Path(__file__).parent
EXTRA = sorted((HERE / "cases").glob("*.sh")) + sorted((HERE.parent / "fixtures").rglob("*.sh"))


def _key(text: str, settings: Settings) -> list[tuple[str, int, int, str]]:
    return [
        (f.code, f.start, f.end, f.severity.value)
        for f in check_text(text, "shell", "x.sh", settings)
    ]


def test_the_hooks_copy_of_the_triggers_is_the_rules_own() -> None:
    derived = triggers(RULES)
    assert derived == ALL_TRIGGERS, f"set heredoc_lint.triggers.ALL_TRIGGERS to {sorted(derived)}"


def test_prefilter_changes_no_finding_on_the_corpus() -> None:
    texts = [c.text for c in corpus_files()] + [p.read_text() for p in EXTRA]
    fast, full = Settings(), Settings(prefilter=False)
    skipped = 0
    needed = triggers(fast.rules())
    for text in texts:
        if trigger_pattern(needed).search(text) is None:
            # Never parsed: only a layer-0 parse error (HL001) could have been found, and
            # HL001 is documented to be reported only where the other rules have work.
            skipped += 1
            assert _key(text, fast) == []
            assert {code for code, *_ in _key(text, full)} <= {"HL001"}
        else:
            # Parsed by both: the same findings, but for layer-0 parse errors (HL001) that
            # the full path also reports where no other rule has work.
            quick, complete = _key(text, fast), _key(text, full)
            assert [k for k in complete if k[0] != "HL001"] == [k for k in quick if k[0] != "HL001"]
            assert set(quick) <= set(complete)
    # The comparison is only worth something if both paths really ran.
    assert len(texts) > 700
    assert 0 < skipped < len(texts)
    print(f"prefilter: {len(texts)} files compared, {skipped} skipped without parsing")


def test_triggers_come_from_the_rules() -> None:
    assert {"pkill", "pgrep"} <= triggers(tuple(r for r in RULES if r.code == "HL103"))
    assert "ssh" in triggers(tuple(r for r in RULES if r.code == "HL101"))
    only_scp = triggers(tuple(r for r in RULES if r.code == "HL108"))
    assert only_scp == frozenset({"scp"})
    assert check_text("scp -p 22 a h:b", settings=Settings(select=frozenset({"HL108"})))
    assert Severity.ERROR.rank > Severity.WARNING.rank


def test_sudo_assigned_to_a_variable_is_a_trigger_and_a_modeline_is_none() -> None:
    """`SUDO=sudo; $SUDO echo x > /etc/f` is HL109's (the text names sudo only as a
    value); vim's `# ex: filetype=sh`, at the end of every bash-completion file, names
    no shell."""
    from heredoc_lint.triggers import present_triggers

    needed = triggers(RULES, frozenset())
    assert "sudo" in present_triggers('SUDO=""\n[ "$EUID" = 0 ] || SUDO=sudo;\n', needed)
    assert present_triggers("complete -F _x x\n# ex: filetype=sh\n", needed) == frozenset()
