"""The Python frontend's per-character maps kept as runs (issue 18 item 8): `Elems`, the
fragment under construction, behaves as the list of (character, unit) pairs it stands
for, and a fragment's offset map, read through the public entry, puts every character
on the source of its own escape sequence, line continuation, f-string field or token of
an implicit concatenation, as the source is built here piece by piece."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heredoc_lint.engine import check_text
from heredoc_lint.frontends import fragments
from heredoc_lint.frontends.python.model import Elems
from heredoc_lint.layers.triggers import PYTHON_PLACEHOLDER
from heredoc_lint.shell.words import Offsets

# --- Elems against a list --------------------------------------------------------------

# A run of characters (their units counting up from a first one), or a placeholder ("").
RUN = st.tuples(st.sampled_from(["", "a", "bc", "{}", "x y;", "\0"]), st.integers(0, 12))


def _pairs(text: str, unit: int) -> list[tuple[str, int]]:
    return [(c, unit + k) for k, c in enumerate(text)] if text else [("", unit)]


@given(st.lists(st.tuples(RUN, st.booleans()), max_size=12), st.integers(-20, 20))
def test_elems_are_the_list_of_their_pairs(
    added: list[tuple[tuple[str, int], bool]], i: int
) -> None:
    elems, model = Elems(), []
    for (text, unit), one_by_one in added:
        pairs = _pairs(text, unit)
        if one_by_one:
            for pair in pairs:
                elems.append(pair)
        else:
            elems.add_run(text, unit)
        model.extend(pairs)
        assert elems.text("?") == "".join(c or "?" for c, _ in model)  # read while built
    assert list(elems) == model and len(elems) == len(model)
    assert elems == model and Elems(model) == elems
    assert elems.text() == "".join(c for c, _ in model)
    assert elems.has_chars() == any(c for c, _ in model)
    if -len(model) <= i < len(model):
        assert elems[i] == model[i]
    else:
        with pytest.raises(IndexError):
            elems[i]
    for a in range(-2, len(model) + 2):
        for b in (a - 1, a + 1, a + 3, len(model)):
            assert list(elems[a:b]) == model[a:b]
    assert list(elems[::2]) == model[::2]
    assert list(elems + model) == model + model
    # A run is characters of consecutive units: no more runs than the pairs that start one.
    starts = sum(
        1
        for k, (c, u) in enumerate(model)
        if not (k and c and model[k - 1][0] and model[k - 1][1] + 1 == u)
    )
    assert len(list(elems.runs())) == starts


def test_a_long_literal_is_one_run_of_elems_and_of_offsets() -> None:
    body = "x = 1; " * 20_000
    source = f'import subprocess\nsubprocess.run(["ssh", "h", "{body}"])\n'
    (fragment,) = fragments("python", source)
    assert fragment.text == body
    assert isinstance(fragment.offsets, Offsets)
    start = source.index(body)
    assert list(fragment.offsets) == [*range(start, start + len(body)), start + len(body)]
    assert fragment.offsets == tuple(range(start, start + len(body) + 1))


# --- the offset map through the public entry -------------------------------------------

# The pieces of the ssh command of the argv below, in source order: (what is written,
# the characters it yields; None: an f-string field, a run-time value).  Escapes, a
# backslash-newline (it yields nothing: the character after it is its own source), a
# CRLF-free raw literal, doubled braces, fields and three tokens in one concatenation.
PIECES: list[tuple[str, str | None]] = [
    ('"', ""),
    ("echo", "echo"),
    ("\\t", "\t"),
    ("\\x41", "A"),
    ("\\\\", "\\"),
    ("\\\n", ""),
    ("; ", "; "),
    ("\\N{LATIN SMALL LETTER A}", "a"),
    ('" ', ""),
    ('f"', ""),
    ("{{", "{"),
    ("x", "x"),
    ("}}", "}"),
    (" ", " "),
    ("{host}", None),
    (" ", " "),
    ("{n:d}", None),
    ('"\n    ', ""),
    ("r'", ""),
    ("\\d; ", "\\d; "),
    ("pkill -f sglang; ./restart", "pkill -f sglang; ./restart"),
    ("'", ""),
]


def _source() -> tuple[str, int]:
    head = 'import subprocess\ndef f(host, n):\n    subprocess.run(["ssh", "h", '
    return head + "".join(w for w, _ in PIECES) + "])\n", len(head)


def test_each_character_points_at_the_source_it_was_read_from() -> None:
    source, at = _source()
    (fragment,) = fragments("python", source)
    assert fragment.offsets is not None
    # What each character of the fragment is, and where its source starts, piece by piece.
    expected: list[tuple[str, int]] = []  # (character or placeholder mark "?", offset)
    fields: list[tuple[int, int]] = []
    for written, chars in PIECES:
        if chars is None:
            fields.append((at, at + len(written)))
            expected.append(("?", at))
        elif len(chars) == 1 and written != chars:  # one escape sequence, one character
            expected.append((chars, at))
        else:
            expected.extend((c, at + k) for k, c in enumerate(chars))
        at += len(written)
    # The text: the characters, a placeholder for each field.
    text = fragment.text
    spans = list(fragment.interpolations)
    assert len(spans) == len(fields) == 2
    index = 0
    for char, offset in expected:
        if char == "?":
            a, b = spans.pop(0)
            assert a == index and text[a:b].startswith(PYTHON_PLACEHOLDER)
            start, end = fields.pop(0)
            marks = [fragment.offsets[k] for k in range(a, b)]
            # A placeholder points into its field: from the `{` on, its last at the `}`.
            assert marks[0] == start and marks[-1] == end - 1
            assert all(start <= m < end for m in marks) and marks == sorted(marks)
            index = b
            continue
        assert (text[index], fragment.offsets[index]) == (char, offset), index
        index += 1
    assert index == len(text) == len(fragment.offsets) - 1
    assert fragment.offsets[-1] == at - 1  # the end: past the last character, before `'`


def test_findings_after_escapes_and_a_continuation_land_on_their_source() -> None:
    source, _ = _source()
    findings = {f.code: (f.start, f.end) for f in check_text(source, "python", "t.py")}
    pkill = source.index("pkill -f sglang")
    assert findings["HL103"] == (pkill, pkill + len("pkill"))
    field = source.index("{host}")
    assert findings["HL201"] == (field, field + len("{host}"))


# `str.format` reads its template in pieces now (up to the next brace or placeholder):
# the text is what Python itself makes of the call when every argument is a constant.
@pytest.mark.parametrize(
    "call",
    [
        '"echo {} {{x}} }}{{ a{}b".format("v", "u")',
        '"pkill -f {name}; echo {{}}".format(name="job")',
        '("echo " + "{}" "{{").format("w")',
        '"{{{}}}".format("z") + " tail"',
    ],
)
def test_format_templates_read_in_pieces_give_what_python_gives(call: str) -> None:
    source = f'import subprocess\nsubprocess.run(["ssh", "h", {call}])\n'
    (fragment,) = fragments("python", source)
    assert fragment.text == eval(call)  # noqa: S307 - constant strings written above


# -- the offset map of a fragment runs forward ----------------------------------------------


_SPAWNED = [
    # pexpect.spawn returns at once: the frontend appends ` &` after the last value
    'import pexpect\ndef f(cmd):\n    pexpect.spawn("ssh h echo " + cmd)\n',
    'import pexpect\ndef f(cmd):\n    pexpect.spawn(f"ssh h echo {cmd}")\n',
    'import pexpect\ndef f(a, b):\n    pexpect.spawn("ssh " + a + " echo " + b)\n',
]


@pytest.mark.parametrize("text", _SPAWNED)
def test_the_offsets_of_a_spawned_command_run_forward_to_its_last_value(text: str) -> None:
    """A fragment's offset map takes each character of its text to the file: the ` &` the
    frontend appends for `pexpect.spawn` (which returns at once) is placed after the last
    run-time value, where the call's string ends, never back inside it.  (Run 7: the end
    of a `+` operand's unit was its start, and the ` &` pointed at the start of `cmd`.)"""
    (fragment,) = fragments("python", text)
    assert fragment.text.endswith(" &")
    offsets = list(fragment.offsets)
    assert offsets == sorted(offsets)
    last_value_end = text.index(")\n") - (1 if "{" in text else 0)
    assert offsets[-1] == last_value_end
