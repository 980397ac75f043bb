"""Pinned behaviours of shell/bash.py, shell/evidence.py and shell/heredoc.py (issue 20,
run 4a): each test kills a mutant that survived `bench/mutation.py`'s sample of 10 points
a module, through the CLI or the engine, with bash as the oracle where a shell's reading
is claimed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from heredoc_lint.engine import check_shell
from heredoc_lint.model import Severity
from heredoc_lint.shell.heredoc import scan_heredocs

_SCRIPT = "ssh h \"cat > /tmp/f << 'EOF'\nhello\nEOF\"\n"


def _fix_with_path(script: Path, path: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path}
    argv = [
        sys.executable,
        "-m",
        "heredoc_lint",
        "--fix",
        "--severity",
        "info",
        "--no-cache",
        str(script),
    ]
    return subprocess.run(argv, capture_output=True, text=True, env=env, check=False)


def test_fix_with_a_bash_that_cannot_start(tmp_path: Path) -> None:
    """bash is asked whether a fixed script still parses.  A `bash` on PATH that the
    kernel cannot run (its interpreter is missing: ENOENT from exec) counts as no bash:
    the fix is written all the same, nothing crashes (shell/bash.py's OSError branch)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "bash"
    fake.write_text("#!/nonexistent/interpreter\n")
    fake.chmod(0o755)
    with pytest.raises(FileNotFoundError):  # what exec of it does
        subprocess.run([str(fake)], capture_output=True, check=False)
    script = tmp_path / "deploy.sh"
    script.write_text(_SCRIPT)
    proc = _fix_with_path(script, str(bindir))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "base64 -d" in script.read_text()


def test_fix_with_no_bash_on_path(tmp_path: Path) -> None:
    """No bash at all: the fix is written all the same (tree-sitter alone decides)."""
    script = tmp_path / "deploy.sh"
    script.write_text(_SCRIPT)
    proc = _fix_with_path(script, str(tmp_path / "empty"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "base64 -d" in script.read_text()


def test_fix_with_bash_on_path(tmp_path: Path) -> None:
    """With bash there, the fixed script is the one bash accepts (`bash -n` exits 0)."""
    script = tmp_path / "deploy.sh"
    script.write_text(_SCRIPT)
    proc = _fix_with_path(script, os.environ["PATH"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "base64 -d" in script.read_text()
    assert subprocess.run(["bash", "-n", str(script)], check=False).returncode == 0


# -- shell/evidence.py: the commands that ask about the machine --------------------------


@pytest.mark.parametrize(
    ("command", "probes"),
    [
        ("hostname", True),
        ("hostname -f", True),
        ("/bin/hostname", True),
        ("whoami", True),
        ("uname -r", True),
        ("nproc", True),
        ("readlink /proc/self/exe", True),
        ("readlink -f /etc/alternatives/java", True),
        ("cat /etc/hostname", True),
        ("readlink ./current", False),
        ("cat ./VERSION", False),
        ("date +%s", False),
    ],
)
def test_hl102_a_substitution_that_asks_about_the_machine(command: str, probes: bool) -> None:
    """`$(hostname)` in an ssh string runs here and describes this machine: evidence
    `machine-probe` (info by default since its first look, 0 TP / 6 FP); a substitution
    that asks nothing about the machine is a `local-expansion`, also info."""
    text = f'ssh h "echo $({command}) done"\n'
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL102"]
    assert text[found.start : found.end] == f"$({command})"
    assert found.evidence == ("machine-probe" if probes else "local-expansion")
    assert found.severity is Severity.INFO
    assert ("describes this machine" in found.message) is probes


# -- shell/evidence.py: root guards, `read` bindings, function names -----------------------

_ROOT_ONLY = "sudo echo x > /etc/motd\n"


@pytest.mark.parametrize(
    ("guard", "is_guard"),
    [
        ('[ "$(id -u)" -ne 0 ] && { echo need root; exit 1; }\n', True),
        ('[ "$EUID" -eq 0 ] || exit 1\n', True),
        ("if [ $EUID -ne 0 ]; then\n  echo root only\n  exit 1\nfi\n", True),
        # Three commands: `exit` runs for root, after the test failed (not a guard).
        ("[ $EUID -ne 0 ] && echo hi || exit\n", False),
    ],
)
def test_hl109_after_a_root_guard(guard: str, is_guard: bool) -> None:
    """A root check that exits unless the shell is root makes the sudo redirection work:
    an info naming the check's line; without one it is an error.  bash shows which is a
    guard: run as `nobody`, the script stops before the next line exactly then."""
    as_nobody = subprocess.run(
        ["runuser", "-u", "nobody", "--", "bash", "-s"],
        input=guard + "echo reached\n",
        capture_output=True,
        text=True,
        check=False,
        cwd="/",
    )
    assert as_nobody.stderr == ""
    assert ("reached" not in as_nobody.stdout) is is_guard, as_nobody
    text = guard + _ROOT_ONLY
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL109"]
    assert text[found.start : found.end].startswith(">")
    if is_guard:
        assert found.severity is Severity.INFO
        assert "the root check on line 1 exits unless that shell is root" in found.message
    else:
        assert found.severity is Severity.ERROR


@pytest.mark.parametrize(
    ("read", "shown"),
    [
        ("read -r name", "$name"),
        ("read -r -a hosts", "${hosts[0]}"),
        ("read -p x: -r name", "$name"),
    ],
)
def test_hl102_names_the_variable_that_read_set(read: str, shown: str) -> None:
    text = f'{read}\nssh h "echo {shown}"\n'
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL102"]
    assert text[found.start : found.end] == shown
    assert found.message.startswith(f"`{shown}` is the local variable set on line 1, ")


@pytest.mark.parametrize("head", ["deploy() {", "function deploy {", "function deploy() {"])
def test_hl102_names_the_function_around_a_positional(head: str) -> None:
    text = f'{head}\n  ssh h "echo $1"\n}}\n'
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL102"]
    assert text[found.start : found.end] == "$1"
    assert found.message.endswith("from the arguments of the function `deploy` around it")


# -- shell/heredoc.py ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "last", ["echo 'a'", 'echo "a"', "echo a\\\\", "echo $'a'", "echo `echo a`"]
)
def test_heredoc_scan_starts_at_the_first_character(last: str) -> None:
    """A script that ends in a quote (a remote string: no newline at its end) still has
    its heredoc: bash reads the body, and so does the scanner."""
    text = f"cat <<EOF\nx\nEOF\n{last}"
    done = subprocess.run(["bash", "-c", text], capture_output=True, text=True, check=False)
    assert done.stdout.startswith("x\n"), done
    (heredoc,) = scan_heredocs(text)
    assert (heredoc.op_start, heredoc.delimiter, heredoc.terminated) == (4, "EOF", True)
    assert text[heredoc.body_start : heredoc.body_end] == "x\n"
    # The same script as an ssh string: double quotes, `\\ $ " ` escaped for them.
    escaped = "".join("\\" + c if c in '\\$"`' else c for c in text)
    ssh = f'ssh h "{escaped}"\n'
    (found,) = [f for f in check_shell(ssh, "t.sh") if f.code == "HL101"]
    assert ssh[found.start : found.end] == "<<"


@pytest.mark.parametrize(
    "before",
    [
        "echo $'it\\'s'",  # an ANSI-C string: `\'` does not close it
        "echo $'a\\n'",  # an escape right before the closing quote
        "echo \"a\"'b'",  # a single-quoted part right after a double-quoted one
        "cat <<<'a'",  # a here-string is no heredoc, and its word is quoted
        "echo \"$'x'\"",  # `$'` inside double quotes is a `$` and a plain quote
    ],
)
def test_heredoc_after_quoted_words_is_found(before: str) -> None:
    """The scanner reads the quoting before a heredoc as bash does: bash runs the line,
    then reads the body; the scanner finds the same heredoc and body."""
    text = f"{before}; cat <<EOF\nbody\nEOF\n"
    done = subprocess.run(["bash", "-c", text], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.endswith("body\n"), done
    (heredoc,) = scan_heredocs(text)
    assert text[heredoc.op_start : heredoc.op_end] == "<<EOF"
    assert text[heredoc.body_start : heredoc.body_end] == "body\n"
    assert heredoc.terminated
