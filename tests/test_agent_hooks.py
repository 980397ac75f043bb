"""The agent hooks, end to end: the real CLI as a subprocess, fed each agent's hook JSON.

Every answer is checked the way the agent reads it: stdout parsed as JSON (or empty),
stderr, and the exit status, which must never be 2 (Claude Code and Codex read 2 as
"block this command").
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_process import CLI
from probe import loaded_modules

from heredoc_lint.agents import hook
from heredoc_lint.agents.commands import command_text, first_line, script_from_argv

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "tests" / "cases" / "seed000.sh"
AGENTS = ("claude", "codex", "gemini", "cursor")
CLEAN = "ls -la /tmp && ssh build-1 'uptime; df -h /'"


def seed_command() -> str:
    """Seed 000 as the agent ran it: the case file without its shebang line."""
    for candidate in (ROOT.parent / "shared" / "cases" / "seed000.sh", SEED):
        if candidate.exists():
            return candidate.read_text().split("\n", 1)[1]
    raise AssertionError("seed000.sh is missing")


def payload(agent: str, command: Any, *, tool: str | None = None) -> dict[str, Any]:
    """The hook input each agent documents, for a shell call (or `tool`, if given)."""
    if agent == "claude":
        return {
            "session_id": "0b7c5c3e-claude",
            "transcript_path": "/home/u/.claude/projects/p/0b7c5c3e.jsonl",
            "cwd": "/home/u/project",
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": tool or "Bash",
            "tool_input": {"command": command, "description": "Run it"},
            "tool_use_id": "toolu_01ABC",
        }
    if agent == "codex":
        return {
            "session_id": "019a-codex",
            "turn_id": "turn-1",
            "transcript_path": None,
            "cwd": "/home/u/project",
            "hook_event_name": "PreToolUse",
            "model": "gpt-5-codex",
            "permission_mode": "default",
            "tool_name": tool or "Bash",
            "tool_input": {"command": command},
            "tool_use_id": "call_1",
        }
    if agent == "gemini":
        return {
            "session_id": "gem-1",
            "transcript_path": "/home/u/.gemini/tmp/chats/session.json",
            "cwd": "/home/u/project",
            "hook_event_name": "BeforeTool",
            "timestamp": "2026-01-01T00:00:00Z",
            "tool_name": tool or "run_shell_command",
            "tool_input": {"command": command, "description": "Run it"},
        }
    assert agent == "cursor"
    if tool is not None:  # another event: a file read
        return {
            "conversation_id": "conv-1",
            "generation_id": "gen-1",
            "hook_event_name": tool,
            "workspace_roots": ["/home/u/project"],
            "file_path": "/home/u/project/launch.sh",
            "content": command,
        }
    return {
        "conversation_id": "conv-1",
        "generation_id": "gen-1",
        "hook_event_name": "beforeShellExecution",
        "workspace_roots": ["/home/u/project"],
        "command": command,
        "cwd": "/home/u/project",
    }


OTHER_TOOL = {
    "claude": "Read",
    "codex": "apply_patch",
    "gemini": "read_file",
    "cursor": "beforeReadFile",
}


def run_hook(
    agent: str, data: bytes | dict[str, Any], *args: str
) -> subprocess.CompletedProcess[str]:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    result = subprocess.run(
        [*CLI, "hook", agent, *args],
        input=raw,
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )
    completed = subprocess.CompletedProcess(
        result.args, result.returncode, result.stdout.decode("ascii"), result.stderr.decode()
    )
    assert completed.returncode != 2, completed.stderr  # 2 blocks the command
    return completed


def assert_allowed(agent: str, result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0
    if agent == "cursor":  # cursor needs an answer: blank stdout is not valid for it
        assert json.loads(result.stdout) == {"permission": "allow"}
    else:
        assert result.stdout == ""


def deny_reason(agent: str, stdout: str) -> str:
    """The reason of a deny, after checking the exact shape each agent accepts."""
    answer = json.loads(stdout)
    if agent in ("claude", "codex"):
        # Codex's output schema has additionalProperties: false at both levels.
        assert set(answer) == {"hookSpecificOutput"}
        inner = answer["hookSpecificOutput"]
        assert set(inner) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
        assert inner["hookEventName"] == "PreToolUse"
        assert inner["permissionDecision"] == "deny"
        reason = inner["permissionDecisionReason"]
    elif agent == "gemini":
        assert set(answer) == {"decision", "reason"}
        assert answer["decision"] == "deny"
        reason = answer["reason"]
    else:
        assert set(answer) == {"permission", "user_message", "agent_message"}
        assert answer["permission"] == "deny"
        assert answer["user_message"].startswith("heredoc-lint blocked a shell command: ")
        reason = answer["agent_message"]
    assert isinstance(reason, str) and reason.strip()
    return reason


@pytest.mark.parametrize("agent", AGENTS)
def test_seed_000_is_denied_with_the_findings_and_the_fixed_command(agent: str) -> None:
    result = run_hook(agent, payload(agent, seed_command()))
    assert result.returncode == 0
    assert result.stderr == ""
    assert result.stdout.endswith("\n") and result.stdout.count("\n") == 1
    reason = deny_reason(agent, result.stdout)
    assert "HL103" in reason and "HL102" in reason
    assert "1:34 HL103 [error]" in reason  # line:col of `sglang` in `pkill -9 -f sglang`
    assert "4:29 HL102 [error] `$1`" in reason
    assert "Fixed command" in reason
    fixed = reason.split("run this instead:\n", 1)[1]
    assert "base64 -d > /workspace/dflash/scripts/launch_mtp.sh" in fixed
    assert "'[s]'glang" in fixed


@pytest.mark.parametrize("agent", AGENTS)
def test_a_clean_command_is_allowed_by_silence(agent: str) -> None:
    result = run_hook(agent, payload(agent, CLEAN))
    assert_allowed(agent, result)
    assert result.stderr == ""


@pytest.mark.parametrize(
    ("command", "engine"),
    [
        ("ls -la && git status --short", False),  # no rule's trigger: allowed unparsed
        ("pytest -q tests/ | tail -3", False),
        (CLEAN, True),  # holds `ssh`: checked, and clean
        ("echo $(sh -c 'x')", True),
    ],
)
def test_a_command_without_triggers_never_loads_the_engine(command: str, engine: bool) -> None:
    loaded, code = loaded_modules(
        ["hook", "claude"],
        ("tree_sitter", "heredoc_lint.rules"),
        stdin=json.dumps(payload("claude", command)),
    )
    assert code == 0
    assert loaded == (["heredoc_lint.rules", "tree_sitter"] if engine else [])


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("data", [b"{not json", b"", b"\xff\xfe garbage", b"[1, 2]", b"null"])
def test_malformed_input_fails_open_with_one_line(agent: str, data: bytes) -> None:
    result = run_hook(agent, data)
    assert_allowed(agent, result)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("heredoc-lint: hook: ")
    assert "allowed unchecked" in lines[0]


@pytest.mark.parametrize("agent", AGENTS)
def test_a_shell_call_without_a_command_fails_open(agent: str) -> None:
    data = payload(agent, "x")
    if agent == "cursor":
        del data["command"]
    else:
        data["tool_input"] = {"description": "no command"}
    result = run_hook(agent, data)
    assert_allowed(agent, result)
    assert "allowed unchecked" in result.stderr and len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("command", ["", "   \n"])
def test_an_empty_command_is_allowed(agent: str, command: str) -> None:
    result = run_hook(agent, payload(agent, command))
    assert_allowed(agent, result)
    assert result.stderr == ""


def one_megabyte_command() -> str:
    """Seed 000, then a local heredoc writing a 1 MB file: a long but real command."""
    body = "\n".join(f"row {i}: value=$HOME and some padding text" for i in range(25_000))
    command = seed_command() + "cat > /tmp/data.txt <<'EOF'\n" + body + "\nEOF\necho written\n"
    assert len(command) > 1_000_000
    return command


@pytest.mark.parametrize("agent", AGENTS)
def test_a_one_megabyte_command_is_checked(agent: str) -> None:
    result = run_hook(agent, payload(agent, one_megabyte_command()))
    assert result.returncode == 0
    assert result.stderr == ""
    reason = deny_reason(agent, result.stdout)
    assert "HL103" in reason and "HL102" in reason
    # The fixed command is over 1 MB too: the reason shows its changes as a diff.
    assert "as a unified diff of the command:\n--- command\n+++ fixed command\n" in reason
    assert "| base64 -d > /workspace/dflash/scripts/launch_mtp.sh" in reason
    assert len(result.stdout) < hook.MAX_FIXED + 20_000  # the reason stays readable


@pytest.mark.parametrize("agent", AGENTS)
def test_a_check_over_the_time_limit_fails_open(agent: str) -> None:
    command = "ssh h echo " + "x" * 1_000_000  # about a second of parsing
    result = run_hook(agent, payload(agent, command), "--timeout", "0.001")
    assert_allowed(agent, result)
    assert "longer than 0.001 s" in result.stderr
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize("agent", AGENTS)
def test_other_tools_are_ignored(agent: str) -> None:
    # The seed text sits in the other tool's input: it must not be checked.
    result = run_hook(agent, payload(agent, seed_command(), tool=OTHER_TOOL[agent]))
    assert_allowed(agent, result)
    assert result.stderr == ""


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_other_events_are_ignored(agent: str) -> None:
    data = payload(agent, seed_command())
    data["hook_event_name"] = "PostToolUse" if agent != "gemini" else "AfterTool"
    result = run_hook(agent, data)
    assert_allowed(agent, result)


def test_cursor_generic_pre_tool_use_shell_is_checked() -> None:
    data = {
        "conversation_id": "conv-1",
        "hook_event_name": "preToolUse",
        "tool_name": "Shell",
        "tool_input": {"command": seed_command()},
    }
    reason = deny_reason("cursor", run_hook("cursor", data).stdout)
    assert "HL103" in reason


def test_codex_argv_command_checks_the_script_the_shell_runs() -> None:
    data = payload("codex", ["bash", "-lc", seed_command()])
    reason = deny_reason("codex", run_hook("codex", data).stdout)
    assert "1:34 HL103" in reason  # positions are in the script, not in the argv


def test_codex_shell_tool_alias_and_encoded_arguments() -> None:
    data = payload("codex", "x", tool="shell")
    data["tool_input"] = json.dumps({"command": ["bash", "-lc", seed_command()]})
    reason = deny_reason("codex", run_hook("codex", data).stdout)
    assert "HL102" in reason


def test_codex_exec_command_input_cmd_is_the_command() -> None:
    # Codex's unified exec tool names its command `cmd` (0.171.0's exec_command schema).
    data = payload("codex", "x", tool="exec_command")
    data["tool_input"] = {"cmd": seed_command(), "tty": False}
    reason = deny_reason("codex", run_hook("codex", data).stdout)
    assert "HL103" in reason


WARNING_ONLY = "ssh web-1 'sleep 30 &'"  # HL104: the session waits for the job


@pytest.mark.parametrize("agent", AGENTS)
def test_warnings_are_allowed_silently_by_default(agent: str) -> None:
    result = run_hook(agent, payload(agent, WARNING_ONLY))
    assert_allowed(agent, result)


@pytest.mark.parametrize("agent", AGENTS)
def test_warnings_as_context(agent: str) -> None:
    result = run_hook(agent, payload(agent, WARNING_ONLY), "--warnings", "context")
    assert result.returncode == 0 and result.stderr == ""
    answer = json.loads(result.stdout)
    if agent in ("claude", "codex"):
        assert answer == {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "additionalContext": answer["hookSpecificOutput"]["additionalContext"],
            }
        }
        text = answer["hookSpecificOutput"]["additionalContext"]
    elif agent == "gemini":
        assert set(answer) == {"systemMessage"}
        text = answer["systemMessage"]
    else:
        assert answer["permission"] == "allow" and set(answer) == {"permission", "agent_message"}
        text = answer["agent_message"]
    assert "HL104" in text and "allowed" in text


@pytest.mark.parametrize("agent", AGENTS)
def test_warnings_can_deny(agent: str) -> None:
    result = run_hook(agent, payload(agent, WARNING_ONLY), "--warnings", "deny")
    assert "HL104" in deny_reason(agent, result.stdout)


def test_select_and_ignore() -> None:
    ignored = run_hook("claude", payload("claude", seed_command()), "--ignore", "HL1")
    assert_allowed("claude", ignored)
    only = run_hook("claude", payload("claude", seed_command()), "--select", "HL103")
    reason = deny_reason("claude", only.stdout)
    assert "HL103" in reason and "HL102" not in reason


def test_no_fix_leaves_the_fixed_command_out() -> None:
    result = run_hook("claude", payload("claude", seed_command()), "--no-fix")
    reason = deny_reason("claude", result.stdout)
    assert "Fixed command" not in reason and "HL103" in reason


@pytest.mark.parametrize(
    "args", [["nosuchagent"], ["claude", "--warnings", "loud"], ["claude", "--select", "XX9"]]
)
def test_usage_errors_exit_1_not_2(args: list[str]) -> None:
    result = subprocess.run(
        [*CLI, "hook", *args],
        input=b"{}",
        capture_output=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stdout == b""
    assert len(result.stderr.splitlines()) == 1


def test_help_exits_0() -> None:
    result = subprocess.run(
        [*CLI, "hook", "--help"],
        capture_output=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 0
    assert b"never 2" in result.stdout


def test_non_ascii_command_answers_in_ascii_json() -> None:
    command = 'ssh h "echo héllo → $1 > /tmp/ünïcode"'
    result = run_hook("claude", payload("claude", command), "--warnings", "deny")
    reason = deny_reason("claude", result.stdout)  # decoded as ASCII by run_hook
    assert "HL102" in reason


# --- in-process: internal errors ------------------------------------------------------


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)

    def isatty(self) -> bool:
        return False


@pytest.mark.parametrize("agent", AGENTS)
def test_an_internal_error_fails_open(
    agent: str, monkeypatch: pytest.MonkeyPatch, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    def broken(command: str, options: hook.HookOptions, cwd: object = None) -> hook.Verdict:
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(hook, "decide", broken)
    monkeypatch.setattr(sys, "stdin", _Stdin(json.dumps(payload(agent, CLEAN)).encode()))
    assert hook.main([agent]) == 0
    out, err = capfdbinary.readouterr()
    expected = b'{"permission": "allow"}\n' if agent == "cursor" else b""
    assert out == expected
    lines = err.decode().splitlines()
    assert len(lines) == 1
    assert "internal error (RuntimeError: engine exploded)" in lines[0]
    assert "allowed unchecked" in lines[0]


def test_render_never_allows_explicitly_for_codex() -> None:
    # Codex treats `permissionDecision: "allow"` without `updatedInput` as a hook error.
    assert hook.render("codex", hook.Verdict("allow")) is None
    assert hook.render("claude", hook.Verdict("allow")) is None
    assert hook.render("gemini", hook.Verdict("allow")) is None


# --- the command of an argv tool call --------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["bash", "-lc", "echo $1"], "echo $1"),
        (["/bin/sh", "-c", "ls"], "ls"),
        (["zsh", "-e", "-c", "ls | wc"], "ls | wc"),
        (["bash", "-c"], ""),
        (["busybox", "sh", "-c", "ls"], "ls"),
        (["ssh", "h", "echo $1"], "ssh h 'echo $1'"),
        (["bash", "script.sh", "-c", "x"], "bash script.sh -c x"),
        ([], ""),
    ],
)
def test_script_from_argv(argv: list[str], expected: str) -> None:
    assert script_from_argv(argv) == expected


def test_command_text_types() -> None:
    assert command_text("ls") == "ls"
    assert command_text(["bash", "-lc", "ls"]) == "ls"
    assert command_text(42) is None
    assert command_text(["bash", 1]) is None


def test_first_line() -> None:
    assert first_line("\n  ssh h 'x'\nmore") == "ssh h 'x' …"
    assert first_line("ls") == "ls"
    assert first_line("y" * 300, limit=10) == "y" * 9 + "…"
