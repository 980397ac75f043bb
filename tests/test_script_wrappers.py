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

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.engine import check_shell, fix_shell
from heredoc_lint.model import Finding, Severity
from heredoc_lint.run.settings import Settings

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


# -- forwarders.py: an unquoted "$@" globs its arguments ------------------------------------


FORWARD_MARK = "hlmutemark"  # no other process on this machine has it on its command line


FORWARD_REMOTE = f"pkill -f {FORWARD_MARK}; echo after-pkill"


def _bash(script: str, cwd: Path) -> str:
    """What bash prints running `script` in `cwd`, with `ssh` a function that prints its
    words as ssh joins them (`ssh: ARGS`)."""
    stand_in = 'ssh() { printf "ssh: %s\\n" "$*"; }\n'
    return subprocess.run(
        ["bash", "-c", stand_in + script],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout


_UNQUOTED = "remote() {{ ssh h $@; }}\nremote '{remote}'\n"


def test_an_unquoted_forward_of_a_glob_is_not_known(tmp_path: Path) -> None:
    """`$@` unquoted splits each argument at blanks and globs the pieces: with `*` in an
    argument the remote command depends on the files where the script runs (bash shows
    it), so the call gives no layer; without one its words are known (forwarders
    `_GLOB`'s `*`)."""
    plain = _UNQUOTED.format(remote=FORWARD_REMOTE)
    at = plain.index("pkill -f")
    (f,) = kit.findings(plain, "HL103")
    assert (f.start, f.end) == (at, at + len("pkill"))
    glob = _UNQUOTED.format(remote=f"pkill -f {FORWARD_MARK}*; echo after-pkill")
    assert kit.findings(glob, "HL103") == []
    empty, full = tmp_path / "empty", tmp_path / "full"
    empty.mkdir()
    full.mkdir()
    (full / f"{FORWARD_MARK}-other;").write_text("")
    assert _bash(glob, empty) == f"ssh: h pkill -f {FORWARD_MARK}*; echo after-pkill\n"
    assert _bash(glob, full) == f"ssh: h pkill -f {FORWARD_MARK}-other; echo after-pkill\n"
    assert _bash(plain, empty) == f"ssh: h {FORWARD_REMOTE}\n"


# -- shell/definitions.py: `printf -v NAME` binds a name -----------------------------------


def test_printf_v_rebinds_a_wrapper_variable(tmp_path: Path) -> None:
    """`printf -v SSH ...` assigns SSH again: the value at the use is no longer the one
    literal (bash runs `echo`, not ssh), so `$SSH h "..."` gives no layer; without the
    printf it is ssh's (definitions `_BINDERS`' `printf`)."""
    use = f'$SSH h "{FORWARD_REMOTE}"\n'
    assigned = 'SSH="ssh -o BatchMode=yes"\n'
    plain = assigned + use
    at = plain.index("pkill -f")
    (f,) = kit.findings(plain, "HL103")
    assert (f.start, f.end) == (at, at + len("pkill"))
    rebound = assigned + "printf -v SSH '%s' echo\n" + use
    assert kit.findings(rebound, "HL103") == []
    assert _bash(plain, tmp_path) == f"ssh: -o BatchMode=yes h {FORWARD_REMOTE}\n"
    assert _bash(rebound, tmp_path) == f"h {FORWARD_REMOTE}\n"


# -- shell/definitions.py: each function is known by its own name ------------------------


def test_two_functions_each_run_their_own_body(tmp_path: Path) -> None:
    """With two functions defined, a call of each runs that function's body (bash shows
    it): only the call of the ssh wrapper is HL103's, in either order of definition
    (definitions `_functions`: the label read from each function's own name)."""
    remote = 'remote() { ssh h "$@"; }\n'
    show = 'show() { echo "$@"; }\n'
    calls = f'remote "{FORWARD_REMOTE}"\nshow "{FORWARD_REMOTE}"\n'
    for text in (remote + show + calls, show + remote + calls):
        at = text.index("pkill -f")
        (f,) = kit.findings(text, "HL103")
        assert (f.start, f.end) == (at, at + len("pkill"))
        assert _bash(text, tmp_path) == f"ssh: h {FORWARD_REMOTE}\n{FORWARD_REMOTE}\n"


# -- shell/definitions.py: a changed IFS leaves a string value's words unknown --------------


def test_a_changed_ifs_leaves_a_wrapper_variable_unknown(tmp_path: Path) -> None:
    """`$SSH` splits at the characters of $IFS: once the script assigns IFS (or binds it
    with `printf -v`), the words of `SSH="ssh -o BatchMode=yes"` at its use are not
    known (bash runs no ssh: one word, `ssh -o BatchMode=yes`, is no command), so no
    layer; with the default IFS it is ssh's (definitions `_literals`' `"IFS"`)."""
    body = f'SSH="ssh -o BatchMode=yes"\n$SSH h "{FORWARD_REMOTE}"\n'
    at = body.index("pkill -f")
    (f,) = kit.findings(body, "HL103")
    assert (f.start, f.end) == (at, at + len("pkill"))
    for setting in ("IFS=:\n", "printf -v IFS :\n"):
        text = setting + body
        assert kit.findings(text, "HL103") == [], setting
        ran = subprocess.run(
            ["bash", "-c", 'ssh() { printf "ssh: %s\\n" "$*"; }\n' + text],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
        assert ran.stdout == ""
        assert "ssh -o BatchMode=yes: command not found" in ran.stderr
    assert _bash(body, tmp_path) == f"ssh: -o BatchMode=yes h {FORWARD_REMOTE}\n"


# -- forwarders.py: "$*" joins the call's arguments into one word -------------------------


def test_joined_arguments_keep_the_places_of_their_expansions(tmp_path: Path) -> None:
    """`remote() { ssh h "$*"; }`: the call's arguments joined with spaces are the remote
    command, and the local shell expands what they hold first (bash, the stand-in ssh,
    prints this machine's values); HL102 marks each expansion exactly where the call
    writes it (forwarders `_join`: one space between arguments)."""
    text = 'remote() { ssh h "$*"; }\nremote echo "$HOME" "x$(hostname)"\n'
    found = [f for f in kit.findings(text, "HL102") if f.start > text.index("\n")]
    home, sub = text.index("$HOME"), text.index("$(hostname)")
    assert [(f.start, f.end, f.severity) for f in found] == [
        (home, home + len("$HOME"), Severity.INFO),
        (sub, sub + len("$(hostname)"), Severity.INFO),
    ]
    env_home = subprocess.run(
        ["bash", "-c", 'printf %s "$HOME"'], capture_output=True, text=True, check=True
    ).stdout
    host = subprocess.run(["hostname"], capture_output=True, text=True, check=True).stdout
    assert _bash(text, tmp_path) == f"ssh: h echo {env_home} x{host}"
    # The fix escapes the substitution inside the last argument: the remote side gets it.
    fixed = fix_shell(text, unsafe=True).text
    assert fixed == text.replace("x$(hostname)", "x\\$(hostname)")
    assert _bash(fixed, tmp_path) == f"ssh: h echo {env_home} x$(hostname)\n"


def test_a_fix_inside_joined_arguments(tmp_path: Path) -> None:
    """HL109's and HL104's fixes land inside the call's last argument, which `"$*"` joins
    into the remote command: bash (the stand-in ssh) shows the command ssh then sends
    (forwarders `_join`: the joined word ends where the last argument ends)."""
    head = 'remote() { ssh h "$*"; }\n'
    cases = [
        (
            'remote sudo echo "x > /etc/f"\n',
            'remote echo "x | sudo tee /etc/f > /dev/null"\n',
            "ssh: h echo x | sudo tee /etc/f > /dev/null\n",
        ),
        (
            'remote nohup "./srv &"\n',
            'remote nohup "./srv > /dev/null 2>&1 < /dev/null &"\n',
            "ssh: h nohup ./srv > /dev/null 2>&1 < /dev/null &\n",
        ),
    ]
    for call, fixed_call, sent in cases:
        fixed = fix_shell(head + call, unsafe=True).text
        assert fixed == head + fixed_call
        assert _bash(fixed, tmp_path) == sent


# -- forwarders.py: the destination's user of an ssh behind a wrapper ----------------------


_SUDO_WRITE = "sudo echo x > /etc/hlmutf"


def test_the_login_user_of_a_wrapped_ssh_is_read_from_its_destination(sshd: SshServer) -> None:
    """`remote() { ssh root@h "$@"; }` and `SSH=...; $SSH root@h ...`: the remote shell runs
    as the destination's user (the loopback sshd shows it), so for `root@` the
    redirection after `sudo` is opened as root and HL109 says nothing; for another user
    it is HL109's error at the `>` (forwarders `_as_called` reads the destination's
    user, and keeps the host of a variable wrapper)."""
    function = 'remote() {{ ssh {host} "$@"; }}\nremote "{remote}"\n'
    variable = 'SSH="ssh -o BatchMode=yes"\n$SSH {host} "{remote}"\n'
    for shape in (function, variable):
        ran = run_local(shape.format(host=f"{sshd.user}@gpu", remote="id -un"), sshd, timeout=60)
        assert ran.stdout == f"{sshd.user}\n", ran.stdout + ran.stderr
        assert kit.findings(shape.format(host="root@h", remote=_SUDO_WRITE), "HL109") == []
        text = shape.format(host="deploy@h", remote=_SUDO_WRITE)
        (f,) = kit.findings(text, "HL109")
        at = text.index("> /etc")
        assert (f.start, f.end, f.severity) == (at, at + 1, Severity.ERROR)


# -- forwarders.py: a call that adds no word of its own --------------------------------------


def test_a_call_without_arguments_is_checked_once_in_the_body() -> None:
    """`remote() { ssh h "pkill ...; echo after" "$@"; }` called with no argument: `"$@"`
    gives no word (bash shows what ssh gets), the command is the body's own, and its
    HL103 is reported once, where the body is written, not again at the call
    (forwarders `_own_after_fixed`: no word of the call's own)."""
    text = 'remote() { ssh h "pkill -f hlmutf; echo after" "$@"; }\nremote\n'
    stand_in = 'ssh() { printf "%s|" "$@"; echo; }\n'
    ran = subprocess.run(
        ["bash", "-c", stand_in + text], capture_output=True, text=True, check=True, timeout=30
    )
    assert ran.stdout == "h|pkill -f hlmutf; echo after|\n"
    at = text.index("pkill")
    (f,) = kit.findings(text, "HL103")
    assert (f.start, f.end, f.severity) == (at, at + len("pkill"), Severity.ERROR)


# -- forwarders.py: `"${@:N}"` forwards every argument from the N-th on --------------------


# bash decodes `\U` escapes for the locale's encoding; the de-quoter models UTF-8.


_FORWARD = 'remote() {{ ssh "$1" "${{@:2}}"; }}\nremote {host} echo \'a;b\'\n'


def test_a_forward_from_the_second_argument_takes_all_the_rest(sshd: SshServer) -> None:
    """`remote() { ssh "$1" "${@:2}"; }; remote h echo 'a;b'`: `"${@:2}"` is every
    argument from the second on (`echo` and `a;b`), which ssh joins into `echo a;b`, two
    commands for the remote shell: HL106 at the call, and its fix quotes the remote
    command as one string.  Through the real sshd, the original prints `a` and fails on
    `b`; the fixed script prints `a;b`.  (Run 7: `${@:N}` taken as the N-th argument
    alone hid the `;`.)"""
    text = _FORWARD.format(host="h")
    call = text.index("remote h")
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL106"]
    assert (found.start, found.end, found.severity) == (call, call + 6, Severity.INFO)
    assert "ssh joins the 2 words" in found.message
    host = f"{sshd.user}@gpu"
    fixed = fix_shell(_FORWARD.format(host=host), "t.sh", unsafe=True).text
    assert fixed.endswith(f"\nremote {host} \"echo 'a;b'\"\n")
    env = {**sshd.env(), **kit.UTF8}
    before = subprocess.run(
        ["bash", "-c", _FORWARD.format(host=host)],
        env=env, capture_output=True, check=False, timeout=60,
    )  # fmt: skip
    assert before.stdout == b"a\n" and b"b: command not found" in before.stderr
    assert kit.bash_bytes(fixed, sshd.env()) == b"a;b\n"
