"""Suppression directives are comments of the file's own language (issue 18 item 3).

Text that only spells a directive (`echo "# heredoc-lint: disable-file=ALL"`, a heredoc
body, a Markdown heading, a YAML `name:` value, a Python string) silenced the whole
file, and the same text inside an agent's command silenced the hook.  Each spelling from
the issue is checked here through the real CLI or hook, next to the real comment of the
same language, which still silences.  For shell, bash itself shows which is a comment:
with a stand-in `ssh` on PATH, the command under a directive in a string still runs.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from cli_process import CLI, run_cli

from heredoc_lint.agents import hook
from heredoc_lint.engine import Settings, check_text

BAD = 'ssh h "pkill -f sglang; ./restart"'  # HL103, an error
ALL = "heredoc-lint: disable-file=ALL"
WORKFLOW = """\
name: {name}
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - name: {step}
        run: |
{comment}          ssh h "pkill -f sglang; ./restart"
"""


def codes(text: str, kind: str) -> list[str]:
    return [f.code for f in check_text(text, kind)]


def cli(tmp_path: Path, name: str, text: str) -> subprocess.CompletedProcess[str]:
    target = tmp_path / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    return run_cli("--no-cache", "--format", "json", name, cwd=tmp_path, timeout=120)


# Each spelling of the issue that is no comment of its file's language: HL103 stays.
NOT_COMMENTS = {
    "shell-echo-string": ("x.sh", f'echo "# {ALL}"\n{BAD}\n'),
    "shell-heredoc-body": ("x.sh", f"cat <<'EOF'\n# {ALL}\nEOF\n{BAD}\n"),
    "shell-ssh-string": ("x.sh", f"ssh h 'pkill -f sglang; ./restart # {ALL}'\n"),
    "markdown-heading": ("x.md", f"# {ALL}\n\n```bash\n{BAD}\n```\n"),
    "markdown-code-span": ("x.md", f"`<!-- {ALL} -->`\n\n```bash\n{BAD}\n```\n"),
    "markdown-other-fence": ("x.md", f"```text\n# {ALL}\n```\n\n```bash\n{BAD}\n```\n"),
    "markdown-html-in-fence": ("x.md", f"```bash\necho '<!-- {ALL} -->'\n{BAD}\n```\n"),
    "yaml-name-value": (
        ".github/workflows/w.yml",
        WORKFLOW.format(name=f'"# {ALL}"', step="x", comment=""),
    ),
    "yaml-quoted-step-name": (
        ".github/workflows/w.yml",
        WORKFLOW.format(name="w", step=f"'a # {ALL}'", comment=""),
    ),
    "yaml-block-scalar": (
        ".github/workflows/w.yml",
        WORKFLOW.format(name="w", step=f"|\n          a\n          # {ALL}", comment=""),
    ),
    "python-string": (
        "x.py",
        f"import os\nX = \"# {ALL}\"\nos.system('{BAD}')\n",
    ),
    "python-noqa-in-string": ("x.py", f"import os\nos.system('{BAD} # noqa: HL103')\n"),
}

COMMENTS = {
    "shell-file-comment": ("x.sh", f"# {ALL}\n{BAD}\n"),
    "shell-trailing": ("x.sh", f"{BAD}  # heredoc-lint: disable=HL103\n"),
    "shell-after-utf8-and-heredoc": (
        "x.sh",
        f"cat <<'EOF'\néü€😀\nEOF\n# heredoc-lint: disable=HL103\n{BAD}\n",
    ),
    "shell-shellcheck": ("x.sh", "# shellcheck disable=SC2087\nssh h bash <<EOF\necho $x\nEOF\n"),
    "markdown-html-comment-block": ("x.md", f"<!-- {ALL} -->\n\n```bash\n{BAD}\n```\n"),
    "markdown-fence-comment": (
        "x.md",
        f"Text.\n\n```bash\n# heredoc-lint: disable=HL103\n{BAD}\n```\n",
    ),
    "yaml-comment": (
        ".github/workflows/w.yml",
        f"# {ALL}\n" + WORKFLOW.format(name="w", step="x", comment=""),
    ),
    "yaml-trailing-comment": (
        ".github/workflows/w.yml",
        WORKFLOW.format(name=f"w  # {ALL}", step="x", comment=""),
    ),
    "yaml-run-comment": (
        ".github/workflows/w.yml",
        WORKFLOW.format(name="w", step="x", comment="          # heredoc-lint: disable=HL103\n"),
    ),
    "python-comment": ("x.py", f"import os\n# {ALL}\nos.system('{BAD}')\n"),
    "python-noqa": ("x.py", f"import os\nos.system('{BAD}')  # noqa: HL103\n"),
}


@pytest.mark.parametrize("case", sorted(NOT_COMMENTS))
def test_a_directive_that_is_no_comment_silences_nothing(tmp_path: Path, case: str) -> None:
    name, text = NOT_COMMENTS[case]
    result = cli(tmp_path, name, text)
    assert result.returncode == 1, result.stderr
    assert [f["code"] for f in json.loads(result.stdout)] == ["HL103"]


@pytest.mark.parametrize("case", sorted(COMMENTS))
def test_a_directive_in_a_comment_still_silences(tmp_path: Path, case: str) -> None:
    name, text = COMMENTS[case]
    result = cli(tmp_path, name, text)
    assert (result.returncode, result.stdout.strip()) == (0, "[]"), result.stdout


def test_without_the_comment_each_comment_case_has_its_finding() -> None:
    """The COMMENTS cases are not clean for another reason: the directive does the work."""
    for case, (name, text) in COMMENTS.items():
        kind = {"sh": "shell", "md": "markdown", "yml": "actions", "py": "python"}
        bare = (
            text.replace("heredoc-lint: disable", "heredoc-lint: keep")
            .replace("noqa", "nothing")
            .replace("shellcheck disable", "shellcheck keep")
        )
        assert codes(bare, kind[name.rsplit(".", 1)[1]]), case


@pytest.mark.parametrize("case", ["shell-echo-string", "shell-heredoc-body"])
def test_bash_runs_the_command_under_a_directive_that_is_no_comment(
    tmp_path: Path, case: str
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "ssh.log"
    (bin_dir / "ssh").write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {log}\n')
    (bin_dir / "ssh").chmod(0o755)
    (tmp_path / "x.sh").write_text(NOT_COMMENTS[case][1])
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    subprocess.run(["bash", "x.sh"], cwd=tmp_path, env=env, capture_output=True, check=True)
    assert log.read_text() == "h pkill -f sglang; ./restart\n"


def test_unused_suppression_is_only_reported_for_a_comment() -> None:
    settings = Settings(warn_unused_suppressions=True)
    text = 'echo "# heredoc-lint: disable=HL103"\necho ok  # heredoc-lint: disable=HL103\n'
    found = check_text(text, "shell", settings=settings)
    assert [(f.code, f.start) for f in found] == [("HL002", text.rindex("#"))]


def test_a_python_file_that_does_not_tokenize_keeps_its_earlier_comments() -> None:
    text = f"import os\nos.system('{BAD}')  # noqa: HL103\nx = (\n"
    assert "HL103" not in codes(text, "python")


# --- the agent hook --------------------------------------------------------------------

COMMAND = f"{BAD}  # heredoc-lint: disable=HL103"


def test_hook_ignores_a_directive_in_the_command_by_default(tmp_path: Path) -> None:
    verdict = hook.decide(COMMAND, hook.HookOptions("claude"), str(tmp_path))
    assert verdict.decision == "deny" and "HL103" in verdict.reason
    assert hook.decide(f"# {ALL}\n{BAD}", hook.HookOptions("claude"), None).decision == "deny"


def test_hook_counts_directives_when_the_configuration_allows_them(tmp_path: Path) -> None:
    (tmp_path / ".heredoc-lint.toml").write_text("hook-suppressions = true\n")
    verdict = hook.decide(COMMAND, hook.HookOptions("claude"), str(tmp_path))
    assert verdict.decision == "allow", verdict.reason
    # A directive that is no comment of the command still counts for nothing.
    text = f"echo '# heredoc-lint: disable=HL103'; {BAD}"
    assert hook.decide(text, hook.HookOptions("claude"), str(tmp_path)).decision == "deny"


def test_hook_suppressions_must_be_a_boolean(tmp_path: Path) -> None:
    (tmp_path / ".heredoc-lint.toml").write_text('hook-suppressions = "yes"\n')
    verdict = hook.decide(COMMAND, hook.HookOptions("claude"), str(tmp_path))
    assert verdict.decision == "deny"
    assert any("`hook-suppressions` must be true or false" in n for n in verdict.notes)


def test_hook_process_denies_a_command_with_its_own_directive() -> None:
    data = {
        "session_id": "s",
        "cwd": "/",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": COMMAND},
    }
    done = subprocess.run(
        [*CLI, "hook", "claude"],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    answer = json.loads(done.stdout)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_cli_command_string_keeps_its_directives() -> None:
    """`--command` is the user's own text: its comments count, as in a file."""
    assert codes(COMMAND, "command") == []
