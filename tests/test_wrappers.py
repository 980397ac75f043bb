"""The wrapper table: where a wrapper's command starts, and what runs it.

Part 1, uncertainty: when a word of unknown count (`$SSH_OPTS`, `"${OPTS[@]}"`, an
f-string field) or an option the manual does not list stands before ssh's host, the
remote command may start at different words; nothing is reported then. The option
letters come from the OpenSSH manuals (`wrappers.OPTION_GRAMMARS`); the real ssh
client agrees with them (it rejects what the table calls unknown, accepts the rest).
"""

from __future__ import annotations

import subprocess

import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.engine import check_shell
from heredoc_lint.layers import child_layers, file_layer
from heredoc_lint.shell.syntax import parse_script
from heredoc_lint.wrappers import OPTION_GRAMMARS, Invocation, parse_ssh, resolve


def _resolve(line: str) -> Invocation | None:
    return resolve(parse_script(line).commands[0].words)


def _remote(line: str) -> list[str] | None:
    """The words of the layer the command starts (None: no layer)."""
    found = _resolve(line)
    return None if found is None else [w.value for w in found.words]


# -- where ssh's remote command starts ---------------------------------------------------
UNCERTAIN = [
    'ssh $SSH_OPTS "$host" "uptime; df -h"',  # $SSH_OPTS: options, or the host?
    'ssh "${OPTS[@]}" "$host" "a && b"',
    'ssh ${SSH_OPTS} user@web-1 "a && b"',
    "ssh $OPTS $host 'ls \"my dir\"' x",
    'ssh "$@" "$host" "a; b"',
    'ssh -Z host "a; b"',  # -Z: not in ssh(1)
    'ssh -P tag host "a; b"',  # a flag before OpenSSH 9.4, `-P tag` since
    'ssh -$FLAGS host "a; b"',  # letters known only at run time
    # the Python f-string `f"ssh {proxy_opts} -i {key} {user}@{ip} '...'"`, as its fragment
    "ssh ${__hl_0} -i ${__hl_1} ${__hl_2}@${__hl_3} 'find . | xargs cat'",
]


@pytest.mark.parametrize("line", UNCERTAIN)
def test_uncertain_command_start_makes_no_layer(line: str) -> None:
    assert _resolve(line) is None
    assert list(child_layers(file_layer(line + "\n"))) == []


CERTAIN = [
    # (line, the remote words): the other reading leaves no command, or no host
    ('ssh $h "uptime; df -h"', ["uptime; df -h"]),
    ("ssh $h uptime", ["uptime"]),  # `uptime` is no host name with a user, domain or address
    ('ssh $h ls "my dir"', ["ls", "my dir"]),
    ('ssh "$host" "$cmd"', ["$cmd"]),
    ('ssh -p "$PORT" "$host" "a; b"', ["a; b"]),  # an option's value is one word
    ('ssh -p$PORT "$host" "a; b"', ["a; b"]),
    ("ssh -B eth0 h cmd", ["cmd"]),  # -B takes a value (OpenSSH 8.9)
    ("ssh -o BatchMode=yes -- h -x", ["-x"]),
    ('ssh h -l ops "a; b"', ["a; b"]),  # ssh reads options after the host too
]


@pytest.mark.parametrize(("line", "remote"), CERTAIN)
def test_certain_command_start(line: str, remote: list[str]) -> None:
    assert _remote(line) == remote


def test_attached_value_keeps_its_expansion() -> None:
    call = parse_ssh(parse_script('ssh -p$PORT h "a"').commands[0].words, 0)
    assert call is not None
    (option,) = call.options
    letter, value, _ = option
    assert letter == "p" and value is not None
    assert value.value == "$PORT" and not value.static


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('ssh $SSH_OPTS "$host" git commit -m "fix the build"\n', "HL106"),
        ('ssh "${OPTS[@]}" "$host" ls "/srv/my dir"\n', "HL106"),
        ('ssh $SSH_OPTS "$host" "nohup ./server &"\n', "HL104"),
        ('ssh $SSH_OPTS "$host" cd /srv && make\n', "HL110"),
        ('while read h; do ssh $SSH_OPTS "$h" "uptime"; done < hosts\n', "HL105"),
        ('ssh $SSH_OPTS "$host" "x=1; echo $x"\n', "HL102"),
    ],
)
def test_uncertain_shapes_give_no_finding(text: str, code: str) -> None:
    found = [f for f in check_shell(text, "t.sh", None) if f.code == code]
    assert found == [], found
    # ...where the same command with a known shape does report it.
    known = text.replace("$SSH_OPTS ", "").replace('"${OPTS[@]}" ', "")
    assert [f.code for f in kit.findings(known, code)] == [code]


def test_certain_unquoted_host_still_reported() -> None:
    text = 'ssh $h ls "my dir"\n'
    kit.assert_single(kit.findings(text, "HL106"), kit.span_of(text, "ssh"), kit.Severity.WARNING)


# -- the option table agrees with the real ssh client -------------------------------------
def _getopt_says(command: str, *args: str) -> str:
    """What the client's own option parser (getopt) says about `args`, before any
    connection: `ssh -G` prints the configuration and exits; scp and sftp are given no
    destination, or fail on the option first."""
    argv = [f"/usr/bin/{command}", *(("-G",) if command == "ssh" else ()), *args]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    return proc.stderr


@pytest.mark.parametrize("command", ["ssh", "scp", "sftp"])
def test_option_letters_match_the_client(command: str) -> None:
    grammar = OPTION_GRAMMARS[command]
    for letter in grammar.flags if command != "sftp" else ():  # sftp would connect
        said = _getopt_says(command, f"-{letter}", "h")
        assert "unknown option" not in said and "requires an argument" not in said, letter
    for letter in grammar.values:
        said = _getopt_says(command, f"-{letter}")
        assert f"requires an argument -- {letter}" in said, (letter, said)
    for letter in "HjUuZz":
        assert not grammar.known(letter)
        said = _getopt_says(command, f"-{letter}", "h")
        assert f"unknown option -- {letter}" in said or "illegal option" in said, letter


def test_runtime_options_in_a_variable_are_options(sshd: SshServer) -> None:
    """`$SSH_OPTS` holding options: the remote command is the last word, one string, and it
    runs whole (what HL106 would have called "2 words" is the host and the command)."""
    script = 'SSH_OPTS="-o BatchMode=yes -T"\nhost=h\nssh $SSH_OPTS "$host" "echo a; echo b"\n'
    result = run_local(script, sshd)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["a", "b"]
