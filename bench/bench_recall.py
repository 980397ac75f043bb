#!/usr/bin/env python3
"""Recall per rule and per shape on real bugs found without the tool.

    python3 bench/bench_recall.py [--mirrors DIR | --snapshots DIR] [--only OWNER/NAME]
                                  [--files-only] [--reproducers-only] [--list-missed]

bench/recall/bugs.tsv lists real bugs found in public code by searching for the bug
patterns themselves (code search and issue trackers, then reading the file), each
reproduced at run time by a small program of our own in bench/recall/reproducers/
(bench/recall/reproduce.py runs them against a loopback sshd). Columns: repository,
commit, path, line, also_lines, rule, shape, runtime, reproducer, source, note.

Each repository is read from a git mirror (MIRRORS/OWNER+NAME/repo, MIRRORS from
--mirrors or the RECALL_MIRRORS environment variable) and extracted at the manifest's
commit into a temporary directory, with the helpers of bench/bench_precision.py; or,
with --snapshots DIR, taken from DIR/OWNER+NAME/COMMIT as already extracted. The
third-party files themselves are never part of this project. The tool found on PYTHONPATH is
run over the whole repository from its root, as its users run it, with
`--severity info` so that every finding is seen with its severity (--files-only runs
it on the manifest's files alone: faster, but blind to sourced files and modules).

A bug counts as FOUND when a finding of its rule is in its file and either starts on
one of the bug's lines (`line`, the line of the faulty word, or one of `also_lines`:
the call that reaches it, the helper's sink, the loop that feeds it) or spans the
bug's `line` (a multi-line finding from `line` to `end_line`). It is found "at default
severity" when that finding is an error or a warning (what `heredoc-lint` prints by
default), "at any severity" when it is only info. Everything else is MISSED.

It prints recall per rule and per shape (bugs, found at default severity, found at any
severity, missed, and default-severity recall), then each reproducer run through the
tool on its own (codes at default severity / at info). Nothing here is a pass/fail
test: it exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_precision import _rows, extract, mirror_dir  # noqa: E402

RECALL = HERE / "recall"
MANIFEST = RECALL / "bugs.tsv"
REPRODUCERS = RECALL / "reproducers"
LINT = [
    sys.executable,
    "-m",
    "heredoc_lint",
    "--no-cache",
    "--format",
    "json",
    "--severity",
    "info",
]
COLUMNS = (
    "repository",
    "commit",
    "path",
    "line",
    "also_lines",
    "rule",
    "shape",
    "runtime",
    "reproducer",
    "source",
    "note",
)
DEFAULT_SEVERITIES = frozenset({"error", "warning"})


@dataclass(frozen=True)
class Bug:
    repo: str
    commit: str
    path: str
    line: int
    also_lines: tuple[int, ...]
    rule: str
    shape: str
    runtime: str
    reproducer: str
    source: str
    note: str

    @property
    def lines(self) -> frozenset[int]:
        return frozenset((self.line, *self.also_lines))


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    end_line: int
    code: str
    severity: str


def read_manifest(path: Path = MANIFEST) -> list[Bug]:
    """The manifest's rows; a malformed row stops the bench with its text."""
    bugs = []
    for row in _rows(path):
        if tuple(row) != COLUMNS:
            raise SystemExit(f"bench_recall: {path}: columns {tuple(row)} != {COLUMNS}")
        missing = [
            c for c in ("repository", "commit", "path", "line", "rule", "shape") if not row[c]
        ]
        if missing:
            raise SystemExit(f"bench_recall: {path}: empty {missing} in {row}")
        also = tuple(int(x) for x in row["also_lines"].split(",") if x.strip())
        bugs.append(
            Bug(
                row["repository"],
                row["commit"],
                row["path"],
                int(row["line"]),
                also,
                row["rule"],
                row["shape"],
                row["runtime"],
                row["reproducer"],
                row["source"],
                row["note"],
            )
        )
    return bugs


def parse_findings(raw: Iterable[dict[str, object]]) -> list[Finding]:
    return [
        Finding(
            Path(str(item["path"])).as_posix().removeprefix("./"),
            int(item["line"]),  # type: ignore[arg-type]
            int(item.get("end_line") or item["line"]),  # type: ignore[arg-type]
            str(item["code"]),
            str(item.get("severity", "")),
        )
        for item in raw
    ]


def matching(bug: Bug, findings: Iterable[Finding]) -> list[Finding]:
    """The findings that report `bug`: its rule, its file, and on one of its lines or
    spanning its line."""
    return [
        f
        for f in findings
        if f.code == bug.rule
        and f.path == bug.path
        and (f.line in bug.lines or f.line <= bug.line <= max(f.end_line, f.line))
    ]


def verdict(bug: Bug, findings: Iterable[Finding]) -> str:
    """'default', 'info' or 'missed'."""
    hits = matching(bug, findings)
    if any(f.severity in DEFAULT_SEVERITIES for f in hits):
        return "default"
    return "info" if hits else "missed"


def lint(root: Path, files: Iterable[str] | None = None) -> list[Finding]:
    targets = sorted(set(files)) if files is not None else ["."]
    done = subprocess.run([*LINT, *targets], capture_output=True, text=True, check=False, cwd=root)
    try:
        raw = json.loads(done.stdout or "[]")
    except json.JSONDecodeError:
        print(f"bench_recall: {root}: no JSON from the tool: {done.stderr[-300:]}", file=sys.stderr)
        return []
    return parse_findings(raw)


