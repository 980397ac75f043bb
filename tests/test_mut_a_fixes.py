"""Pinned behaviours of fixes/remote_heredoc.py (issue 20, run 4a): each test kills a
mutant that survived `bench/mutation.py`'s sample of 10 points, through the CLI."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from cli_process import run_cli

from heredoc_lint.engine import check_text, fix_kind

_SCRIPT = "#!/bin/bash\nssh h \"cat > /srv/app.conf << 'EOF'\nkey=1\nEOF\"\n"


@pytest.mark.parametrize(
    ("strategy", "content"),
    [
        ("scp", 'scp "$(dirname "$0")/deploy.sh.d/app.conf" h:/srv/app.conf'),
        ("base64", "printf %s a2V5PTEK | base64 -d"),
    ],
)
def test_json_names_the_fix_strategy(tmp_path: Path, strategy: str, content: str) -> None:
    """`--format json` says which strategy made a heredoc fix (the scp one also writes a
    file beside the script: a reader must know)."""
    script = tmp_path / "deploy.sh"
    script.write_text(_SCRIPT)
    proc = run_cli(
        "--no-cache",
        "--format",
        "json",
        "--severity",
        "info",
        "--fix-strategy",
        strategy,
        str(script),
    )
    (found,) = json.loads(proc.stdout)
    assert found["code"] == "HL101"
    assert found["fix"]["strategy"] == strategy
    assert found["fix"]["applicability"] == "safe"
    assert [e["content"] for e in found["fix"]["edits"]][0].startswith(content)


# -- fixes/python_fixes.py ---------------------------------------------------------------

_RM = 'import subprocess\n\ndef f(path):\n    subprocess.call("rm " + path, shell=True)\n'


@pytest.mark.parametrize(
    ("head", "fixable"),
    [
        ("", True),
        ("#!/usr/bin/env python2\n", False),
        ("from __future__ import print_function\n", False),
        ("#!/usr/bin/env python3\n", True),
    ],
)
def test_no_shlex_quote_fix_in_a_python2_file(head: str, fixable: bool) -> None:
    """Python 2 has no `shlex.quote`: a file that may run under it gets the finding
    without the fix that would add it."""
    text = head + _RM
    (found,) = [f for f in check_text(text, "python", "t.py") if f.code == "HL201"]
    assert text[found.start : found.end] == "path"
    if fixable:
        assert found.fix is not None
        assert found.fix.message == "Quote the value with `shlex.quote(...)`"
    else:
        assert found.fix is None


class _Recorder:
    """A stand-in for a paramiko client: keeps the command it is asked to run."""

    def __init__(self) -> None:
        self.commands: list[str] = []

    def exec_command(self, command: str) -> None:
        self.commands.append(command)


def _command_of(program: str, body: str) -> str:
    namespace: dict[str, object] = {}
    exec(compile(program, "t.py", "exec"), namespace)  # noqa: S102 - the fixed test program
    client = _Recorder()
    push = namespace["push"]
    assert callable(push)
    push(client, body)
    (command,) = client.commands
    return command


@pytest.mark.parametrize(
    ("delimiter", "line", "fixed"),
    [
        ("'EOF'", "port=$PORT", True),  # quoted: the `$` is text, base64 keeps it
        ("'EOF'", "port=1", True),
        ("EOF", "port=1", True),  # unquoted, but nothing in it for the shell to expand
        ("EOF", "port=$PORT", False),  # the remote shell would expand it: no fix
    ],
)
def test_hl202_fix_delivers_the_body_bash_would(
    tmp_path: Path, delimiter: str, line: str, fixed: bool
) -> None:
    target = tmp_path / "out"
    program = (
        "def push(c, body: str):\n"
        f'    c.exec_command(f"cat > {target} << {delimiter}\\n{line}\\n{{body}}EOF\\n")\n'
    )
    outcome = fix_kind(program, "python", "t.py", unsafe=True)
    assert outcome.error is None
    assert (outcome.text != program) is fixed
    if not fixed:
        return
    assert "base64 -d" in outcome.text
    # An unquoted heredoc expands a `$` of the run-time value too: that fix is unsafe, and
    # delivers the same bytes only for a value without one.
    body = "it's $HOME\n" if delimiter.startswith("'") else "it's home\n"
    delivered = []
    for source in (program, outcome.text):
        target.unlink(missing_ok=True)
        command = _command_of(source, body)
        env = {"PATH": os.environ["PATH"], "PORT": "22", "HOME": "/home/x"}
        done = subprocess.run(["bash", "-c", command], env=env, capture_output=True, check=False)
        assert done.returncode == 0, done.stderr
        delivered.append(target.read_bytes())
    assert delivered[0] == delivered[1]
