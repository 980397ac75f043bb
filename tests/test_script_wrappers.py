"""Issue 16, item 4 (shell side): wrappers a script defines itself.

A function whose body forwards its arguments to ssh (`remote() { ssh "$HOST" "$@"; }`),
and a variable assigned a wrapper's words once (`SSH="ssh -p 2222"`, `SSH=(ssh -p 22)`),
start the same layer as the command they stand for: `remote "pkill -f app; ./start"` is
`ssh "$HOST" "pkill -f app; ./start"`, an HL103 error at the call's `pkill`.

For each shape, the finding is checked at its line and column, and bash is the oracle:
the script runs in bash against the real sshd of tests/sshd.py (or a local `bash -c`),
where the pkill kills its own shell (nothing after it runs, the status is 143 or 255).
Where the function does not forward, or the variable's value at the use is not one known
literal, nothing is reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.engine import check_shell
from heredoc_lint.model import Finding, Severity
from heredoc_lint.settings import Settings

MARK = "hlfwdmark"  # no other process on this machine has it on its command line
REMOTE = f"pkill -f {MARK}; echo after-pkill"


def hl103(text: str) -> list[Finding]:
    return kit.findings(text, "HL103")


@dataclass(frozen=True)
class Shape:
    name: str
    template: str  # `{host}`: where the ssh destination goes; `{remote}`: REMOTE
    over_ssh: bool = True  # False: a local shell runs the string (no host)

    def text(self, host: str) -> str:
        return self.template.format(host=host, remote=REMOTE) + 'echo "status=$?"\n'


SHAPES = [
    Shape("forward-all", 'HOST={host}\nremote() {{ ssh "$HOST" "$@"; }}\nremote "{remote}"\n'),
    Shape(
        "forward-positional",
        'remote() {{ ssh -o BatchMode=yes "$1" "$2"; }}\nremote {host} "{remote}"\n',
    ),
    Shape("forward-from-2", 'remote() {{ ssh "$1" "${{@:2}}"; }}\nremote {host} "{remote}"\n'),
    Shape(
        "forward-joined",
        'remote() {{ cd / && ssh {host} "$*"; }}\nremote "pkill -f '
        + MARK
        + ';" echo after-pkill\n',
    ),
    Shape("function-keyword", 'function remote {{\n  ssh {host} "$@"\n}}\nremote "{remote}"\n'),
    Shape("subshell-body", 'remote() ( ssh {host} "$@" )\nremote "{remote}"\n'),
    Shape("sudo-body", 'as_root() {{ sudo "$@"; }}\nas_root bash -c "{remote}"\n', False),
    Shape("bash-c-body", 'run() {{ bash -c "$1"; }}\nrun "{remote}"\n', False),
    Shape("variable", 'SSH="ssh -o BatchMode=yes"\n$SSH {host} "{remote}"\n'),
    Shape("variable-braces", "SSH='ssh -T'\n${{SSH}} {host} \"{remote}\"\n"),
    Shape("array", 'SSH_CMD=(ssh -o "BatchMode yes")\n"${{SSH_CMD[@]}}" {host} "{remote}"\n'),
    Shape("variable-behind-prefix", 'SSH=ssh\nnice -n 1 $SSH {host} "{remote}"\n'),
]


def _ids(shapes: list[Shape]) -> list[str]:
    return [s.name for s in shapes]


@pytest.mark.parametrize("shape", SHAPES, ids=_ids(SHAPES))
def test_the_call_is_checked_as_the_command_it_runs(shape: Shape) -> None:
    text = shape.text("h")
    at = text.index("pkill -f")
    (f,) = hl103(text)
    assert (f.start, f.end, f.severity) == (at, at + len("pkill"), Severity.ERROR)
    assert f"`pkill -f {MARK}` matches the command line of its own shell" in f.message


def test_the_cli_places_it_on_the_call(tmp_path: Path) -> None:
    text = 'remote() { ssh "$HOST" "$@"; }\n\nremote "pkill -f app; ./start"\n'
    path = tmp_path / "deploy.sh"
    path.write_text(text)
    (item,) = kit.cli_json(path, "--select", "HL103", returncode=1)
    start = text.index("pkill")
    kit.assert_json_position(item, text, (start, start + 5), (3, 9))


@pytest.mark.parametrize("shape", SHAPES, ids=_ids(SHAPES))
def test_bash_kills_the_shell_the_call_starts(shape: Shape, sshd: SshServer) -> None:
    text = shape.text(f"{sshd.user}@gpu")
    ran = run_local(text, sshd, timeout=60)
    assert "after-pkill" not in ran.stdout, ran.stdout + ran.stderr
    statuses = ("status=255", "status=143") if shape.over_ssh else ("status=143",)
    assert any(s in ran.stdout for s in statuses), ran.stdout + ran.stderr


# -- where the call is not that command, or the value is not known: nothing -----------------
# Each text runs REMOTE, or would if the wrapper were read as a guess; bash shows which.
NEGATIVES = [
    # the function does not forward its arguments to the remote command
    ("no-forward", 'remote() { ssh {host} uptime; }\nremote "{remote}"\n', False),
    ("forward-to-echo", 'show() { echo "$@"; }\nshow "{remote}"\n', False),
    # its argument is part of a word of the body: the body is checked where it is written
    ("forward-in-text", 'remote() { ssh {host} "cd / && $1"; }\nremote "{remote}"\n', True),
    # two statements hold the arguments: which one is the remote command is a guess
    # (one statement that holds them: tests/test_forwarders_body.py)
    ("two-forwards", 'remote() { echo "$@" >&2; ssh {host} "$@"; }\nremote "{remote}"\n', True),
    # defined after the call: bash runs no such function there
    ("defined-after", 'remote "{remote}"\nremote() { ssh {host} "$@"; }\n', False),
    # defined twice: which body runs is a guess
    (
        "defined-twice",
        'remote() { ssh {host} "$@"; }\n'
        'if [ -n "$DRY" ]; then remote() { echo "$@"; }; fi\nremote "{remote}"\n',
        True,
    ),
    # the variable is assigned again, in a branch
    (
        "reassigned-in-branch",
        'SSH=ssh\nif [ -n "$DRY" ]; then SSH=echo; fi\n$SSH {host} "{remote}"\n',
        True,
    ),
    ("reassigned", 'SSH="ssh -o BatchMode=yes"\nSSH=echo\n$SSH {host} "{remote}"\n', False),
    ("unset", 'SSH=ssh\nunset SSH\n$SSH {host} "{remote}"\n', False),
    # never assigned here: its value is the environment's
    ("unknown-variable", '$SSH {host} "{remote}"\n', False),
    ("value-with-expansion", 'SSH="ssh $EXTRA"\n$SSH {host} "{remote}"\n', True),
    # quoted: one word, `ssh -T` is no command name
    ("quoted-variable", 'SSH="ssh -T"\n"$SSH" {host} "{remote}"\n', False),
]


@pytest.mark.parametrize(("name", "template", "runs"), NEGATIVES, ids=[n[0] for n in NEGATIVES])
def test_no_finding_without_a_known_wrapper(name: str, template: str, runs: bool) -> None:
    text = template.replace("{host}", "h").replace("{remote}", REMOTE)
    assert hl103(text) == []


@pytest.mark.parametrize(("name", "template", "runs"), NEGATIVES, ids=[n[0] for n in NEGATIVES])
def test_bash_on_the_negatives(name: str, template: str, runs: bool, sshd: SshServer) -> None:
    """What bash does with them: `runs` says whether the remote pkill kills its shell on
    some path, which the tool, reading no guess, leaves unreported."""
    text = template.replace("{host}", f"{sshd.user}@gpu").replace("{remote}", REMOTE)
    ran = run_local(text + 'echo "status=$?"\n', sshd, timeout=60)
    killed = "after-pkill" not in ran.stdout and (
        "status=143" in ran.stdout or "status=255" in ran.stdout
    )
    assert killed is runs, ran.stdout + ran.stderr


# -- HL108: scp options in an array ---------------------------------------------------------


def test_scp_options_from_an_array(sshd: SshServer, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "app.tgz").write_bytes(b"payload\n")
    text = f'SCP_OPTS=(-p 2022)\nscp "${{SCP_OPTS[@]}}" app.tgz {sshd.user}@edge-1:{tmp_path}/\n'
    (f,) = kit.findings(text, "HL108")
    use = text.index('"${SCP_OPTS[@]}"')
    assert (f.start, f.end, f.severity) == (use, use + len('"${SCP_OPTS[@]}"'), Severity.ERROR)
    assert f.fix is None  # the array may serve ssh too, where -p is the port
    assert "the `-p` comes from `${SCP_OPTS[@]}`" in f.message
    ran = run_local(text, sshd, cwd=work)
    assert ran.returncode != 0
    assert 'stat local "2022": No such file or directory' in ran.stderr


def test_scp_array_with_the_port_flag_is_clean() -> None:
    assert kit.findings('SCP_OPTS=(-P 2022)\nscp "${SCP_OPTS[@]}" f h:/tmp/\n', "HL108") == []
    # assigned twice: not known
    text = 'O=(-p 2022)\n[ -n "$X" ] && O=(-P 2022)\nscp "${O[@]}" f h:/tmp/\n'
    assert kit.findings(text, "HL108") == []


# -- the rules say of the call what they say of the command it stands for ------------------
STRINGS = [
    "sudo echo x > /etc/f; ./x",  # HL109
    "nohup ./server &",  # HL104
    f"pkill -f {MARK}; ./x",  # HL103
]


def _said(text: str) -> list[tuple[str, Severity, str]]:
    return [(f.code, f.severity, f.message) for f in check_shell(text, "t.sh", Settings())]


@pytest.mark.parametrize("remote", STRINGS)
@pytest.mark.parametrize("host", ["h", "deploy@web-1", '"$HOST"'])
def test_the_call_reads_as_the_command(remote: str, host: str) -> None:
    direct = f'ssh {host} "{remote}"\n'
    called = f'remote() {{ ssh {host} "$@"; }}\nremote "{remote}"\n'
    held = f'SSH="ssh -o BatchMode=yes"\n$SSH {host} "{remote}"\n'
    said = [s for s in _said(direct) if s[0] != "HL102"]
    assert said  # each string is a finding of its own
    assert [s for s in _said(called) if s[0] != "HL102"] == said
    assert _said(held) == said
