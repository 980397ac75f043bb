"""The command line as users run it: a real subprocess, exit codes, output formats."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from cli_process import CLI, run_cli
from probe import loaded_modules

from heredoc_lint import severities

CASES = Path(__file__).parent / "cases"
JSON_KEYS = {
    "code",
    "name",
    "severity",
    "message",
    "path",
    "line",
    "column",
    "end_line",
    "end_column",
    "layer",
    "fix",
    "evidence",
}


def run(
    *args: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, stdin=stdin, cwd=cwd)


def test_the_fixable_count_is_of_what_fix_applies(tmp_path: Path) -> None:
    # HL110's fix moves a local command to the remote side: shown, never applied by --fix.
    (tmp_path / "shown.sh").write_text("ssh web1 cd /srv && ls $DIR\n")
    (tmp_path / "safe.sh").write_text('ssh h "pkill -f sglang; ./restart"\n')  # HL103
    lines = run("--no-cache", "shown.sh", "safe.sh", cwd=tmp_path).stdout.splitlines()
    assert "Found 2 findings (2 error)." in lines
    assert "[*] 1 fixable with `--fix`." in lines
    assert not any(
        "fixable" in line
        for line in run("--no-cache", "shown.sh", cwd=tmp_path).stdout.splitlines()
    )


def test_seed000_text_output_names_each_finding_in_a_screenful() -> None:
    result = run(str(CASES / "seed000.sh"))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    text = (CASES / "seed000.sh").read_text().splitlines()
    heads = [line for line in lines if ": HL" in line]
    # path:line:col: CODE ... with the line of each anchor.
    found = {(h.split(":")[1], h.split(": ")[1].split()[0]) for h in heads}
    pkill = next(i for i, t in enumerate(text, 1) if "pkill" in t)
    heredoc = next(i for i, t in enumerate(text, 1) if "<< 'EOF'" in t)
    dollar1 = next(i for i, t in enumerate(text, 1) if "=$1" in t)
    dollar2 = next(i for i, t in enumerate(text, 1) if "$2" in t)
    assert {
        (str(pkill), "HL103"),
        (str(heredoc), "HL101"),
        (str(dollar1), "HL102"),
        (str(dollar2), "HL102"),
    } <= found
    assert len(lines) < 60  # a screenful
    # The code frame puts a caret under the pkill word.
    frame = lines[lines.index(heads[0]) + 2 : lines.index(heads[0]) + 4]
    caret_line = frame[1]
    source_line = frame[0]
    column = caret_line.index("^")
    assert source_line[column : column + 5] == "pkill"
    assert "help:" in result.stdout


def test_json_output_matches_the_schema() -> None:
    result = run("--format", "json", str(CASES / "seed000.sh"))
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert isinstance(data, list) and data
    text = (CASES / "seed000.sh").read_text().splitlines()
    for item in data:
        assert set(item) == JSON_KEYS
        assert item["severity"] in ("error", "warning", "info")
        # The evidence that raised it, and the severity the table gives that evidence.
        assert item["severity"] == severities.severity(item["code"], item["evidence"]).value
        line = text[item["line"] - 1]
        assert 1 <= item["column"] <= len(line) + 1
        assert (item["end_line"], item["end_column"]) > (item["line"], item["column"])
        assert item["layer"] == {"depth": 1, "wrapper": "ssh"}
    first = data[0]
    line = text[first["line"] - 1]
    assert line[first["column"] - 1 : first["end_column"] - 1] == "pkill"
    assert first["evidence"] == "shares-string"
    fix = next(d["fix"] for d in data if d["code"] == "HL101")
    assert fix["applicability"] == "safe" and fix["strategy"] == "base64"
    assert {"line", "column", "end_line", "end_column", "content"} == set(fix["edits"][0])


def test_columns_count_characters_not_bytes(tmp_path: Path) -> None:
    script = tmp_path / "u.sh"
    line = 'echo "héllo wörld"; ssh h "pkill -f app; echo done"'
    script.write_text(line + "\n")
    data = json.loads(run("--format", "json", str(script)).stdout)
    (finding,) = data
    assert finding["column"] == line.index("pkill") + 1


def test_clean_file_exits_zero(tmp_path: Path) -> None:
    result = run(str(CASES / "clean_ok.sh"))
    assert result.returncode == 0, result.stdout
    assert result.stdout == ""


def test_severity_info_shows_more() -> None:
    plain = run("--command", 'ssh h "deploy $version"')
    info = run("--command", 'ssh h "deploy $version"', "--severity", "info")
    assert plain.returncode == 0 and plain.stdout == ""
    assert info.returncode == 1 and "HL102 [info]" in info.stdout


def test_select_and_ignore() -> None:
    seed = str(CASES / "seed000.sh")
    only = json.loads(run("--format", "json", "--select", "HL103", seed).stdout)
    assert {f["code"] for f in only} == {"HL103"}
    rest = json.loads(run("--format", "json", "--ignore", "HL102,HL103", seed).stdout)
    assert {f["code"] for f in rest} == {"HL101"}
    every = json.loads(run("--format", "json", "--select", "all", seed).stdout)
    assert {f["code"] for f in every} == {"HL101", "HL102", "HL103"}  # ruff's `ALL`
    assert run("--ignore", "ALL", seed).stdout == ""


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--select", "HL9"], "unknown rule code or prefix `HL9`"),
        (["--format", "yaml", "x"], "Invalid value for '--format': 'yaml' is not one of"),
        (["--severity", "loud", "x"], "Invalid value for '--severity'"),
        (["--command", "x", "file.sh"], "give either --command or paths, not both"),
        (["--jobs", "0", "x"], "Invalid value for '--jobs' / '-j': 0 is not in the range"),
        (["--bogus", "x"], "No such option: --bogus"),
        (["--format"], "Option '--format' requires an argument"),
        (["explain", "a", "b"], "Got unexpected extra argument(s) (b)"),
        (["rule"], "Missing argument 'code'"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args: list[str], reason: str) -> None:
    """One line, as every other error: never click's framed box and usage lines."""
    result = run(*args)
    assert (result.returncode, result.stdout) == (2, "")
    (line,) = result.stderr.splitlines()
    assert line.startswith("heredoc-lint: error: ") and reason in line, line


