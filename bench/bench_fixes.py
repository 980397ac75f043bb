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


def _per_file(found: list[dict[str, object]], root: Path) -> Counter[str]:
    """HL001 findings per file, by path relative to `root`."""
    return Counter(
        Path(str(f["path"])).relative_to(root).as_posix() for f in found if f["code"] == "HL001"
    )


def check_repo(name: str, root: Path) -> list[Outcome]:
    """Three runs of the tool per repository: list, fix the copies, list the copies."""
    found = _findings([root])
    fixable: Counter[str] = Counter()
    for item in found:
        fix = item.get("fix")
        if isinstance(fix, dict) and fix.get("applicability") in ("safe", "unsafe"):
            fixable[Path(str(item["path"])).relative_to(root).as_posix()] += 1
    if not fixable:
        return []
    before = _per_file(found, root)
    with tempfile.TemporaryDirectory(prefix="heredoc-lint-fixes-") as tmp:
        work = Path(tmp)
        copies = {rel: work / rel for rel in fixable}
        originals: dict[str, bytes] = {}
        sound: dict[str, bool | None] = {}
        for rel, copy in copies.items():
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / rel, copy)
            originals[rel] = copy.read_bytes()
            sound[rel] = _sound(copy)
        subprocess.run(
            [*LINT, "--severity", "info", "--fix", "--unsafe-fixes", *map(str, copies.values())],
            capture_output=True,
            text=True,
            check=False,
        )
        after = _per_file(_findings(list(copies.values())), work)
        outcomes = []
        for rel, copy in sorted(copies.items()):
            broken = ""
            if sound[rel] and not _sound(copy):
                broken = "no longer parses (bash -n / compile)"
            elif after[rel] > before[rel]:
                broken = f"HL001 {before[rel]} -> {after[rel]} after the fix"
            changed = copy.read_bytes() != originals[rel]
            outcomes.append(Outcome(rel, fixable[rel], changed, broken))
        return outcomes


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
