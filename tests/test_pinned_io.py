"""Pinned behaviours of the writer, the suppressions, the cache and the Python frontend,
through the CLI subprocess and `engine.check_text`.

Each test kills a bug that once survived the suite (issue 20, bench/MUTATION.md).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from cli_process import CLI, run_cli

import heredoc_lint
from heredoc_lint.engine import Settings, check_text

PKILL = 'ssh h "pkill -f x; y"\n'  # HL103 error at 7..12, whatever else changes


def _codes(text: str, kind: str = "shell", settings: Settings | None = None) -> list[str]:
    path = "t.py" if kind == "python" else "t.sh"
    return [f.code for f in check_text(text, kind, path, settings)]


# -- writer: --fix keeps the file's mode ----------------------------------------------------


@pytest.mark.parametrize("mode", [0o755, 0o640, 0o700, 0o664])
def test_fix_keeps_the_file_mode(tmp_path: Path, mode: int) -> None:
    script = tmp_path / "deploy.sh"
    script.write_text("#!/bin/bash\nssh h \"cat > /tmp/f << 'EOF'\nhello\nEOF\"\n")
    script.chmod(mode)
    proc = run_cli("--fix", "--severity", "info", "--no-cache", str(script))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "base64 -d" in script.read_text()
    assert stat.S_IMODE(script.stat().st_mode) == mode


# -- suppressions ----------------------------------------------------------------------------


@pytest.mark.parametrize("codes", ["HL1", "HL10", "HL103", "hl103", "HL2,HL1", "ALL"])
def test_directive_code_prefixes_are_honoured(codes: str) -> None:
    text = PKILL.replace("\n", f"  # heredoc-lint: disable={codes}\n")
    assert "HL103" not in _codes(text)


@pytest.mark.parametrize("codes", ["HL2", "HL104", "HL1030"])
def test_directive_for_other_codes_does_not_silence(codes: str) -> None:
    text = PKILL.replace("\n", f"  # heredoc-lint: disable={codes}\n")
    assert "HL103" in _codes(text)


def test_directive_after_the_closing_quote_covers_the_statement() -> None:
    """A finding inside a multi-line string has no line of its own for a comment: a
    directive at the end of the statement's last line silences it."""
    text = "ssh h \"cat > f << 'EOF'\nport $1\nEOF\"  # heredoc-lint: disable=HL101,HL102\necho\n"
    assert "HL102" in _codes(text.replace("  # heredoc-lint: disable=HL101,HL102", ""))
    assert _codes(text) == []


def test_directive_after_the_closing_quote_covers_only_its_statement() -> None:
    text = (
        "ssh h \"cat > f << 'EOF'\nport $1\nEOF\"  # heredoc-lint: disable=HL101,HL102\n"
        "ssh h \"cat > g << 'EOF'\nport $2\nEOF\"\n"
    )
    found = [f for f in check_text(text, "shell", "t.sh") if f.code == "HL102"]
    assert [text[f.start : f.end] for f in found] == ["$2"]


def test_foreign_noqa_is_not_an_unused_suppression() -> None:
    """`# noqa: E501` belongs to another linter: never HL002; an unused `# noqa: HL103` is."""
    settings = Settings(warn_unused_suppressions=True)
    text = "import os\nx = 1  # noqa: E501\nos.system('echo hi')  # noqa: HL103\n"
    found = check_text(text, "python", "t.py", settings)
    assert [(f.code, text[f.start : f.end]) for f in found] == [("HL002", "# noqa: HL103")]


# -- cache: the fingerprint of the tool covers same-size edits -----------------------------


