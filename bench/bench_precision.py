#!/usr/bin/env python3
"""Precision per rule on real public repositories, from a hand-labelled manifest.

    python3 bench/bench_precision.py [--mirrors DIR | --snapshots DIR] [--unlabelled]
                                     [--list VERDICT]

The corpus is listed in bench/corpus/repos.tsv (repository, commit, why chosen,
files checked) and every finding read by hand in bench/corpus/manifest.tsv
(repository, commit, path, line, code, verdict, reason, column), verdict one of
TP, FP, debatable, the reason starting with a pattern tag that
bench/corpus/patterns.md describes. The third-party files themselves are never in the project:
each repository is read from a git mirror made by the search tool's `fetch`
(/work/.mirror/OWNER+NAME/repo, the default) and extracted at the commit of
repos.tsv into a temporary directory, or, with --snapshots DIR, taken from
DIR/OWNER+NAME as already extracted at that commit.

The tool found on PYTHONPATH is run over each whole repository at the default
severity (`python3 -m heredoc_lint --no-cache --format json`), and each finding
is matched to the manifest by (repository, path, line, code); where the manifest
has several rows for one key (two findings on one line), the row of the nearest
column is taken. It prints per rule: findings, TP, FP, debatable, unlabelled,
precision TP/(TP+FP), the share of debatable findings, and the number of
repositories and files with findings; then the same for all rules and for
Python sources apart from the rest (scripts, Markdown, workflows), and the
labelled findings no longer reported (a real bug that is no longer found is
listed by name). --list VERDICT lists the reported findings labelled VERDICT with
their reasons. --unlabelled lists each unlabelled finding as a manifest row
to fill in (VERDICT, REASON), with its message and a code frame. Nothing here is
a pass/fail test: it exits 0. --patterns only counts the manifest's labels per
pattern tag; --reproducers runs the reproducer of each pattern of
bench/corpus/patterns.md through the tool and says whether its rule still
reports it (a real bug's reproducer that is no longer reported says MISSED).

Batches. The corpus grows in batches (repos.tsv's `batch` column): a batch is
fetched and labelled after the last change to any rule, and its figures at that
moment are its first-look figures, the only ones that say how the rules
generalise. bench/corpus/batches.tsv keeps them per batch and per rule (batch,
rule, date fetched, the commit of heredoc-lint that produced them, findings, TP,
FP, debatable, note; rule "all" is the batch's total), written once by
`--first-look BATCH --tool-commit COMMIT` (refused while a finding of the batch
is unlabelled, or when the batch already has a row) and never recomputed. After
the tables above, the bench prints for each batch and each rule: findings, TP,
FP, debatable, unlabelled, precision TP/(TP+FP) and worth reading TP/all (a
debatable finding costs the reader as much as a wrong one), today's figures
beside the recorded first-look ones. --batch NAME runs one batch only.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
VERDICTS = ("TP", "FP", "debatable")
LINT = [sys.executable, "-m", "heredoc_lint", "--no-cache", "--format", "json"]


@dataclass(frozen=True)
class Repo:
    name: str  # owner/name
    commit: str
    batch: str = ""  # the batch it was fetched in (repos.tsv)


@dataclass(frozen=True)
class FirstLook:
    """One row of batches.tsv: a batch's figures for one rule when first measured."""

    batch: str
    rule: str  # a code, or "all"
    fetched: str
    tool_commit: str
    findings: int | None  # None: not recorded ("-"), as for a batch the rules were tuned on
    tp: int | None
    fp: int | None
    debatable: int | None
    note: str = ""


FIRST_LOOK_COLUMNS = (
    "batch",
    "rule",
    "fetched",
    "tool_commit",
    "findings",
    "TP",
    "FP",
    "debatable",
    "note",
)


@dataclass(frozen=True)
class Label:
    repo: str
    commit: str
    path: str
    line: int
    code: str
    verdict: str
    reason: str
    column: int | None


@dataclass(frozen=True)
class Finding:
    repo: str
    path: str  # relative to the repository's root
    line: int
    column: int
    code: str
    message: str
    kind: str = ""  # "python", or "shell" for scripts, Markdown and workflows
    evidence: str = ""  # what raised it at its severity (heredoc_lint.severities)


