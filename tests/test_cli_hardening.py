"""What a checked repository can do to the command line: file names that look like
options, configuration that would weaken a check someone asked for, file names that
would write lines of their own into a CI log."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from cli_process import run_cli

BAD = 'ssh h "pkill -f sglang; ./restart"\n'  # an HL103 error
BAD_FINDING = "bad.sh:1:8: HL103 [error]"


def run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd, stdin=stdin)


def concise(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run("--format", "concise", *args, cwd=cwd, stdin=stdin)


@pytest.fixture
def evil(tmp_path: Path) -> Path:
    """A repository whose `evil.sh` is valid TOML and valid shell, next to an empty file
    named `--config=evil.sh`: passed first among the file names, it would be an option."""
    (tmp_path / "evil.sh").write_text('ignore = ["HL"]\n')
    (tmp_path / "--config=evil.sh").write_text("")
    (tmp_path / "bad.sh").write_text(BAD)
    return tmp_path


# --- issue 18.2: option injection through file names ---------------------------------


def test_a_file_named_like_an_option_is_a_file(evil: Path) -> None:
    result = concise("--config=evil.sh", "bad.sh", "evil.sh", cwd=evil)
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith(BAD_FINDING)
    assert result.stderr == ""


def test_the_fix_hook_is_not_turned_off_by_a_file_name(evil: Path) -> None:
    result = run("--fix", "--config=evil.sh", "bad.sh", "evil.sh", cwd=evil)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "'[s]'glang" in (evil / "bad.sh").read_text()


def test_options_before_the_file_names_still_work(evil: Path) -> None:
    """Only an argument that names an existing file changes meaning."""
    (evil / "ok.toml").write_text('ignore = ["HL103"]\n')
    result = concise("--config=ok.toml", "--config=evil.sh", "bad.sh", cwd=evil)
    assert (result.returncode, result.stdout) == (0, ""), result.stderr


def test_a_subcommand_name_that_is_a_file_beside_files_stops_the_run(evil: Path) -> None:
    """pre-commit passing `explain` and `bad.sh` would explain bad.sh and exit 0."""
    (evil / "explain").write_text("#!/bin/sh\n" + BAD)
    result = run("explain", "bad.sh", cwd=evil)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "heredoc-lint: error: `explain` is both a subcommand and a file here; to check "
        "files, write `heredoc-lint check -- explain ...`"
    ]
    assert concise("--", "explain", "bad.sh", cwd=evil).stdout.count("HL103") == 2


def test_a_file_named_like_the_end_of_the_options_is_never_swallowed(evil: Path) -> None:
    """Committed as `--`, pre-commit's file name would end the options of an `args:`
    without a `--` of its own, and not be checked."""
    (evil / "--").write_text("#!/bin/bash\n" + BAD)
    result = concise("--select", "HL1", "--", "bad.sh", cwd=evil)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [
        "heredoc-lint: error: `--` is both the end of the options and a file here; "
        "write `-- --` to check the file"
    ]
    both = concise("--", "--", "bad.sh", cwd=evil)  # the hooks' own `args: ["--"]`
    assert both.returncode == 1
    assert sorted(line.split(":")[0] for line in both.stdout.splitlines()) == ["--", "bad.sh"]


def test_a_file_named_dash_is_checked_not_stdin(tmp_path: Path) -> None:
    (tmp_path / "-").write_text(BAD)
    result = concise("-", cwd=tmp_path, stdin="")
    assert result.returncode == 1 and result.stdout.startswith("-:1:8: HL103")


# --- issue 18.6: the command line wins over the repository -----------------------------


def test_select_on_the_command_line_beats_the_repositorys_ignore(tmp_path: Path) -> None:
    (tmp_path / ".heredoc-lint.toml").write_text('ignore = ["HL1"]\n')
    (tmp_path / "bad.sh").write_text(BAD)
    assert concise("bad.sh", cwd=tmp_path).returncode == 0  # the repository's own choice
    result = concise("--select", "HL103", "bad.sh", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout.startswith(BAD_FINDING)
    ignored = concise("--select", "HL103", "--ignore", "HL103", "bad.sh", cwd=tmp_path)
    assert ignored.returncode == 0 and ignored.stdout == ""


@pytest.fixture
def excluded(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.heredoc-lint]\nexclude = ["sub"]\n')
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    (tmp_path / "sub" / "bad.sh").write_text(BAD)
    (tmp_path / "sub" / "deeper" / "bad.sh").write_text(BAD)
    return tmp_path


def test_a_named_directory_is_checked_though_the_configuration_excludes_it(
    excluded: Path,
) -> None:
    result = concise("sub", cwd=excluded)
    assert result.returncode == 1, result.stderr
    assert sorted(line.split(":")[0] for line in result.stdout.splitlines()) == [
        "sub/bad.sh",
        "sub/deeper/bad.sh",
    ]
    walked = concise(".", cwd=excluded)  # walking the repository still leaves it out
    assert walked.returncode == 0 and walked.stdout == ""
    assert "no file to check" in walked.stderr


def test_force_exclude_applies_the_patterns_to_named_paths(excluded: Path) -> None:
    for named in ("sub", "sub/bad.sh"):
        result = concise("--force-exclude", named, cwd=excluded)
        assert (result.returncode, result.stdout) == (0, ""), named
        assert result.stderr.startswith("heredoc-lint: warning: no file to check")
    assert concise("sub/bad.sh", cwd=excluded).returncode == 1


def test_patterns_below_a_named_directory_still_apply(tmp_path: Path) -> None:
    (tmp_path / ".heredoc-lint.toml").write_text('exclude = ["vendor", "src/gen/*.sh"]\n')
    for name in ("src/vendor/a.sh", "src/gen/b.sh", "src/c.sh"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(BAD)
    result = concise("src", "--exclude", "c.sh", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == ""
    result = concise("src", cwd=tmp_path)
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["src/c.sh"]


def test_a_built_in_wrapper_cannot_be_redefined_to_something_weaker(tmp_path: Path) -> None:
    (tmp_path / ".heredoc-lint.toml").write_text(
        'wrappers = { ssh = "prefix", myssh = "ssh", sudo = "prefix" }\n'
    )
    (tmp_path / "bad.sh").write_text(BAD + 'myssh h "pkill -f zq; echo"\n')
    result = concise("bad.sh", cwd=tmp_path)
    assert result.returncode == 1
    assert [line.split(": ")[1].split()[0] for line in result.stdout.splitlines()] == [
        "HL103",
        "HL103",
    ]
    config = tmp_path / ".heredoc-lint.toml"
    assert result.stderr.splitlines() == [
        f"heredoc-lint: warning: {config}: `wrappers.ssh`: `ssh` is a built-in wrapper and "
        "cannot be redefined as 'prefix'; its built-in reading is kept"
    ]


# --- issue 18.11: file names cannot write lines of their own ---------------------------

INJECTED = "x\n::error file=ci.yml,line=1::all good\n.sh"


def test_a_file_name_with_a_newline_is_escaped_in_text_and_concise(tmp_path: Path) -> None:
    (tmp_path / INJECTED).write_text(BAD)
    escaped = "x\\n::error file=ci.yml,line=1::all good\\n.sh"
    for output in ("text", "concise"):
        result = run("--format", output, INJECTED, cwd=tmp_path)
        assert result.returncode == 1
        lines = result.stdout.splitlines()
        assert not any(line.startswith("::") for line in lines), output
        assert lines[0].startswith(f"{escaped}:1:8: HL103 [error]"), output


def test_the_github_format_has_one_workflow_command_per_finding(tmp_path: Path) -> None:
    (tmp_path / INJECTED).write_text(BAD)
    result = run("--format", "github", INJECTED, cwd=tmp_path)
    (line,) = result.stdout.splitlines()
    assert line.startswith("::error file=x%0A%3A%3Aerror file=ci.yml%2Cline=1%3A%3Aall good%0A")


def test_file_names_in_stderr_notes_are_escaped(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / INJECTED)  # not a regular file: a note names it
    result = run("--format", "github", INJECTED, "nope\n::warning::x.sh", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "heredoc-lint: nope\\n::warning::x.sh: no such file or directory",
        "heredoc-lint: x\\n::error file=ci.yml,line=1::all good\\n.sh: not a regular file",
    ] or result.stderr.splitlines() == [
        "heredoc-lint: x\\n::error file=ci.yml,line=1::all good\\n.sh: not a regular file",
        "heredoc-lint: nope\\n::warning::x.sh: no such file or directory",
    ]


def test_json_keeps_the_name_as_it_is(tmp_path: Path) -> None:
    (tmp_path / INJECTED).write_text(BAD)
    (finding,) = json.loads(run("--format", "json", INJECTED, cwd=tmp_path).stdout)
    assert finding["path"] == INJECTED