def test_missing_file_is_exit_2_and_others_still_checked(tmp_path: Path) -> None:
    result = run("--format", "concise", str(tmp_path / "nope.sh"), str(CASES / "seed003.sh"))
    assert result.returncode == 2
    assert "nope.sh: no such file or directory" in result.stderr
    assert "HL103" in result.stdout


def test_stdin_and_command() -> None:
    seed = (CASES / "seed003.sh").read_text()
    result = run("--format", "concise", "-", "--stdin-filename", "seed.sh", stdin=seed)
    assert result.returncode == 1
    assert result.stdout.startswith("seed.sh:2:1: HL111")
    command = run("--format", "concise", "--command", "ssh h 'pkill -f x; echo'")
    assert command.returncode == 1 and "<command>:1:8: HL103" in command.stdout


def test_directory_walk_honours_gitignore_and_shebangs(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("ignored/\n")
    (tmp_path / "ignored").mkdir()
    broken = 'ssh h "pkill -f sglang; echo"\n'
    (tmp_path / "ignored" / "a.sh").write_text(broken)
    (tmp_path / "tool").write_text("#!/usr/bin/env bash\n" + broken)
    (tmp_path / "tool-2.1").write_text("#!/usr/bin/env bash\n" + broken)  # a version, no suffix
    (tmp_path / "notes.txt").write_text("#!/bin/sh\n" + broken)
    (tmp_path / "b.bash").write_text(broken)
    # An executable file is read for its shebang whatever its suffix, except a
    # temp file the writer left behind when it was killed mid-fix.
    for name in ("policy-rc.d", ".tool.k2j4x9.heredoc-lint"):
        (tmp_path / name).write_text("#!/bin/sh\n" + broken)
        (tmp_path / name).chmod(0o755)
    result = run("--format", "json", str(tmp_path))
    paths = sorted(Path(f["path"]).name for f in json.loads(result.stdout))
    assert paths == ["b.bash", "policy-rc.d", "tool", "tool-2.1"]


def test_a_named_file_without_a_suffix_is_python_by_its_shebang_else_shell(
    tmp_path: Path,
) -> None:
    """Its first line is read with the rest of the file, in the worker: the kind must
    come out the same checked cold, from the cache, and fixed."""
    python = 'import os\ndef ls(p):\n    os.system(f"ls {p}")\n'
    (tmp_path / "py-tool").write_text("#!/usr/bin/env python3\n" + python)
    (tmp_path / "sh-tool").write_text(python)  # no shebang: shell, where it is no finding
    (tmp_path / "sh-tool2").write_text('#!/bin/sh\nssh h "pkill -f sglang; echo"\n')
    names = ["py-tool", "sh-tool", "sh-tool2"] * 6  # enough files for worker processes
    # `p` says nothing of what it holds: HL201 info by default, so read at info.
    for _ in range(2):  # cold, then answered by the cache
        result = run("--format", "json", "--severity", "info", "--jobs", "2", *names, cwd=tmp_path)
        found = sorted({(f["path"], f["code"]) for f in json.loads(result.stdout)})
        assert found == [("py-tool", "HL201"), ("sh-tool2", "HL103")], result.stderr
    assert (tmp_path / ".heredoc_lint_cache").is_dir()
    fixed = run(
        "--fix", "--unsafe-fixes", "--severity", "info", "py-tool", "sh-tool2", cwd=tmp_path
    )
    assert fixed.returncode in (0, 1), fixed.stderr
    assert "{shlex.quote(str(p))}" in (tmp_path / "py-tool").read_text()
    assert "'[s]'glang" in (tmp_path / "sh-tool2").read_text()


def test_stdin_named_without_a_suffix_is_python_by_its_shebang(tmp_path: Path) -> None:
    """The name need not exist (an editor's buffer): only its first line decides."""
    text = '#!/usr/bin/env python3\nimport os\ndef ls(p):\n    os.system(f"ls {p}")\n'
    # `p` says nothing of what it holds: HL201 info by default, so read at info.
    result = run(
        "--format",
        "json",
        "--severity",
        "info",
        "--stdin-filename",
        "no-such-tool",
        "-",
        stdin=text,
        cwd=tmp_path,
    )
    assert [f["code"] for f in json.loads(result.stdout)] == ["HL201"], result.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("buffered", [True, False])
def test_output_that_cannot_be_written_is_exit_2(tmp_path: Path, buffered: bool) -> None:
    """A full disk is an error, not "findings" (exit 1), and never a traceback."""
    (tmp_path / "a.sh").write_text('ssh h "pkill -f sglang; echo"\n')
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*CLI, "a.sh"],
            cwd=tmp_path,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=60,
        )
    assert done.returncode == 2, done.stderr
    assert "No space left on device" in done.stderr and "Traceback" not in done.stderr


