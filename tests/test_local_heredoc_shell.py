"""Issue 16, item 2 (shell side): a LOCAL shell fed a heredoc is a layer.

`bash <<EOF ... EOF`, `sh -s <<'EOF'`, `sudo bash <<EOF`: the shell reads the body as its
script, as a remote shell reads the body of `ssh h <<EOF`.  With an unquoted delimiter the
feeding shell expands the body first (its escapes done, each expansion kept as written and
marked as the parent's); with a quoted one the body is the script as written.  The rules of
the commands inside then apply: HL109 to a `sudo echo > f` in `bash <<EOF` (and not in
`sudo bash <<EOF`, whose shell is root), HL104 to a job started in such a shell inside an
ssh session.  A here-string (`bash <<< "S"`) and `bash <(cat <<'EOF' ...)` were layers
already: the test shows them next to the heredocs.

Bash is the oracle: `cat` fed the same heredoc prints what the shell reads; an unprivileged
user with passwordless sudo shows the HL109 write fail; the loopback sshd shows the job
hold the session.  Where what reads the heredoc is not known (`$SH <<EOF`) or is not a
shell reading its script (`bash run.sh <<EOF`, `bash -c cat <<EOF`), no layer is made.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
import rulekit as kit
from sshd import AT_ONCE, SshServer, long_job, run_local
from test_rule_hl109 import SudoUser, sudo_user  # noqa: F401  (the fixture)

from heredoc_lint.engine import check_text
from heredoc_lint.layers.layer import Layer, file_layer, walk_layers
from heredoc_lint.model import Severity

ENV = {"X": "LOCAL-X", "PATH": "/usr/bin:/bin"}


def _children(text: str) -> list[Layer]:
    return list(walk_layers(file_layer(text)))[1:]


def _received(text: str) -> str:
    """What the command reading the heredoc (or here-string) of `text` reads, by bash
    itself: `text` with its shell replaced by `cat`."""
    for shell in ("sudo bash", "sh -s", "bash"):
        if text.startswith(shell):
            text = "cat" + text[len(shell) :]
            break
    done = subprocess.run(
        ["bash", "-c", text], env=ENV, capture_output=True, text=True, check=True, timeout=30
    )
    return done.stdout


# (text, the layer's shell, whether the feeding shell expanded the body)
FED = [
    ("bash <<EOF\ncd /srv/app\necho \\$HOME \\`id\\` \\\\ x\nEOF\n", "bash", True),
    ("bash <<EOF\nls \\\n  -l\nEOF\n", "bash", True),
    ("sudo bash <<EOF\nsystemctl restart app\nEOF\n", "bash", True),
    ("sh -s <<'EOF'\necho $HOME `id` \\\\ x\nEOF\n", "sh", False),
    ("bash <<-EOF\n\techo tab\n\t\techo two\nEOF\n", "bash", True),
    ('bash <<< "echo \\$HOME; ls"\n', "bash", False),
]


@pytest.mark.parametrize(("text", "shell", "expanded"), FED)
def test_the_layer_is_what_the_shell_reads(text: str, shell: str, expanded: bool) -> None:
    (layer,) = _children(text)
    assert (layer.kind, layer.shell, layer.remote, layer.expanded) == (
        "stdin",
        shell,
        False,
        expanded,
    )
    assert layer.text == _received(text)
    for k, c in enumerate(layer.text):
        if not (c == "\n" and k == len(layer.text) - 1):  # a here-string's added newline
            assert text[layer.file_offset(k)] == c


def test_expansions_are_the_feeding_shells() -> None:
    text = "bash <<EOF\necho $X $(hostname)\nEOF\n"
    (layer,) = _children(text)
    assert [layer.text[e.start : e.end] for e in layer.local_expansions] == ["$X", "$(hostname)"]
    assert [c.name for c in layer.script.commands] == ["echo"]  # `hostname` runs outside


def test_an_unquoted_heredoc_printed_into_a_substitution() -> None:
    """`bash <(cat <<EOF ...)`: `cat` prints the body as the feeding shell expanded it,
    and bash reads that as its script: the same layer as `bash <<EOF`."""
    text = "Y=local\nbash <(cat <<EOF\necho $Y \\$Y\nEOF\n)\n"
    (layer,) = _children(text)
    assert (layer.kind, layer.text, layer.expanded) == ("stdin", "echo $Y $Y\n", True)
    assert [(e.start, e.end) for e in layer.local_expansions] == [(5, 7)]  # the first only
    ran = subprocess.run(
        ["bash", "-c", text], env=ENV, capture_output=True, text=True, check=True, timeout=30
    )
    assert ran.stdout == "local\n"  # the second `$Y` is the fed shell's: not set there


@pytest.mark.parametrize(
    "text",
    [
        "$SH <<EOF\nsudo echo x > /etc/f\nEOF\n",  # which program reads it: not known
        "bash run.sh <<EOF\nsudo echo x > /etc/f\nEOF\n",  # data for run.sh
        "bash -c cat <<EOF\nsudo echo x > /etc/f\nEOF\n",  # data for cat
        "cat <<EOF\nsudo echo x > /etc/f\nEOF\n",
    ],
)
def test_no_layer_where_no_shell_reads_its_script(text: str) -> None:
    assert [x for x in _children(text) if x.kind == "stdin"] == []
    assert kit.findings(text, "HL109") == []


# -- HL109: the write is the calling user's, unless the fed shell is root ------------------


def _write_as_user(directory: str, fed: str) -> str:
    return f"{fed} <<EOF\nsudo echo $(id -un)-was-here > {directory}/owned\necho done\nEOF\n"


@pytest.mark.parametrize("fed", ["bash", "sh -s"])
def test_hl109_in_a_local_shell_fed_a_heredoc(fed: str, sudo_user: SudoUser) -> None:  # noqa: F811
    text = _write_as_user(str(sudo_user.root_dir), fed)
    (f,) = kit.findings(text, "HL109")
    at = text.index("> ")
    assert (f.start, f.end, f.severity) == (at, at + 1, Severity.ERROR)
    assert kit.line_col(text, f.start) == (2, text.index("> ") - text.index("\n"))
    assert f"`> {sudo_user.root_dir}/owned` is opened by the calling shell" in f.message
    proc = sudo_user.run(text)
    assert "Permission denied" in proc.stderr, proc.stderr
    assert "done" in proc.stdout  # the fed shell went on
    assert not (sudo_user.root_dir / "owned").exists()


def test_no_hl109_in_sudo_bash(sudo_user: SudoUser) -> None:  # noqa: F811
    text = _write_as_user(str(sudo_user.root_dir), "sudo bash")
    assert kit.findings(text, "HL109") == []
    target = sudo_user.root_dir / "owned"
    try:
        proc = sudo_user.run(text)
        assert proc.returncode == 0, proc.stderr
        # `$(id -un)` is run by the feeding shell (the user); the write by the root shell
        assert target.read_text() == f"{sudo_user.name}-was-here\n"
        assert target.stat().st_uid == 0
    finally:
        target.unlink(missing_ok=True)


# -- HL104: a job of a shell fed a heredoc inside an ssh session ---------------------------


@pytest.mark.parametrize("fed", ["bash", "sudo bash", "sh -s"])
def test_hl104_in_a_shell_fed_a_heredoc_over_ssh(fed: str, sshd: SshServer) -> None:
    text = f"ssh {sshd.user}@web-1 <<'REMOTE'\n{fed} <<EOF\ncd /tmp\nnohup sleep 6 &\nEOF\nREMOTE\n"
    (f,) = kit.findings(text, "HL104")
    at = text.index("nohup")
    assert (f.start, f.severity) == (at, Severity.WARNING)
    assert kit.line_col(text, f.start) == (4, 1)
    began = time.monotonic()
    ran = run_local(text, sshd, timeout=60)
    held = time.monotonic() - began
    assert ran.returncode == 0, ran.stderr
    assert held >= 5.5, f"ssh returned after {held:.2f}s: it did not wait for the job"
    quiet = text.replace("sleep 6 &", "sleep 6 > /dev/null 2>&1 < /dev/null &")
    assert kit.findings(quiet, "HL104") == []
    began = time.monotonic()
    assert run_local(long_job(quiet, 6), sshd, timeout=60).returncode == 0
    assert time.monotonic() - began < AT_ONCE


# -- HL103: the shell that feeds the script has it on its command line ----------------------
MARK = "hlfedmark"  # no other process on this machine has it on its command line

FEEDERS = [
    f'ssh h "sudo bash <<EOF\npkill -f {MARK}; echo fed-after\nEOF\necho outer-after"\n',
    f"bash -c \"bash <<'EOF'\npkill -f {MARK}\nEOF\necho outer-after\"\n",
    f"bash -c 'bash <<< \"pkill -f {MARK}\"; echo outer-after'\n",
    f"bash -c 'echo \"pkill -f {MARK}\" | sh; echo outer-after'\n",
]


@pytest.mark.parametrize("text", FEEDERS)
def test_hl103_in_a_script_fed_by_a_string(text: str) -> None:
    (f,) = kit.findings(text, "HL103")
    at = text.index("pkill")
    assert (f.start, f.end, f.severity) == (at, at + len("pkill"), Severity.ERROR)
    assert "matches the command line of the shell that feeds it this script" in f.message
    assert "its commands after this script never run" in f.message
    assert f.fix is None


@pytest.mark.parametrize("text", FEEDERS[1:])
def test_bash_kills_the_feeding_shell(text: str) -> None:
    ran = subprocess.run(
        ["bash", "-s"],
        input=text + 'echo "status=$?"\n',
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert "outer-after" not in ran.stdout, ran.stdout + ran.stderr
    assert "status=143" in ran.stdout, ran.stdout + ran.stderr


def test_over_ssh_the_remote_feeding_shell_matches(sshd: SshServer) -> None:
    """pgrep lists what the pkill of FEEDERS[0] would kill: the remote `bash -c` that
    feeds `sudo bash` (the local ssh client, on this same host, holds the text too)."""
    text = f'ssh {sshd.user}@gpu "sudo bash <<EOF\npgrep -af {MARK}; echo fed\nEOF\necho outer"\n'
    (f,) = kit.findings(text, "HL103")
    assert f.start == text.index("pgrep")
    ran = run_local(text, sshd, timeout=60)
    assert ran.returncode == 0, ran.stderr
    listed = [line.split(" ", 1)[1] for line in ran.stdout.splitlines() if MARK in line]
    # pgrep shows the newlines of a command line as spaces
    assert f"bash -c sudo bash <<EOF pgrep -af {MARK}; echo fed EOF echo outer" in listed
    assert "fed" in ran.stdout.splitlines()  # pgrep only lists: the rest runs


NOT_FED_BY_A_STRING = [
    # the remote login shell reads its own script from stdin: `-bash` on its command line
    f"ssh h <<'OUT'\nsudo bash <<EOF\npkill -f {MARK}\nEOF\necho outer-after\nOUT\n",
    # a script file: its command line is its path
    f"bash <<EOF\npkill -f {MARK}\nEOF\necho outer-after\n",
    # the fed shell is on another host than the string's shell
    f'bash -c "ssh h <<EOF\npkill -f {MARK}; ./x\nEOF"\n',
    # the pattern cannot match `bash -c ...`
    f"bash -c \"bash <<'EOF'\npkill -f '^python3 -m {MARK}'\nEOF\necho outer-after\"\n",
]


@pytest.mark.parametrize("text", NOT_FED_BY_A_STRING)
def test_no_hl103_where_no_feeding_shell_holds_it(text: str) -> None:
    assert kit.findings(text, "HL103") == []


@pytest.mark.parametrize("text", [NOT_FED_BY_A_STRING[1], NOT_FED_BY_A_STRING[3]])
def test_bash_on_the_unfed(text: str, tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text(text)
    ran = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=30)
    assert "outer-after" in ran.stdout, ran.stdout + ran.stderr


def test_an_agent_command_is_a_feeding_shell() -> None:
    """An agent runs its command as `bash -c TEXT`: a heredoc fed to a shell in it is on
    that command line, unlike in a script file (whose command line is its path)."""
    text = f"bash <<EOF\npkill -f {MARK}\nEOF\necho outer-after"
    (f,) = check_text(text, "command")
    assert (f.code, f.severity, f.start) == ("HL103", Severity.ERROR, text.index("pkill"))
    assert check_text(text, "shell", path="deploy.sh") == []
    ran = subprocess.run(["bash", "-c", text], capture_output=True, text=True, timeout=30)
    assert ran.returncode == -15 and "outer-after" not in ran.stdout  # killed by SIGTERM
