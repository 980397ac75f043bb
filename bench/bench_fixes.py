#!/usr/bin/env python3
"""Does `--fix --unsafe-fixes` break any file of the precision corpus?

    python3 bench/bench_fixes.py --snapshots DIR [--only OWNER/NAME]

For each repository of bench/corpus/repos.tsv (extracted at its commit under
DIR/OWNER+NAME, as for bench_precision.py --snapshots), the tool on PYTHONPATH
lists every finding at every severity; each file with a finding that offers a
fix it applies (safe or unsafe, not display-only) is copied (alone, at its
relative path) into a temporary directory, and `--fix --unsafe-fixes --severity
info` is applied to the copy. The copy is
broken when:

- a shell script (`.sh`, `.bash`, or a shell shebang) that passed `bash -n`
  before no longer does;
- a Python file that compiled before (`compile()` under this Python) no longer does;
- the tool reports more HL001 findings (a layer it can no longer parse: a remote
  string, a `-c` string, a Markdown or workflow block) than before the fix.

It prints per repository the files fixed and the broken ones with the reason,
then the totals. Nothing here is a pass/fail test: it exits 0. The third-party
files are never kept: the temporary directory is removed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_precision import CORPUS, read_repos  # noqa: E402

LINT = [sys.executable, "-m", "heredoc_lint", "--no-cache", "--format", "json"]
SHELLS = ("sh", "bash", "dash", "ksh", "zsh")


@dataclass(frozen=True)
class Outcome:
    path: str
    fixes: int
    changed: bool  # the fix changed the copy
    broken: str  # "" when the fixed copy is as sound as the original


def _findings(paths: list[Path]) -> list[dict[str, object]]:
    done = subprocess.run(
        [*LINT, "--severity", "info", *map(str, paths)],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        found: list[dict[str, object]] = json.loads(done.stdout or "[]")
    except json.JSONDecodeError:
        return []
    return found


def _is_shell(path: Path) -> bool:
    if path.suffix in (".sh", ".bash"):
        return True
    try:
        first = path.read_bytes()[:128].split(b"\n", 1)[0].decode(errors="replace")
    except OSError:
        return False
    return first.startswith("#!") and any(first.rstrip().endswith(s) for s in SHELLS)


def _sound(path: Path) -> bool | None:
    """Whether the file parses in its own language (None: not a language checked here)."""
    if _is_shell(path):
        done = subprocess.run(["bash", "-n", str(path)], capture_output=True, check=False)
        return done.returncode == 0
    if path.suffix == ".py":
        try:
            compile(path.read_bytes(), str(path), "exec")
        except (SyntaxError, ValueError):
            return False
        return True
    return None


def _hl001(found: list[dict[str, object]]) -> int:
    return sum(1 for f in found if f["code"] == "HL001")


def check_file(root: Path, relative: str, fixes: int, work: Path) -> Outcome:
    copy = work / relative
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(root / relative, copy)
    original = copy.read_bytes()
    sound_before = _sound(copy)
    parse_errors_before = _hl001(_findings([copy]))
    subprocess.run(
        [*LINT, "--severity", "info", "--fix", "--unsafe-fixes", str(copy)],
        capture_output=True,
        text=True,
        check=False,
    )
    broken = ""
    if sound_before and not _sound(copy):
        broken = "no longer parses (bash -n / compile)"
    elif _hl001(_findings([copy])) > parse_errors_before:
        broken = "more HL001 after the fix"
    return Outcome(relative, fixes, copy.read_bytes() != original, broken)


def check_repo(name: str, root: Path) -> list[Outcome]:
    found = _findings([root])
    fixable: Counter[str] = Counter()
    for item in found:
        fix = item.get("fix")
        if isinstance(fix, dict) and fix.get("applicability") in ("safe", "unsafe"):
            fixable[Path(str(item["path"])).relative_to(root).as_posix()] += 1
    with tempfile.TemporaryDirectory(prefix="heredoc-lint-fixes-") as tmp:
        return [check_file(root, rel, n, Path(tmp)) for rel, n in sorted(fixable.items())]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--snapshots", type=Path, required=True)
    parser.add_argument("--repos", type=Path, default=CORPUS / "repos.tsv")
    parser.add_argument("--only", default="")
    args = parser.parse_args(argv)
    files = fixes = broken = changed = 0
    for repo in read_repos(args.repos):
        if args.only and repo.name != args.only:
            continue
        root = args.snapshots / repo.name.replace("/", "+")
        if not root.is_dir():
            print(f"{repo.name}: no snapshot", file=sys.stderr)
            continue
        outcomes = check_repo(repo.name, root)
        if not outcomes:
            continue
        bad = [o for o in outcomes if o.broken]
        files += len(outcomes)
        fixes += sum(o.fixes for o in outcomes)
        broken += len(bad)
        changed += sum(o.changed for o in outcomes)
        print(
            f"{repo.name}: {len(outcomes)} files with fixes, "
            f"{sum(o.changed for o in outcomes)} changed, {len(bad)} broken"
        )
        for outcome in bad:
            print(f"  BROKEN {outcome.path}: {outcome.broken}")
    print(
        f"\nall: {files} files, {fixes} findings with a fix, {changed} files changed, "
        f"{broken} files broken"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
