"""Pinned behaviours of the shell model found by the mutation run of issue 20 (run 7,
seed 41, bench/mutation_runs/run7-h20s.md), with bash as the oracle where a shell's
reading is claimed.

Each test kills a mutant that `bench/mutation.py` left alive: it was planted in a scratch
copy of the tree, the test failed there, and it passes without.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from cli_process import CLI, run_cli
from sshd import SshServer

from heredoc_lint.engine import check_shell, fix_shell
from heredoc_lint.model import Severity

# bash decodes `\U` escapes for the locale's encoding; the de-quoter models UTF-8.
UTF8 = {"LC_ALL": "C.UTF-8"}


def _bash_bytes(script: Path | str, env: dict[str, str] | None = None) -> bytes:
    """The bytes bash prints running `script` (a file, or text given with -c)."""
    argv = ["bash", str(script)] if isinstance(script, Path) else ["bash", "-c", script]
    done = subprocess.run(
        argv,
        env={**(env or os.environ), **UTF8},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=True,
    )
    return done.stdout


# -- shell/words.py: `$'\U...'` beyond Unicode, in bash's UTF-8 extended to 31 bits ---------

# Each code point on either side of a limit where the UTF-8 sequence grows by a byte, up to
# bash's 31-bit extension (0x80000000 and beyond give no byte at all).
_CODES = (
    "7F", "80", "7FF", "800", "FFFF", "10000", "1FFFFF", "200000",
    "3FFFFFF", "4000000", "7FFFFFFF", "80000000",
)  # fmt: skip
_ESCAPED = "x$'" + "|".join(f"\\U{code}" for code in _CODES) + "'x"


def test_the_fix_delivers_the_bytes_bash_makes_of_a_unicode_escape(
    sshd: SshServer, tmp_path: Path
) -> None:
    """`ssh h echo x$'\\U3FFFFFF|...'x`: HL106's fix quotes the word's value for the
    remote shell, so the value must be the bytes bash makes of each `\\U` escape: its
    u32toutf8 writes 0x3FFFFFF in five bytes (fb bf bf bf bf), 0x4000000 in six, and
    nothing at all from 0x80000000.  The fixed script, run against the real sshd, prints
    what the local `printf` prints.  (Run 7: the limit of the five-byte form moved by one
    wrote 0x3FFFFFF in six.)"""
    script = tmp_path / "remote.sh"
    script.write_bytes(f"ssh {sshd.user}@gpu echo {_ESCAPED}\n".encode())
    subprocess.run(
        [*CLI, "--no-cache", "--severity", "info", "--fix", "--unsafe-fixes", str(script)],
        capture_output=True,
        check=False,
        timeout=60,
    )
    fixed = script.read_bytes()
    assert fixed.startswith(f"ssh {sshd.user}@gpu \"echo 'x".encode()), fixed
    local = _bash_bytes(f"printf '%s\\n' {_ESCAPED}")
    assert b"|\xfb\xbf\xbf\xbf\xbf|" in local  # bash's own five-byte form of 0x3FFFFFF
    assert _bash_bytes(script, sshd.env()) == local


# -- shell/evidence.py: the readers of a system file ask about the machine ------------------


@pytest.mark.parametrize(
    ("command", "probes"),
    [
        ("tail -n1 /etc/hostname", True),
        ("head -c8 /proc/cpuinfo", True),
        ("realpath /etc/localtime", True),
        ("tail -n1 ./VERSION", False),
        ("head -n1 VERSION", False),
        ("realpath ./current", False),
    ],
)
def test_hl102_a_reader_of_a_system_file_describes_this_machine(
    command: str, probes: bool, tmp_path: Path
) -> None:
    """`ssh h "echo $(tail -n1 /etc/hostname) done"`: `tail`, `head` and `realpath` of a
    path under /etc/, /proc/... read this machine, so the value ssh sends describes it:
    `machine-probe` evidence (info by default since its first look, 0 TP / 6 FP), with a
    message that says so; the same readers of a relative path are a `local-expansion`,
    also info.  bash, with `ssh` a function that prints the string it is given, shows that
    the substitution ran here: the string holds its local value, and no `$(` is left for
    the remote shell.
    (Run 7: `tail` cut to `ail` was no longer a reader.)"""
    (tmp_path / "VERSION").write_text("1.2.3\n")
    (tmp_path / "current").mkdir()
    text = f'ssh h "echo $({command}) done"\n'
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL102"]
    assert text[found.start : found.end] == f"$({command})"
    assert found.evidence == ("machine-probe" if probes else "local-expansion")
    assert found.severity is Severity.INFO
    assert ("describes this machine" in found.message) is probes
    local = subprocess.run(
        ["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.rstrip("\n")
    stand_in = 'ssh() { printf "%s\\n" "$2"; }\n'
    sent = subprocess.run(
        ["bash", "-c", stand_in + text], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    assert local and sent == f"echo {local} done\n"


# -- wrappers.py: `env -S STRING` splices words in; an anchor is a word of the command -----

_SPLIT = "env -S 'nice -n 5 ssh {host}' 'bash -c \"echo \\\"\\$HOME\\\"\"'\n"


def test_a_wrapper_inside_env_split_string_is_anchored_on_the_command_own_word(
    sshd: SshServer,
) -> None:
    """`env -S 'nice -n 5 ssh h' 'bash -c "..."'`: env splits the string into five words
    where the command has one, so the ssh it runs is word 4 of the spliced argv but not of
    the command.  HL111 (three shells: local, ssh's, bash -c's) is reported on `-S`, the
    command's word that the spliced words came from, not at an index of the spliced argv
    (past the command's four words: an internal error).  Through the real sshd the
    command runs, and the innermost shell expands `$HOME`.  (Run 7: the map from spliced
    words back to the command's words was not built.)"""
    text = _SPLIT.format(host="h")
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL111"]
    assert (found.start, found.end, found.severity) == (4, 6, Severity.INFO)
    assert text[found.start : found.end] == "-S"
    assert "three shells (local -> ssh -> bash -c)" in found.message
    host = f"{sshd.user}@gpu"
    home = _bash_bytes(f"ssh {host} 'echo \"$HOME\"'", sshd.env())
    assert home.startswith(b"/")
    assert _bash_bytes(_SPLIT.format(host=host), sshd.env()) == home


# -- forwarders.py: `"${@:N}"` forwards every argument from the N-th on --------------------

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
    env = {**sshd.env(), **UTF8}
    before = subprocess.run(
        ["bash", "-c", _FORWARD.format(host=host)],
        env=env, capture_output=True, check=False, timeout=60,
    )  # fmt: skip
    assert before.stdout == b"a\n" and b"b: command not found" in before.stderr
    assert _bash_bytes(fixed, sshd.env()) == b"a;b\n"


# -- shell/evidence.py: the array mapfile and readarray fill --------------------------------


@pytest.mark.parametrize(
    ("binder", "name"),
    [
        ("mapfile -t lines", "lines"),
        ("readarray -t hosts", "hosts"),
        ("mapfile", "MAPFILE"),
        ("readarray -t", "MAPFILE"),
    ],
)
def test_hl102_names_the_array_mapfile_filled(binder: str, name: str) -> None:
    """`mapfile -t lines < f` fills `lines`; without a name, `MAPFILE` (bash, asked with
    `declare -p`, says so).  `${NAME[0]}` in an ssh string afterwards is that local
    variable, set on line 1: the HL102 info says where.  (Run 7: the test of the name
    inverted gave the named array as MAPFILE and the default as no name.)"""
    declared = subprocess.run(
        ["bash", "-c", f"{binder} <<< one\ndeclare -p {name}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    assert declared.startswith(f"declare -a {name}=([0]=")
    shown = f"${{{name}[0]}}"
    text = f'{binder} < list.txt\nssh h "echo {shown}"\n'
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL102"]
    assert text[found.start : found.end] == shown
    assert found.severity is Severity.INFO
    assert found.message.startswith(f"`{shown}` is the local variable set on line 1, ")


# -- shell/words.py: a backslash that ends a word stays, and the reading moves past it -----


def test_a_delimiter_ending_in_a_lone_backslash_is_read(tmp_path: Path) -> None:
    """`bash -c 'cat <<E\\'`: in the string, the delimiter word ends with a backslash that
    escapes nothing; bash keeps it (its warning wants `E\\`), and the heredoc is never
    terminated: HL112's error names `E\\`.  The CLI answers within its time.  (Run 7: the
    reader stayed on that backslash and never returned.)"""
    script = tmp_path / "t.sh"
    script.write_text("bash -c 'cat <<E\\'\n")
    ran = subprocess.run(
        ["bash", str(script)], capture_output=True, text=True, check=False, timeout=30
    )
    assert "delimited by end-of-file (wanted `E\\')" in ran.stderr
    done = run_cli("--no-cache", script, timeout=30)
    assert done.returncode == 1, done.stderr
    assert f"{script}:1:14: HL112 [error] The heredoc `<<E\\` is never terminated" in done.stdout
    assert "no line is exactly `E\\`" in done.stdout
