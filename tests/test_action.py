"""action.yml, run the way the Actions runner runs a composite action's steps: each
`run:` script with `bash --noprofile --norc -eo pipefail`, its `env:` with the
`${{ inputs.* }}` and `${{ github.action_path }}` expressions evaluated, in a runner
environment (GITHUB_WORKSPACE, GITHUB_OUTPUT). The real CLI of this checkout answers
(`python3` with PYTHONPATH); the install step runs against a `python3` that logs.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
BAD = 'ssh h "pkill -f sglang; ./restart"'


def action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text())
    return loaded


def evaluate(value: str, inputs: dict[str, str]) -> str:
    """The runner's expression substitution, for the two expressions the action uses."""

    def one(match: re.Match[str]) -> str:
        expression = match.group(1).strip()
        if expression == "github.action_path":
            return str(ROOT)
        name = expression.removeprefix("inputs.")
        assert name != expression, expression
        return inputs[name]

    return re.sub(r"\$\{\{(.*?)\}\}", one, value)


def run_step(
    name: str, workspace: Path, given: dict[str, str], path: str | None = None
) -> tuple[subprocess.CompletedProcess[str], str]:
    spec = action()
    inputs = {key: evaluate(str(v.get("default", "")), {}) for key, v in spec["inputs"].items()}
    inputs.update(given)
    [step] = [s for s in spec["runs"]["steps"] if s["name"] == name]
    assert step["shell"] == "bash"
    output = workspace.parent / "github_output"
    output.write_text("")
    script = workspace.parent / "step.sh"
    script.write_text(step["run"])
    env = {
        "PATH": path or f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
        "HOME": str(workspace.parent),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_ACTIONS": "true",
        **{key: evaluate(str(value), inputs) for key, value in step.get("env", {}).items()},
    }
    got = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=workspace.parent,  # the runner's directory is not the workspace
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return got, output.read_text()


def workspace(tmp_path: Path, script: str = BAD) -> Path:
    root = tmp_path / "ws"
    (root / "scripts").mkdir(parents=True)
    (root / "scripts" / "deploy.sh").write_text(f"#!/bin/bash\n{script}\n")
    return root


def test_check_mode_annotates_and_fails(tmp_path: Path) -> None:
    got, _ = run_step("Run heredoc-lint", workspace(tmp_path), {})
    assert got.returncode == 1, got.stderr
    assert got.stdout.startswith("::error file=scripts/deploy.sh,line=2,col=8,")
    assert "title=HL103 pkill-self-match::" in got.stdout


def test_a_clean_workspace_passes(tmp_path: Path) -> None:
    got, _ = run_step("Run heredoc-lint", workspace(tmp_path, "ssh h 'uptime'"), {})
    assert (got.returncode, got.stdout) == (0, "")


def test_transcript_mode_writes_sarif_at_the_session_line(tmp_path: Path) -> None:
    root = workspace(tmp_path, "true")
    sessions = root / "sessions"
    sessions.mkdir()
    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": BAD}}
    lines = [
        {"type": "summary", "summary": "x"},
        {
            "type": "assistant",
            "sessionId": "s-1",
            "uuid": "u",
            "message": {"id": "msg_1", "role": "assistant", "content": [call]},
        },
    ]
    (sessions / "s-1.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    given = {"mode": "transcript", "paths": "sessions", "format": "sarif"}
    got, outputs = run_step("Run heredoc-lint", root, given)
    assert got.returncode == 1, got.stderr
    assert outputs == "sarif-file=heredoc-lint.sarif\n"
    log = json.loads((root / "heredoc-lint.sarif").read_text())
    [result] = log["runs"][0]["results"]
    assert result["ruleId"] == "HL103"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("sessions/s-1.jsonl")
    assert location["region"] == {"startLine": 2}
    assert result["properties"]["command"] == BAD
    assert (result["properties"]["commandLine"], result["properties"]["commandColumn"]) == (1, 8)
    github, _ = run_step("Run heredoc-lint", root, {**given, "format": "github"})
    assert github.stdout.startswith("::error file=sessions/s-1.jsonl,line=2,title=HL103::")


def test_inputs_are_values_not_script_text(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    got, _ = run_step("Run heredoc-lint", root, {"paths": "$(touch pwned)", "mode": "check"})
    assert not (root / "pwned").exists() and not (tmp_path / "pwned").exists()
    assert got.returncode == 2  # a path that does not exist
    bad_mode, _ = run_step("Run heredoc-lint", root, {"mode": "rm -rf"})
    assert bad_mode.returncode == 2
    assert bad_mode.stdout.startswith("::error title=heredoc-lint::mode must be check")


def test_the_install_step_installs_the_actions_checkout(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    stub = tmp_path / "stub"
    stub.mkdir()
    log = tmp_path / "pip.log"
    (stub / "python3").write_text(f'#!/bin/sh\necho "$*" >> "{log}"\n')
    (stub / "python3").chmod(0o755)
    path = f"{stub}:/usr/bin:/bin"
    got, _ = run_step("Install heredoc-lint", root, {}, path=path)
    assert got.returncode == 0, got.stderr
    assert log.read_text() == (f"-m pip install --disable-pip-version-check --quiet {ROOT}\n")
    log.unlink()
    got, _ = run_step("Install heredoc-lint", root, {"package": ""}, path=path)
    assert got.returncode == 0 and not log.exists()
    assert os.access(ROOT / "action.yml", os.R_OK)
