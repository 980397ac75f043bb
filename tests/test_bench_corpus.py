"""bench/bench_corpus.py --against: its options and its results file (nothing is timed)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bench_corpus", ROOT / "bench" / "bench_corpus.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_corpus"] = module
    spec.loader.exec_module(module)
    return module


bench = _bench()


def test_against_options() -> None:
    args = bench.parse_args(["--against", "6be12c9", "--pairs", "3", "--results", "r.jsonl"])
    assert (args.against, args.pairs, args.results) == ("6be12c9", 3, Path("r.jsonl"))
    plain = bench.parse_args([])
    assert plain.against is None
    assert plain.results == ROOT / "bench" / "results" / "corpus.jsonl"


def test_records_are_appended_and_the_last_is_read_back(tmp_path: Path) -> None:
    results = tmp_path / "results" / "corpus.jsonl"
    assert bench.last_record(results) is None
    first = {"commit": "aaa", "shell_cpu": {"ratio": bench.spread([1.0, 0.5, 2.0])}}
    bench.append_record(results, first)
    bench.append_record(results, {"commit": "bbb"})
    assert bench.last_record(results) == {"commit": "bbb"}
    assert len(results.read_text().splitlines()) == 2
    assert first["shell_cpu"]["ratio"] == {"min": 0.5, "median": 1.0, "max": 2.0}
