"""The hook on the payloads real agents sent (tests/data/agents/<agent>/<version>/).

Every file there was recorded from the agent program itself by
scripts/record_agent_payloads.py (see tests/data/agents/README.md). Each is fed, byte for
byte (the recording's placeholder directory made a real one), to `python -m heredoc_lint
hook AGENT` as the agent runs it; opencode's, which are the arguments of the plugin's
`tool.execute.before`, go through integrations/opencode/heredoc-lint.js under node.

The case is in the file's name: `*_deny` holds DENY and must be denied (and, with
`--rewrite`, rewritten); `*_clean` holds CLEAN and must be allowed; any other name is a
tool that is not a shell and must be allowed without its input being read as a command.
A payload the hook cannot read makes it allow with a `heredoc-lint: hook:` note on
stderr: here that note fails the test, as does any file the tests do not recognise.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_process import CLI

from heredoc_lint.agents import hook

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "agents"
PLACEHOLDER = "/tmp/agent-record"  # scripts/record_agent_payloads.py's name for its directory
DENY = 'ssh h "pkill -f sglang; ./restart"'
FIXED = "ssh h \"pkill -f '[s]'glang; ./restart\""
CLEAN = "ls -la"
HOOK_AGENTS = ("claude", "codex", "gemini")  # answered by `heredoc-lint hook AGENT`
AGENTS = (*HOOK_AGENTS, "opencode")  # opencode: through the plugin
PLUGIN = ROOT / "integrations" / "opencode" / "heredoc-lint.js"

PAYLOADS = sorted(DATA.glob("*/*/*.json"))


def kind(path: Path) -> str:
    """What the recorded call must get: "deny", "clean" or "other" (not a shell)."""
    for suffix in ("deny", "clean"):
        if path.stem.endswith("_" + suffix):
            return suffix
    return "other"


def label(path: Path) -> str:
    return str(path.relative_to(DATA))


def raw(path: Path, directory: Path) -> bytes:
    """The payload as recorded, its placeholder directory replaced by `directory`."""
    return path.read_bytes().replace(PLACEHOLDER.encode(), str(directory).encode())


def run_hook(agent: str, data: bytes, *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [*CLI, "hook", agent, *args], input=data, capture_output=True, timeout=120, check=False
    )
    # Exit 0 and no note: a note means the hook could not read the payload (InputError)
    # or check its command, and allowed it unchecked.
    assert result.returncode == 0, result.stderr
    assert result.stderr == b"", result.stderr.decode()
    return subprocess.CompletedProcess(
        result.args, 0, result.stdout.decode("ascii"), result.stderr.decode()
    )


def answer(stdout: str) -> dict[str, Any]:
    parsed = json.loads(stdout)
    assert isinstance(parsed, dict)
    return parsed


# --- the recordings themselves ------------------------------------------------------------


def test_the_recordings_are_there() -> None:
    """Every agent has a version folder, every folder a deny, a clean and another tool's
    call, and no folder is an agent the tests below would not know how to run."""
    agents = {path.name for path in DATA.iterdir() if path.is_dir()}
    assert agents == set(AGENTS), agents
    for agent in AGENTS:
        versions = [v for v in (DATA / agent).iterdir() if v.is_dir()]
        assert versions, agent
        for version in versions:
            kinds = sorted(kind(p) for p in version.glob("*.json"))
            assert {"deny", "clean", "other"} <= set(kinds), (version, kinds)
    stray = [p for p in DATA.rglob("*") if p.is_file() and p not in PAYLOADS]
    assert [p.name for p in stray] == ["README.md"], stray


@pytest.mark.parametrize("path", PAYLOADS, ids=label)
def test_a_recording_is_one_json_object_from_a_temporary_directory(path: Path) -> None:
    text = path.read_text()
    payload = json.loads(text)
    assert isinstance(payload, dict)
    assert "/tmp/hl-" not in text  # the recording's own directory was replaced


# --- Claude Code, Codex, Gemini CLI: `heredoc-lint hook AGENT` ---------------------------

HOOKED = [p for p in PAYLOADS if p.parts[-3] in HOOK_AGENTS]


@pytest.mark.parametrize("path", HOOKED, ids=label)
def test_the_hook_reads_the_recorded_call(path: Path, tmp_path: Path) -> None:
    """In process: the shell calls' command is the one the fake model sent, and another
    tool's call is no command (InputError would raise here)."""
    agent = path.parts[-3]
    payload = json.loads(raw(path, tmp_path))
    command = hook.command_of(agent, payload)  # type: ignore[arg-type]
    expected = {"deny": DENY, "clean": CLEAN, "other": None}[kind(path)]
    assert command == expected


@pytest.mark.parametrize("path", HOOKED, ids=label)
def test_the_hook_answers_the_recorded_call(path: Path, tmp_path: Path) -> None:
    agent = path.parts[-3]
    result = run_hook(agent, raw(path, tmp_path))
    if kind(path) != "deny":
        assert result.stdout == ""  # allowed (by silence, as all three read it)
        return
    got = answer(result.stdout)
    if agent == "gemini":
        assert got["decision"] == "deny"
        reason = got["reason"]
    else:
        inner = got["hookSpecificOutput"]
        assert inner["hookEventName"] == "PreToolUse"
        assert inner["permissionDecision"] == "deny"
        reason = inner["permissionDecisionReason"]
    assert "HL103" in reason and FIXED in reason


