"""The agent gate's second round: each mismatch with an agent's documented behaviour,
built from the payload the agent documents and checked the way the agent reads the answer.

Sources (docs/agents.md cites them in full): Claude Code's hooks reference (PreToolUse
output, `updatedInput` with `permissionDecision: "allow"`, the 10,000-character cap on
hook output), Cursor's "Third Party Hooks" page (Cursor runs `.claude/settings.json`
hooks) and its hook input (`preToolUse`, tool `Shell`, a UTF-8 BOM), Codex's hook source
(`allow` needs `updatedInput`; the legacy `shell` tool's argv `["bash", "-lc", SCRIPT]`),
Gemini CLI's hooks reference and source (BeforeTool `hookSpecificOutput.tool_input`
merged over the model's arguments), Cursor's `preToolUse` `updated_input` (as
third-party integrations report it; docs/agents.md).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_process import CLI

from heredoc_lint.engine import check_text

ROOT = Path(__file__).resolve().parent.parent
BAD = 'ssh h "pkill -f sglang; ./restart"'  # HL103: the remote shell kills itself
BAD_FIXED = "ssh h \"pkill -f '[s]'glang; ./restart\""
CLAUDE_CAP = 10_000  # characters of hook output Claude Code keeps


def hook(*args: str, data: bytes, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*CLI, "hook", *args],
        input=data,
        capture_output=True,
        timeout=120,
        check=False,
        cwd=cwd,
    )


def claude(command: str, cwd: str = "/home/u/project") -> bytes:
    return json.dumps(
        {
            "session_id": "0b7c5c3e",
            "transcript_path": "/home/u/.claude/projects/p/0b7c5c3e.jsonl",
            "cwd": cwd,
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "Run it"},
            "tool_use_id": "toolu_01ABC",
        }
    ).encode()


def codex(command: Any, tool: str = "Bash") -> bytes:
    return json.dumps(
        {
            "session_id": "019a-codex",
            "turn_id": "turn-1",
            "transcript_path": None,
            "cwd": "/home/u/project",
            "hook_event_name": "PreToolUse",
            "model": "gpt-5-codex",
            "permission_mode": "default",
            "tool_name": tool,
            "tool_input": {"command": command},
            "tool_use_id": "call_1",
        }
    ).encode()


def cursor_pre_tool_use(command: str) -> bytes:
    """What Cursor sends a `.claude/settings.json` hook: its own event and tool name, and
    a UTF-8 byte order mark before the JSON."""
    body = {
        "conversation_id": "conv-1",
        "generation_id": "gen-1",
        "model": "default",
        "hook_event_name": "preToolUse",
        "cursor_version": "2.4.0",
        "workspace_roots": ["/home/u/project"],
        "tool_name": "Shell",
        "tool_input": {"command": command, "cwd": "/home/u/project"},
    }
    return b"\xef\xbb\xbf" + json.dumps(body).encode()


def answer(got: subprocess.CompletedProcess[bytes]) -> Any:
    assert got.returncode == 0, got.stderr
    return json.loads(got.stdout)


# --- 3. Cursor running the Claude Code hook ----------------------------------------


def test_cursor_input_to_the_claude_hook_is_answered_in_cursors_shape() -> None:
    got = answer(hook("claude", data=cursor_pre_tool_use(BAD)))
    assert got["permission"] == "deny"
    assert "HL103" in got["agent_message"] and "HL103" in got["user_message"]
    assert BAD_FIXED in got["agent_message"]


def test_cursor_input_to_the_claude_hook_allows_with_json_not_silence() -> None:
    # Cursor blocks on output that is not JSON: Claude's silent allow would block.
    got = hook("claude", data=cursor_pre_tool_use("ls -la"))
    assert answer(got) == {"permission": "allow"}


# --- 4. Claude Code's 10,000-character cap -----------------------------------------


def test_a_long_command_with_repeated_findings_stays_under_claudes_cap() -> None:
    line = 'ssh h "pkill -f worker_{n}; ./restart {n}"\n'
    command = "".join(line.format(n=n) for n in range(150))
    assert len(command) > 5_955  # the size of the example
    got = hook("claude", data=claude(command))
    assert len(got.stdout.decode()) < CLAUDE_CAP
    reason = answer(got)["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason.startswith("heredoc-lint blocked this command: 150 shell-quoting findings")
    # One line per distinct finding, its places listed up to five, the rest counted.
    listed = [x for x in reason.splitlines() if x.startswith("- ")]
    assert any(x.startswith("- 1:8 HL103") for x in listed)
    assert len(listed) <= 21


def test_the_reason_agrees_with_the_count_of_findings() -> None:
    one = answer(hook("claude", data=claude('ssh h "pkill -f app; ./app"')))
    reason = one["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason.startswith(
        "heredoc-lint blocked this command: 1 shell-quoting finding (HL103) that makes it fail"
    )
    two = answer(hook("claude", data=claude('ssh h "pkill -f app; ./app"; scp -p 22 f h:')))
    reason = two["hookSpecificOutput"]["permissionDecisionReason"]
    assert "2 shell-quoting findings (HL103, HL108) that make it fail" in reason


@pytest.mark.parametrize(
    ("places", "listed_at"),
    [
        (30, "1:8, 2:8, 3:8, 4:8, 5:8 and 25 more places"),
        (6, "1:8, 2:8, 3:8, 4:8, 5:8 and 1 more places"),
        (5, "1:8, 2:8, 3:8, 4:8, 5:8"),  # all of them: nothing more
    ],
)
def test_one_finding_at_many_places_is_one_line(places: int, listed_at: str) -> None:
    command = "\n".join(['ssh h "pkill -f sglang; ./restart"'] * places)
    reason = answer(hook("claude", data=claude(command)))["hookSpecificOutput"][
        "permissionDecisionReason"
    ]
    listed = [x for x in reason.splitlines() if x.startswith("- ")]
    assert len(listed) == 1
    assert listed[0].startswith(f"- {listed_at} HL103 [error]")


# --- 5. The project's configuration, from the payload's cwd ---------------------------


def test_the_projects_configuration_applies_from_the_payloads_cwd(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.heredoc-lint]\nignore = ["HL103"]\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # The hook's own working directory is elsewhere: only the payload names the project.
    allowed = hook("claude", data=claude(BAD, cwd=str(project / "sub")), cwd=elsewhere)
    assert (allowed.returncode, allowed.stdout) == (0, b"")
    denied = hook("claude", data=claude(BAD, cwd=str(elsewhere)), cwd=elsewhere)
    assert answer(denied)["hookSpecificOutput"]["permissionDecision"] == "deny"
    # As in `check`, --select on the hook's command line replaces the project's ignores.
    selected = hook("claude", "--select", "HL103", data=claude(BAD, cwd=str(project)))
    assert answer(selected)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_broken_configuration_is_a_note_and_the_defaults(tmp_path: Path) -> None:
    (tmp_path / ".heredoc-lint.toml").write_text("ignore = [\n")
    got = hook("claude", data=claude(BAD, cwd=str(tmp_path)))
    assert answer(got)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert b"not valid TOML" in got.stderr and b"the configuration was not used" in got.stderr


# --- 8. Smaller -----------------------------------------------------------------------


def test_context_for_an_allowed_command_does_not_say_run_this_instead() -> None:
    from heredoc_lint.agents import hook as module

    allowed = module._Checked([], "context", fixed="ssh h 'x'")
    lines = module._fixed_lines("ssh h x", allowed)
    assert lines[0] == "The same command with heredoc-lint's safe fixes applied (for a next time):"
    denied = module._Checked([], "deny", fixed="ssh h 'x'")
    assert module._fixed_lines("ssh h x", denied)[0].endswith("run this instead:")


def test_codex_legacy_shell_string_is_the_script_not_three_shells() -> None:
    script = 'ssh h "echo hi"'
    joined = "bash -lc 'ssh h \"echo hi\"'"
    for data in (codex(joined, tool="shell"), codex(["bash", "-lc", script], tool="shell")):
        got = hook("codex", "--warnings", "context", data=data)
        assert (got.returncode, got.stdout) == (0, b""), got.stdout  # no HL111
    # The same string typed into a shell (Claude's Bash tool) is three shells deep: HL111,
    # at info (a local middle shell, the string as written), which the hook does not show.
    typed = [(f.code, f.evidence) for f in check_text(joined, "command")]
    assert typed == [("HL111", "three-shells-as-written")]
    assert hook("claude", "--warnings", "context", data=claude(joined)).stdout == b""


# --- --rewrite ------------------------------------------------------------------------


def test_rewrite_for_claude_allows_the_fixed_command() -> None:
    got = answer(hook("claude", "--rewrite", data=claude(BAD)))["hookSpecificOutput"]
    assert got["permissionDecision"] == "allow"
    assert got["updatedInput"] == {"command": BAD_FIXED, "description": "Run it"}
    assert got["additionalContext"].startswith(
        "heredoc-lint rewrote this shell command before it ran (HL103)"
    )
    assert "+ssh h \"pkill -f '[s]'glang; ./restart\"" in got["additionalContext"]
    # The fixed command really has nothing left to deny.
    again = hook("claude", data=claude(got["updatedInput"]["command"]))
    assert (again.returncode, again.stdout) == (0, b"")


def test_rewrite_for_codex_keeps_the_argv_shape() -> None:
    got = answer(hook("codex", "--rewrite", data=codex(["bash", "-lc", BAD], tool="shell")))
    out = got["hookSpecificOutput"]
    assert out["permissionDecision"] == "allow"
    assert out["updatedInput"] == {"command": ["bash", "-lc", BAD_FIXED]}
    string = answer(hook("codex", "--rewrite", data=codex(BAD)))["hookSpecificOutput"]
    assert string["updatedInput"] == {"command": BAD_FIXED}


def gemini_before_tool(command: str) -> dict[str, Any]:
    """Gemini CLI's BeforeTool input (hooks reference: base fields, tool_name, tool_input)."""
    return {
        "session_id": "g-1",
        "transcript_path": "/home/u/.gemini/tmp/chats/g-1.json",
        "cwd": "/",
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-12-01T20:00:00Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command, "description": "restart", "dir_path": "."},
    }


