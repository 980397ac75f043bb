"""Configuration discovery and validation, and inline suppressions, through the real CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_process import run_cli

BROKEN = "ssh h \"pkill -f sglang; cat > f << 'EOF'\n$1\nEOF\n\"\n"


def lint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli("--format", "json", *args, cwd=cwd)


def codes(result: subprocess.CompletedProcess[str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for item in json.loads(result.stdout or "[]"):
        out.setdefault(Path(item["path"]).as_posix(), set()).add(item["code"])
    return out


def test_nearest_config_applies_per_directory(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.heredoc-lint]\nignore = ["HL103"]\n')
    (tmp_path / "a.sh").write_text(BROKEN)
    nested = tmp_path / "ops" / "deep"
    nested.mkdir(parents=True)
    (tmp_path / "ops" / ".heredoc-lint.toml").write_text('select = ["HL103"]\n')
    (nested / "b.sh").write_text(BROKEN)
    # A pyproject without our table is passed over on the way up.
    (nested / "pyproject.toml").write_text("[tool.other]\nx = 1\n")
    result = lint("a.sh", "ops/deep/b.sh", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert codes(result) == {"a.sh": {"HL101", "HL102"}, "ops/deep/b.sh": {"HL103"}}


def test_command_line_wins_over_the_file(tmp_path: Path) -> None:
    (tmp_path / ".heredoc-lint.toml").write_text('select = ["HL103"]\nseverity = "error"\n')
    (tmp_path / "a.sh").write_text(BROKEN)
    assert codes(lint("a.sh", cwd=tmp_path)) == {"a.sh": {"HL103"}}
    assert codes(lint("--select", "HL101", "--severity", "warning", "a.sh", cwd=tmp_path)) == {
        "a.sh": {"HL101"}
    }


def test_per_file_ignores_exclude_and_wrappers(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.heredoc-lint]\n"
        'exclude = ["vendor"]\n'
        'per-file-ignores = { "legacy/*.sh" = ["HL1"] }\n'
        'wrappers = { myssh = "ssh" }\n'
    )
    for name in ("vendor/x.sh", "legacy/y.sh", "new/z.sh"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(BROKEN)
    (tmp_path / "new" / "w.sh").write_text('myssh h "pkill -f zq; echo"\n')
    found = codes(lint(".", cwd=tmp_path))
    assert set(found) == {"new/z.sh", "new/w.sh"}
    assert found["new/w.sh"] == {"HL103"}


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ('[tool.heredoc-lint]\nselct = ["HL1"]\n', "selct"),
        ('[tool.heredoc-lint]\nseverity = "loud"\n', "severity"),
        ('[tool.heredoc-lint]\nselect = ["HL9"]\n', "select"),
        ('[tool.heredoc-lint]\nfix-strategy = "ftp"\n', "fix-strategy"),
        ('[tool.heredoc-lint]\nwrappers = { x = "teleport" }\n', "wrappers"),
        ('[tool.heredoc-lint]\nper-file-ignores = { "a" = ["ZZ"] }\n', "per-file-ignores"),
        ("[tool.heredoc-lint\n", "TOML"),
    ],
)
def test_bad_config_is_exit_2_naming_the_key(tmp_path: Path, content: str, key: str) -> None:
    (tmp_path / "pyproject.toml").write_text(content)
    (tmp_path / "a.sh").write_text(BROKEN)
    result = lint("a.sh", cwd=tmp_path)
    assert result.returncode == 2
    assert key in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_suppressions(tmp_path: Path) -> None:
    (tmp_path / "a.sh").write_text(
        'ssh h "pkill -f x; echo"  # heredoc-lint: disable=HL103\n'
        "# heredoc-lint: disable=HL101,HL102\n"
        + BROKEN
        + "ssh h 'uptime'  # heredoc-lint: disable=HL104\n"
    )
    (tmp_path / "b.sh").write_text("# heredoc-lint: disable-file=HL103\n" + BROKEN)
    result = lint("a.sh", "b.sh", cwd=tmp_path)
    assert codes(result) == {"a.sh": {"HL103"}, "b.sh": {"HL101", "HL102"}}
    unused = json.loads(lint("--warn-unused-suppressions", "a.sh", cwd=tmp_path).stdout)
    (hl002,) = [f for f in unused if f["code"] == "HL002"]
    assert hl002["line"] == 7 and "HL104" in hl002["message"]
