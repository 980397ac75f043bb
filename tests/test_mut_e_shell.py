"""Pinned behaviours of the shell model (shell/definitions.py, heredoc_body.py, names.py,
structure.py, layers.py, wrappers.py, forwarders.py), through `engine.check_shell`.

Each test kills a mutant that survived `bench/mutation.py` (issue 20, run 5e,
bench/MUTATION.md, section 11); each was planted by hand in a scratch copy of the tree, the
test failed there, and passes without it.  Bash is the oracle: the scripts run against
the loopback sshd of tests/sshd.py, or with a stand-in `ssh` that prints what it gets.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.engine import Settings, check_text, fix_shell
from heredoc_lint.model import Severity

MARK = "hlmutemark"  # no other process on this machine has it on its command line
REMOTE = f"pkill -f {MARK}; echo after-pkill"


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


# -- shell/definitions.py: a function body that is one redirected command ------------------

_REDIRECTED = 'remote() {{ ssh {host} "$@" 2>/dev/null; }}\nremote "{remote}"\necho "status=$?"\n'


def test_a_redirected_forwarding_body_is_still_the_command_it_runs() -> None:
    """`remote() { ssh h "$@" 2>/dev/null; }`: the body is one command with a redirection,
    a call runs `ssh h ARGS`; HL103 at the call's `pkill` (definitions `_body_command`'s
    redirected statement)."""
    text = _REDIRECTED.format(host="h", remote=REMOTE)
    at = text.index("pkill -f")
    (f,) = kit.findings(text, "HL103")
    assert (f.start, f.end, f.severity) == (at, at + len("pkill"), Severity.ERROR)


def test_bash_runs_the_redirected_body_over_ssh(sshd: SshServer) -> None:
    text = _REDIRECTED.format(host=f"{sshd.user}@gpu", remote=REMOTE)
    ran = run_local(text, sshd, timeout=60)
    assert "after-pkill" not in ran.stdout, ran.stdout + ran.stderr
    assert "status=255" in ran.stdout or "status=143" in ran.stdout, ran.stdout + ran.stderr


# -- forwarders.py: an unquoted "$@" globs its arguments ------------------------------------

_UNQUOTED = "remote() {{ ssh h $@; }}\nremote '{remote}'\n"


def test_an_unquoted_forward_of_a_glob_is_not_known(tmp_path: Path) -> None:
    """`$@` unquoted splits each argument at blanks and globs the pieces: with `*` in an
    argument the remote command depends on the files where the script runs (bash shows
    it), so the call gives no layer; without one its words are known (forwarders
    `_GLOB`'s `*`)."""
    plain = _UNQUOTED.format(remote=REMOTE)
    at = plain.index("pkill -f")
    (f,) = kit.findings(plain, "HL103")
    assert (f.start, f.end) == (at, at + len("pkill"))
    glob = _UNQUOTED.format(remote=f"pkill -f {MARK}*; echo after-pkill")
    assert kit.findings(glob, "HL103") == []
    empty, full = tmp_path / "empty", tmp_path / "full"
    empty.mkdir()
    full.mkdir()
    (full / f"{MARK}-other;").write_text("")
    assert _bash(glob, empty) == f"ssh: h pkill -f {MARK}*; echo after-pkill\n"
    assert _bash(glob, full) == f"ssh: h pkill -f {MARK}-other; echo after-pkill\n"
    assert _bash(plain, empty) == f"ssh: h {REMOTE}\n"


# -- shell/definitions.py: `printf -v NAME` binds a name -----------------------------------


def test_printf_v_rebinds_a_wrapper_variable(tmp_path: Path) -> None:
    """`printf -v SSH ...` assigns SSH again: the value at the use is no longer the one
    literal (bash runs `echo`, not ssh), so `$SSH h "..."` gives no layer; without the
    printf it is ssh's (definitions `_BINDERS`' `printf`)."""
    use = f'$SSH h "{REMOTE}"\n'
    assigned = 'SSH="ssh -o BatchMode=yes"\n'
    plain = assigned + use
    at = plain.index("pkill -f")
    (f,) = kit.findings(plain, "HL103")
    assert (f.start, f.end) == (at, at + len("pkill"))
    rebound = assigned + "printf -v SSH '%s' echo\n" + use
    assert kit.findings(rebound, "HL103") == []
    assert _bash(plain, tmp_path) == f"ssh: -o BatchMode=yes h {REMOTE}\n"
    assert _bash(rebound, tmp_path) == f"h {REMOTE}\n"


# -- shell/definitions.py: each function is known by its own name ------------------------


def test_two_functions_each_run_their_own_body(tmp_path: Path) -> None:
    """With two functions defined, a call of each runs that function's body (bash shows
    it): only the call of the ssh wrapper is HL103's, in either order of definition
    (definitions `_functions`: the label read from each function's own name)."""
    remote = 'remote() { ssh h "$@"; }\n'
    show = 'show() { echo "$@"; }\n'
    calls = f'remote "{REMOTE}"\nshow "{REMOTE}"\n'
    for text in (remote + show + calls, show + remote + calls):
        at = text.index("pkill -f")
        (f,) = kit.findings(text, "HL103")
        assert (f.start, f.end) == (at, at + len("pkill"))
        assert _bash(text, tmp_path) == f"ssh: h {REMOTE}\n{REMOTE}\n"


# -- shell/definitions.py: a changed IFS leaves a string value's words unknown --------------


def test_a_changed_ifs_leaves_a_wrapper_variable_unknown(tmp_path: Path) -> None:
    """`$SSH` splits at the characters of $IFS: once the script assigns IFS (or binds it
    with `printf -v`), the words of `SSH="ssh -o BatchMode=yes"` at its use are not
    known (bash runs no ssh: one word, `ssh -o BatchMode=yes`, is no command), so no
    layer; with the default IFS it is ssh's (definitions `_literals`' `"IFS"`)."""
    body = f'SSH="ssh -o BatchMode=yes"\n$SSH h "{REMOTE}"\n'
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
    assert _bash(body, tmp_path) == f"ssh: -o BatchMode=yes h {REMOTE}\n"


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


# -- layers.py: a nested layer finds the run-time values of its root -----------------------


def test_a_python_field_in_an_ssh_string_is_no_local_expansion() -> None:
    """`os.system(f'ssh h "echo {name} $HOME"')`: the ssh string is a layer below the
    Python string; its `{name}` is filled in by Python (HL201's), not a `$` the local
    shell expands: HL102 is only at `$HOME`, and no message names the frontend's
    placeholder (layers `_root_index` walks up the parent offsets)."""
    text = (
        "import os\nimport sys\n\nname = sys.argv[1]\nos.system(f'ssh h \"echo {name} $HOME\"')\n"
    )
    found = check_text(text, "python", "t.py", Settings())
    home = text.index("$HOME")
    assert [(f.code, f.start, f.end) for f in found if f.code == "HL102"] == [
        ("HL102", home, home + len("$HOME"))
    ]
    assert not any("__hl" in f.message for f in found)
    field = text.index("{name}")
    assert [(f.code, f.start) for f in found if f.code == "HL201"] == [("HL201", field)]


# -- shell/names.py: each POSIX-family shell, by name ---------------------------------------

# Written out, not read from SHELLS: a name dropped from the set must fail here.
_SHELL_ARGV = {
    "sh": ["sh"],
    "bash": ["bash"],
    "dash": ["dash"],
    "zsh": ["zsh"],
    "ksh": ["ksh"],
    "mksh": ["mksh"],
    "ash": ["busybox", "ash"],
}


def test_each_shell_name_starts_a_layer() -> None:
    """`NAME -c 'pkill -f P; echo after'` kills its own shell for each of the seven
    shells (the real program runs it: SIGTERM, `after` never printed), and
    HL103 says so at the `pkill` (names `SHELLS`, each name)."""
    for name, argv in _SHELL_ARGV.items():
        script = f"pkill -f {MARK}; echo after"
        ran = subprocess.run(
            [*argv, "-c", script], capture_output=True, text=True, check=False, timeout=30
        )
        # killed by SIGTERM (-15), or the shell's status 143 (128 + SIGTERM)
        assert ran.returncode in (-15, 143) and ran.stdout == "", (name, ran)
        text = f"{name} -c '{script}'\n"
        at = text.index("pkill")
        found = kit.findings(text, "HL103")
        assert [(f.start, f.end, f.severity) for f in found] == [
            (at, at + len("pkill"), Severity.ERROR)
        ], name


# -- layers.py: a prefix command is read as the script's IFS splits it ----------------------


def test_an_empty_ifs_joins_sudo_to_its_command(tmp_path: Path) -> None:
    """With `IFS=` (empty) bash does not split `sudo${IFS}echo`: it runs a command named
    `sudoecho` (not found), so no sudo writes anything and HL109 has nothing to say
    (layers `calls_behind` reads the words as written, not split at a default IFS)."""
    text = "IFS=\nsudo${IFS}echo x > out\n"
    assert kit.findings(text, "HL109") == []
    ran = subprocess.run(
        ["bash", "-c", text], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert ran.returncode == 127
    assert "sudoecho: command not found" in ran.stderr


# -- shell/evidence.py: a list with a comment inside is read, not taken as a guard ----------


def test_a_list_with_a_comment_is_no_root_guard() -> None:
    """`[ "$EUID" -eq 0 ] &&` / `# note` / `echo root`: a comment inside the and-list
    (tree-sitter gives it four children); it exits for no one, so bash run as `nobody`
    goes on to the next line, and the sudo redirection after it stays an error
    (evidence `_is_guard`: a list not of three children is no guard)."""
    guard = '[ "$EUID" -eq 0 ] &&\n  # note\n  echo root\n'
    as_nobody = subprocess.run(
        ["runuser", "-u", "nobody", "--", "bash", "-s"],
        input=guard + "echo reached\n",
        capture_output=True,
        text=True,
        check=False,
        cwd="/",
    )
    assert (as_nobody.stdout, as_nobody.stderr) == ("reached\n", "")
    text = guard + "sudo echo x > /etc/motd\n"
    (found,) = kit.findings(text, "HL109")
    at = text.index("> /etc/motd")
    assert (found.start, found.severity) == (at, Severity.ERROR)