def test_same_size_edit_of_the_tool_invalidates_the_cache(tmp_path: Path) -> None:
    """A rule edited in place (same size, new mtime) must not reuse the findings cached by
    the old code: the new message shows on the next run."""
    tool = tmp_path / "tool"
    shutil.copytree(
        Path(heredoc_lint.__file__).parent,
        tool / "heredoc_lint",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    rule = tool / "heredoc_lint" / "rules" / "hl103_pkill_self_match.py"
    old, new = "matches the command line", "MATCHES THE COMMAND LINE"
    source = rule.read_text()
    assert source.count(old) == 1 and len(old) == len(new)
    script = tmp_path / "s.sh"
    script.write_text(PKILL)
    # cwd is tmp_path: `python -m` puts it first on sys.path, so the copy is the tool run.
    env = {**os.environ, "PYTHONPATH": str(tool), "PYTHONDONTWRITEBYTECODE": "1"}
    argv = [*CLI, "--cache-dir", str(tmp_path / "c"), str(script)]

    def run() -> str:
        proc = subprocess.run(
            argv, capture_output=True, text=True, env=env, cwd=tmp_path, check=False
        )
        assert proc.returncode == 1, proc.stderr
        return proc.stdout

    assert old in run()
    assert list((tmp_path / "c").glob("findings-*.json"))
    assert old in run()  # warm: from the cache
    size, mtime = rule.stat().st_size, rule.stat().st_mtime_ns
    rule.write_text(source.replace(old, new))
    os.utime(rule, ns=(mtime + 2_000_000_000, mtime + 2_000_000_000))
    assert rule.stat().st_size == size
    assert new in run()


# -- Python frontend --------------------------------------------------------------------------

_CTX_RUN = "def deploy(ctx):\n    ctx.run('ssh h \"pkill -f x; y\"')\n"


def test_ctx_run_is_invoke_only_without_fabric() -> None:
    """`ctx` is invoke's name for a Context; in a file that imports fabric it may be a
    Connection just as well, so it is not read as invoke's local run."""
    assert "HL103" in _codes("import invoke\n\n" + _CTX_RUN, "python")
    assert _codes("import fabric\nimport invoke\n\n" + _CTX_RUN, "python") == []


@pytest.mark.parametrize(
    "code",
    [
        "import os\n\nos.popen(CMD)\n",
        "import os\n\nos.system(CMD)\n",
        "from os import popen\n\npopen(CMD)\n",
        "from os import popen as run_it\n\nrun_it(CMD)\n",
        "import os as o\n\no.popen(CMD)\n",
        "import os\n\nos . popen (CMD)\n",
    ],
)
def test_prefilter_keeps_an_os_popen_call_alone(code: str) -> None:
    """A file whose only call of interest is os.popen (or os.system) is read, whatever
    spelling reaches the function."""
    text = code.replace("CMD", "'ssh h \"pkill -f x; y\"'")
    (f,) = [f for f in check_text(text, "python", "t.py") if f.code == "HL103"]
    assert text[f.start : f.end] == "pkill"


@pytest.mark.parametrize(
    ("literal", "pattern"),
    [
        ('b"ssh h \\"pkill -f \\N{x}a; y\\""', "'N{x}a'"),  # no \N escape in bytes
        ('"ssh h \\"pkill -f \\N{LATIN SMALL LETTER A}b; y\\""', "ab"),
        ('"ssh h \\"pkill -f \\x61\\u0062\\143; y\\""', "abc"),
    ],
)
@pytest.mark.filterwarnings("ignore:invalid escape sequence")  # the input's own `\N`
def test_python_escapes_decoded_as_python_does(literal: str, pattern: str) -> None:
    """The shell sees the string's value: Python's escapes decoded, bytes without `\\N`."""
    text = f"import os\n\nos.system({literal})\n"
    (f,) = [f for f in check_text(text, "python", "t.py") if f.code == "HL103"]
    assert text[f.start : f.end] == "pkill"
    assert f"`pkill -f {pattern}`" in f.message


def test_for_loop_rebinds_the_name() -> None:
    """`for cmd in ...` gives `cmd` a new value: the string assigned before is not run."""
    head = "import subprocess\n\ncmd = \"ssh h 'pkill -f x; y'\"\n"
    run = "subprocess.run(cmd, shell=True)\n"
    assert "HL103" in _codes(head + run, "python")
    assert _codes(head + 'for cmd in ["ls"]:\n    ' + run, "python") == []


def test_hl201_names_the_python_call() -> None:
    text = (
        "import subprocess\n\n"
        "def f(path: str) -> None:\n"
        '    subprocess.run(f"rm {path}", shell=True)\n'
    )
    (f,) = [f for f in check_text(text, "python", "t.py") if f.code == "HL201"]
    assert text[f.start : f.end] == "{path}"
    assert "is put into the shell command of `subprocess.run`" in f.message


def test_fix_without_bash_on_path(tmp_path: Path) -> None:
    """bash is asked whether a fixed script still parses; without bash the fix is
    written all the same (tree-sitter alone decides), and nothing crashes."""
    script = tmp_path / "deploy.sh"
    script.write_text("ssh h \"cat > /tmp/f << 'EOF'\nhello\nEOF\"\n")
    env = {**os.environ, "PATH": str(tmp_path / "empty")}
    argv = [*CLI, "--fix", "--severity", "info", "--no-cache", str(script)]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "base64 -d" in script.read_text()


def test_directive_on_the_next_statement_does_not_cover_this_one() -> None:
    """A multi-line statement ends at its closing quote: a directive at the end of the
    following line belongs to the following statement only."""
    text = "ssh h \"cat > f << 'EOF'\nport $1\nEOF\"\necho hi  # heredoc-lint: disable=HL102\n"
    found = [f for f in check_text(text, "shell", "t.sh") if f.code == "HL102"]
    assert [text[f.start : f.end] for f in found] == ["$1"]


def test_hl202_names_the_run_time_value() -> None:
    text = (
        "import subprocess\n\n"
        "def f(body: str) -> None:\n"
        "    subprocess.run(f\"ssh h 'cat > f << EOF\\n{body}\\nEOF'\", shell=True)\n"
    )
    (f,) = [f for f in check_text(text, "python", "t.py") if f.code == "HL202"]
    assert text[f.start : f.end] == "<<"
    assert "is filled in at run time from `body`:" in f.message


def test_fstring_doubled_braces_keep_the_offsets() -> None:
    """`{{print}}` is `{print}` to the shell; what follows it keeps its exact span."""
    text = (
        "import subprocess\n\n"
        "def f(z: str) -> None:\n"
        '    subprocess.run(f"ssh h \\"awk {{print}} f; pkill -f x; y\\" {z}", shell=True)\n'
    )
    (f,) = [f for f in check_text(text, "python", "t.py") if f.code == "HL103"]
    assert (f.start, f.end) == (text.index("pkill"), text.index("pkill") + 5)
    assert "awk {print} f; pkill -f x; y" in f.message


def test_directive_after_a_lone_closing_quote_covers_the_statement() -> None:
    """The statement's last line may be its closing quote alone: a directive there still
    covers the whole statement."""
    text = "ssh h \"cat > f << 'EOF'\nport $1\nEOF\n\"  # heredoc-lint: disable=HL101,HL102\n"
    assert _codes(text) == []
