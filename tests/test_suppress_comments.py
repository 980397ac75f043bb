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
from typing import get_args

import pytest
from cli_process import CLI, run_cli
from rulekit import finding_codes

from heredoc_lint.agents import hook
from heredoc_lint.engine import Settings, check_shell, check_text
from heredoc_lint.kinds import SourceKind

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


# The kind each case's name starts with; an agent's command line (`command`) has its own
# tests below (test_hook_*, test_cli_command_string_keeps_its_directives).
CASE_KINDS: dict[str, SourceKind] = {
    "shell": "shell",
    "markdown": "markdown",
    "yaml": "actions",
    "python": "python",
}


def test_every_kind_of_file_has_comment_and_non_comment_cases() -> None:
    """suppress.py finds comments by kind: a kind added without cases fails here."""
    for cases in (COMMENTS, NOT_COMMENTS):
        covered = {CASE_KINDS[case.split("-", 1)[0]] for case in cases}
        assert covered == set(get_args(SourceKind)) - {"command"}


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


# -- suppress.py: a directive spelled in Markdown prose is no comment -------------------------


_FENCE = "```bash\n# shellcheck shell=bash\n{directive}ssh h 'pkill -f sglang; echo done'\n```\n"


_PROSE = "To silence it, write `# heredoc-lint: disable-file=HL103` in the script.\n\n"


def test_a_directive_in_markdown_prose_silences_nothing() -> None:
    """The prose before a fence spells a directive inside a code span: it is not a comment
    of the fence's shell (whose first line is a comment), so HL103 stays, at `pkill`.
    Written as the fence's own comment, the same directive silences it."""
    text = _PROSE + _FENCE.format(directive="")
    at = text.index("pkill")
    assert [(f.code, f.start, f.end) for f in check_text(text, "markdown")] == [
        ("HL103", at, at + len("pkill"))
    ]
    own = _FENCE.format(directive="# heredoc-lint: disable-file=HL103\n")
    assert check_text(own, "markdown") == []


# -- fixes/python_fixes.py: `import shlex` goes after `from __future__` ----------------------


_OWN_DIRECTIVE = "# heredoc-lint: disable=HL103\n"


_IN_FENCE = "Deploy:\n\n```bash\n{d}ssh h 'pkill -f sglang; echo done'\n```\n"


_IN_STEP = (
    "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n"
    "          {d}ssh h 'pkill -f sglang; echo done'\n"
)


@pytest.mark.parametrize(("template", "kind"), [(_IN_FENCE, "markdown"), (_IN_STEP, "actions")])
def test_a_directive_in_a_fence_or_a_run_step_silences_its_line(
    template: str, kind: SourceKind
) -> None:
    """A directive written as a comment of the shell in a Markdown fence or a workflow's
    `run:` step (no other directive or ShellCheck comment in the file) silences the line
    after it; without it HL103 is reported at `pkill`."""
    plain = template.format(d="")
    at = plain.index("pkill")
    assert [(f.code, f.start, f.end) for f in check_text(plain, kind)] == [
        ("HL103", at, at + len("pkill"))
    ]
    indent = " " * 10 if kind == "actions" else ""
    assert check_text(template.format(d=_OWN_DIRECTIVE + indent), kind) == []


# -- suppress.py: YAML comments are directives in a workflow, and only there ---------------


_BAD = 'ssh h "pkill -f sglang; ./restart"'  # HL103, an error


_WORKFLOW = """\
{comment}name: w
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: |
          {bad}
"""


def test_a_yaml_comment_directive_silences_a_workflow() -> None:
    """A workflow's own YAML comment (outside every `run:` step) is a directive: it
    silences the HL103 of the step below; without it the step has that HL103."""
    bare = _WORKFLOW.format(comment="", bad=_BAD)
    assert [f.code for f in check_text(bare, "actions")] == ["HL103"]
    silenced = _WORKFLOW.format(comment="# heredoc-lint: disable-file=HL103\n", bad=_BAD)
    assert check_text(silenced, "actions") == []