def run_repos(
    bugs: list[Bug], mirrors: Path | None, snapshots: Path | None, files_only: bool
) -> dict[Bug, str]:
    by_tree: dict[tuple[str, str], list[Bug]] = defaultdict(list)
    for bug in bugs:
        by_tree[bug.repo, bug.commit].append(bug)
    verdicts: dict[Bug, str] = {}
    for (repo, commit), tree_bugs in sorted(by_tree.items()):
        files = [b.path for b in tree_bugs] if files_only else None
        if snapshots is not None:
            root = snapshots / repo.replace("/", "+") / commit
            if not root.is_dir():
                print(f"bench_recall: no snapshot {root}", file=sys.stderr)
                verdicts.update((b, "no-source") for b in tree_bugs)
                continue
            findings = lint(root, files)
        else:
            assert mirrors is not None
            git_dir = mirror_dir(mirrors, repo)
            if not git_dir.exists():
                print(f"bench_recall: no mirror of {repo} in {mirrors}", file=sys.stderr)
                verdicts.update((b, "no-source") for b in tree_bugs)
                continue
            with tempfile.TemporaryDirectory(prefix="bench-recall-") as scratch:
                root = Path(scratch)
                extract(git_dir, commit, root)
                findings = lint(root, files)
        for bug in tree_bugs:
            verdicts[bug] = verdict(bug, findings)
    return verdicts


def _recall(found: int, total: int) -> str:
    return f"{found / total:.2f}" if total else "-"


def table(title: str, key, verdicts: dict[Bug, str]) -> None:
    groups: dict[str, list[str]] = defaultdict(list)
    for bug, v in verdicts.items():
        groups[key(bug)].append(v)
    head = "{:<20}{:>6}{:>10}{:>8}{:>8}{:>10}{:>10}"
    print(head.format(title, "bugs", "default", "info", "missed", "recall", "recall*"))
    everything = [v for vs in groups.values() for v in vs]
    for name, vs in [*sorted(groups.items()), ("all", everything)]:
        d, i, m = vs.count("default"), vs.count("info"), vs.count("missed")
        print(head.format(name, len(vs), d, i, m, _recall(d, len(vs)), _recall(d + i, len(vs))))
    print("  (recall: found at default severity; recall*: found at any severity)\n")


def lint_reproducers(bugs: list[Bug]) -> None:
    """Run each reproducer file through the tool on its own and say which of the rules
    it stands for are reported."""
    wanted: dict[str, set[str]] = defaultdict(set)
    for bug in bugs:
        wanted[bug.reproducer].add(bug.rule)
    print(f"{'reproducer':<40}{'stands for':<16}{'default':<22}info")
    for path in sorted(p for p in REPRODUCERS.iterdir() if p.is_file()):
        done = subprocess.run([*LINT, str(path)], capture_output=True, text=True, check=False)
        try:
            findings = parse_findings(json.loads(done.stdout or "[]"))
        except json.JSONDecodeError:
            findings = []
        default = sorted({f.code for f in findings if f.severity in DEFAULT_SEVERITIES})
        info = sorted({f.code for f in findings} - set(default))
        rules = sorted(wanted.get(path.name, set()))
        state = (
            ""
            if not rules
            else ("  <- reported" if set(rules) <= set(default) else "  <- MISSED at default")
        )
        print(
            f"{path.name:<40}{','.join(rules) or '-':<16}{' '.join(default) or '-':<22}"
            f"{' '.join(info) or '-'}{state}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--mirrors",
        type=Path,
        default=Path(os.environ["RECALL_MIRRORS"]) if os.environ.get("RECALL_MIRRORS") else None,
        help="git mirrors as OWNER+NAME/repo (default: $RECALL_MIRRORS)",
    )
    parser.add_argument("--snapshots", type=Path, help="DIR/OWNER+NAME/COMMIT, extracted")
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--only", action="append", default=[], help="OWNER/NAME (repeatable)")
    parser.add_argument("--files-only", action="store_true", help="lint only the manifest's files")
    parser.add_argument("--reproducers-only", action="store_true", help="only lint the reproducers")
    parser.add_argument("--list-missed", action="store_true", help="list every missed bug")
    args = parser.parse_args(argv)

    bugs = read_manifest(args.manifest)
    if args.only:
        bugs = [b for b in bugs if b.repo in args.only]
    print(f"{len(bugs)} bugs in {len({b.repo for b in bugs})} repositories\n")
    if not args.reproducers_only:
        if args.mirrors is None and args.snapshots is None:
            parser.error("give --mirrors DIR (or set RECALL_MIRRORS) or --snapshots DIR")
        verdicts = run_repos(bugs, args.mirrors, args.snapshots, args.files_only)
        verdicts = {b: v for b, v in verdicts.items() if v != "no-source"}
        table("rule", lambda b: b.rule, verdicts)
        table("shape", lambda b: b.shape, verdicts)
        for bug, v in sorted(verdicts.items(), key=lambda kv: (kv[0].rule, kv[0].repo)):
            if v != "default" and (args.list_missed or v == "info"):
                print(f"  {v:<7}{bug.rule} {bug.shape:<18}{bug.repo} {bug.path}:{bug.line}")
        print()
    lint_reproducers(bugs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