def test_rule_docs_and_table() -> None:
    table = run("rules")
    assert table.returncode == 0
    from heredoc_lint.rules import RULES

    for rule in RULES:
        assert rule.code in table.stdout
        doc = run("rule", rule.code.lower())
        assert doc.returncode == 0
        assert "## What it does" in doc.stdout and "## Fix safety" in doc.stdout
    assert run("rule", "HL999").returncode == 2


def test_version() -> None:
    result = run("--version")
    assert result.returncode == 0 and result.stdout.startswith("heredoc-lint ")


LONE_COMMANDS = [
    (CASES / "seed000.sh").read_text().split("\n", 1)[1],  # the incident, many findings
    "cd /srv/app && git pull --ff-only && ssh build-1 'systemctl restart app'",  # clean
    "ssh h 'echo \"unterminated'",  # a parse error in the remote layer
    'ssh h "sudo echo 1 > /proc/sys/vm/drop_caches"',  # an unsafe fix only
]


@pytest.mark.parametrize("command", LONE_COMMANDS)
def test_a_command_string_is_checked_whatever_the_spelling(tmp_path: Path, command: str) -> None:
    """`-c STR`, `--command=STR` and `check --command STR` are one run; a command string
    is never cached."""
    first = run("--command", command, cwd=tmp_path)
    for args in (["-c", command], [f"--command={command}"], ["check", "--command", command]):
        other = run(*args, cwd=tmp_path)
        assert (other.returncode, other.stdout, other.stderr) == (
            first.returncode,
            first.stdout,
            first.stderr,
        )
    assert first.returncode in (0, 1) and (first.returncode == 1) == ("HL" in first.stdout)
    assert not (tmp_path / ".heredoc_lint_cache").exists()


