"""Fixes only for what is shown: `--fix` (with or without `--unsafe-fixes`), `--diff`, the
LSP's fix-all and the hook's fixed command change only the findings the same run reports,
after `--select`/`--ignore`, per-file ignores, suppression comments and the severity
threshold (SPEC section 4).

The files below hold findings under the default threshold (info) that carry a fix: an
HL101 "arrives as written" heredoc in an ssh string (a safe base64 fix), an HL201 int
option and an HL201 value of unknown origin inside single quotes (an unsafe and a safe
`shlex.quote` fix). A default run reports nothing there, so nothing may change.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_process import run_cli
from lsprotocol import types
from test_agent_hooks import payload, run_hook
from test_lsp import Session, apply_edits, edits_of, session

from heredoc_lint.fixes.fixer import fix_text
from heredoc_lint.model import Applicability, Edit, Finding, Fix, Severity

# HL101 at info: the heredoc reaches the remote shell as written.
HEREDOC = "ssh h \"cat > /tmp/f << 'EOF'\nhello world\nEOF\necho done\"\n"
INFO_SH = "#!/bin/bash\n" + HEREDOC
# HL201 at info: an option declared type=int (unsafe fix), and a value whose origin the
# file does not show, inside the author's quotes (safe fix).
INFO_PY = """\
import argparse
import subprocess

from tools import label

parser = argparse.ArgumentParser()
parser.add_argument("--seconds", type=int, default=3)
args = parser.parse_args()