@pytest.mark.parametrize("path", HOOKED, ids=label)
def test_the_hook_rewrites_the_recorded_call(path: Path, tmp_path: Path) -> None:
    """With --rewrite the deny call comes back as the agent's own input with the fixed
    command; the others are allowed as without it."""
    agent = path.parts[-3]
    data = raw(path, tmp_path)
    result = run_hook(agent, data, "--rewrite")
    if kind(path) != "deny":
        assert result.stdout == ""
        return
    tool_input = json.loads(data)["tool_input"]
    got = answer(result.stdout)
    if agent == "gemini":
        assert got["hookSpecificOutput"]["hookEventName"] == "BeforeTool"
        assert "decision" not in got
        updated = got["hookSpecificOutput"]["tool_input"]
    else:
        inner = got["hookSpecificOutput"]
        assert inner["permissionDecision"] == "allow"
        updated = inner["updatedInput"]
        assert "HL103" in inner["additionalContext"]
    assert updated == {**tool_input, "command": FIXED}  # the rest of the input is kept


# --- opencode: the plugin, under node -------------------------------------------------------

DRIVER = """
import { readFileSync } from "node:fs"
const plugin = await import(process.argv[2])
const hooks = await plugin.HeredocLint({ directory: process.argv[3], project: {}, client: {} })
const { input, output } = JSON.parse(readFileSync(process.argv[4], "utf8"))
try {
  await hooks["tool.execute.before"](input, output)
  console.log(JSON.stringify({ blocked: false }))
} catch (error) {
  console.log(JSON.stringify({ blocked: true, message: error.message }))
}
"""

OPENCODE = [p for p in PAYLOADS if p.parts[-3] == "opencode"]


@pytest.mark.parametrize("path", OPENCODE, ids=label)
def test_the_opencode_plugin_answers_the_recorded_call(path: Path, tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to run the opencode plugin (apt-get install nodejs)")
    calls = tmp_path / "calls"
    wrapper = tmp_path / "hook"  # `heredoc-lint hook` of this checkout, each input kept
    wrapper.write_text(
        f'#!/bin/sh\ntee -a "{calls}" | "{sys.executable}" -m heredoc_lint hook "$@"\n'
    )
    wrapper.chmod(0o755)
    (tmp_path / "driver.mjs").write_text(DRIVER)
    (tmp_path / "payload.json").write_bytes(raw(path, tmp_path))
    result = subprocess.run(
        [
            node,
            str(tmp_path / "driver.mjs"),
            PLUGIN.as_uri(),
            str(tmp_path),
            str(tmp_path / "payload.json"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HEREDOC_LINT_HOOK": str(wrapper), "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # the plugin's fail-open notes and the hook's go here
    got = json.loads(result.stdout)
    sent = calls.read_text() if calls.exists() else ""
    if kind(path) == "other":
        assert sent == ""  # not a shell call: the hook is not even asked
        assert got == {"blocked": False}
        return
    assert json.loads(sent)["tool_input"]["command"] == (DENY if kind(path) == "deny" else CLEAN)
    if kind(path) == "clean":
        assert got == {"blocked": False}
    else:
        assert got["blocked"] is True
        assert "HL103" in got["message"] and FIXED in got["message"]


# --- what the recordings showed -----------------------------------------------------------


def test_gemini_dir_path_is_where_the_configuration_is_found(tmp_path: Path) -> None:
    """Gemini CLI runs `run_shell_command` in its `dir_path` (relative to `cwd`, the
    project root, as recorded): the configuration found from there applies. The same
    call without `dir_path` is still denied."""
    folder = DATA / "gemini" / "0.61.0"
    (tmp_path / "project" / "sub").mkdir(parents=True)
    (tmp_path / "project" / "sub" / ".heredoc-lint.toml").write_text('ignore = ["HL103"]\n')
    with_dir = raw(folder / "run_shell_command_dir_deny.json", tmp_path)
    assert json.loads(with_dir)["tool_input"]["dir_path"] == "sub"
    assert run_hook("gemini", with_dir).stdout == ""
    without = raw(folder / "run_shell_command_deny.json", tmp_path)
    assert answer(run_hook("gemini", without).stdout)["decision"] == "deny"


def test_codex_workdir_arrives_as_cwd() -> None:
    """Codex puts `exec_command`'s `workdir` into the payload's `cwd`: nothing to join."""
    payload = json.loads(
        (DATA / "codex" / "0.171.0" / "exec_command_workdir_deny.json").read_text()
    )
    assert payload["cwd"] == PLACEHOLDER + "/project/sub"
    assert set(payload["tool_input"]) == {"command"}


def test_an_absolute_dir_path_replaces_cwd(tmp_path: Path) -> None:
    payload = {"cwd": "/elsewhere", "tool_input": {"command": "ls", "dir_path": str(tmp_path)}}
    assert hook._directory("gemini", payload) == str(tmp_path)
    assert hook._directory("claude", payload) == "/elsewhere"  # only Gemini CLI has dir_path