def test_rewrite_for_gemini_merges_the_fixed_command_into_the_tool_input() -> None:
    payload = gemini_before_tool(BAD)
    got = answer(hook("gemini", "--rewrite", data=json.dumps(payload).encode()))
    assert "decision" not in got  # neither a deny nor a bypass of the user's confirmation
    out = got["hookSpecificOutput"]
    assert out["hookEventName"] == "BeforeTool"
    # Gemini CLI: Object.assign(invocation.params, hookSpecificOutput.tool_input).
    merged = {**payload["tool_input"], **out["tool_input"]}
    assert merged == {"command": BAD_FIXED, "description": "restart", "dir_path": "."}
    assert got["systemMessage"].startswith("heredoc-lint rewrote this shell command")
    assert "HL103" in got["systemMessage"]


@pytest.mark.parametrize("agent", ["cursor", "claude"])  # claude: Cursor runs its hooks
def test_rewrite_for_cursors_pre_tool_use_answers_updated_input(agent: str) -> None:
    got = answer(hook(agent, "--rewrite", data=cursor_pre_tool_use(BAD)))
    assert got["permission"] == "allow"  # Cursor applies updated_input with allow
    assert got["updated_input"] == {"command": BAD_FIXED, "cwd": "/home/u/project"}
    assert got["agent_message"].startswith("heredoc-lint rewrote this shell command")
    assert got["user_message"] == "heredoc-lint rewrote a shell command (HL103)"


