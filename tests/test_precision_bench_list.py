"""bench/bench_precision.py --list VERDICT: which labelled findings are reported now."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bench_precision", ROOT / "bench" / "bench_precision.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_precision"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


bench = _bench()


def test_list_prints_the_reported_findings_of_one_verdict_sorted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    label = {
        v: bench.Label("o/r", "c", "a.py", 4, "HL201", v, f"{v.lower()}-tag: why", 9)
        for v in bench.VERDICTS
    }
    matched = [
        (bench.Finding("o/r", "b.py", 7, 3, "HL201", "m"), label["debatable"]),
        (bench.Finding("o/r", "a.py", 4, 9, "HL201", "m"), label["TP"]),
        (bench.Finding("o/r", "a.py", 2, 1, "HL001", "m"), label["debatable"]),
        (bench.Finding("o/r", "c.py", 1, 1, "HL201", "m"), None),  # unlabelled: not listed
    ]
    bench.listed(matched, "debatable")
    assert capsys.readouterr().out.splitlines() == [
        "",
        "2 reported findings labelled debatable:",
        "  HL001 o/r a.py:2:1 (debatable-tag: why)",
        "  HL201 o/r b.py:7:3 (debatable-tag: why)",
    ]


def test_list_is_an_option_of_the_command_line() -> None:
    with pytest.raises(SystemExit):
        bench.main(["--list", "maybe"])  # not a verdict: argparse refuses it
