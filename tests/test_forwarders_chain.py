"""Issue 16, item 4 (shell side): a function that forwards to a function that forwards.

    r() { ssh "$HOST" "$@"; }
    deploy() { r "$@"; }
    deploy 'pkill -f app; ./run'        # runs: ssh "$HOST" 'pkill -f app; ./run'

`deploy` is a forwarder too: the calls are followed one after another (a loop, to a fixed
point), so the call's argument is checked as the remote command it becomes: an HL103
error at its `pkill`.  A body may put fixed words before the arguments (`deploy() { r
sudo "$@"; }`): the remote command is then `sudo pkill ...`, still the call's own text
after a word that says the same at every call.

Bash is the oracle: the script runs against the real sshd of tests/sshd.py, where the
pkill kills its own remote shell (nothing after it runs, the status is 143 or 255).  A
cycle (`a` calls `b` calls `a`), a function defined after the call, or a fixed word whose
value is not known gives nothing: bash shows that none of them runs the remote command.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.model import Finding, Severity

MARK = "hlchainmark"  # no other process on this machine has it on its command line
REMOTE = f"pkill -f {MARK}; echo after-pkill"
R = 'r() {{ ssh "$HOST" "$@"; }}\n'


def hl103(text: str) -> list[Finding]:
    return kit.findings(text, "HL103")


@dataclass(frozen=True)
class Shape:
    name: str
    template: str  # `{remote}`: REMOTE; `HOST` is set before it

    def text(self, host: str) -> str:
        body = self.template.format(remote=REMOTE)
        return f"HOST={host}\n{body}" + 'echo "status=$?"\n'


SHAPES = [
    Shape("two-calls", R + 'deploy() {{ r "$@"; }}\ndeploy "{remote}"\n'),
    Shape("fixed-first-word", R + 'deploy() {{ r sudo "$@"; }}\ndeploy "{remote}"\n'),
    Shape(
        "three-calls",
        R + 'as_root() {{ r sudo "$@"; }}\ndeploy() {{ as_root "$@"; }}\ndeploy "{remote}"\n',
    ),
    Shape("positional", R + 'on() {{ r "$1"; }}\non "{remote}"\n'),
    # bash looks `r` up when `deploy` runs: defined between the two, it is found
    Shape("callee-defined-later", 'deploy() {{ r "$@"; }}\n' + R + 'deploy "{remote}"\n'),
    Shape(
        "joined", R + 'deploy() {{ r "$*"; }}\ndeploy "pkill -f ' + MARK + ';" echo after-pkill\n'
    ),
]


def _ids(shapes: list[Shape]) -> list[str]:
    return [s.name for s in shapes]


@pytest.mark.parametrize("shape", SHAPES, ids=_ids(SHAPES))
def test_the_call_is_checked_as_the_remote_command(shape: Shape) -> None:
    text = shape.text("h")
    at = text.rindex("pkill -f")
    (f,) = hl103(text)
    assert (f.start, f.end, f.severity) == (at, at + len("pkill"), Severity.ERROR)
    assert f"`pkill -f {MARK}` matches the command line of its own shell" in f.message
    line = text.count("\n", 0, at) + 1
    assert kit.line_col(text, f.start) == (line, at - text.rfind("\n", 0, at))


@pytest.mark.parametrize("shape", SHAPES, ids=_ids(SHAPES))
def test_bash_kills_the_remote_shell(shape: Shape, sshd: SshServer) -> None:
    ran = run_local(shape.text(f"{sshd.user}@gpu"), sshd, timeout=60)
    assert "after-pkill" not in ran.stdout, ran.stdout + ran.stderr
    assert "status=255" in ran.stdout or "status=143" in ran.stdout, ran.stdout + ran.stderr


def test_the_fixed_sudo_is_read_by_hl109() -> None:
    text = R.format() + 'as_root() { r sudo "$@"; }\nas_root "echo 1 > /etc/flag; ./run"\n'
    (f,) = kit.findings(text, "HL109")
    at = text.index("> /etc/flag")
    assert (f.start, f.severity) == (at, Severity.ERROR)
    assert "`> /etc/flag` is opened by the calling shell" in f.message


# -- where the chain is not known: nothing -------------------------------------------------
# (name, template, what bash prints instead of running the remote command)
NEGATIVES = [
    # a cycle: bash recurses until FUNCNEST (or its stack) stops it
    ("cycle", 'a() {{ b "$@"; }}\nb() {{ a "$@"; }}\na "{remote}"\n', "maximum function nesting"),
    # the callee is defined after the call: bash finds no `r` when `deploy` runs
    (
        "callee-after-call",
        'deploy() {{ r "$@"; }}\ndeploy "{remote}"\n' + R,
        "r: command not found",
    ),
    # a fixed word whose value is not known here: what runs is a guess
    ("unknown-fixed-word", R + 'deploy() {{ r "$WRAP" "$@"; }}\ndeploy "{remote}"\n', None),
    # the argument is part of a word of the body
    ("argument-in-text", R + 'deploy() {{ r "cd / && $1"; }}\ndeploy "{remote}"\n', None),
]


@pytest.mark.parametrize(("name", "template", "said"), NEGATIVES, ids=[n[0] for n in NEGATIVES])
def test_no_finding_without_a_known_chain(name: str, template: str, said: str | None) -> None:
    assert hl103(Shape(name, template).text("h")) == []


@pytest.mark.parametrize(
    ("name", "template", "said"),
    [n for n in NEGATIVES if n[2]],
    ids=[n[0] for n in NEGATIVES if n[2]],
)
def test_bash_on_the_unfollowed_chains(
    name: str, template: str, said: str, sshd: SshServer
) -> None:
    text = "FUNCNEST=50\n" + Shape(name, template).text(f"{sshd.user}@gpu")
    ran = run_local(text, sshd, timeout=60)
    assert said in ran.stderr, ran.stdout + ran.stderr
    assert "after-pkill" not in ran.stdout
    assert "status=143" not in ran.stdout and "status=255" not in ran.stdout