def test_rewrite_is_a_deny_where_cursor_cannot_replace_the_command() -> None:
    # beforeShellExecution answers permission only: the command cannot be replaced there.
    data = json.dumps({"hook_event_name": "beforeShellExecution", "command": BAD}).encode()
    got = answer(hook("cursor", "--rewrite", data=data))
    assert got["permission"] == "deny"
    assert "updated_input" not in got
    assert got["agent_message"].startswith("heredoc-lint blocked this command")
    assert BAD_FIXED in got["agent_message"]  # the fixed command, for the agent to run


def test_rewrite_denies_when_an_error_is_left_after_the_safe_fixes() -> None:
    # HL103 has a safe fix; the unterminated heredoc (HL101 error) after it does not.
    command = BAD + "\nssh h \"cat > f <<'EOF'\nx\n EOF\""
    got = answer(hook("claude", "--rewrite", data=claude(command)))["hookSpecificOutput"]
    assert got["permissionDecision"] == "deny"
    assert "updatedInput" not in got


def test_claude_codes_monitor_tool_is_a_shell_command() -> None:
    data = json.loads(claude(BAD))
    data["tool_name"] = "Monitor"
    data["tool_input"] = {"command": BAD, "description": "watch", "timeout_ms": 300000}
    got = answer(hook("claude", data=json.dumps(data).encode()))
    assert got["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_configuration_created_or_changed_is_seen_by_the_next_call(tmp_path: Path) -> None:
    # A resident server keeps configurations between calls: never a stale one.
    from heredoc_lint.agents import hook as module

    options = module.HookOptions(agent="claude")
    (tmp_path / "sub").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.heredoc-lint]\nignore = ["HL103"]\n')
    first, _ = module.project_settings(options, str(tmp_path / "sub"))
    assert first.ignore == frozenset({"HL103"})
    (tmp_path / "pyproject.toml").write_text('[tool.heredoc-lint]\nignore = ["HL102", "HL1"]\n')
    changed, _ = module.project_settings(options, str(tmp_path / "sub"))
    assert changed.ignore == frozenset({"HL102", "HL1"})
    (tmp_path / "sub" / ".heredoc-lint.toml").write_text("ignore = []\n")
    nearer, _ = module.project_settings(options, str(tmp_path / "sub"))
    assert nearer.ignore == frozenset()
