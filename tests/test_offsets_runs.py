"""Word.offsets as runs (issue 18 item 8): the same sequence as the tuple it replaces."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from heredoc_lint.shell.words import OffsetRuns, Offsets, dequote

# Runs of consecutive values, and lone values that repeat or go back (an ANSI-C escape
# maps several characters to one offset; a joined layer goes back to a word's end).
VALUES = st.lists(
    st.one_of(
        st.tuples(st.integers(0, 50), st.integers(0, 6)).map(
            lambda r: list(range(r[0], r[0] + r[1]))
        ),
        st.integers(0, 60).map(lambda v: [v]),
    ),
    max_size=12,
).map(lambda parts: [v for part in parts for v in part])


def _built(values: list[int]) -> Offsets:
    runs = OffsetRuns()
    runs.extend(values)
    return runs.build()


@given(VALUES)
def test_offsets_are_the_tuple_of_their_values(values: list[int]) -> None:
    offsets = _built(values)
    expected = tuple(values)
    assert len(offsets) == len(expected)
    assert tuple(offsets) == expected
    assert offsets == expected and hash(offsets) == hash(expected)
    assert [offsets[i] for i in range(-len(values), len(values))] == [
        expected[i] for i in range(-len(values), len(values))
    ]


@given(VALUES, st.integers(-15, 15), st.integers(-15, 15), st.sampled_from([None, 1, 2, -1]))
def test_a_slice_of_offsets_is_the_slice_of_the_tuple(
    values: list[int], start: int, stop: int, step: int | None
) -> None:
    piece = _built(values)[start:stop:step]
    assert isinstance(piece, Offsets)
    assert tuple(piece) == tuple(values)[start:stop:step]


@given(VALUES, VALUES)
def test_extending_by_offsets_is_extending_by_their_values(a: list[int], b: list[int]) -> None:
    runs = OffsetRuns()
    runs.extend(_built(a))
    runs.extend(_built(b))
    assert runs.build() == _built(a + b)
    assert tuple(runs.build()) == tuple(a + b)


def test_a_long_quoted_word_is_one_run() -> None:
    """The memory of issue 18: a 1 MB double-quoted word maps each character to its
    source in one run, not in a million int objects."""
    text = 'ssh h "' + "echo hello world; " * 60_000 + '"'
    word = dequote(text, 6, len(text))
    assert isinstance(word.offsets, Offsets)
    assert len(word.offsets._values) == 2  # the characters, then the word's end
    assert word.offsets[0] == 7 and word.offsets[-2] == len(text) - 2
    assert word.offsets[-1] == len(text)


def test_an_escape_maps_its_characters_to_one_offset() -> None:
    text = "$'a\\x41b'"
    word = dequote(text, 0, len(text))
    assert word.value == "aAb"
    assert word.offsets == (2, 3, 7, 9)
