"""bench/bench_precision.py on a small git mirror made here: extraction, matching, table."""

from __future__ import annotations

import importlib.util
import os
import subprocess
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

DEPLOY = """#!/bin/bash
ssh "$HOST" "awk '{print $2}' /etc/hosts"
sudo echo 1 > /proc/sys/net/ipv4/ip_forward
"""


def _git(*args: str, cwd: Path) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }
    return subprocess.run(
        ["git", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


@pytest.fixture
def mirror(tmp_path: Path) -> tuple[Path, str]:
    """A mirror laid out as fetch leaves it: MIRRORS/owner+name/repo/.git."""
    work = tmp_path / "mirrors" / "owner+deploy" / "repo"
    work.mkdir(parents=True)
    _git("init", "-q", cwd=work)
    (work / "bin").mkdir()
    (work / "bin" / "deploy").write_text(DEPLOY)  # no suffix: read for its shebang
    (work / "bin" / "deploy").chmod(0o755)
    (work / "notes.txt").write_text("ssh h 'x'\n")
    (work / "link.sh").symlink_to("bin/deploy")
    _git("add", "-A", cwd=work)
    _git("commit", "-q", "-m", "one", cwd=work)
    commit = _git("rev-parse", "HEAD", cwd=work)
    (work / "bin" / "deploy").write_text("#!/bin/bash\ntrue\n")  # a later, clean version
    _git("commit", "-q", "-am", "two", cwd=work)
    return tmp_path / "mirrors", commit


def test_extract_writes_the_tree_of_that_commit_with_modes_and_links(
    mirror: tuple[Path, str], tmp_path: Path
) -> None:
    mirrors, commit = mirror
    into = tmp_path / "out"
    into.mkdir()
    bench.extract(bench.mirror_dir(mirrors, "owner/deploy"), commit, into)
    assert (into / "bin" / "deploy").read_text() == DEPLOY  # the first commit, not HEAD
    assert os.stat(into / "bin" / "deploy").st_mode & 0o111
    assert not os.stat(into / "notes.txt").st_mode & 0o111
    assert os.readlink(into / "link.sh") == "bin/deploy"


def _row(commit: str, line: int, code: str, verdict: str, column: int) -> str:
    return "\t".join(
        ["owner/deploy", commit, "bin/deploy", str(line), code, verdict, "tag: why", str(column)]
    )


def test_the_table_counts_each_finding_by_its_label(
    mirror: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mirrors, commit = mirror
    repos = tmp_path / "repos.tsv"
    repos.write_text(f"# a comment\nrepository\tcommit\twhy\tfiles\nowner/deploy\t{commit}\tx\t1\n")
    manifest = tmp_path / "manifest.tsv"
    header = "repository\tcommit\tpath\tline\tcode\tverdict\treason\tcolumn\n"
    manifest.write_text(header + _row(commit, 3, "HL109", "TP", 18) + "\n")
    assert (
        bench.main(
            [
                "--mirrors",
                str(mirrors),
                "--repos",
                str(repos),
                "--manifest",
                str(manifest),
                "--unlabelled",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "1 repositories, 2 files checked, 1 labels" in out  # bin/deploy and link.sh
    table = {
        line.split()[0]: line.split()[1:]
        for line in out.splitlines()
        if line.startswith("HL1") or line.startswith("all ")
    }
    # findings TP FP debatable unlabelled precision debatable% repos files; link.sh is
    # checked as a file of its own, and its findings have no label
    assert table["HL109"] == ["2", "1", "0", "0", "1", "1.00", "0%", "1", "2"]
    assert table["HL102"] == ["2", "0", "0", "0", "2", "-", "0%", "1", "2"]
    # by kind: the four findings are all in a shell script (none in Python)
    kinds = [line.split() for line in out.splitlines() if line.startswith(("shell", "python"))]
    assert kinds == [["shell", "4", "1", "0", "0", "3", "1.00", "0%", "1", "2"]]
    # the unlabelled finding is printed as a manifest row to fill in, with its frame
    assert f"owner/deploy\t{commit}\tbin/deploy\t2\tHL102\tVERDICT\tREASON\t" in out
    assert '>    2 | ssh "$HOST"' in out


def test_a_label_no_longer_reported_is_listed_by_name(
    mirror: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mirrors, commit = mirror
    repos = tmp_path / "repos.tsv"
    repos.write_text(f"repository\tcommit\twhy\tfiles\nowner/deploy\t{commit}\tx\t1\n")
    manifest = tmp_path / "manifest.tsv"
    header = "repository\tcommit\tpath\tline\tcode\tverdict\treason\tcolumn\n"
    manifest.write_text(header + _row(commit, 9, "HL103", "TP", 1) + "\n")
    bench.main(["--mirrors", str(mirrors), "--repos", str(repos), "--manifest", str(manifest)])
    assert "real bug no longer found: owner/deploy bin/deploy:9 HL103" in capsys.readouterr().out


def test_match_takes_the_row_of_the_nearest_column_and_keeps_repeats() -> None:
    rows = [
        bench.Label("o/r", "c", "a.py", 4, "HL201", verdict, "t: r", column)
        for verdict, column in (("TP", 10), ("FP", 40))
    ]
    found = [bench.Finding("o/r", "a.py", 4, column, "HL201", "m") for column in (38, 38, 11)]
    verdicts = [label.verdict for _, label in bench.match(found, rows)]
    assert verdicts == ["FP", "FP", "TP"]
    lone = bench.Finding("o/r", "a.py", 5, 1, "HL201", "m")
    assert bench.match([lone], rows) == [(lone, None)]


# -- --list VERDICT: which labelled findings are reported now -------------------------
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


# -- batches: per-batch tables beside the recorded first look, and recording it once ---
HEADER = "repository\tcommit\tpath\tline\tcode\tverdict\treason\tcolumn\n"
LOOKS = "batch\trule\tfetched\ttool_commit\tfindings\tTP\tFP\tdebatable\tnote\n"


def _labels(commit: str, verdicts: dict[tuple[str, int, str], str]) -> str:
    return HEADER + "".join(
        "\t".join(["owner/deploy", commit, path, str(line), code, verdict, "tag: why", ""]) + "\n"
        for (path, line, code), verdict in verdicts.items()
    )


def _batch_rows(out: str, batch: str) -> dict[str, list[str]]:
    """The rows of one batch's table: rule -> today's columns, then the first look's."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"batch {batch}:"))
    rows = {}
    for line in lines[start + 2 :]:
        if not line.startswith("  "):
            break
        today, _, recorded = line.partition("first look:")
        rows[today.split()[0]] = today.split()[1:] + ["|"] + recorded.split()
    return rows


def test_each_batch_prints_todays_figures_beside_its_recorded_first_look(
    mirror: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mirrors, commit = mirror
    repos = tmp_path / "repos.tsv"
    repos.write_text(
        f"repository\tcommit\twhy\tfiles\tbatch\nowner/deploy\t{commit}\tx\t1\tshell-1\n"
    )
    manifest = tmp_path / "manifest.tsv"
    manifest.write_text(
        _labels(commit, {("bin/deploy", 3, "HL109"): "TP", ("bin/deploy", 2, "HL102"): "FP"})
    )
    looks = tmp_path / "batches.tsv"
    # recorded figures that differ from today's: the bench prints them as recorded
    looks.write_text(
        "# a comment\n" + LOOKS + "shell-1\tHL109\t2026-01-02\tabc1234\t5\t1\t1\t3\t\n"
        "shell-1\tHL111\t2026-01-02\tabc1234\t2\t0\t0\t2\t\n"
        "shell-1\tall\t2026-01-02\tabc1234\t7\t1\t1\t5\tread by hand\n"
    )
    bench.main(
        ["--mirrors", str(mirrors), "--repos", str(repos), "--manifest", str(manifest)]
        + ["--batches", str(looks)]
    )
    out = capsys.readouterr().out
    assert "batch shell-1: 1 repositories, fetched 2026-01-02, first look at abc1234" in out
    assert "  read by hand" in out
    rows = _batch_rows(out, "shell-1")
    # findings TP FP debatable unlabelled TP/(TP+FP) TP/all | findings TP FP deb TP/(TP+FP) TP/all
    # (link.sh is the same script again, unlabelled)
    assert rows["HL109"] == ["2", "1", "0", "0", "1", "1.00", "0.50"] + ["|"] + [
        "5", "1", "1", "3", "0.50", "0.20"
    ]  # fmt: skip
    assert rows["HL102"] == ["2", "0", "1", "0", "1", "0.00", "0.00", "|", *"------"]
    # a rule found at first look and not today still has its row
    assert rows["HL111"] == [*"00000--|", "2", "0", "0", "2", "-", "0.00"]
    assert rows["all"][:7] == ["4", "1", "1", "0", "2", "0.50", "0.25"]
    assert rows["all"][8:] == ["7", "1", "1", "5", "0.50", "0.14"]


def test_first_look_is_recorded_once_and_only_when_every_finding_is_labelled(
    mirror: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mirrors, commit = mirror
    repos = tmp_path / "repos.tsv"
    repos.write_text(
        "repository\tcommit\twhy\tfiles\tbatch\n"
        f"owner/deploy\t{commit}\tx\t1\tnew-1\n"
        f"owner/other\t{commit}\tx\t1\told-1\n"  # another batch: not read, no mirror needed
    )
    looks = tmp_path / "batches.tsv"
    argv = ["--mirrors", str(mirrors), "--repos", str(repos), "--batches", str(looks)]
    record = [*argv, "--first-look", "new-1", "--tool-commit", "6e60226", "--fetched", "2026-12-05"]
    manifest = tmp_path / "manifest.tsv"
    labelled = {
        ("bin/deploy", 3, "HL109"): "TP",
        ("link.sh", 3, "HL109"): "debatable",
        ("bin/deploy", 2, "HL102"): "FP",
    }
    manifest.write_text(_labels(commit, labelled))
    with pytest.raises(SystemExit, match="1 findings are unlabelled"):
        bench.main([*record, "--manifest", str(manifest)])
    assert not looks.exists()

    labelled["link.sh", 2, "HL102"] = "FP"
    manifest.write_text(_labels(commit, labelled))
    assert bench.main([*record, "--manifest", str(manifest)]) == 0
    rows = [line.split("\t") for line in looks.read_text().splitlines() if not line.startswith("#")]
    assert rows == [
        LOOKS.rstrip("\n").split("\t"),
        ["new-1", "HL102", "2026-12-05", "6e60226", "2", "0", "2", "0", ""],
        ["new-1", "HL109", "2026-12-05", "6e60226", "2", "1", "0", "1", ""],
        ["new-1", "all", "2026-12-05", "6e60226", "4", "1", "2", "1", ""],
    ]
    out = capsys.readouterr().out
    assert "batch new-1: 1 repositories, fetched 2026-12-05, first look at 6e60226" in out
    assert "old-1" not in out  # only the batch measured is read

    # never recomputed: a later label change does not touch the recorded row
    before = looks.read_text()
    labelled["link.sh", 3, "HL109"] = "TP"
    manifest.write_text(_labels(commit, labelled))
    with pytest.raises(SystemExit, match="recorded once and never recomputed"):
        bench.main([*record, "--manifest", str(manifest)])
    assert looks.read_text() == before
    bench.main([*argv, "--manifest", str(manifest), "--batch", "new-1"])
    rows_now = _batch_rows(capsys.readouterr().out, "new-1")
    assert rows_now["HL109"][:7] == ["2", "2", "0", "0", "0", "1.00", "1.00"]  # today
    assert rows_now["HL109"][8:] == ["2", "1", "0", "1", "1.00", "0.50"]  # as first seen


def test_first_look_needs_the_tool_commit_and_a_whole_batch() -> None:
    with pytest.raises(SystemExit):
        bench.main(["--first-look", "b"])
    with pytest.raises(SystemExit):
        bench.main(["--first-look", "b", "--tool-commit", "c", "--only", "o/r"])


def test_a_first_look_not_recorded_reads_as_dashes(tmp_path: Path) -> None:
    looks = tmp_path / "batches.tsv"
    looks.write_text(LOOKS + "tuned\tall\t2026-12-01\t-\t-\t-\t-\t-\ttuned on it\n")
    (look,) = bench.read_first_looks(looks)
    assert (look.findings, look.tp, look.tool_commit, look.note) == (None, None, "-", "tuned on it")
    assert bench.worth(1, 4) == "0.25" and bench.worth(0, 0) == "-"
    assert bench.read_first_looks(tmp_path / "none.tsv") == []
