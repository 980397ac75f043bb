"""atheris harness for heredoc-lint's engine (see README.md in this folder).

    pip install atheris
    python tests/fuzz/harness.py -max_total_time=600 -timeout=60 /tmp/corpus tests/fuzz/corpus
    python tests/fuzz/harness.py --to-raw CRASH > tests/data/robustness/regressions/NAME.bin

The first byte of an input picks how the rest is read (`decode`); the next three pick
the kind, the fix strategy and whether the prefilter is on:

- raw: the rest decoded as UTF-8 (surrogateescape), of any kind (shell, command,
  markdown, actions, python);
- grammar: the rest drives tests/fuzz/grammar.py (each choice consumes bytes), so the
  fuzzer explores shell-like text with quotes, heredocs and nested wrappers;
- mutate: a seed from the corpus folder next to this file, mutated by grammar choices;
- frontend: grammar text embedded in Markdown, a workflow, or Python.

Every input must keep the promises in invariants.py.  `test_one_input` needs no atheris,
so crash files replay in the normal suite (tests/test_fuzz.py::test_fuzz_regressions).
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
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
        p.read_bytes().decode("utf-8", "surrogateescape")
        for p in sorted(SEEDS.iterdir())
        if p.is_file()
    ]


_SEED_TEXTS: list[str] | None = None
ALL_KINDS = (*KINDS, *FRONTEND_KINDS)  # raw mode: the kind byte indexes this
PATHS = {
    "shell": "dir/script.sh",
    "command": "dir/script.sh",
    "markdown": "README.md",
    "actions": ".github/workflows/ci.yml",
    "python": "tool.py",
}


@dataclass(frozen=True)
class Input:
    """What one fuzzer input means."""

    kind: str
    strategy: str
    prefilter: bool
    text: str

    def check(self) -> None:
        fix = len(self.text) < 20000
        assert_sound(self.text, self.kind, self.strategy, self.prefilter, fix, PATHS[self.kind])

    def raw(self) -> bytes:
        """The same input in raw mode: it keeps its meaning when grammar.py changes."""
        header = [
            0,
            ALL_KINDS.index(self.kind),
            STRATEGIES.index(self.strategy),
            0 if self.prefilter else 1,
        ]
        return bytes(header) + self.text.encode("utf-8", "surrogateescape")


@functools.cache
def _working(kind: str) -> bool:
    return kind in KINDS or trivial_input_works(kind)


def decode(data: bytes) -> Input | None:
    """The input `data` stands for; None for a frontend that is not ready yet."""
    global _SEED_TEXTS
    choices = Choices(data)
    mode = choices.choose(4)
    kind = ALL_KINDS[choices.choose(len(ALL_KINDS))] if mode == 0 else KINDS[choices.choose(2)]
    strategy = STRATEGIES[choices.choose(len(STRATEGIES))]
    prefilter = choices.choose(2) == 0
    if mode == 0:
        text = choices.rest().decode("utf-8", "surrogateescape")
    elif mode == 1:
        text = Builder(choices.choose, 80).file()
    elif mode == 2:
        if _SEED_TEXTS is None:
            _SEED_TEXTS = _seeds()
        seed = _SEED_TEXTS[choices.choose(len(_SEED_TEXTS))]
        text = mutate(seed, choices.choose, lambda: Builder(choices.choose, 8).script())
    else:
        kind = FRONTEND_KINDS[choices.choose(len(FRONTEND_KINDS))]
        text, _ = embed(kind, Builder(choices.choose, 30).script())
        prefilter = True
    if not _working(kind):
        return None
    return Input(kind, strategy, prefilter, text)


def test_one_input(data: bytes) -> None:
    found = decode(data)
    if found is not None:
        found.check()


def to_raw(paths: list[str]) -> None:
    """`--to-raw CRASH...`: print each input in raw mode (for tests/data/robustness)."""
    for name in paths:
        found = decode(Path(name).read_bytes())
        if found is None:
            raise SystemExit(f"{name}: its frontend is not ready")
        sys.stderr.write(f"{name}: {found.kind}, {found.strategy}, prefilter {found.prefilter}\n")
        sys.stdout.buffer.write(found.raw())


def main() -> None:
    if sys.argv[1:2] == ["--to-raw"]:
        to_raw(sys.argv[2:])
        return
    import atheris  # type: ignore[import-not-found,import-untyped,unused-ignore]

    # Load everything the engine may import lazily, then instrument it all for coverage.
    for kind in ALL_KINDS:
        _working(kind)
    atheris.instrument_all()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
