"""The opencode plugin (integrations/opencode/heredoc-lint.js), run by node the way
opencode calls a plugin: the module's export is called with the plugin context
(`directory`), and its `tool.execute.before(input, output)` with opencode's shapes,
`input = {tool, sessionID, callID}` and `output = {args: {command, description}}`.
A throw blocks the call (its message goes to the model); a return lets it run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "integrations" / "opencode" / "heredoc-lint.js"
BAD = 'ssh h "pkill -f sglang; ./restart"'

DRIVER = """
const plugin = await import(process.argv[2])
const hooks = await plugin.HeredocLint({ directory: process.argv[3], project: {}, client: {} })
const input = { tool: process.argv[4], sessionID: "ses_1", callID: "call_1" }
const output = { args: { command: process.argv[5], description: "Run it" } }
try {
  await hooks["tool.execute.before"](input, output)
  console.log(JSON.stringify({ blocked: false }))
} catch (error) {
  console.log(JSON.stringify({ blocked: true, message: error.message }))
}
"""


def run_plugin(tmp_path: Path, command: str, tool: str = "bash", hook: str | None = None) -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to run the opencode plugin (apt-get install nodejs)")
    if hook is None:  # `heredoc-lint hook` of this checkout, as heredoc-lint-hook runs it
        wrapper = tmp_path / "hook"
        wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m heredoc_lint hook "$@"\n')
        wrapper.chmod(0o755)
        hook = str(wrapper)
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER)
    got = subprocess.run(
        [node, str(driver), PLUGIN.as_uri(), str(tmp_path), tool, command],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HEREDOC_LINT_HOOK": hook, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert got.returncode == 0, got.stderr
    result: dict = json.loads(got.stdout)
    result["stderr"] = got.stderr
    return result


def test_a_bad_command_is_blocked_with_the_reason(tmp_path: Path) -> None:
    got = run_plugin(tmp_path, BAD)
    assert got["blocked"] is True
    assert got["message"].startswith("heredoc-lint blocked this command: 1 shell-quoting")
    assert "HL103" in got["message"]


def test_a_clean_command_and_other_tools_run(tmp_path: Path) -> None:
    assert run_plugin(tmp_path, "ls -la")["blocked"] is False
    assert run_plugin(tmp_path, BAD, tool="read")["blocked"] is False


def test_the_projects_configuration_applies(tmp_path: Path) -> None:
    (tmp_path / ".heredoc-lint.toml").write_text('ignore = ["HL103"]\n')
    assert run_plugin(tmp_path, BAD)["blocked"] is False


def test_a_missing_hook_fails_open_with_one_line(tmp_path: Path) -> None:
    got = run_plugin(tmp_path, BAD, hook=str(tmp_path / "no-such-hook"))
    assert got["blocked"] is False
    assert got["stderr"].count("\n") == 1
    assert got["stderr"].startswith("heredoc-lint: hook did not run (")
