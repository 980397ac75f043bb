"""Pinned behaviours of HL107-HL112 and HL201/HL202: exact spans, counts and messages.

Each test kills a mutant that survived `bench/mutation.py` (issue 20, run 4b,
bench/MUTATION.md, section 8); each was planted by hand, the test failed, and passes without.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from heredoc_lint.engine import Settings, check_shell, fix_shell
from heredoc_lint.model import Finding


def _findings(text: str, code: str) -> list[Finding]:
    return check_shell(text, "t.sh", Settings(select=frozenset({code})))


# -- HL107 --------------------------------------------------------------------------------


def test_hl107_names_each_expansion_once() -> None:
    """The message names the body's expansions once each, in order, the first three and
    a count of the rest (`$HOME` twice is one name)."""
    (one,) = _findings("ssh h bash <<EOF\necho $HOME $HOME $(date)\nEOF\n", "HL107")
    assert (one.start, one.end) == (11, 13)
    assert "expands `$HOME`, `$(date)` in the body" in one.message
    text = "ssh h bash <<EOF\necho $HOME $(a) $(b) $(c) $(d) $HOME\nEOF\n"
    (many,) = _findings(text, "HL107")
    assert "expands `$HOME`, `$(a)`, `$(b)` and 2 more in the body" in many.message


def test_hl107_body_ending_in_a_backslash_at_the_end_of_the_file() -> None:
    """An unterminated body whose last character is a backslash (the file ends there):
    the findings are made, nothing reads past the end of the text (an IndexError)."""
    text = "ssh h bash <<EOF\necho $HOME \\"
    found = [(f.code, f.start, f.end) for f in check_shell(text, "t.sh", Settings())]
    assert found == [("HL107", 11, 13), ("HL112", 11, 13)]  # and HL112: never terminated


def test_hl107_backquoted_probe_of_the_machine_is_named() -> None:
    """`` `hostname` `` asks about the machine it runs on, as `$(hostname)` does: the
    message says so for both spellings, and not for `` `date` ``."""
    for body, probes in (("`hostname`", True), ("$(hostname)", True), ("`date`", False)):
        (one,) = _findings(f"ssh h bash <<EOF\necho {body}\nEOF\n", "HL107")
        assert (one.start, one.end) == (11, 13)
        assert (f"`{body}` asks about the machine it runs on" in one.message) is probes


# -- HL108 --------------------------------------------------------------------------------


def _ssh_takes_port(number: str) -> bool:
    """Whether ssh accepts the port (`ssh -G` parses its options, connects nowhere)."""
    proc = subprocess.run(
        ["ssh", "-G", "-p", number, "h"], capture_output=True, timeout=30, check=False
    )
    return proc.returncode == 0


@pytest.mark.parametrize("number", ["0", "1", "22", "65535", "65536"])
@pytest.mark.parametrize("space", [" ", ""])
def test_hl108_reports_exactly_the_ports_ssh_accepts(number: str, space: str) -> None:
    """`scp -p N` is reported (its fix makes it `-P N`) exactly when ssh takes N as a
    port: not 0 nor 65536, which the fixed command would reject with `Bad port`."""
    text = f"scp -p{space}{number} f h:/tmp/\n"
    found = [(f.start, f.end) for f in _findings(text, "HL108")]
    assert found == ([(4, 6)] if _ssh_takes_port(number) else [])


def test_hl108_options_end_at_double_dash(tmp_path: Path) -> None:
    """After `--` scp's getopt reads no more options: `-p 2022` there are two file names,
    not a `-p` flag (nothing to report); before it, the flag is reported."""
    # Real scp, a local copy (run as cp): `-p` after `--` is a source file.
    proc = subprocess.run(
        ["scp", "--", "-p", "2022", str(tmp_path)], capture_output=True, timeout=30, check=False
    )
    assert b"'-p': No such file" in proc.stderr
    assert _findings("scp -- -p 2022 h:/tmp/\n", "HL108") == []
    found = _findings("scp -p 2022 -- f h:/tmp/\n", "HL108")
    assert [(f.start, f.end) for f in found] == [(4, 6)]


@pytest.mark.parametrize(
    "port", ["-oPort=2022", "-o Port=2022", "-oport=2022", "-o 'Port 2022'", "-P 2022"]
)
def test_hl108_a_real_port_option_makes_p_the_preserve_flag(port: str) -> None:
    """With a port given by `-P` or `-o Port=` (attached or not, any case), `-p 10` is
    scp's preserve flag and a file `10`, as written: nothing is reported."""
    assert _findings(f"scp {port} -p 10 f h:/tmp/\n", "HL108") == []
    assert len(_findings("scp -p 10 f h:/tmp/\n", "HL108")) == 1


# -- HL109 --------------------------------------------------------------------------------


