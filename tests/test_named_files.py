"""A file named on the command line is read as shell unless its name or content says
otherwise, as ShellCheck reads what it is given; a directory walk keeps its own
discovery (a suffix, or a shebang).  One function decides both: `discover.kind_of`, with
`explicit` for a named file."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_process import run_cli

from heredoc_lint.lsp.project import kind_of_document
from heredoc_lint.run.discover import kind_of

BAD = 'ssh h "pkill -f sglang; ./restart"\n'  # HL103, an error
ELF = b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00"


def check(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli("--no-cache", "--format", "json", *args, cwd=cwd)


def codes(result: subprocess.CompletedProcess[str]) -> list[tuple[str, str]]:
    return [(f["path"], f["code"]) for f in json.loads(result.stdout or "[]")]


def notes(result: subprocess.CompletedProcess[str]) -> list[str]:
    return result.stderr.splitlines()


@pytest.mark.parametrize("name", ["deploy.inc", "restart.txt", "setup.env", "launch.conf"])
def test_a_named_file_with_a_suffix_of_no_kind_is_read_as_shell(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text(BAD)
    named = check(name, cwd=tmp_path)
    assert (named.returncode, codes(named), notes(named)) == (1, [(name, "HL103")], [])
    walked = check(".", cwd=tmp_path)  # in a directory: not a script by its name
    assert (walked.returncode, codes(walked)) == (0, [])


def test_a_named_file_without_suffix_or_shebang_is_read_as_shell(tmp_path: Path) -> None:
    (tmp_path / "restart").write_text(BAD)
    named = check("restart", cwd=tmp_path)
    assert (named.returncode, codes(named), notes(named)) == (1, [("restart", "HL103")], [])
    assert codes(check(".", cwd=tmp_path)) == []


def test_a_named_file_with_a_python_shebang_is_read_as_python(tmp_path: Path) -> None:
    (tmp_path / "tool").write_text(f"#!/usr/bin/env python3\nimport os\nos.system({BAD!r})\n")
    named = check("tool", cwd=tmp_path)
    assert (named.returncode, codes(named)) == (1, [("tool", "HL103")])


@pytest.mark.parametrize(
    ("name", "data", "note"),
    [
        (
            "tool",
            f"#!/usr/bin/perl\nsystem('{BAD.strip()}');\n".encode(),
            "its #! line names /usr/bin/perl, not a shell or Python: skipped",
        ),
        ("Dockerfile", f"FROM debian\nRUN {BAD}".encode(), "not a script, runbook or workflow"),
        ("config.yml", f"run: {BAD}".encode(), "not a script, runbook or workflow"),
        ("notes.json", json.dumps({"run": BAD}).encode(), "not a script, runbook or workflow"),
        ("program", ELF + BAD.encode(), "a binary file, not a script: skipped"),
    ],
    ids=["perl-shebang", "dockerfile", "yaml", "json", "binary"],
)
def test_a_named_file_whose_name_or_content_says_otherwise_is_skipped_in_one_line(
    tmp_path: Path, name: str, data: bytes, note: str
) -> None:
    (tmp_path / name).write_bytes(data)
    result = check(name, cwd=tmp_path)
    assert (result.returncode, result.stdout.strip()) == (0, "[]")
    assert len(notes(result)) == 1, result.stderr
    assert notes(result)[0].startswith(f"heredoc-lint: {name}: {note}")
    fixing = run_cli("--no-cache", "--fix", name, cwd=tmp_path)
    assert fixing.returncode == 0 and "Traceback" not in fixing.stderr
    assert (tmp_path / name).read_bytes() == data


def test_a_real_executable_named_explicitly_is_skipped_as_binary(tmp_path: Path) -> None:
    program = Path("/bin/true").resolve()
    result = check(program, cwd=tmp_path)
    assert result.returncode == 0
    assert notes(result) == [f"heredoc-lint: {program}: a binary file, not a script: skipped"]


def test_a_named_file_that_is_not_utf8_is_read_as_shell(tmp_path: Path) -> None:
    (tmp_path / "latin").write_bytes(b'ssh h "echo caf\xe9; pkill -f sglang; ./restart"\n')
    result = check("latin", cwd=tmp_path)
    assert (result.returncode, codes(result), notes(result)) == (1, [("latin", "HL103")], [])


def test_a_script_suffix_wins_over_binary_content(tmp_path: Path) -> None:
    """bash runs such a file (`source`, `bash < FILE`): tests/test_robustness.py."""
    (tmp_path / "tool.sh").write_bytes(ELF[:8] + b"\n" + BAD.encode())
    assert codes(check("tool.sh", cwd=tmp_path)) == [("tool.sh", "HL103")]


def test_kind_of_a_named_file_and_of_a_walked_one(tmp_path: Path) -> None:
    cases = {
        "a.sh": (b"echo\n", "shell", "shell"),
        "a.py": (b"print()\n", "python", "python"),
        "a.md": (b"# x\n", "markdown", "markdown"),
        "Fix Issue.Md": (b"# x\n", "markdown", "markdown"),
        "README.MD": (b"# x\n", "markdown", "markdown"),
        "a.inc": (b"echo\n", "shell", None),
        "plain": (b"echo\n", "shell", None),
        "bashed": (b"#!/bin/bash\necho\n", "shell", "shell"),
        "snake": (b"#!/usr/bin/python3\nprint()\n", "python", "python"),
        "perl": (b"#!/usr/bin/perl\nprint;\n", None, None),
        "Makefile": (b"all:\n\techo\n", None, None),
        "a.json": (b"{}\n", None, None),
        "blob": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", None, None),
    }
    for name, (data, named, walked) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        assert kind_of(path, explicit=True) == named, name
        assert kind_of(path) == walked, name


def test_the_language_server_still_decides_by_name_language_and_shebang() -> None:
    """An editor's document is not "named on the command line": nothing changes there, and
    a binary or an unknown file is not checked."""
    assert kind_of_document(None, "/p/program", ELF.decode("latin-1")) is None
    assert kind_of_document("plaintext", "/p/restart.txt", BAD) is None
    assert kind_of_document("shellscript", "/p/restart.txt", BAD) == "shell"
    assert kind_of_document(None, "/p/restart", "#!/bin/sh\n" + BAD) == "shell"
