"""Property tests: whatever the input, the engine neither crashes nor reports outside the file.

Inputs (hypothesis, deterministic: `derandomize=True`, no example database):

- random text (every code point, lone surrogates included) and random bytes decoded the
  way `discover.read_text` decodes a file;
- shell-like text from the grammar in tests/fuzz/grammar.py: quotes, heredocs (also badly
  terminated ones), expansions, and wrappers nesting new layers (ssh, bash -c, eval, sudo,
  su -c, docker/kubectl exec, xargs, prefixes), quoted well or carelessly;
- real scripts (bash-completion files and shebang scripts in /usr/bin), mutated.

For every input, `check_text` and `fix_kind` (kinds shell and command; markdown, actions
and python with the text embedded in that format) must return normally; every finding's
span lies inside the text (0 <= start < end <= len); every edit of every fix lies inside
the text; a fix never creates a file outside the script's directory; fixing the fixed text
again changes nothing (a fix is idempotent).

Run time is not asserted here: bench/bench_shapes.py prints how the cost of each input
shape grows with its size.

The examples, kills and hostile inputs tried are counted in tests/data/robustness/README.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fuzz.grammar import RAW, Builder, mutate
from fuzz.invariants import (
    FRONTEND_KINDS,
    KINDS,
    STRATEGIES,
    assert_sound,
    embed,
    trivial_input_works,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heredoc_lint.engine import check_text
from heredoc_lint.run.discover import read_text

COMPLETIONS = Path("/usr/share/bash-completion/completions")

FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def grammar_text(draw: st.DrawFn, budget: int = 60) -> str:
    return Builder(lambda n: draw(st.integers(0, n - 1)), budget).file()


# ------------------------------------------------------------------------------------------
# random text and bytes


@settings(FUZZ, max_examples=300)
@given(
    text=st.text(st.characters(codec=None), max_size=400)
    | st.lists(st.sampled_from(RAW) | st.text(max_size=3), max_size=60).map("".join),
    kind=st.sampled_from(KINDS),
)
def test_random_text(text: str, kind: str) -> None:
    assert_sound(text, kind, prefilter=False)


@settings(FUZZ, max_examples=150)
@given(data=st.binary(max_size=600), name=st.sampled_from(["f.sh", "f.md", "f.py", "noext"]))
def test_random_bytes_read_like_a_file(
    data: bytes, name: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("bytes") / name
    path.write_bytes(data)
    text, reason, encoding, raw = read_text(path)
    if text is None:
        assert reason is not None and "\n" not in reason
        return
    assert raw == data and encoding in ("utf-8", "utf-8-sig", "latin-1")
    assert_sound(text, "shell", prefilter=False)


# ------------------------------------------------------------------------------------------
# grammar text


@settings(FUZZ, max_examples=200)
@given(
    text=grammar_text(),
    kind=st.sampled_from(KINDS),
    strategy=st.sampled_from(STRATEGIES),
    prefilter=st.booleans(),
)
def test_grammar_text(text: str, kind: str, strategy: str, prefilter: bool) -> None:
    assert_sound(text, kind, strategy, prefilter)


@pytest.mark.parametrize("kind", FRONTEND_KINDS)
def test_grammar_text_in_other_formats(kind: str) -> None:
    if not trivial_input_works(kind):
        pytest.skip(f"the {kind} frontend fails on trivial input (reported)")

    @settings(FUZZ, max_examples=40)
    @given(script=grammar_text(budget=30), strategy=st.sampled_from(STRATEGIES))
    def run(script: str, strategy: str) -> None:
        text, path = embed(kind, script)
        assert_sound(text, kind, strategy, path=path)

    run()


# ------------------------------------------------------------------------------------------
# mutated real scripts

_SHEBANG = re.compile(rb"#!\s*(?:\S*/)?(?:env\s+)?(?:sh|bash|dash)\b")


def real_scripts(limit: int = 60) -> list[Path]:
    """A spread of bash-completion files and /usr/bin shell scripts, at most 64 KB each."""
    found: list[Path] = []
    if COMPLETIONS.is_dir():
        completions = sorted(p for p in COMPLETIONS.iterdir() if p.is_file())
        found += completions[:: max(1, len(completions) // (limit // 2))]
    for path in sorted(Path("/usr/bin").iterdir()):
        try:
            if path.is_file() and path.stat().st_size < 65536:
                with path.open("rb") as handle:
                    if _SHEBANG.match(handle.read(64)):
                        found.append(path)
        except OSError:
            continue
    return [p for p in found if p.stat().st_size < 65536][:limit]


REAL = real_scripts()


@pytest.mark.skipif(not REAL, reason="no real shell scripts on this machine")
@settings(FUZZ, max_examples=80)
@given(
    index=st.integers(0, max(0, len(REAL) - 1)),
    choices=st.lists(st.integers(0, 2**31), min_size=8, max_size=40),
    kind=st.sampled_from(KINDS),
)
def test_mutated_real_scripts(index: int, choices: list[int], kind: str) -> None:
    original = REAL[index].read_bytes().decode("utf-8", "surrogateescape")
    feed = iter(choices * 50)

    def choose(n: int) -> int:
        return next(feed) % n

    text = mutate(original, choose, lambda: Builder(choose, 8).script())
    assert_sound(text, kind, fix=len(text) < 20000)


# ------------------------------------------------------------------------------------------
# regressions found by fuzzing (minimal reproductions)


@pytest.mark.parametrize(
    ("text", "kind"),
    [("bash -c x <", "shell"), ("sh -s <", "command"), ("```bash\nbash -c x <", "markdown")],
)
def test_hl001_at_end_of_layer_stays_inside_the_file(text: str, kind: str) -> None:
    for f in check_text(text, kind, "x"):
        assert 0 <= f.start < f.end <= len(text), (f.code, f.start, f.end, len(text))


def test_hl001_at_end_of_file_is_not_empty() -> None:
    text = "'"
    for f in check_text(text, "actions", ".github/workflows/ci.yml"):
        assert 0 <= f.start < f.end <= len(text), (f.code, f.start, f.end, len(text))


REGRESSIONS = Path(__file__).parent / "data" / "robustness" / "regressions"


@pytest.mark.parametrize(
    "path",
    sorted(REGRESSIONS.glob("*")) if REGRESSIONS.is_dir() else [],
    ids=lambda p: p.name,
)
def test_fuzz_regressions(path: Path) -> None:
    """Inputs the atheris harness (tests/fuzz/) once crashed on: each must now be sound."""
    from fuzz import harness

    harness.test_one_input(path.read_bytes())


def test_fuzz_harness_runs_without_atheris() -> None:
    """The harness's one-input function works on a few inputs (atheris itself is optional)."""
    from fuzz import harness

    for data in (b"", b"\x00" * 10, b"ssh h \"cat <<'EOF'\n$1\nEOF\"", bytes(range(256))):
        harness.test_one_input(data)