def _argv_of(command: str) -> str:
    """The words bash makes of `command` (its redirection to /dev/null left out)."""
    command = command.removesuffix(" > /dev/null")
    proc = subprocess.run(
        ["bash", "-c", f"printf '<%s>' {command}"], capture_output=True, timeout=30, check=True
    )
    return proc.stdout.decode()


@pytest.mark.parametrize(
    ("script", "suggested"),
    [
        ('sudo echo x > "/etc/my file"\n', "<sudo><tee></etc/my file>"),
        ("sudo echo x >> /etc/my\\ file\n", "<sudo><tee><-a></etc/my file>"),
        # under a root check: an info, whose message shows the same command
        (
            '[ "$(id -u)" = 0 ] || exit 1\nsudo echo x > "/etc/my file"\n',
            "<sudo><tee></etc/my file>",
        ),
    ],
)
def test_hl109_suggested_tee_keeps_the_target_quoted(script: str, suggested: str) -> None:
    """The `sudo tee ...` the message suggests names the file as the script wrote it
    (quotes, escapes): bash makes one argument of it, the file the script writes."""
    (one,) = _findings(script, "HL109")
    quoted = one.message.split("`sudo tee")[1].split("`")[0]
    assert _argv_of(f"sudo tee{quoted}") == suggested


@pytest.mark.parametrize(
    ("outer", "span"),
    [
        ("sudo", None),  # the inner shell is root's: its write works
        ("sudo -u root", None),
        ("sudo -u alice", (35, 36)),  # alice's shell opens /etc/f
        ("sudo --user=alice", (39, 40)),
    ],
)
def test_hl109_inner_shell_of_sudo_runs_as_its_target_user(
    outer: str, span: tuple[int, int] | None
) -> None:
    """`sudo -u alice bash -c 'sudo echo x > /etc/f'`: the shell that opens the file is
    alice's, so the write is reported; under plain `sudo` it is root's, and is not."""
    found = [
        (f.start, f.end) for f in _findings(f"{outer} bash -c 'sudo echo x > /etc/f'\n", "HL109")
    ]
    assert found == ([span] if span else [])


# -- HL110 --------------------------------------------------------------------------------


def _remote_command(script: str) -> str:
    """The command line the remote shell would get from `script`'s ssh (bash runs the
    script with an `ssh` function that prints its arguments after the host, joined)."""
    proc = subprocess.run(
        ["bash", "-c", 'ssh() { shift; printf "%s" "$*"; }\n' + script],
        capture_output=True,
        timeout=30,
        check=True,
    )
    return proc.stdout.decode()


@pytest.mark.parametrize(
    ("script", "remote"),
    [
        ('ssh h cd /srv && echo "it\'s"\n', 'cd /srv && echo "it\'s"'),
        ('ssh h cd /srv && rm "it\'s" !x\n', 'cd /srv && rm "it\'s" !x'),
        ("ssh h cd /srv && make\n", "cd /srv && make"),
        ("ssh h cd /srv; make\n", "cd /srv; make"),
    ],
)
def test_hl110_fix_sends_the_moved_command_as_written(script: str, remote: str) -> None:
    """The fix moves the command after `&&` into the ssh's one argument; quoted for the
    local shell so that ssh sends it byte for byte, single quotes inside included."""
    (one,) = _findings(script, "HL110")
    operator = ";" if "; " in script else "&&"
    at = script.index(operator)
    assert (one.start, one.end) == (at, at + len(operator))
    fixed = fix_shell(script, "t.sh", Settings(select=frozenset({"HL110"})), unsafe=True).text
    assert fixed != script
    assert _remote_command(fixed) == remote


def test_hl110_a_compound_after_the_operator_is_not_moved() -> None:
    """`ssh h cd /srv &&(make)`: what follows the operator is a subshell, not a simple
    command a fix could move into the string: the finding names "the next command" and
    offers no fix.  After `;{ ` nothing is chained: no finding."""
    (one,) = _findings("ssh h cd /srv &&(make)\n", "HL110")
    assert (one.start, one.end, one.fix) == (14, 16, None)
    assert "and the next command runs on this machine" in one.message
    assert _findings("ssh h cd /srv;{ make; }\n", "HL110") == []


@pytest.mark.parametrize(("length", "shown"), [(40, 40), (41, 40)])
def test_hl110_names_the_next_command_in_40_characters(length: int, shown: int) -> None:
    """The command that runs locally is named whole up to 40 characters, else cut to 37
    and `...`."""
    following = "echo " + "abcdefghij" * 4
    following = following[:length]
    (one,) = _findings(f"ssh h cd /srv && {following}\n", "HL110")
    named = one.message.split("the `cd` is lost and `")[1].split("` runs on")[0]
    assert len(named) == shown
    assert named == (following if length <= 40 else following[:37] + "...")