subprocess.run(f"sleep {args.seconds}", shell=True)
subprocess.run(f"touch '/tmp/{label()}.done'", shell=True)
"""
# HL108 (error, safe fix) before the info heredoc.
SCP = "scp -p 2222 build.tgz h:/tmp/\n"
MIXED_SH = "#!/bin/bash\n" + SCP + HEREDOC
# HL104 (warning, unsafe fix) before the info heredoc.
BACKGROUND = "ssh h 'nohup ./serve &'\n"
INFO_FILES = {"info.sh": INFO_SH, "info.py": INFO_PY}


def findings(path: Path, *args: str) -> list[dict[str, object]]:
    got = run_cli("--no-cache", "--format", "json", *args, path)
    assert got.returncode in (0, 1), got.stderr
    out: list[dict[str, object]] = json.loads(got.stdout)
    return out


def fixed_count(stdout: str) -> int:
    match = re.search(r"Fixed (\d+) findings?", stdout)
    assert match, stdout
    return int(match.group(1))


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode())
    return path


# -- the CLI -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(INFO_FILES))
def test_a_file_with_nothing_reported_is_byte_identical(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, name, INFO_FILES[name])
    # What makes the test mean something: fixable findings under the threshold.
    below = findings(path, "--severity", "info")
    assert below and all(f["severity"] == "info" and f["fix"] for f in below)
    assert findings(path) == []
    before = path.read_bytes()
    got = run_cli("--no-cache", "--fix", "--unsafe-fixes", path)
    assert got.returncode == 0, got.stdout + got.stderr
    assert path.read_bytes() == before
    assert fixed_count(got.stdout) == 0
    # --diff shows the same nothing.
    shown = run_cli("--no-cache", "--diff", "--unsafe-fixes", path)
    assert (shown.returncode, shown.stdout) == (0, "")
    assert path.read_bytes() == before


@pytest.mark.parametrize("name", sorted(INFO_FILES))
def test_the_same_file_is_fixed_when_info_is_reported(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, name, INFO_FILES[name])
    count = len(findings(path, "--severity", "info"))
    got = run_cli("--no-cache", "--fix", "--unsafe-fixes", "--severity", "info", path)
    assert path.read_text() != INFO_FILES[name]
    assert fixed_count(got.stdout) == count
    assert findings(path, "--severity", "info") == []


def test_the_threshold_decides_what_is_fixed_and_counted(tmp_path: Path) -> None:
    path = write(tmp_path, "mixed.sh", MIXED_SH)
    got = run_cli("--no-cache", "--fix", path)
    assert path.read_text() == MIXED_SH.replace("scp -p", "scp -P")
    assert fixed_count(got.stdout) == 1
    path.write_text(MIXED_SH)
    got = run_cli("--no-cache", "--fix", "--severity", "info", path)
    assert "scp -P" in path.read_text() and "<< 'EOF'" not in path.read_text()
    assert fixed_count(got.stdout) == 2


@pytest.mark.parametrize("how", ["--ignore", "comment", "per-file-ignores", "--select"])
def test_a_finding_not_reported_leaves_the_file_unchanged(tmp_path: Path, how: str) -> None:
    """HL104 (a warning with an unsafe fix) taken away by `--ignore`, a suppression
    comment or a per-file ignore, or left out by `--select HL101`: the heredoc's info
    finding is all that is left, the run reports nothing, and neither is fixed."""
    text = "#!/bin/bash\n" + BACKGROUND + HEREDOC
    args: list[str] = []
    if how == "--ignore":
        args = ["--ignore", "HL104"]
    elif how == "--select":
        args = ["--select", "HL101"]  # the heredoc's rule, at info
    elif how == "comment":
        text = text.replace(
            BACKGROUND, BACKGROUND.rstrip("\n") + "  # heredoc-lint: disable=HL104\n"
        )
    else:
        (tmp_path / ".heredoc-lint.toml").write_text('per-file-ignores = { "*.sh" = ["HL104"] }\n')
    path = write(tmp_path, "serve.sh", text)
    assert findings(path, *args) == []
    got = run_cli("--no-cache", "--fix", "--unsafe-fixes", *args, path, cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    assert path.read_text() == text
    assert fixed_count(got.stdout) == 0


# -- the fix loop: every pass applies the same rule ---------------------------------------------


def test_a_later_pass_fixes_only_what_is_reported() -> None:
    """A fix whose result holds a new, unreported finding with a fix of its own: the
    second pass leaves it, and only the reported one is counted."""
    shout = Fix((Edit(0, 1, "A"),), Applicability.SAFE, "upper-case a")
    quiet = Fix((Edit(1, 2, "B"),), Applicability.SAFE, "upper-case b")
    first = Finding("HL108", Severity.ERROR, "a", 0, 1, fix=shout)
    later = Finding("HL101", Severity.INFO, "b", 1, 2, fix=quiet)

    def check(text: str) -> tuple[list[Finding], int]:
        return ([first] if text[0] == "a" else []) + ([later] if text[1] == "b" else []), 0

    outcome = fix_text("abc", check, lambda _: 0, threshold=Severity.WARNING)
    assert (outcome.text, outcome.fixed) == ("Abc", 1)
    outcome = fix_text("abc", check, lambda _: 0, threshold=Severity.INFO)
    assert (outcome.text, outcome.fixed) == ("ABc", 2)


# -- the LSP's fix-all -------------------------------------------------------------------------


async def _fix_all(s: Session, uri: str) -> list[types.CodeAction]:
    await s.diagnostics(uri, 1)
    return await s.code_actions(uri, None, only=["source.fixAll"])


def test_lsp_fix_all_is_not_offered_for_what_is_not_reported(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        uri = s.open(tmp_path / "info.sh", INFO_SH, "shellscript")
        assert await _fix_all(s, uri) == []

    session(tmp_path)(body)


def test_lsp_fix_all_leaves_what_is_not_reported(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        uri = s.open(tmp_path / "mixed.sh", MIXED_SH, "shellscript")
        (action,) = await _fix_all(s, uri)
        fixed = apply_edits(MIXED_SH, edits_of(action, uri, 1))
        assert fixed == MIXED_SH.replace("scp -p", "scp -P")

    session(tmp_path)(body)


def test_lsp_fix_all_fixes_info_where_the_project_reports_it(tmp_path: Path) -> None:
    (tmp_path / ".heredoc-lint.toml").write_text('severity = "info"\n')

    async def body(s: Session) -> None:
        uri = s.open(tmp_path / "info.sh", INFO_SH, "shellscript")
        (action,) = await _fix_all(s, uri)
        fixed = apply_edits(INFO_SH, edits_of(action, uri, 1))
        assert "base64 -d > /tmp/f" in fixed and "<< 'EOF'" not in fixed

    session(tmp_path)(body)


# -- the hook's fixed command ----------------------------------------------------------------

# HL103 (error) and the info heredoc in one ssh string.
HOOK_COMMAND = "ssh h \"pkill -f sglang; cat > /tmp/f << 'EOF'\nhello world\nEOF\necho done\""


def test_the_hooks_rewrite_leaves_what_it_does_not_report() -> None:
    answer = json.loads(run_hook("claude", payload("claude", HOOK_COMMAND), "--rewrite").stdout)
    out = answer["hookSpecificOutput"]
    assert out["permissionDecision"] == "allow", out
    assert out["updatedInput"]["command"] == HOOK_COMMAND.replace("sglang", "'[s]'glang")


def test_the_hooks_fixed_command_in_a_deny_leaves_what_it_does_not_report() -> None:
    answer = json.loads(run_hook("claude", payload("claude", HOOK_COMMAND)).stdout)
    reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert "HL103" in reason and "HL101" not in reason
    assert HOOK_COMMAND.replace("sglang", "'[s]'glang") in reason
    assert "base64" not in reason
