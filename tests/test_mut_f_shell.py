"""Pinned behaviours of the shell model (shell/*.py, layers.py, wrappers.py, forwarders.py).

Each test kills a mutant that survived `bench/mutation.py` (issue 20, run 6, seed 40:
bench/mutation_runs/run6-h20f.md), or one found by the probe before it; each was planted
by hand in a scratch copy of the tree, the test failed there, and passes without it.
Bash is the oracle: what a script does is shown by running it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import rulekit as kit
from cli_process import run_cli
from sshd import SshServer, run_local

from heredoc_lint.engine import check_shell
from heredoc_lint.model import Severity

# -- shell/bash.py: asking bash whether it parses what tree-sitter cannot ------------------


def test_bash_own_error_text_stays_out_of_the_cli_output(tmp_path: Path) -> None:
    """A script neither tree-sitter nor bash parses: HL001 asks `bash -n` whether bash
    can, and bash's own complaint must not reach the user's terminal: the finding is the
    one line of output about it, stderr stays empty (bash.py's `capture_output`).  A
    script that does not parse is `script-refused`, info by default since its first look
    on real code: `--severity info` shows it."""
    text = 'ssh h "echo $(( 1 + "\n'
    script = tmp_path / "bad.sh"
    script.write_text(text)
    said = subprocess.run(
        ["bash", "-n", str(script)], capture_output=True, text=True, check=False, timeout=30
    )
    assert said.returncode != 0 and "unexpected EOF" in said.stderr  # bash refuses it
    done = run_cli("check", "--no-cache", "--severity", "info", "bad.sh", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == ""
    (line,) = [x for x in done.stdout.splitlines() if "HL001" in x]
    assert line.startswith("bad.sh:1:7: HL001 [info] ")
    assert "unexpected EOF" not in done.stdout
    args = ("check", "--no-cache", "--severity", "info", "--format", "json", "bad.sh")
    done = run_cli(*args, cwd=tmp_path)
    assert done.stderr == ""
    (found,) = json.loads(done.stdout)
    assert (found["code"], found["line"], found["column"], found["evidence"]) == (
        "HL001",
        1,
        7,
        "script-refused",
    )


# -- shell/templates.py: runbook templates and transcripts are not scripts to run ----------
# (tests/test_templates.py pins the same behaviours but is not in the shell rows of
# bench/mutation.py; these are the ones its mutants showed, with bash the oracle.)

BROKEN = 'ssh h "echo $(( 1 + "\n'  # bash -n: unexpected EOF; tree-sitter fails at the `"`


def _bash_n(script: str) -> str:
    """bash's complaint about `script`, read and not run ("" when it parses)."""
    return subprocess.run(
        ["bash", "-n"], input=script, capture_output=True, text=True, check=False, timeout=30
    ).stderr


def test_an_unterminated_double_angle_field_is_a_template() -> None:
    """`<<PROJECT_ID>>` in a runbook: bash reads a heredoc that never ends; HL112 says info
    at the `<<`, naming the field, not its error (templates `field_heredoc`: the
    unterminated heredoc, the field's match and its text)."""
    text = "gcluster create --vars project_id=<<PROJECT_ID>> cluster.yaml\n"
    assert "delimited by end-of-file (wanted `PROJECT_ID')" in _bash_n(text)
    (f,) = [f for f in check_shell(text, "t.sh") if f.code in ("HL001", "HL112")]
    at = text.index("<<")
    assert (f.code, f.start, f.end, f.severity) == ("HL112", at, at + 2, Severity.INFO)
    assert f.message.startswith("`<<PROJECT_ID>>` looks like a field of a template")


def test_an_unterminated_plain_heredoc_is_still_an_error() -> None:
    """`cat <<EOF` that never ends is no template (no `>>` after the delimiter): HL112's
    error, as bash warns."""
    text = "cat <<EOF\nhi\n"
    assert "delimited by end-of-file (wanted `EOF')" in _bash_n(text)
    (f,) = [f for f in check_shell(text, "t.sh") if f.code in ("HL001", "HL112")]
    assert (f.code, f.start, f.end, f.severity) == ("HL112", 4, 6, Severity.ERROR)
    assert f.message.startswith("The heredoc `<<EOF` is never terminated")


def test_a_console_transcript_is_not_checked() -> None:
    """A line that starts with a shell prompt is a transcript: HL001 says info and names
    the prompt (templates `not_a_script`'s `_PROMPT`)."""
    for prompt in ("user@web01:~$", "[root@web01 ~]#"):
        text = f"{prompt} {BROKEN}"
        assert "unexpected EOF" in _bash_n(text)
        (f,) = [f for f in check_shell(text, "t.sh") if f.code == "HL001"]
        assert (f.start, f.end, f.severity) == (0, 1, Severity.INFO)
        assert f"looks like a console transcript (the prompt `{prompt}`)" in f.message


def test_a_placeholder_makes_a_template() -> None:
    """`<path/to/job.yaml>`: bash sees a syntax error, the tool a field to fill in."""
    text = "kubectl apply -f <path/to/job.yaml>\n"
    assert "syntax error" in _bash_n(text)
    (f,) = [f for f in check_shell(text, "t.sh") if f.code == "HL001"]
    assert (f.start, f.end, f.severity) == (len(text) - 1, len(text), Severity.INFO)
    assert "looks like a template (the field `<path/to/job.yaml>`)" in f.message


def test_a_heredoc_body_is_data_not_a_template(tmp_path: Path) -> None:
    """A placeholder or a prompt inside a heredoc's body is text the command reads (bash
    prints it as it is): the script's own syntax error after it stays a syntax error at
    its place, `script-refused` (info by default since its first look on real code), not
    a template's or a transcript's (templates `not_a_script` blanks the bodies, keeping
    their newlines)."""
    for line in ("<path/to/job.yaml>", "user@web01:~$ ls"):
        body = f"cat <<EOF\n{line}\nEOF\n"
        ran = subprocess.run(
            ["bash", "-c", body], capture_output=True, text=True, check=True, timeout=30
        )
        assert ran.stdout == line + "\n"
        text = body + BROKEN
        assert "unexpected EOF" in _bash_n(text)
        (f,) = [f for f in check_shell(text, "t.sh") if f.code == "HL001"]
        at = len(body) + BROKEN.index('"')
        assert (f.start, f.end, f.severity, f.evidence) == (
            at,
            at + 1,
            Severity.INFO,
            "script-refused",
        )
        assert "template" not in f.message and "transcript" not in f.message


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


# -- shell/heredoc.py: deep nesting ----------------------------------------------------------


def _nested(depth: int) -> str:
    return "echo " + "$(echo " * depth + "x" + ")" * depth + "\n"


_AFTER = 'ssh h "pkill -f hlmutf; echo after"\n'


def test_a_heredoc_beside_deep_substitutions_is_scanned(tmp_path: Path) -> None:
    """300 nested `$(`, bash runs them (prints `hi`, then `x`); the heredoc scanner follows
    each level, and the script is checked: HL103 at the `pkill` after it (a fix: it
    was an internal error, RecursionError, at the default recursion limit)."""
    head = "cat <<EOF\nhi\nEOF\n" + _nested(300)
    script = tmp_path / "deep.sh"
    script.write_text(head)
    ran = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=60)
    assert (ran.returncode, ran.stdout) == (0, "hi\nx\n")
    text = head + _AFTER
    at = text.index("pkill")
    (f,) = kit.findings(text, "HL103")
    assert (f.start, f.end, f.severity) == (at, at + len("pkill"), Severity.ERROR)
    script.write_text(text)
    done = run_cli("check", "--no-cache", "deep.sh", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.startswith("deep.sh:5:8: HL103 [error] ")


def test_a_script_without_heredocs_is_not_scanned_for_them() -> None:
    """No `<<`, no heredoc: the scanner is not run, at any depth of nesting (6,000
    `$(` here, deeper than bash's own stack: it dies with SIGSEGV), and the rest of
    the script is still checked (heredoc `scan_heredocs`' early return)."""
    text = _nested(6000) + _AFTER
    at = text.index("pkill")
    (f,) = kit.findings(text, "HL103")
    assert (f.start, f.end) == (at, at + len("pkill"))


# -- shell/syntax.py: a number touching a redirection --------------------------------------


def test_a_hex_or_based_number_before_a_redirection_is_an_argument(tmp_path: Path) -> None:
    """`echo 0x1>out`: tree-sitter reads `0x1` as a number touching the `>`, but only
    digits make a descriptor: bash writes `0x1` into `out` (and `64#z`); the script is
    checked as usual, HL103 at the `pkill` after it (syntax `glue_descriptor`'s
    digits test)."""
    head = "echo 0x1>out\necho 64#z>>out\n"
    subprocess.run(["bash", "-c", head], cwd=tmp_path, check=True, timeout=30)
    assert (tmp_path / "out").read_text() == "0x1\n64#z\n"
    text = head + _AFTER
    at = text.index("pkill")
    (f,) = kit.findings(text, "HL103")
    assert (f.start, f.end) == (at, at + len("pkill"))


# -- layers.py: a script piped into a shell ------------------------------------------------


def test_a_script_piped_into_a_shell_is_read_as_one() -> None:
    """`echo 'S' | bash`, `printf '%s\\n' 'S' | ssh h`: the shell runs what the command
    before the pipe prints (bash shows it), so HL109 reads `sudo echo x > /etc/f` there,
    at the `>` inside the quotes; `echo | sh` prints an empty line: no script, no
    finding (layers `_piped_layer`'s empty-words test)."""
    ran = subprocess.run(
        ["bash", "-c", "echo 'echo ran-by-the-piped-shell' | bash"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    assert ran.stdout == "ran-by-the-piped-shell\n"
    for text in (
        "echo 'sudo echo x > /etc/f' | bash\n",
        "printf '%s\\n' 'sudo echo x > /etc/f' | ssh h\n",
    ):
        at = text.index("> /etc")
        (f,) = kit.findings(text, "HL109")
        assert (f.start, f.end, f.severity) == (at, at + 1, Severity.ERROR)
    assert check_shell("echo | sh\n", "t.sh") == []


# -- wrappers.py: env -S escapes ------------------------------------------------------------


def test_env_split_string_reads_a_carriage_return_escape() -> None:
    """coreutils `env -S` reads `\\r` as a carriage return (env prints it): `ss\\rh` is
    no ssh (env: no such file, 127), so the string after it is no remote command; the
    same words with `ssh` are, HL103 at their `pkill` (wrappers `_ENV_ESCAPES`)."""
    printed = subprocess.run(
        ["env", "-S", r"printf %s a\rb"], capture_output=True, check=True, timeout=30
    )
    assert printed.stdout == b"a\rb"
    missing = subprocess.run(
        ["env", "-S", r"ss\rh -V"], capture_output=True, check=False, timeout=30
    )
    assert missing.returncode == 127
    template = "env -S '{name} h \"pkill -f hlmutf; echo after\"'\n"
    assert kit.findings(template.format(name="ss\\rh"), "HL103") == []
    text = template.format(name="ssh")
    at = text.index("pkill")
    (f,) = kit.findings(text, "HL103")
    assert (f.start, f.end) == (at, at + len("pkill"))


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
