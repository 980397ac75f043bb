"""heredoc-lint on the Python standard library, against bandit and ruff's S6 rules.

    python bench/bench_python.py [--repeat N] [PATHS...]

The files are the top-level modules of the running Python's standard library (168 on
CPython 3.11), or PATHS.  Each tool runs as a process on the same files, the best of N
runs is kept, and both wall time and CPU time (user + system of the child) are printed:
on a loaded machine the CPU time is the steadier number.  heredoc-lint is also timed
in-process (`check_text` per file), which leaves out the interpreter start and imports.

Targets (issue 5): faster than bandit, under 1 s.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import sysconfig
import time
from collections.abc import Sequence
from pathlib import Path


def stdlib_modules() -> list[str]:
    return sorted(str(p) for p in Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(argv: Sequence[str], repeat: int) -> tuple[float, float]:
    """Best (wall, cpu) seconds over `repeat` runs of argv."""
    best_wall = best_cpu = float("inf")
    for _ in range(repeat):
        cpu = _children_cpu()
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        best_wall = min(best_wall, time.perf_counter() - start)
        best_cpu = min(best_cpu, _children_cpu() - cpu)
    return best_wall, best_cpu


def in_process(files: Sequence[str], repeat: int) -> tuple[float, float, int, int]:
    """Best (wall, cpu) of check_text over the files, the findings, the files parsed."""
    from heredoc_lint.engine import check_text
    from heredoc_lint.frontends.python import interesting

    texts = [Path(f).read_text(encoding="utf-8", errors="surrogateescape") for f in files]
    best_wall = best_cpu = float("inf")
    findings = 0
    for _ in range(repeat):
        cpu, start = time.process_time(), time.perf_counter()
        findings = sum(
            len(check_text(text, "python", name)) for name, text in zip(files, texts, strict=True)
        )
        best_wall = min(best_wall, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    parsed = sum(1 for text in texts if interesting(text))
    return best_wall, best_cpu, findings, parsed


def main(args: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args(args)
    files = options.paths or stdlib_modules()
    print(f"{len(files)} files ({sum(Path(f).stat().st_size for f in files) / 1e6:.1f} MB)")

    tools: dict[str, list[str] | None] = {
        "heredoc-lint": [sys.executable, "-m", "heredoc_lint", "--no-cache", "--quiet", *files],
        "bandit": ["bandit", "-q", "-f", "txt", *files] if shutil.which("bandit") else None,
        "ruff --select S6": (
            ["ruff", "check", "--isolated", "--no-cache", "--select", "S6", "--exit-zero", *files]
            if shutil.which("ruff")
            else None
        ),
    }
    times: dict[str, tuple[float, float]] = {}
    for name, argv in tools.items():
        if argv is None:
            print(f"{name:18} not installed")
            continue
        times[name] = run(argv, options.repeat)

    wall, cpu, findings, parsed = in_process(files, options.repeat)
    ours = times["heredoc-lint"]
    print(f"{'tool':18} {'wall s':>8} {'cpu s':>8} {'x heredoc-lint (cpu)':>22}")
    for name, (w, c) in times.items():
        print(f"{name:18} {w:8.3f} {c:8.3f} {c / ours[1]:22.2f}")
    print(
        f"{'(in-process)':18} {wall:8.3f} {cpu:8.3f}   check_text only: {parsed} files parsed,"
        f" {findings} findings"
    )
    verdicts = [f"under 1 s: {'yes' if ours[1] < 1 else 'NO'} ({ours[1]:.3f} s cpu)"]
    if "bandit" in times:
        bandit = times["bandit"][1]
        verdicts.append(
            f"faster than bandit: {'yes' if ours[1] < bandit else 'NO'} ({bandit / ours[1]:.1f}x)"
        )
    print("; ".join(verdicts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