def _rows(path: Path) -> Iterator[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        yield from csv.DictReader(
            (line for line in handle if not line.startswith("#")),
            delimiter="\t",
            quoting=csv.QUOTE_NONE,
        )


def read_repos(path: Path) -> list[Repo]:
    return [
        Repo(row["repository"], row["commit"], (row.get("batch") or "").strip())
        for row in _rows(path)
    ]


def _count(text: str) -> int | None:
    return None if text.strip() in ("", "-") else int(text)


def read_first_looks(path: Path) -> list[FirstLook]:
    if not path.exists():
        return []
    return [
        FirstLook(
            row["batch"],
            row["rule"],
            row["fetched"],
            row["tool_commit"],
            _count(row["findings"]),
            _count(row["TP"]),
            _count(row["FP"]),
            _count(row["debatable"]),
            row.get("note") or "",
        )
        for row in _rows(path)
    ]


def read_manifest(path: Path) -> list[Label]:
    labels = []
    for row in _rows(path):
        if row["verdict"] not in VERDICTS:
            raise SystemExit(f"bench: unknown verdict {row['verdict']!r} in {path}: {row}")
        column = row.get("column") or ""
        labels.append(
            Label(
                row["repository"],
                row["commit"],
                row["path"],
                int(row["line"]),
                row["code"],
                row["verdict"],
                row["reason"],
                int(column) if column.isdigit() else None,
            )
        )
    return labels


def mirror_dir(mirrors: Path, repo: str) -> Path:
    """The git directory of a mirror: OWNER+NAME/repo, bare or with a .git inside."""
    bare = mirrors / repo.replace("/", "+") / "repo"
    return bare / ".git" if (bare / ".git").is_dir() else bare


def extract(git_dir: Path, commit: str, into: Path) -> None:
    """Write the tree of `commit` into `into`, with its modes (an executable without a
    suffix is checked by its shebang) and its symbolic links. A mirror lacks its
    largest blobs (4 MiB and more): those files are left out, as the tool would skip
    nothing of interest in them, and `git archive` would stop at the first one."""
    listing = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", "--full-tree", commit],
        capture_output=True,
        check=True,
    ).stdout
    entries = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, raw_name = record.partition(b"\t")
        mode, kind, sha = meta.split()
        if kind == b"blob":
            entries.append((mode, sha, os.fsdecode(raw_name)))
    batch = subprocess.Popen(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert batch.stdin is not None and batch.stdout is not None
    for mode, sha, name in entries:
        batch.stdin.write(sha + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            continue
        data = batch.stdout.read(int(header[2]))
        batch.stdout.read(1)  # the newline after each object
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.parent.resolve().is_relative_to(into.resolve()):
            continue  # never write through a symbolic link of the snapshot
        if mode == b"120000":
            target.symlink_to(os.fsdecode(data))
            continue
        target.write_bytes(data)
        if mode == b"100755":
            target.chmod(0o755)
    batch.stdin.close()
    batch.wait()


def files_checked(root: Path) -> int:
    """How many files the tool on PYTHONPATH reads below `root`."""
    from heredoc_lint.run.discover import discover

    return len(discover([root])[0])


def kind(path: Path) -> str:
    """Python sources apart from the rest (scripts, runbooks, workflows), as WILD.md
    counts them."""
    from heredoc_lint.run.discover import kind_of

    return "python" if kind_of(path) == "python" else "shell"


def lint(repo: str, root: Path) -> list[Finding]:
    # Run from the repository's root on `.`, as its users and pre-commit run the tool: the
    # paths the rules see are relative to the checkout (HL201 reads `tests/` in them).
    done = subprocess.run([*LINT, "."], capture_output=True, text=True, check=False, cwd=root)
    try:
        raw = json.loads(done.stdout or "[]")
    except json.JSONDecodeError:
        print(f"bench: {repo}: no JSON from the tool: {done.stderr[-500:]}", file=sys.stderr)
        return []
    return [
        Finding(
            repo,
            Path(item["path"]).as_posix().removeprefix("./"),
            item["line"],
            item["column"],
            item["code"],
            item["message"],
            kind(root / item["path"]),
            item.get("evidence", ""),
        )
        for item in raw
    ]


Matched = list[tuple[Finding, "Label | None"]]


def match(findings: Iterable[Finding], labels: Iterable[Label]) -> Matched:
    """Each finding with its manifest row, or None. A list, not a mapping: the tool
    can report one value twice at one place, and each report counts."""
    by_key: dict[tuple[str, str, int, str], list[Label]] = defaultdict(list)
    for label in labels:
        by_key[label.repo, label.path, label.line, label.code].append(label)
    matched: Matched = []
    for finding in findings:
        rows = by_key.get((finding.repo, finding.path, finding.line, finding.code), [])
        nearest = min(
            rows,
            key=lambda row: abs((row.column or finding.column) - finding.column),
            default=None,
        )
        matched.append((finding, nearest))
    return matched


def frame(root: Path, finding: Finding, around: int = 2) -> str:
    try:
        lines = (root / finding.path).read_text(errors="replace").splitlines()
    except OSError:
        return ""
    start = max(finding.line - 1 - around, 0)
    shown = []
    for number in range(start, min(finding.line + around, len(lines))):
        mark = ">" if number + 1 == finding.line else " "
        shown.append(f"  {mark}{number + 1:5} | {lines[number][:160]}")
    return "\n".join(shown)


def precision(tp: int, fp: int) -> str:
    return f"{tp / (tp + fp):.2f}" if tp + fp else "-"


def report(matched: Matched, labels: list[Label]) -> None:
    per_rule: dict[str, list[tuple[Finding, Label | None]]] = defaultdict(list)
    for finding, label in matched:
        per_rule[finding.code].append((finding, label))
    header = ("findings", "TP", "FP", "debatable", "unlabelled", "precision", "debatable%")
    columns = "{:<8}{:>9}{:>5}{:>5}{:>10}{:>11}{:>10}{:>11}{:>6}{:>6}"
    print(columns.format("rule", *header, "repos", "files"))
    everything = [(f, lab) for rows in per_rule.values() for f, lab in rows]
    for code, rows in [*sorted(per_rule.items()), ("all", everything)]:
        print(_table_row(code, rows))
    by_kind: dict[str, list[tuple[Finding, Label | None]]] = defaultdict(list)
    for finding, label in everything:
        by_kind[finding.kind].append((finding, label))
    print("\n" + columns.format("kind", *header, "repos", "files"))
    for name, rows in sorted(by_kind.items()):
        print(_table_row(name, rows))
    found = {id(label) for _, label in matched if label is not None}
    gone = [label for label in labels if id(label) not in found]
    if gone:
        by_verdict = {v: sum(1 for lab in gone if lab.verdict == v) for v in VERDICTS}
        print(
            f"\nlabelled but no longer reported: {len(gone)} "
            + ", ".join(f"{v} {n}" for v, n in by_verdict.items())
        )
        for label in gone:
            if label.verdict == "TP":
                print(
                    f"  real bug no longer found: {label.repo} {label.path}:{label.line} "
                    f"{label.code} ({label.reason})"
                )


def listed(matched: Matched, verdict: str) -> None:
    """The reported findings labelled `verdict`, one a line with the label's reason."""
    rows = [(f, lab) for f, lab in matched if lab is not None and lab.verdict == verdict]
    print(f"\n{len(rows)} reported findings labelled {verdict}:")
    for finding, label in sorted(rows, key=lambda r: (r[0].code, r[0].repo, r[0].path, r[0].line)):
        print(
            f"  {finding.code} {finding.repo} {finding.path}:{finding.line}:{finding.column} "
            f"({label.reason})"
        )


def _table_row(name: str, rows: list[tuple[Finding, Label | None]]) -> str:
    verdicts = [label.verdict if label else None for _, label in rows]
    tp, fp, deb = (verdicts.count(v) for v in VERDICTS)
    share = f"{deb / len(rows):.0%}" if rows else "-"
    return (
        f"{name:<8}{len(rows):>9}{tp:>5}{fp:>5}{deb:>10}{verdicts.count(None):>11}"
        f"{precision(tp, fp):>10}{share:>11}"
        f"{len({f.repo for f, _ in rows}):>6}{len({(f.repo, f.path) for f, _ in rows}):>6}"
    )


def worth(tp: int, total: int) -> str:
    """Worth reading: the share of all findings that are real bugs."""
    return f"{tp / total:.2f}" if total else "-"


def _counts(rows: list[tuple[Finding, Label | None]]) -> tuple[int, int, int, int, int]:
    """findings, TP, FP, debatable, unlabelled."""
    verdicts = [label.verdict if label else None for _, label in rows]
    tp, fp, deb = (verdicts.count(v) for v in VERDICTS)
    return len(rows), tp, fp, deb, verdicts.count(None)


def _recorded(look: FirstLook | None) -> str:
    if look is None or look.findings is None:
        return "{:>9}{:>5}{:>5}{:>10}{:>11}{:>8}".format(*"-" * 6)
    tp, fp, deb = look.tp or 0, look.fp or 0, look.debatable or 0
    return (
        f"{look.findings:>9}{tp:>5}{fp:>5}{deb:>10}"
        f"{precision(tp, fp):>11}{worth(tp, look.findings):>8}"
    )


def batch_report(
    matched: Matched, repos: list[Repo], first_looks: list[FirstLook], by_evidence: bool = False
) -> None:
    """Per batch and per rule (and with `by_evidence`, per rule and evidence kind too, as
    CODE:EVIDENCE): today's figures, and beside them the batch's first-look figures as
    batches.tsv recorded them."""
    batch_of = {repo.name: repo.batch or "(no batch)" for repo in repos}
    width = 40 if by_evidence else 8
    for batch in dict.fromkeys(batch_of[repo.name] for repo in repos):
        rows = [(f, lab) for f, lab in matched if batch_of.get(f.repo) == batch]
        recorded = {look.rule: look for look in first_looks if look.batch == batch}
        count = sum(1 for name in batch_of.values() if name == batch)
        total = recorded.get("all")
        if recorded:
            first = next(iter(recorded.values()))
            when = f"fetched {first.fetched}, first look at {first.tool_commit}"
        else:
            when = "no first look recorded"
        print(f"\nbatch {batch}: {count} repositories, {when}")
        if total is not None and total.note:
            print(f"  {total.note}")
        print(
            f"  {'rule':<{width}}{'findings':>9}{'TP':>5}{'FP':>5}{'debatable':>10}"
            f"{'unlabelled':>11}{'TP/(TP+FP)':>11}{'TP/all':>8}   first look: "
            f"{'findings':>9}{'TP':>5}{'FP':>5}{'debatable':>10}{'TP/(TP+FP)':>11}{'TP/all':>8}"
        )
        per_rule: dict[str, list[tuple[Finding, Label | None]]] = defaultdict(list)
        for finding, label in rows:
            per_rule[finding.code].append((finding, label))
            if by_evidence:
                per_rule[f"{finding.code}:{finding.evidence}"].append((finding, label))
        codes = sorted(set(per_rule) | (set(recorded) - {"all"}))
        for code in [*codes, "all"]:
            found, tp, fp, deb, unlabelled = _counts(rows if code == "all" else per_rule[code])
            print(
                f"  {code:<{width}}{found:>9}{tp:>5}{fp:>5}{deb:>10}{unlabelled:>11}"
                f"{precision(tp, fp):>11}{worth(tp, found):>8}   first look: "
                + _recorded(recorded.get(code))
            )


def first_look(batch: str, matched: Matched, fetched: str, tool_commit: str) -> list[FirstLook]:
    """The first-look rows of a batch, per rule and "all", from its findings now: every
    finding must be labelled first (an unlabelled one would be counted as nothing)."""
    unlabelled = [f for f, label in matched if label is None]
    if unlabelled:
        raise SystemExit(
            f"bench: batch {batch}: {len(unlabelled)} findings are unlabelled; "
            "label every one (--unlabelled) before recording its first look"
        )
    per_rule: dict[str, list[tuple[Finding, Label | None]]] = defaultdict(list)
    for finding, label in matched:
        per_rule[finding.code].append((finding, label))
    looks = []
    for code, rows in [*sorted(per_rule.items()), ("all", matched)]:
        found, tp, fp, deb, _ = _counts(rows)
        looks.append(FirstLook(batch, code, fetched, tool_commit, found, tp, fp, deb))
    return looks


def write_first_looks(path: Path, looks: list[FirstLook]) -> None:
    """Append a batch's first-look rows to batches.tsv; a batch already there is never
    written again (its first look is kept as it was measured)."""
    batches = {look.batch for look in looks}
    known = {look.batch for look in read_first_looks(path)}
    if batches & known:
        again = ", ".join(sorted(batches & known))
        raise SystemExit(
            f"bench: {path.name} already holds the first look of {again}:"
            " it is recorded once and never recomputed"
        )
    new = not path.exists()
    with path.open("a", encoding="utf-8") as handle:
        if new:
            handle.write(
                "# First-look figures per batch and rule (bench/bench_precision.py): measured\n"
                "# once, when the batch was fetched and labelled after the last rule change,\n"
                "# with heredoc-lint at tool_commit; never recomputed. rule all: the batch total.\n"
                + "\t".join(FIRST_LOOK_COLUMNS)
                + "\n"
            )
        for look in looks:
            values = (look.findings, look.tp, look.fp, look.debatable)
            handle.write(
                "\t".join(
                    [
                        look.batch,
                        look.rule,
                        look.fetched,
                        look.tool_commit,
                        *("-" if v is None else str(v) for v in values),
                        look.note,
                    ]
                )
                + "\n"
            )


def pattern_counts(labels: list[Label]) -> None:
    """Labels per pattern tag (the reason up to its first colon), with their rules."""
    counts: dict[tuple[str, str], list[str]] = defaultdict(list)
    for label in labels:
        counts[label.verdict, label.reason.split(":", 1)[0]].append(label.code)
    print(f"{'verdict':<10}{'pattern':<24}{'labels':>7}  rules")
    for (verdict, tag), codes in sorted(counts.items(), key=lambda kv: (kv[0][0], -len(kv[1]))):
        rules = ", ".join(f"{code} {codes.count(code)}" for code in sorted(set(codes)))
        print(f"{verdict:<10}{tag:<24}{len(codes):>7}  {rules}")


REPRODUCER = re.compile(r"^(```|~~~)(\w+)\n(.*?)^\1$", re.M | re.S)
SUFFIX = {"bash": ".sh", "python": ".py", "markdown": ".md"}


def reproducers(patterns: Path) -> None:
    """Run the first example of each pattern of patterns.md through the tool. A
    false-positive or debatable pattern is "still reported" until its rule stops
    firing; a real bug's reproducer must stay reported."""
    kinds = {"False positives": "FP", "Debatable": "debatable", "Real bugs": "TP"}
    text = patterns.read_text(encoding="utf-8")
    for part in re.split(r"^## ", text, flags=re.M)[1:]:
        kind = next((v for k, v in kinds.items() if part.startswith(k)), None)
        if kind is None:
            continue
        for section in re.split(r"^### ", part, flags=re.M)[1:]:
            title = section.splitlines()[0]
            found = REPRODUCER.search(section)
            if found is None:
                continue
            codes = _lint_example(found[2], found[3])
            named = set(re.findall(r"HL\d+", title))
            state = "still reported" if named & set(codes) else "silent"
            if kind == "TP" and state == "silent":
                state = "MISSED"
            print(f"{kind:<10}{title:<40}{state:<16}{' '.join(codes)}")


def _lint_example(language: str, body: str) -> list[str]:
    """The codes the tool reports on one example, written as a file of its kind."""
    with tempfile.TemporaryDirectory(prefix="bench-reproducer-") as scratch:
        # a workflow is only read as one under .github/workflows
        name = ".github/workflows/ci.yml" if language == "yaml" else "x" + SUFFIX[language]
        # A project of its own: the tool looks for the example's callers up to a `.git`,
        # and /tmp's other files are not its project (one ran an `x.sh` as another user).
        (Path(scratch) / ".git").mkdir()
        path = Path(scratch) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
        done = subprocess.run([*LINT, str(path)], capture_output=True, text=True, check=False)
    return sorted({item["code"] for item in json.loads(done.stdout or "[]")})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--mirrors",
        type=Path,
        default=Path("/work/.mirror"),
        help="git mirrors as OWNER+NAME/repo (the default source)",
    )
    parser.add_argument(
        "--snapshots", type=Path, help="a directory of extracted snapshots, OWNER+NAME each"
    )
    parser.add_argument("--manifest", type=Path, default=CORPUS / "manifest.tsv")
    parser.add_argument("--repos", type=Path, default=CORPUS / "repos.tsv")
    parser.add_argument(
        "--only", action="append", default=[], help="only this repository (OWNER/NAME; repeatable)"
    )
    parser.add_argument(
        "--unlabelled", action="store_true", help="list each unlabelled finding with a code frame"
    )
    parser.add_argument(
        "--list",
        action="append",
        default=[],
        choices=VERDICTS,
        help="list each reported finding labelled VERDICT, with its reason (repeatable)",
    )
    parser.add_argument(
        "--patterns",
        action="store_true",
        help="only count the manifest's labels per pattern tag (runs nothing)",
    )
    parser.add_argument(
        "--reproducers",
        action="store_true",
        help="run the reproducer of each pattern of patterns.md through the tool",
    )
    parser.add_argument("--batches", type=Path, default=CORPUS / "batches.tsv")
    parser.add_argument(
        "--by-evidence",
        action="store_true",
        help="in each batch, a row per rule and evidence kind too (CODE:EVIDENCE)",
    )
    parser.add_argument(
        "--batch",
        action="append",
        default=[],
        help="only the repositories of this batch (repos.tsv's batch column; repeatable)",
    )
    parser.add_argument(
        "--first-look",
        metavar="BATCH",
        help="record the figures of BATCH, every finding labelled, in batches.tsv (once)",
    )
    parser.add_argument(
        "--tool-commit", help="with --first-look: the commit of heredoc-lint being run"
    )
    parser.add_argument(
        "--fetched",
        default=datetime.datetime.now(datetime.UTC).date().isoformat(),
        help="with --first-look: the date the batch was fetched (default: today, UTC)",
    )
    args = parser.parse_args(argv)
    if args.first_look:
        if not args.tool_commit:
            parser.error("--first-look needs --tool-commit: the commit of the tool that is run")
        if args.only:
            parser.error("--first-look measures a whole batch: it does not take --only")
        args.batch = [args.first_look]
    if args.reproducers:
        reproducers(CORPUS / "patterns.md")
        return 0

    labels = read_manifest(args.manifest) if args.manifest.exists() else []
    repos = [
        r
        for r in read_repos(args.repos)
        if (not args.only or r.name in args.only) and (not args.batch or r.batch in args.batch)
    ]
    if args.first_look and not repos:
        raise SystemExit(f"bench: no repository of batch {args.first_look} in {args.repos}")
    commits = {repo.name: repo.commit for repo in repos}
    labels = [label for label in labels if label.repo in commits]
    stale = sorted({label.repo for label in labels if label.commit != commits[label.repo]})
    for name in stale:  # its labels were read at another commit: they may not match
        print(f"bench: {name}: manifest commit differs from repos.tsv", file=sys.stderr)
    if args.patterns:
        pattern_counts(labels)
        return 0
    matched: Matched = []
    files = 0
    missing: list[str] = []
    unlabelled: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-precision-") as scratch:
        for repo in repos:
            slug = repo.name.replace("/", "+")
            if args.snapshots:
                root = args.snapshots / slug
            else:
                git_dir = mirror_dir(args.mirrors, repo.name)
                if not git_dir.is_dir():
                    print(f"bench: {repo.name}: no mirror at {git_dir}", file=sys.stderr)
                    missing.append(repo.name)
                    continue
                root = Path(scratch) / slug
                root.mkdir()
                extract(git_dir, repo.commit, root)
            if not root.is_dir():
                print(f"bench: {repo.name}: no snapshot at {root}", file=sys.stderr)
                missing.append(repo.name)
                continue
            files += files_checked(root)
            here = match(lint(repo.name, root), labels)
            matched.extend(here)
            if args.unlabelled:
                for finding, label in here:
                    if label is None:
                        # a manifest row with its verdict and reason left to fill in
                        row = (
                            repo.name,
                            repo.commit,
                            finding.path,
                            finding.line,
                            finding.code,
                            "VERDICT",
                            "REASON",
                            finding.column,
                        )
                        unlabelled.append(
                            "\t".join(map(str, row))
                            + f"\n  {finding.message}\n{frame(root, finding)}\n"
                        )
    if args.first_look:
        if missing:
            raise SystemExit(
                f"bench: batch {args.first_look}: {len(missing)} repositories not read; "
                "a first look covers the whole batch"
            )
        looks = first_look(args.first_look, matched, args.fetched, args.tool_commit)
        write_first_looks(args.batches, looks)
        print(f"first look of {args.first_look} recorded in {args.batches.name}\n")
    print(f"{len(repos)} repositories, {files} files checked, {len(labels)} labels\n")
    report(matched, labels)
    batch_report(matched, repos, read_first_looks(args.batches), args.by_evidence)
    for verdict in args.list:
        listed(matched, verdict)
    if unlabelled:
        print(f"\n{len(unlabelled)} unlabelled findings:\n")
        print("\n".join(unlabelled))
    return 0


if __name__ == "__main__":
    sys.exit(main())
