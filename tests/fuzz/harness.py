"""atheris harness for heredoc-lint's engine (see README.md in this folder).

    pip install atheris
    python tests/fuzz/harness.py -max_total_time=600 -timeout=30 tests/fuzz/corpus

The first byte of an input picks how the rest is read:

- raw: the rest decoded as UTF-8 (surrogateescape), checked as a script and as a command;
- grammar: the rest drives tests/fuzz/grammar.py (each choice consumes bytes), so the
  fuzzer explores shell-like text with quotes, heredocs and nested wrappers;
- mutate: a seed from the corpus folder next to this file, mutated by grammar choices;
- frontend: grammar text embedded in Markdown, a workflow, or Python.

Every input must keep the promises in invariants.py.  `test_one_input` needs no atheris,
so crash files replay in the normal suite (tests/test_fuzz.py::test_fuzz_regressions).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # run as a script: make `fuzz.*` importable
    sys.path.insert(0, str(HERE.parent))

from fuzz.grammar import Builder, mutate  # noqa: E402
from fuzz.invariants import (  # noqa: E402
    FRONTEND_KINDS,
    KINDS,
    STRATEGIES,
    assert_sound,
    embed,
    trivial_input_works,
)

SEEDS = HERE / "corpus"


class Choices:
    """`choose(n)` from a byte string: one or two bytes per choice, 0 when it runs out."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def byte(self) -> int:
        if self.at >= len(self.data):
            return 0
        value = self.data[self.at]
        self.at += 1
        return value

    def choose(self, n: int) -> int:
        if n <= 1:
            return 0
        value = self.byte()
        if n > 256:
            value = value << 8 | self.byte()
        return value % n

    def rest(self) -> bytes:
        return self.data[self.at :]


def _seeds() -> list[str]:
    if not SEEDS.is_dir():
        return ["ssh h \"cat > /f <<'EOF'\n$1\nEOF\nchmod +x /f\"\n"]
    return [
        p.read_bytes().decode("utf-8", "surrogateescape") for p in sorted(SEEDS.iterdir()) if p.is_file()
    ]


_SEED_TEXTS: list[str] | None = None
_FRONTENDS: tuple[str, ...] | None = None


def test_one_input(data: bytes) -> None:
    global _SEED_TEXTS, _FRONTENDS
    choices = Choices(data)
    mode = choices.choose(4)
    kind = KINDS[choices.choose(len(KINDS))]
    strategy = STRATEGIES[choices.choose(len(STRATEGIES))]
    prefilter = choices.choose(2) == 0
    if mode == 0:
        text = choices.rest().decode("utf-8", "surrogateescape")
        assert_sound(text, kind, strategy, prefilter, fix=len(text) < 20000)
        return
    if mode == 1:
        assert_sound(Builder(choices.choose, 80).file(), kind, strategy, prefilter)
        return
    if mode == 2:
        if _SEED_TEXTS is None:
            _SEED_TEXTS = _seeds()
        seed = _SEED_TEXTS[choices.choose(len(_SEED_TEXTS))]
        text = mutate(seed, choices.choose, lambda: Builder(choices.choose, 8).script())
        assert_sound(text, kind, strategy, prefilter, fix=len(text) < 20000)
        return
    if _FRONTENDS is None:
        _FRONTENDS = tuple(k for k in FRONTEND_KINDS if trivial_input_works(k))
    if not _FRONTENDS:
        return
    frontend = _FRONTENDS[choices.choose(len(_FRONTENDS))]
    text, path = embed(frontend, Builder(choices.choose, 30).script())
    assert_sound(text, frontend, strategy, path=path)


def main() -> None:
    import atheris  # type: ignore[import-not-found]

    # Load everything the engine may import lazily, then instrument it all for coverage.
    for kind in (*KINDS, *FRONTEND_KINDS):
        trivial_input_works(kind)
    atheris.instrument_all()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