def test_a_command_string_check_does_not_import_libcst() -> None:
    """libcst (Python files only) costs 100 ms: a shell command never loads it."""
    assert loaded_modules(["--command", LONE_COMMANDS[0]], ("libcst",)) == ([], 1)


@pytest.mark.parametrize(
    ("options", "caches"),
    [
        ([], [".heredoc_lint_cache"]),
        (["--no-cache"], []),
        (["--cache-dir", "elsewhere"], ["elsewhere"]),
        (["-j", "2", "--format", "sarif", "--cache-dir=other"], ["other"]),
    ],
)
def test_the_cache_goes_where_the_options_say(
    tmp_path: Path, options: list[str], caches: list[str]
) -> None:
    (tmp_path / "a.sh").write_text((CASES / "seed000.sh").read_text())
    (tmp_path / "b.sh").write_text("echo fine\n")
    assert run(*options, "a.sh", "b.sh", cwd=tmp_path).returncode == 1
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == caches


@pytest.mark.parametrize(
    ("options", "error"),
    [
        (["--jobs", "0"], "0 is not in the range"),
        (["-j", "x"], "'x' is not a valid int"),
        (["--format", "xml"], "'xml' is not one of"),
        (["--cache-dir"], "requires an argument"),
    ],
)
def test_a_bad_value_is_exit_2_with_the_reason(
    tmp_path: Path, options: list[str], error: str
) -> None:
    (tmp_path / "a.sh").write_text("echo fine\n")
    result = run("a.sh", *options, cwd=tmp_path)
    assert result.returncode == 2 and error in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    "args",
    [["--command", LONE_COMMANDS[0]], ["a.sh"], ["check", "a.sh"]],
    ids=["--command", "paths", "check paths"],
)
def test_a_reader_that_goes_away_ends_the_run_quietly(tmp_path: Path, args: list[str]) -> None:
    """`heredoc-lint scripts/ | head -1`: exit 1 without a word, as click does."""
    (tmp_path / "a.sh").write_text((CASES / "seed000.sh").read_text())
    proc = subprocess.Popen(
        [*CLI, *args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # gone before heredoc-lint writes a byte
    stderr = proc.stderr.read()
    assert (proc.wait(timeout=120), stderr) == (1, b"")


def test_help_names_the_subcommands_that_have_their_own_help() -> None:
    listed = run("--help")
    assert listed.returncode == 0
    for name in ("hook", "transcript", "serve"):
        assert f"heredoc-lint {name}" in listed.stdout
        own = run(name, "--help")
        assert own.returncode == 0 and own.stdout.startswith(f"usage: heredoc-lint {name}")


def test_a_run_that_finds_nothing_to_check_says_so(tmp_path: Path) -> None:
    """As ruff warns "No Python files found": a clean exit must not hide an empty run."""
    (tmp_path / "notes.txt").write_text("ssh h 'pkill -f app; echo ok'\n")
    (tmp_path / "completion").write_text("_f() { ssh h 'pkill -f app; echo ok'; }\n")
    walked = run(".", cwd=tmp_path)
    assert walked.returncode == 0 and walked.stdout == ""
    assert walked.stderr.startswith("heredoc-lint: warning: no file to check")
    named = run("completion", cwd=tmp_path)  # no shebang; named on its own: checked as shell
    assert named.returncode == 1 and "HL103" in named.stdout and "no file" not in named.stderr


# -- the fix strategy in the JSON output ---------------------------------------------------


_SCRIPT = "#!/bin/bash\nssh h \"cat > /srv/app.conf << 'EOF'\nkey=1\nEOF\"\n"


@pytest.mark.parametrize(
    ("strategy", "content"),
    [
        ("scp", 'scp "$(dirname "$0")/deploy.sh.d/app.conf" h:/srv/app.conf'),
        ("base64", "printf %s a2V5PTEK | base64 -d"),
    ],
)
def test_json_names_the_fix_strategy(tmp_path: Path, strategy: str, content: str) -> None:
    """`--format json` says which strategy made a heredoc fix (the scp one also writes a
    file beside the script: a reader must know)."""
    script = tmp_path / "deploy.sh"
    script.write_text(_SCRIPT)
    proc = run_cli(
        "--no-cache",
        "--format",
        "json",
        "--severity",
        "info",
        "--fix-strategy",
        strategy,
        str(script),
    )
    (found,) = json.loads(proc.stdout)
    assert found["code"] == "HL101"
    assert found["fix"]["strategy"] == strategy
    assert found["fix"]["applicability"] == "safe"
    assert [e["content"] for e in found["fix"]["edits"]][0].startswith(content)


# -- --select through the CLI ----------------------------------------------------------------


@pytest.mark.parametrize(("select", "codes"), [("HL103", {"HL103"}), ("HL10", {"HL101", "HL103"})])
def test_cli_select_keeps_only_the_selected_codes(
    tmp_path: Path, select: str, codes: set[str]
) -> None:
    script = tmp_path / "s.sh"
    script.write_text("ssh h \"pkill -f x; cat > f << 'EOF'\nhi \\$USER\nEOF\"\n")
    proc = run_cli("--format", "json", "--no-cache", "--select", select, str(script))
    assert proc.returncode == 1, proc.stderr
    assert {item["code"] for item in json.loads(proc.stdout)} == codes


# -- the rules list and --ignore -----------------------------------------------------------


def test_cli_rules_lists_which_rules_fix() -> None:
    proc = run_cli("rules")
    assert proc.returncode == 0, proc.stderr
    fix_column = {line.split()[0]: line.split()[3] for line in proc.stdout.splitlines()[1:]}
    assert fix_column["HL001"] == "no" and fix_column["HL002"] == "no"
    assert fix_column["HL101"] == "yes" and fix_column["HL103"] == "yes"


@pytest.mark.parametrize(
    ("options", "codes"),
    [(("--ignore", "HL103"), {"HL101"}), (("--ignore", "HL1"), set()), ((), {"HL101", "HL103"})],
)
def test_cli_ignore_drops_the_ignored_codes(
    tmp_path: Path, options: tuple[str, ...], codes: set[str]
) -> None:
    script = tmp_path / "s.sh"
    script.write_text("ssh h \"pkill -f x; cat > f << 'EOF'\nhi \\$USER\nEOF\"\n")
    proc = run_cli("--format", "json", "--no-cache", *options, str(script))
    assert proc.returncode == (1 if codes else 0), proc.stderr
    assert {item["code"] for item in json.loads(proc.stdout)} == codes
