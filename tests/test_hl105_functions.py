"""HL105 through the script's own function: `deploy() { ssh "$1" uptime; }`, then
`deploy "$h"` inside a `while read` loop.  The body's ssh reads the input the call is
given, the loop's; the call is reported (WILD.md: "ssh inside a function that a `while
read` loop calls").  Against the real sshd, the loop handles one host of three; with
`ssh -n` in the body, all three."""

from __future__ import annotations

from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer

from heredoc_lint.model import Finding, Severity

CODE = "HL105"
LOOP = 'while read -r node; do\n  deploy "$node"\ndone < nodes.txt\n'


def hl105(text: str) -> list[Finding]:
    return kit.findings(text, CODE)


def test_a_function_whose_ssh_reads_the_loop_input(sshd: SshServer, tmp_path: Path) -> None:
    script = (
        "#!/bin/bash\n"
        "deploy() {\n"
        '  echo "deploying $1" >&2\n'
        '  ssh "$1" "echo restarted agent on $1"\n'
        "}\n" + LOOP
    )
    (f,) = hl105(script)
    assert f.severity is Severity.WARNING and f.fix is None
    at = script.index('deploy "$node"')
    assert (f.start, f.end) == (at, at + len("deploy"))
    assert "`deploy` inside this `while read` loop runs `ssh` (line 4)" in f.message
    assert "use `ssh -n` in the function `deploy`" in f.message
    (tmp_path / "nodes.txt").write_text("node-a\nnode-b\nnode-c\n")
    before = kit.run_ok(script, sshd, cwd=tmp_path)
    assert before.stdout.splitlines() == ["restarted agent on node-a"]
    cured = script.replace('ssh "$1"', 'ssh -n "$1"')
    assert hl105(cured) == []
    after = kit.run_ok(cured, sshd, cwd=tmp_path)
    assert after.stdout.splitlines() == [f"restarted agent on node-{n}" for n in "abc"]


@pytest.mark.parametrize(
    "script",
    [
        # The ssh of the body has an input of its own.
        'deploy() {\n  ssh -n "$1" uptime\n}\n' + LOOP,
        'deploy() {\n  ssh "$1" uptime < /dev/null\n}\n' + LOOP,
        'deploy() {\n  echo hi | ssh "$1" cat\n}\n' + LOOP,
        # So has the whole body, or the call.
        'deploy() {\n  ssh "$1" uptime\n} < /dev/null\n' + LOOP,
        'deploy() {\n  ssh "$1" uptime\n}\n' + LOOP.replace('"$node"\n', '"$node" < /dev/null\n'),
        # The loop reads another descriptor.
        'deploy() {\n  ssh "$1" uptime\n}\n' + LOOP.replace("read -r", "read -u 3 -r"),
        # No ssh in the function, or the name is defined twice (which one runs?).
        'deploy() {\n  scp f "$1":/tmp\n}\n' + LOOP,
        'deploy() { ssh "$1" uptime; }\ndeploy() { echo "$1"; }\n' + LOOP,
        # Defined after the loop: the loop runs an external `deploy`.
        LOOP + 'deploy() {\n  ssh "$1" uptime\n}\n',
    ],
)
def test_a_function_that_does_not_read_the_loop_input(script: str) -> None:
    assert hl105(script) == []


def test_a_forwarding_function_is_reported_once() -> None:
    """`r() { ssh h "$@"; }` is read as an ssh call at the call already: one finding."""
    script = 'r() { ssh "$HOST" "$@"; }\n' + LOOP.replace('deploy "$node"', 'r "uptime $node"')
    (f,) = hl105(script)
    assert "(line" not in f.message and "`ssh -n` in the function `r`" in f.message


def test_a_function_that_calls_such_a_function(sshd: SshServer, tmp_path: Path) -> None:
    """Two hops: the loop calls `run`, which calls `deploy`, whose ssh reads the loop's
    input. The real sshd handles one host of three."""
    script = (
        "#!/bin/bash\n"
        "deploy() {\n"
        '  ssh "$1" "echo restarted agent on $1"\n'
        "}\n"
        "run() {\n"
        '  echo "run on $1" >&2\n'
        '  deploy "$1"\n'
        "}\n" + LOOP.replace('deploy "$node"', 'run "$node"')
    )
    (f,) = hl105(script)
    at = script.index('run "$node"')
    assert (f.start, f.end) == (at, at + len("run"))
    assert "`run` inside this `while read` loop runs `ssh` (line 3, through `deploy`)" in f.message
    (tmp_path / "nodes.txt").write_text("node-a\nnode-b\nnode-c\n")
    assert kit.run_ok(script, sshd, cwd=tmp_path).stdout.splitlines() == [
        "restarted agent on node-a"
    ]
    # The inner call given its own input: nothing reads the loop's.
    cured = script.replace('  deploy "$1"\n', '  deploy "$1" < /dev/null\n')
    assert hl105(cured) == []
    after = kit.run_ok(cured, sshd, cwd=tmp_path)
    assert after.stdout.splitlines() == [f"restarted agent on node-{n}" for n in "abc"]


def test_a_cycle_of_functions_ends() -> None:
    script = 'a() { b "$1"; }\nb() { a "$1"; }\n' + LOOP.replace('deploy "$node"', 'a "$node"')
    assert hl105(script) == []
