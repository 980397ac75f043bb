"""Where each character of a Python string comes from, now that a literal's units are
runs (issue 18 item 8): findings and fixes land on the file's own characters after
escapes, backslash-newlines, f-string braces and fields, and implicit concatenation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heredoc_lint.engine import check_text
from heredoc_lint.frontends.python import analyse
from heredoc_lint.frontends.python.model import Unit, Units

# An ssh command in one argv element made of five literals: escapes (`\t`, `\x41`, a
# backslash-newline, `\N{...}`), an f-string with `{{x}}` and a numeric field, a raw
# literal, and a run-time value `{host}` in an element of its own.
SOURCE = (
    "import subprocess\n"
    'subprocess.run(["ssh", "h", "echo \\t\\x41\\\n ok; " f"{{x}} {n:d} " r\'\\d; \'\n'
    "    '\\N{LATIN SMALL LETTER A}; pkill -f sglang; ./restart', f\"{host}\"])\n"
)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_findings_and_fixes_land_on_the_source_of_their_characters(newline: str) -> None:
    source = SOURCE.replace("\n", newline)
    findings = {f.code: f for f in check_text(source, "python", "t.py")}
    assert sorted(findings) == ["HL103", "HL201"]

    pkill = source.index("pkill -f sglang")
    hl103 = findings["HL103"]
    assert (hl103.start, hl103.end) == (pkill, pkill + len("pkill"))
    assert hl103.fix is not None
    (edit,) = hl103.fix.edits
    at = pkill + len("pkill -f ")  # the `s` of sglang, inside a single-quoted literal
    assert (edit.start, edit.end, edit.content) == (at, at + 1, "\\'[s]\\'")
    fixed = source[: edit.start] + edit.content + source[edit.end :]
    assert "'\\N{LATIN SMALL LETTER A}; pkill -f \\'[s]\\'glang; ./restart'" in fixed
    assert check_text(fixed, "python", "t.py")[0].code == "HL201"  # HL103 is gone

    field = source.index("{host}")
    hl201 = findings["HL201"]
    assert (hl201.start, hl201.end) == (field, field + len("{host}"))


def test_a_long_literal_is_a_few_runs_of_units() -> None:
    """A 200,000-character literal: its units are as many as its characters and each maps
    to its own source character, but they are held as a handful of runs."""
    body = "x = 1; " * 28_572
    source = f'import subprocess\nsubprocess.run(["ssh", "h", "\\techo; {body}"])\n'
    analysis, frags = analyse(source)
    (frag,) = frags
    assert frag.text == "\techo; " + body
    start = source.index("\\techo")
    assert frag.offsets is not None
    assert frag.offsets[0] == start and frag.offsets[1] == start + 2
    assert frag.offsets[-2] == len(source) - len('"])\n') - 1
    units = analysis.units
    first = units[frag.origin.unit_of[0]]  # type: ignore[attr-defined]
    last = units[frag.origin.unit_of[-1]]  # type: ignore[attr-defined]
    assert (first.kind, first.start, first.end, first.at) == ("char", start, start + 2, start)
    end = len(source) - len('"])\n')
    assert (last.kind, last.start, last.end, last.at) == ("char", end - 1, end, end - 1)
    assert units.runs < 10 < len(frag.text) <= len(units)


# Units as written by the readers: characters in steps (plain, escapes), synthetic
# characters at one spot, placeholders; in any order.
UNIT = st.builds(
    Unit,
    st.sampled_from(["char", "field", "spec", "expr", "synthetic"]),
    st.integers(0, 40),
    st.integers(0, 40),
    st.integers(0, 40),
    st.integers(-1, 2),
    st.integers(-1, 2),
)
STEPPED = st.tuples(UNIT, st.integers(0, 3), st.integers(1, 6)).map(
    lambda r: [
        Unit(
            r[0].kind,
            r[0].start + k * r[1],
            r[0].end + k * r[1],
            r[0].at + k * r[1],
            r[0].atom,
            r[0].interp,
        )
        for k in range(r[2])
    ]
)


@given(st.lists(st.one_of(UNIT.map(lambda u: [u]), STEPPED), max_size=10))
def test_units_give_back_what_was_added(parts: list[list[Unit]]) -> None:
    added = [unit for part in parts for unit in part]
    units = Units()
    indices = [units.append(unit) for unit in added]
    assert indices == list(range(len(added)))
    assert len(units) == len(added)
    assert list(units) == added
    assert [units[i] for i in reversed(range(-len(added), len(added)))] == (added * 2)[::-1]
    assert units[1:4] == added[1:4]
    with pytest.raises(IndexError):
        units[len(added)]


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 5), st.integers(-1, 1))))
def test_characters_added_at_once_are_those_added_one_by_one(
    stretches: list[tuple[int, int, int]],
) -> None:
    at_once, one_by_one = Units(), Units()
    for start, count, atom in stretches:
        first = at_once.add_chars(start, count, atom)
        assert first == len(one_by_one)
        for k in range(count):
            one_by_one.add("char", start + k, start + k + 1, start + k, atom)
    assert list(at_once) == list(one_by_one)
    assert at_once.runs == one_by_one.runs
