"""Pinned behaviours of the shell model found by the mutation run of issue 20 (run 7,
seed 41, bench/mutation_runs/run7.md), with bash as the oracle where a shell's reading is
claimed.

Each test kills a mutant that `bench/mutation.py` left alive: it was planted in a scratch
copy of the tree, the test failed there, and it passes without.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_process import run_cli

from heredoc_lint.engine import check_shell
from heredoc_lint.model import Severity
from heredoc_lint.shell.syntax import parse_script

# -- shell/evidence.py: the branch of a root guard starts after `then` -----------------------


def _as_nobody(script: str) -> subprocess.CompletedProcess[str]:
    """bash running `script` as the user nobody: what a root guard does for a non-root."""
    return subprocess.run(
        ["runuser", "-u", "nobody", "--", "bash", "-s"],
        input=script,
        capture_output=True,
        text=True,
        check=False,
        cwd="/",
    )


@pytest.mark.parametrize(
    "guard",
    [
        'if [ "$EUID" -ne 0 ] && echo "exit"; then\n  echo not root\nfi\n',
        'if [ "$EUID" -ne 0 ] || exit 0; then\n  echo not root\nfi\n',
        '[ "$EUID" -ne 0 ] && echo "run this as root, or exit"\n',
        '[ "$(id -u)" -ne 0 ] && ( echo need root; exit 1 )\n',
        'if [ "$EUID" -ne 0 ]; then\n  echo need root | tee /dev/null; exit 1 | cat\nfi\n',
    ],
)
def test_an_exit_that_does_not_leave_the_script_is_no_root_guard(guard: str) -> None:
    """A root test followed by the word `exit` that is not an `exit` of this shell: an
    argument (`echo "exit"`), an `exit` in the condition of an `if` (which leaves only as
    root), an `exit` in a subshell
    or in a pipeline (a child process).  bash, run as `nobody`, reaches the next line, so
    `sudo echo x > /etc/motd` after it is still the error.  (Run 7: the condition of an
    `if` was read as its branch; the word `exit` was looked for in the text.)"""
    as_nobody = _as_nobody(guard + "echo reached\n")
    assert as_nobody.stderr == ""
    assert as_nobody.stdout.splitlines()[-1] == "reached"
    text = guard + "sudo echo x > /etc/motd\n"
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL109"]
    assert found.severity is Severity.ERROR
    assert text[found.start : found.end].startswith(">")


def test_an_else_branch_that_exits_for_a_user_is_a_root_guard() -> None:
    """`if [ $EUID -eq 0 ]; then ...; else ...; exit 1; fi`: the test says "root", the
    `else` branch leaves: a guard, so the sudo redirection after it is an info naming the
    check.  bash, run as `nobody`, stops before the next line.  (Run 7: the `else` branch
    was not found, and the guard was not one.)"""
    guard = 'if [ "$EUID" -eq 0 ]; then\n  echo root\nelse\n  echo need root\n  exit 1\nfi\n'
    as_nobody = _as_nobody(guard + "echo reached\n")
    assert (as_nobody.stdout, as_nobody.returncode) == ("need root\n", 1)
    text = guard + "sudo echo x > /etc/motd\n"
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL109"]
    assert found.severity is Severity.INFO
    assert "the root check on line 1 exits unless that shell is root" in found.message


# -- shell/syntax.py: a command in a pipeline is not split off by the scp fix -----------------


def test_the_scp_fix_leaves_a_heredoc_command_piped_from_the_line_before(tmp_path: Path) -> None:
    """`echo x |` on one line, `cat > /tmp/f <<'EOF'` on the next: one pipeline, so the
    scp fix (which cuts the ssh string around the heredoc's command) is not offered: the
    file is unchanged, nothing is written beside it, and no fix is reported as failed.
    (Run 7: the command did not say it was in a pipeline, and the fix cut `ssh h "echo x |"`
    off, which bash cannot parse.)"""
    text = "ssh h \"echo x |\ncat > /tmp/f <<'EOF'\nhello $USER\nEOF\necho done\"\n"
    bash = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True)
    assert bash.returncode == 0, bash.stderr
    script = tmp_path / "deploy.sh"
    script.write_text(text)
    done = run_cli(
        "--fix", "--unsafe-fixes", "--fix-strategy", "scp", "--no-cache", script, cwd=tmp_path
    )
    assert done.stderr == ""
    assert done.returncode == 1  # HL101 and HL102 stay
    assert script.read_text() == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deploy.sh"]


# -- shell/heredoc_body.py: what each expansion of an unquoted body stands for ----------------


def test_explain_names_what_each_expansion_of_an_unquoted_body_is() -> None:
    """`ssh h bash <<EOF` with `$$ $1 $# $?` in the body: the local shell substitutes them
    before ssh reads the body (bash shows it: `$1` arrives as the script's own first
    argument), and `explain` lists each under the stdin layer with what it is.  (Run 7:
    the special parameters of a body were read as nothing, and `explain` did not list a
    body's expansions at all.)"""
    script = "cat <<EOF\necho $$ $1 $# $?\nEOF\n"
    local = subprocess.run(
        ["bash", "-s", "--", "first"], input=script, capture_output=True, text=True, check=True
    )
    words = local.stdout.split()
    assert words[0] == "echo" and words[1].isdigit() and words[2:] == ["first", "1", "0"]
    done = run_cli("explain", "--command", "ssh h bash <<EOF\necho $$ $1 $# $?\nEOF")
    assert done.returncode == 0, done.stderr
    stdin_part = done.stdout.split("the script fed on stdin to `ssh`")[1].split("Findings")[0]
    listed = [
        line.split(None, 2)[1:] for line in stdin_part.splitlines() if line.strip().startswith("2:")
    ]
    assert listed == [
        ["$$", "the PID of the local shell, not of the shell that runs the string"],
        ["$1", "the local shell's 1st positional parameter: EMPTY when there is none"],
        ["$#", "how many positional parameters the local shell has"],
        ["$?", "the exit status of the local shell's last command"],
    ]
    assert "expanded by the local shell before the body is sent" in stdin_part


# -- shell/syntax.py: a `$` that starts no expansion is a plain character -------------------


@pytest.mark.parametrize(
    "command",
    [
        "args -f app$; true",
        "args a$|cat",
        "args a$ && true",
        'args "a$" b$>/dev/null c',
        "args $",
        "(args a$)",
        "args x=$; true",
        "args \\$; true",
    ],
)
def test_a_lone_dollar_is_part_of_its_word_as_bash_reads_it(command: str, tmp_path: Path) -> None:
    """`app$;`: bash passes `app$` (a `$` before `;`, `|`, `&`, `)`, `>`, a blank or the
    end starts no expansion); the words of the command are bash's, and the script has no
    parse error.  (tree-sitter-bash made an ERROR of `$;` and dropped a bare `$`.)"""
    log = tmp_path / "argv"
    define = f"args() {{ printf '%s\\0' \"$@\" >> {log}; }}\n"
    subprocess.run(["bash", "-c", define + command], cwd=tmp_path, check=True)
    script = parse_script(command)
    (args,) = [c for c in script.commands if c.name == "args"]
    assert [w.value for w in args.words[1:]] == log.read_text().split("\0")[:-1]
    assert script.errors == ()


def test_hl103_reads_an_anchored_pattern_with_its_dollar() -> None:
    """`pkill -f hlzz$; echo survived`: the regex `hlzz$` wants the line to end there, and
    the shell's own command line goes on after it: bash survives its pkill and runs the
    rest.  No HL103; without the `$` the shell kills itself (bash says so too), HL103."""
    anchored = "pkill -f hlzz_selfkill$; echo survived"
    plain = "pkill -f hlzz_selfkill; echo survived"
    assert subprocess.run(["bash", "-c", anchored], capture_output=True, text=True).stdout == (
        "survived\n"
    )
    assert subprocess.run(["bash", "-c", plain], capture_output=True, text=True).stdout == ""
    assert [f.code for f in check_shell(f'ssh h "{anchored}"\n', "t.sh")] == []
    assert [f.code for f in check_shell(f'ssh h "{plain}"\n', "t.sh")] == ["HL103"]