def test_hl110_display_fix_of_an_expanded_word_keeps_backslashes() -> None:
    """With `"$D"` in the ssh words the fix double-quotes the combined command (only shown,
    the value of `$D` is the local one as before); applied by hand, the remote shell gets
    the moved command's backslashes as written."""
    script = 'ssh h cd "$D" && echo a\\\\b\n'
    (one,) = _findings(script, "HL110")
    assert one.fix is not None
    (edit,) = one.fix.edits
    fixed = script[: edit.start] + edit.content + script[edit.end :]
    assert _remote_command("D=/srv\n" + fixed) == "cd /srv && echo a\\\\b"


# -- HL111 --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("script", "evidence"),
    [
        ('bash -c "eval \\"echo \\\\\\$x\\""', "three-shells-as-written"),  # eval inside
        ('eval "bash -c \\"echo \\\\\\$x\\""', "three-shells-as-written"),  # eval outside
        ('bash -c "sh -c \\"echo \\\\\\$x\\""', "three-shells-escaped"),  # three processes
    ],
)
def test_hl111_eval_at_either_depth_adds_no_shell(script: str, evidence: str) -> None:
    """eval runs its text in the shell that calls it (bash: `$BASHPID` is the same inside
    the eval): the escapes written for it are not the three-process chain HL111 warns of,
    whether the eval is the outer or the inner wrapper."""
    pids = subprocess.run(
        ["bash", "-c", 'echo $BASHPID; eval "echo \\$BASHPID"'],
        capture_output=True,
        timeout=30,
        check=True,
    ).stdout.split()
    assert len(pids) == 2 and pids[0] == pids[1]
    (one,) = _findings(script, "HL111")
    assert (one.start, one.end, one.evidence) == (0, 4, evidence)


# -- HL112 --------------------------------------------------------------------------------


def _bash_output(script: str) -> bytes:
    proc = subprocess.run(["bash", "-c", script], capture_output=True, timeout=30, check=False)
    return proc.stdout


@pytest.mark.parametrize(
    ("line", "parts"),
    [
        ("EOF\r", ["ends in a carriage return (CRLF line end)"]),
        ("EOF \r", ["ends in a carriage return", "has trailing whitespace after"]),
        ("EOF ", ["has trailing whitespace after the delimiter"]),
    ],
)
def test_hl112_says_what_follows_the_delimiter(line: str, parts: list[str]) -> None:
    """A carriage return alone is a CRLF line end, not "trailing whitespace"; a blank
    before it is both.  bash reads none of these lines as the terminator: the rest of the
    script is heredoc text, which cat prints."""
    script = f"cat <<EOF\nx\n{line}\necho after\n"
    assert _bash_output(script) == f"x\n{line}\necho after\n".encode()
    (one,) = _findings(script, "HL112")
    assert (one.start, one.end) == (4, 6)
    assert all(part in one.message for part in parts)
    assert ("trailing whitespace" in one.message) is (" " in line)


@pytest.mark.parametrize("gap", ["", " ", "\t "])
def test_hl112_fix_puts_the_delimiter_alone_before_a_semicolon(gap: str) -> None:
    """`EOF ; echo done`: the fix puts `EOF` on its own line and the rest after it, blanks
    before the `;` or not; bash then runs the body and `echo done`."""
    script = f"cat <<EOF\nx\nEOF{gap}; echo done\n"
    assert _bash_output(script) == f"x\nEOF{gap}; echo done\n".encode()
    fixed = fix_shell(script, "t.sh", Settings(select=frozenset({"HL112"})), unsafe=True).text
    assert fixed == "cat <<EOF\nx\nEOF\necho done\n"
    assert _bash_output(fixed) == b"x\ndone\n"


@pytest.mark.parametrize("lead", ["", "\n", "\n\n# c\n"])
def test_hl112_names_the_line_of_the_heredoc_as_bash_does(lead: str) -> None:
    """The message quotes bash's warning with the line of the `<<`, also below blank
    lines at the top of the file: the same line number bash prints."""
    script = f"{lead}cat <<EOF\nx\n"
    proc = subprocess.run(["bash", "-c", script], capture_output=True, timeout=30, check=False)
    warning = proc.stderr.decode().split("warning: ")[1].split(" (wanted")[0]
    (one,) = _findings(script, "HL112")
    assert f'("warning: {warning}")' in one.message


@pytest.mark.parametrize(
    ("inner", "severity"),
    [("ssh b", "warning"), ("pdsh -w b", "info"), ("clush -w b", "info")],
)
def test_hl111_only_an_ssh_hop_is_a_middle_shell_that_starts_ssh(inner: str, severity: str) -> None:
    """`ssh a "ssh b '...'"`: the middle shell only starts another ssh, which `ssh -J`
    does without it (a warning that says so); pdsh and clush (names ending in `sh`) run
    on many hosts and are not that hop: the three shells are only noted."""
    (one,) = _findings(f"ssh a \"{inner} 'echo x'\"\n", "HL111")
    assert (one.start, one.end, one.severity.value) == (0, 3, severity)
    assert ("`ssh -J` makes that hop" in one.message) is (severity == "warning")
