"""A forwarding function whose body does more than forward (issue 16, item 4).

    r() { echo "to $HOST" >&2; ssh "$HOST" "$@"; }
    r 'pkill -f app; ./run'          # runs: ssh "$HOST" 'pkill -f app; ./run'

Of the body's statements, the one that holds the call's arguments (`$@`, `$*`, `$1`) is
the command a call runs; the call's argument is then checked as the remote command it
becomes. Two statements that both hold them (`echo "$@"; ssh h "$@"`) give nothing: which
one matters is a guess. bash is the oracle, through the real sshd of tests/sshd.py: the
pkill kills its own remote shell (nothing after it runs, the status is 143 or 255).
"""

from __future__ import annotations

import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.model import Severity

MARK = "hlbodymark"  # no other process on this machine has it on its command line
REMOTE = f"pkill -f {MARK}; echo after-pkill"

BODIES = {
    "a log line before": 'r() {{ echo "to $HOST" >&2; ssh "$HOST" "$@"; }}\n',
    "the status kept after": (
        'r() {{\n  ssh "$HOST" "$@"\n  rc=$?\n  echo "done: $rc" >&2\n  return $rc\n}}\n'
    ),
    "one argument": 'r() {{ cd /tmp; ssh "$HOST" "$1"; }}\n',
}


def _script(body: str, host: str) -> str:
    return f"HOST={host}\n" + body.format() + f'r "{REMOTE}"\necho "status=$?"\n'


@pytest.mark.parametrize("body", BODIES.values(), ids=BODIES.keys())
def test_the_call_is_checked_as_the_remote_command(body: str) -> None:
    text = _script(body, "h")
    (found,) = kit.findings(text, "HL103")
    at = text.rindex("pkill -f")
    assert (found.start, found.end, found.severity) == (at, at + len("pkill"), Severity.ERROR)


@pytest.mark.parametrize("body", BODIES.values(), ids=BODIES.keys())
def test_bash_kills_the_remote_shell(body: str, sshd: SshServer) -> None:
    ran = run_local(_script(body, f"{sshd.user}@gpu"), sshd, timeout=60)
    assert "after-pkill" not in ran.stdout, ran.stdout + ran.stderr
    assert "status=255" in ran.stdout or "status=143" in ran.stdout, ran.stdout + ran.stderr


def test_two_statements_with_the_arguments_give_nothing() -> None:
    body = 'r() {{ echo "running: $*" >&2; ssh "$HOST" "$@"; }}\n'
    assert kit.findings(_script(body, "h"), "HL103") == []


# -- shell/definitions.py: a function body that is one redirected command ------------------


FORWARD_MARK = "hlmutemark"  # no other process on this machine has it on its command line


FORWARD_REMOTE = f"pkill -f {FORWARD_MARK}; echo after-pkill"


_REDIRECTED = 'remote() {{ ssh {host} "$@" 2>/dev/null; }}\nremote "{remote}"\necho "status=$?"\n'


def test_a_redirected_forwarding_body_is_still_the_command_it_runs() -> None:
    """`remote() { ssh h "$@" 2>/dev/null; }`: the body is one command with a redirection,
    a call runs `ssh h ARGS`; HL103 at the call's `pkill` (definitions `_body_command`'s
    redirected statement)."""
    text = _REDIRECTED.format(host="h", remote=FORWARD_REMOTE)
    at = text.index("pkill -f")
    (f,) = kit.findings(text, "HL103")
    assert (f.start, f.end, f.severity) == (at, at + len("pkill"), Severity.ERROR)


def test_bash_runs_the_redirected_body_over_ssh(sshd: SshServer) -> None:
    text = _REDIRECTED.format(host=f"{sshd.user}@gpu", remote=FORWARD_REMOTE)
    ran = run_local(text, sshd, timeout=60)
    assert "after-pkill" not in ran.stdout, ran.stdout + ran.stderr
    assert "status=255" in ran.stdout or "status=143" in ran.stdout, ran.stdout + ran.stderr