def test_a_yaml_comment_is_no_directive_in_a_shell_file() -> None:
    """`ssh h 'pkill -f sglang; ./restart # heredoc-lint: ...'`: for YAML the ` #` would
    start a comment (the line is a plain scalar), for bash it is inside the quotes, and bash
    is the file's language.  Bash shows it: the `#` text reaches ssh as part of its
    argument, so the directive is no comment and the HL103 stays."""
    line = "ssh h 'pkill -f sglang; ./restart # heredoc-lint: disable=HL103'\n"
    echoed = subprocess.run(
        ["bash", "-c", "ssh() { printf '%s\\n' \"$2\"; }\n" + line],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert echoed == "pkill -f sglang; ./restart # heredoc-lint: disable=HL103\n"
    findings = check_shell(line, "x.sh")
    assert [(f.code, f.severity) for f in findings] == [("HL103", "error")]


# -- suppress.py: Markdown's own comment, file-wide or not ----------------------------------


def _runbook(comment: str) -> str:
    return f"{comment}\n\n# Restart\n\nThen:\n\n```bash\n{_BAD}\n```\n"


def test_an_html_comment_directive_keeps_its_scope() -> None:
    """`<!-- heredoc-lint: disable-file=HL103 -->` silences the HL103 of a fence further
    down; `disable=HL103` in the same place covers only its own line and the next (a
    blank one), so the HL103 stays, at the same place as with no comment at all."""
    bare = check_text(_runbook("Intro."), "markdown")
    assert [(f.code, f.severity) for f in bare] == [("HL103", "error")]
    whole = _runbook("<!-- heredoc-lint: disable-file=HL103 -->")
    assert check_text(whole, "markdown") == []
    line = _runbook("<!-- heredoc-lint: disable=HL103 -->")
    (kept,) = check_text(line, "markdown")
    assert (kept.code, line[kept.start : kept.end]) == ("HL103", "pkill")


# -- suppress.py: directives after characters wider than a byte -----------------------------


@pytest.mark.parametrize("wide", ["é", "😀", "é€😀"])
def test_directives_after_wide_characters(wide: str) -> None:
    """tree-sitter counts bytes: after characters of 2-4 bytes (on an earlier line, and
    on the directive's own line) a directive comment still silences its line's HL103,
    and the same text in a string after them still does not."""
    comment = f"echo '{wide}'\necho '{wide}'; {_BAD}  # heredoc-lint: disable=HL103 {wide}\n"
    assert check_shell(comment, "x.sh") == []
    string = f"echo '{wide}'\necho '{wide} # heredoc-lint: disable=HL103'; {_BAD}\n"
    assert [f.code for f in check_shell(string, "x.sh")] == ["HL103"]


def test_a_directive_on_the_next_step_does_not_cover_a_run_block() -> None:
    """A `run: |` block ends with its last line's newline; the next step's line, and the
    directive at its end, belong to that step only: the HL103 of the block above stays
    (a directive at the end of the block's own line silences it)."""
    steps = f"      - run: |\n          {_BAD}{{here}}\n      - run: echo hi{{next}}\n"
    head = "name: w\non: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
    directive = "  # heredoc-lint: disable=HL103"
    on_next = head + steps.format(here="", next=directive)
    (kept,) = check_text(on_next, "actions")
    assert (kept.code, on_next[kept.start : kept.end]) == ("HL103", "pkill")
    assert check_text(head + steps.format(here=directive, next=""), "actions") == []


# -- suppressions ----------------------------------------------------------------------------


PKILL = 'ssh h "pkill -f x; y"\n'  # HL103 error at 7..12, whatever else changes


@pytest.mark.parametrize("codes", ["HL1", "HL10", "HL103", "hl103", "HL2,HL1", "ALL"])
def test_directive_code_prefixes_are_honoured(codes: str) -> None:
    text = PKILL.replace("\n", f"  # heredoc-lint: disable={codes}\n")
    assert "HL103" not in finding_codes(text)


@pytest.mark.parametrize("codes", ["HL2", "HL104", "HL1030"])
def test_directive_for_other_codes_does_not_silence(codes: str) -> None:
    text = PKILL.replace("\n", f"  # heredoc-lint: disable={codes}\n")
    assert "HL103" in finding_codes(text)


def test_directive_after_the_closing_quote_covers_the_statement() -> None:
    """A finding inside a multi-line string has no line of its own for a comment: a
    directive at the end of the statement's last line silences it."""
    text = "ssh h \"cat > f << 'EOF'\nport $1\nEOF\"  # heredoc-lint: disable=HL101,HL102\necho\n"
    assert "HL102" in finding_codes(text.replace("  # heredoc-lint: disable=HL101,HL102", ""))
    assert finding_codes(text) == []


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


# -- ShellCheck directives -----------------------------------------------------------------


# One script per rule that a ShellCheck code stands for, each with exactly one finding.
HL107 = "ssh h bash <<EOF\necho $HOME\nEOF\n"  # an unquoted heredoc to the remote shell


HL109 = "sudo echo x > /etc/f\n"  # the redirection is the unprivileged caller's


HL102 = 'ssh h "echo $HOME"\n'  # expanded on the client side


def _found(text: str) -> list[tuple[str, int, int]]:
    return [(f.code, f.start, f.end) for f in check_text(text, "shell", "t.sh", Settings())]


def test_each_script_has_its_one_finding() -> None:
    assert _found(HL107) == [("HL107", 11, 13)]
    assert _found(HL109) == [("HL109", 12, 13)]
    assert _found(HL102) == [("HL102", 12, 17)]


@pytest.mark.parametrize(
    ("shellcheck", "script"),
    [("SC2087", HL107), ("SC2024", HL109), ("SC2029", HL102)],
)
def test_shellcheck_directive_silences_its_own_rule(shellcheck: str, script: str) -> None:
    """`# shellcheck disable=SC2087` says the author knows the bug HL107 reports (SC2024:
    HL109, SC2029: HL102): alone on the line before, or among other codes."""
    assert _found(f"# shellcheck disable={shellcheck}\n{script}") == []
    assert _found(f"# shellcheck disable=SC2086,{shellcheck.lower()}\n{script}") == []
    # A directive for another ShellCheck code leaves the finding (shifted by its line).
    shift = len("# shellcheck disable=SC2086\n")
    assert _found(f"# shellcheck disable=SC2086\n{script}") == [
        (code, a + shift, b + shift) for code, a, b in _found(script)
    ]


@pytest.mark.parametrize(
    ("shellcheck", "script"),
    [("SC2087", HL109), ("SC2024", HL107), ("SC2029", HL107), ("SC2024", HL102)],
)
def test_shellcheck_directive_leaves_other_rules(shellcheck: str, script: str) -> None:
    text = f"# shellcheck disable={shellcheck}\n{script}"
    shift = len(f"# shellcheck disable={shellcheck}\n")
    assert _found(text) == [(code, a + shift, b + shift) for code, a, b in _found(script)]
