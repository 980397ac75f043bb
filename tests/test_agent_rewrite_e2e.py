"""`heredoc-lint hook --rewrite` end to end: the seeds' commands as the agent sends them,
through the hook in Claude Code's, Codex's, Gemini CLI's and Cursor's shapes, and the
command the hook returns run against the loopback sshd (tests/sshd.py, as
tests/test_runtime_seeds.py runs the seeds). The far side must end up as the seed's
author meant: the heredoc's body in the remote file byte for byte, the commands after
the process match still run, and the match no longer lists the remote shell itself.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from cli_process import CLI
from sshd import SshServer, run_local
from test_runtime_seeds import (
    adapt_seed000,
    adapt_seed003,
    checked_root,
    heredoc_body,
    remote_shell_lines,
)

ROOT = Path(__file__).resolve().parent.parent
OPENERS = {"seed000": "<< 'EOF'", "seed003": "<< '\\''EOF'\\''"}


def ours(lines: list[str], root: Path) -> list[str]:
    """The lines about this test's commands: the process table is shared with every
    other test run on the machine, and pgrep lists theirs too."""
    return [line for line in lines if str(root) in line]


def rewrite(agent: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The hook's answer to `payload`, which must let a rewritten command run."""
    got = subprocess.run(
        [*CLI, "hook", agent, "--rewrite"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert got.returncode == 0, got.stderr
    out: dict[str, Any] = json.loads(got.stdout)
    return out


def pre_tool_use(tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "session_id": "s",
        "cwd": str(ROOT),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    }


def fixed_command(agent: str, command: str) -> str:
    """The command the agent runs after the hook, in each agent's documented shape:
    Claude's Bash input, Codex's legacy `shell` argv whose script the hook replaced,
    Gemini CLI's BeforeTool `tool_input` merged over the model's, Cursor's preToolUse
    `updated_input`."""
    if agent == "claude":
        answer = rewrite("claude", pre_tool_use("Bash", {"command": command, "description": "d"}))
        out = answer["hookSpecificOutput"]
        assert out["permissionDecision"] == "allow", out
        assert out["updatedInput"]["description"] == "d"  # the rest of the input is kept
        fixed: str = out["updatedInput"]["command"]
        told = out["additionalContext"]
    elif agent == "codex":
        answer = rewrite("codex", pre_tool_use("shell", {"command": ["bash", "-lc", command]}))
        out = answer["hookSpecificOutput"]
        assert out["permissionDecision"] == "allow", out
        argv = out["updatedInput"]["command"]
        assert argv[:2] == ["bash", "-lc"] and len(argv) == 3
        fixed, told = argv[2], out["additionalContext"]
    elif agent == "gemini":
        tool_input = {"command": command, "description": "d"}
        payload = {
            "session_id": "s",
            "cwd": str(ROOT),
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": tool_input,
        }
        answer = rewrite("gemini", payload)
        merged = {**tool_input, **answer["hookSpecificOutput"]["tool_input"]}
        assert merged["description"] == "d"
        fixed, told = merged["command"], answer["systemMessage"]
    else:
        payload = {
            "hook_event_name": "preToolUse",
            "workspace_roots": [str(ROOT)],
            "tool_name": "Shell",
            "tool_input": {"command": command},
        }
        answer = rewrite("cursor", payload)
        assert answer["permission"] == "allow", answer
        fixed, told = answer["updated_input"]["command"], answer["agent_message"]
    assert fixed != command
    assert told.startswith("heredoc-lint rewrote this shell command")
    return fixed


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "cursor"])
@pytest.mark.parametrize("seed", ["seed000", "seed003"])
def test_the_rewritten_seed_does_what_its_author_meant(
    sshd: SshServer, tmp_path: Path, agent: str, seed: str
) -> None:
    root = checked_root(tmp_path)
    script, remote_file = (adapt_seed000 if seed == "seed000" else adapt_seed003)(root)
    remote_file.parent.mkdir(parents=True)
    (root / "tmp").mkdir()
    command = script.split("\n", 1)[1]  # as the agent ran it: no shebang line
    intended = heredoc_body(script, OPENERS[seed])

    # The command as written (run for comparison): the remote shell matches itself.
    before = run_local("#!/bin/bash\n" + command, sshd)
    assert remote_shell_lines(before.stdout, remote_file), before.stdout

    remote_file.unlink()
    fixed = fixed_command(agent, command)
    after = run_local("#!/bin/bash\n" + fixed, sshd)
    assert after.returncode == 0, after.stderr
    assert remote_file.read_text() == intended  # $1, $2 and the backslashes arrive
    assert remote_file.stat().st_mode & 0o111  # chmod +x ran after the file was written
    assert remote_shell_lines(after.stdout, remote_file) == []
    shells = re.findall(r"^\d+ \S*sh -c pgrep -af .*$", after.stdout, re.M)
    assert ours(shells, root) == [], after.stdout
    if seed == "seed000":
        assert after.stdout.endswith("ok\n")
    else:
        assert re.search(r"^Launched PID: \d+$", after.stdout, re.M), after.stdout
        log = root / "tmp" / "server_cutlass_mla.log"
        deadline = time.monotonic() + 10
        while not (log.exists() and "sglang" in log.read_text()):
            assert time.monotonic() < deadline, "the launched job never ran"
            time.sleep(0.1)
        # The job that ran is the script the heredoc delivered (sglang is not installed).
        assert "No module named 'sglang'" in log.read_text()
