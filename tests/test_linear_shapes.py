"""The code rewritten to run in linear time (issue 18 item 7) keeps its answers.

bench/bench_shapes.py times the shapes (`linear_rule_shapes`); here each shape is checked
at a small size for its exact findings and fixed text, and each new index (fixer._Taken
and _splice, spans.Spans and line_number, HL105's in_body) is compared with the plain
scan it replaced, on generated inputs.  No timing is asserted.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heredoc_lint.engine import check_text, fix_kind
from heredoc_lint.fixes.fixer import apply_fixes
from heredoc_lint.model import Applicability, Edit, Finding, Fix, Severity
from heredoc_lint.rules.hl105_ssh_swallows_loop_stdin import _DO, in_body
from heredoc_lint.shell.spans import Spans, line_number


def spans_of(text: str, needle: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(re.escape(needle), text)]


def found(text: str, kind: str = "shell") -> list[Finding]:
    return check_text(text, kind, "s.sh")


def fixed(text: str, findings: list[Finding]) -> str:
    return fix_kind(text, "shell", "s.sh", findings=findings).text


# -- the shapes, small --------------------------------------------------------------------
def test_ssh_in_while_true_loops_inside_a_while_read_loop() -> None:
    text = "while read a; do\n" + "while true; do ssh h x\n" * 3 + "done\n" * 3 + "done < hosts\n"
    result = found(text)
    assert [(f.code, f.severity, (f.start, f.end)) for f in result] == [
        ("HL105", Severity.WARNING, span) for span in spans_of(text, "ssh")
    ]
    assert "inside this `while read` loop" in result[0].message
    assert fixed(text, result) == text.replace("ssh h", "ssh -n h")


def test_nested_while_true_loops_alone_are_clean() -> None:
    assert found("while true; do ssh h x\n" * 3 + "done\n" * 3) == []


def test_the_innermost_reading_loop_with_its_input_redirected_shields_the_outer() -> None:
    inner = "while read b; do ssh h x; done < other\n"
    text = "while read a; do\n" + "while true; do\n" + inner + "done\ndone < hosts\n"
    result = found(text)
    # The ssh shares the inner loop's input (`other`): reported once, for that loop.
    assert [(f.code, (f.start, f.end)) for f in result] == [("HL105", spans_of(text, "ssh")[0])]


def test_three_heredocs_in_one_ssh_string() -> None:
    text = 'ssh h "' + "cat > /f <<'EOF'\nx\nEOF\n" * 3 + '"\n'
    result = found(text)
    assert [(f.code, f.severity, (f.start, f.end)) for f in result] == [
        ("HL101", Severity.INFO, span) for span in spans_of(text, "<<")
    ]
    # base64 of "x\n" is eAo=: each body is sent as data, through the one word.
    assert (
        fixed(text, result)
        == 'ssh h "' + "\n".join(["printf %s eAo= | base64 -d > /f"] * 3) + '"\n'
    )


def test_pkill_lines() -> None:
    text = 'ssh h "pkill -f sglang; echo"\n' * 3
    result = found(text, "command")
    assert [(f.code, f.severity, (f.start, f.end)) for f in result] == [
        ("HL103", Severity.ERROR, span) for span in spans_of(text, "pkill")
    ]
    assert all("(`bash -c pkill -f sglang; echo`)" in f.message for f in result)
    assert fixed(text, result) == text.replace("sglang", "'[s]'glang")


def test_pkill_calls_as_words_of_one_ssh_command() -> None:
    text = "ssh h " + "pkill -f sglang \\; " * 3 + "./start\n"
    result = [f for f in found(text) if f.code == "HL103"]
    spans = spans_of(text, "pkill")
    assert [(f.severity, (f.start, f.end)) for f in result] == [
        (Severity.ERROR, span) for span in spans
    ]
    # The words are joined into one string: the shown command line is cut at 60.
    assert "(`bash -c pkill -f sglang ; pkill -f sglang ; pkill -f sgla...`)" in result[0].message
    # Only the same pkill after each: only the status is lost; the last is the string's
    # last bare command, which bash 5.2 runs in the shell's place.
    text = text.replace("./start", "")
    result = [f for f in found(text) if f.code == "HL103"]
    assert [(f.evidence, (f.start, f.end)) for f in result] == [
        *(("repeat-lost", span) for span in spans[:-1]),
        ("last-command", spans[-1]),
    ]


def test_assignment_words_of_one_ssh_command() -> None:
    text = "ssh h " + "".join(f'"A{k}=1" ' for k in range(3)) + '"B=x y" cmd\n'
    (finding,) = found(text)
    assert (finding.code, finding.evidence, finding.severity) == (
        "HL106",
        "split-assignment",
        Severity.WARNING,
    )
    assert finding.fix is not None
    assert finding.fix.edits[0].content == "\"A0=1 A1=1 A2=1 B='x y' cmd\""


def test_expansions_of_one_ssh_string_each_judged_on_its_own() -> None:
    text = "ssh h \"x=1; echo $x; eval echo $y; awk '{print $1}' f; echo $1\"\n"
    result = [f for f in found(text) if f.code == "HL102"]
    dollar_one = spans_of(text, "$1")
    assert [(f.severity, (f.start, f.end)) for f in result] == [
        (Severity.ERROR, spans_of(text, "$x")[0]),  # before the string's own `x=1` exists
        (Severity.INFO, spans_of(text, "$y")[0]),  # inside eval: meant to expand here
        (Severity.ERROR, dollar_one[0]),  # awk's field, in awk's single quotes
        (Severity.INFO, dollar_one[1]),  # the script's own argument
    ]
    assert "before the binding of `x`" in result[0].message
    assert "field of the awk program" in result[2].message
    assert "from this script's own arguments" in result[3].message


def test_unquoted_heredocs_to_ssh_read_by_the_script() -> None:
    text = "ssh h bash <<EOF\necho $x\nEOF\n" * 2 + 'echo "$x"\n'
    result = found(text)
    assert [(f.code, f.severity, (f.start, f.end)) for f in result] == [
        ("HL107", Severity.INFO, span) for span in spans_of(text, "<<")
    ]
    assert all("values of this script or of its environment" in f.message for f in result)


# -- the indexes against the scans they replaced -------------------------------------------
@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="do ;&|()\nx\t", max_size=30), st.data())
def test_in_body_is_the_search_of_the_slice(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    first = _DO.search(text, start, len(text))
    expected = _DO.search(text[start:end]) is not None
    assert in_body(text, start, end, first.end() if first else None) == expected


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("xdo x", 1, 5),  # `^` at the slice's start
        ("xdo", 1, 3),  # `^` and `$`
        ("a;do", 0, 4),  # `$` after a `do` that the text continues
        ("a;dox", 0, 4),
        ("a;dox", 0, 5),  # not a keyword
        ("a do b do c", 0, 6),
        ("while read x; do", 5, 14),  # the condition: no `do` yet
        ("while read x; do read y", 5, 17),
    ],
)
def test_in_body_at_the_edges_of_the_slice(text: str, start: int, end: int) -> None:
    first = _DO.search(text, start, len(text))
    expected = _DO.search(text[start:end]) is not None
    assert in_body(text, start, end, first.end() if first else None) == expected


def _overlaps(a: Edit, b: Edit) -> bool:
    if a.start == a.end and b.start == b.end:
        return a.start == b.start
    return (
        a.start < b.end
        and b.start < a.end
        or (a.start == a.end and b.start < a.start < b.end)
        or (b.start == b.end and a.start < b.start < a.end)
    )


def _plain_apply(text: str, fixes: list[Fix]) -> tuple[str, list[Fix]]:
    """fixer.apply_fixes as it was: each edit against every edit taken, one splice each."""
    taken: list[Fix] = []
    edits: list[Edit] = []
    seen: set[Edit] = set()

    def first_start(fix: Fix) -> int:
        return min((e.start for e in fix.edits), default=0)

    for fix in sorted(dict.fromkeys(fixes), key=first_start):
        new = [e for e in fix.edits if e not in seen]
        if any(_overlaps(e, other) for e in new for other in edits):
            continue
        taken.append(fix)
        edits.extend(new)
        seen.update(new)
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        content = edit.content
        if "\n" in content and "\r\n" in text and not re.search(r"(?<!\r)\n", text):
            content = re.sub(r"(?<!\r)\n", "\r\n", content)
        text = text[: edit.start] + content + text[edit.end :]
    return text, taken


@st.composite
def texts_and_fixes(draw: st.DrawFn) -> tuple[str, list[Fix]]:
    text = draw(st.text(alphabet="ab\r\n", max_size=16))
    position = st.integers(0, len(text))
    fixes = []
    for k in range(draw(st.integers(0, 6))):
        edits = []
        for _ in range(draw(st.integers(1, 3))):
            a, b = sorted((draw(position), draw(position)))
            if draw(st.booleans()):
                b = a  # insertions, which may touch or share a position
            edits.append(Edit(a, b, draw(st.text(alphabet="x\n\r", max_size=3))))
        fixes.append(Fix(tuple(edits), Applicability.SAFE, f"fix {k}"))
    return text, fixes


@settings(max_examples=600, deadline=None)
@given(texts_and_fixes())
def test_apply_fixes_takes_and_splices_as_the_plain_scan(case: tuple[str, list[Fix]]) -> None:
    text, fixes = case
    assert apply_fixes(text, fixes) == _plain_apply(text, fixes)


def test_apply_fixes_keeps_a_crlf_file_crlf_across_many_edits() -> None:
    text = "a\r\n" * 5
    fixes = [Fix((Edit(k * 3, k * 3 + 1, "b\nc"),), Applicability.SAFE, "f") for k in range(5)]
    result, taken = apply_fixes(text, fixes)
    assert result == "b\r\nc\r\n" * 5
    assert len(taken) == 5


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), max_size=8),
    st.integers(-2, 22),
)
def test_spans_answer_as_a_scan(pairs: list[tuple[int, int]], offset: int) -> None:
    spans = Spans(pairs)
    holding = [k for k, (a, b) in enumerate(pairs) if a <= offset < b]
    assert spans.first(offset) == (holding[0] if holding else None)
    assert spans.holds(offset) == bool(holding)


@given(st.text(alphabet="a\n\r", max_size=20), st.integers(-25, 25))
def test_line_number_counts_newlines(text: str, offset: int) -> None:
    assert line_number(text, offset) == text.count("\n", 0, offset) + 1


_TIE = """
from heredoc_lint.fixes.fixer import apply_fixes
from heredoc_lint.model import Applicability, Edit, Fix
fixes = [Fix((Edit(2, 4, w),), Applicability.SAFE, w) for w in ("first", "second", "third")]
print(apply_fixes("0123456", fixes)[0])
"""


def test_apply_fixes_breaks_ties_in_the_order_given_whatever_the_hash_seed() -> None:
    """Two fixes that start at one place: the first given wins, on every run, not the one a
    set of string hashes happens to put first (PYTHONHASHSEED changes between runs)."""
    import os
    import subprocess
    import sys

    results = {
        subprocess.run(
            [sys.executable, "-c", _TIE],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(8)
    }
    assert results == {"01first456\n"}


def test_two_insertions_at_one_place_take_the_first_only() -> None:
    # Their order in the text would be a guess: the second waits for the next pass.
    first = Fix((Edit(1, 1, "X"),), Applicability.SAFE, "x")
    second = Fix((Edit(1, 1, "Y"),), Applicability.SAFE, "y")
    assert apply_fixes("ab", [first, second]) == ("aXb", [first])
    assert apply_fixes("ab", [first, second]) == _plain_apply("ab", [first, second])
