"""Issue 18, items 5 and 10: every spelling that makes bash run ssh is seen by the gate.

Each row wraps or respells BAD, `ssh h "pkill -f sglang; ./restart"` (an HL103 error:
the remote shell's own command line holds `sglang`). For each row:

* the CLI reports HL103 at error (exit 1) and the Claude Code hook denies the command;
* bash is the oracle: the row runs in real bash, with the real sudo, doas, env, chrt,
  taskset, script and autossh, in a mount namespace where /usr/bin/ssh is a stand-in that
  logs its argv (the prefixes find ssh by their own secure paths, not by our PATH); the
  logged argv is exactly the expected one, and the remote command it carries, run by a
  bash where `pkill` is a function that logs its arguments, runs `pkill -f sglang`.

The rows where bash does not run ssh (or the remote shell no pkill) are not reported.
The spellings this tool does not follow are listed, with why, in docs/wrappers.md
("Static limits").
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_process import CLI

from heredoc_lint.layers.layer import MAX_DEPTH

BAD_REMOTE = "pkill -f sglang; ./restart"
BAD = f'ssh h "{BAD_REMOTE}"'
PKILL = ["-f", "sglang"]  # what the remote pkill gets


@dataclass(frozen=True)
class Row:
    name: str
    text: str  # the command as a script holds it, and as an agent would run it
    argv: list[str] | None  # what bash makes ssh get; None: ssh does not run
    remote: str | None = None  # the remote command, when not argv's last word
    ssh_file: bool = False  # a file named `ssh` in the working directory (globs)


ROWS = [
    Row("continuation", f'ss\\\nh h "{BAD_REMOTE}"', ["h", BAD_REMOTE]),
    Row("ansi-c", f"$'ssh' h \"{BAD_REMOTE}\"", ["h", BAD_REMOTE]),
    Row("ansi-c-hex", f"$'\\x73\\x73h' h \"{BAD_REMOTE}\"", ["h", BAD_REMOTE]),
    Row("quotes-inside", f'"ss"h h "{BAD_REMOTE}"', ["h", BAD_REMOTE]),
    Row("brace", f'{{ssh,}} h "{BAD_REMOTE}"', ["h", BAD_REMOTE]),
    Row("glob", f'ss[h] h "{BAD_REMOTE}"', ["h", BAD_REMOTE], ssh_file=True),
    Row("glob-with-dir", f'/usr/bin/ss? h "{BAD_REMOTE}"', ["h", BAD_REMOTE]),
    Row("builtin-command", f"builtin command {BAD}", ["h", BAD_REMOTE]),
    Row("env-S", f"env -S '{BAD}'", ["h", BAD_REMOTE]),
    Row("env-iS-attached", f"env -iS'{BAD}'", ["h", BAD_REMOTE]),
    Row("env-split-string", f"env --split-string='sudo {BAD}'", ["h", BAD_REMOTE]),
    Row("exec-ca", f"exec -ca n {BAD}", ["h", BAD_REMOTE]),
    Row("sudo-Eu", f"sudo -Eu root {BAD}", ["h", BAD_REMOTE]),
    Row("sudo-Hu", f"sudo -Hu root {BAD}", ["h", BAD_REMOTE]),
    Row("sudo-iu", f"sudo -iu root {BAD}", ["h", BAD_REMOTE]),
    Row("sudo-nu", f"sudo -nu root {BAD}", ["h", BAD_REMOTE]),
    Row("doas-nu", f"doas -nu root {BAD}", ["h", BAD_REMOTE]),
    Row("ssh-B", f'ssh -B eth0 h "{BAD_REMOTE}"', ["-B", "eth0", "h", BAD_REMOTE]),
    # `-P tag` since OpenSSH 9.4: the remote command is the word after the host
    Row("ssh-P", f'ssh -P tag h "{BAD_REMOTE}"', ["-P", "tag", "h", BAD_REMOTE]),
    Row("chrt", f"chrt -f 1 {BAD}", ["h", BAD_REMOTE]),
    Row("taskset", f"taskset 1 {BAD}", ["h", BAD_REMOTE]),
    Row("script", f"script -qc '{BAD}' /dev/null", ["h", BAD_REMOTE]),
    Row("autossh", f'autossh -M 0 h "{BAD_REMOTE}"', ["h", BAD_REMOTE]),
    Row("coproc", f"coproc {BAD}", ["h", BAD_REMOTE]),
    Row("here-string", f"bash <<< '{BAD}'", ["h", BAD_REMOTE]),
    Row("echo-pipe", f"echo '{BAD}' | bash", ["h", BAD_REMOTE]),
    Row("printf-pipe", f"printf '%s\\n' '{BAD}' | sh", ["h", BAD_REMOTE]),
    Row(
        "remote-ifs",
        'ssh h "pkill\\${IFS}-f\\${IFS}sglang; ./restart"',
        ["h", "pkill${IFS}-f${IFS}sglang; ./restart"],
    ),
    Row(
        "remote-eval",
        "ssh h \"eval 'pkill -f sglang'; ./restart\"",
        ["h", "eval 'pkill -f sglang'; ./restart"],
    ),
    Row(
        "remote-ansi-c-hex",
        "ssh h $'\\x70kill' -f sglang \\; ./restart",
        ["h", "pkill", "-f", "sglang", ";", "./restart"],
        remote="pkill -f sglang ; ./restart",
    ),
    # `pkill` (and `ssh`) only as bash resolves the words: the prefilter once passed these.
    Row("ansi-c-hex-both", "$'\\x73\\x73h' h $'\\x70kill -f sglang; ./restart'", ["h", BAD_REMOTE]),
    Row(
        "continuation-both",
        "ss\\\nh h 'pki\\\nll -f sglang; ./restart'",
        ["h", "pki\\\nll -f sglang; ./restart"],
    ),
    Row(
        "remote-quotes-inside",
        "ssh h 'pk\"\"ill -f sglang; ./restart'",
        ["h", 'pk""ill -f sglang; ./restart'],
    ),
    Row(
        "remote-backslash",
        "ssh h 'p\\kill -f sglang; ./restart'",
        ["h", "p\\kill -f sglang; ./restart"],
    ),
    Row("glob-ansi-c", "/usr/bin/ss? h $'\\x70kill -f sglang; ./restart'", ["h", BAD_REMOTE]),
    # A word after a redirection's target is still an argument: tree-sitter-bash puts it
    # in the redirection node (more destinations, or a heredoc's arguments).
    Row("redirect-between", f'ssh h 2>/dev/null "{BAD_REMOTE}"', ["h", BAD_REMOTE]),
    Row("redirect-file-between", f'ssh h >ssh.log "{BAD_REMOTE}"', ["h", BAD_REMOTE]),
    Row("dup-between-in-list", f'true && ssh h 2>&1 "{BAD_REMOTE}" | cat', ["h", BAD_REMOTE]),
    Row("heredoc-between", f'ssh h <<EOF "{BAD_REMOTE}"\nhello\nEOF', ["h", BAD_REMOTE]),
    Row("sudo-500", "sudo " * 500 + BAD, ["h", BAD_REMOTE]),
    Row("sudo-5000", "sudo " * 5000 + BAD, ["h", BAD_REMOTE]),
]

# 5,000 nested sudo processes take minutes: bash's part is the same as with 500.
ORACLE_ROWS = [r for r in ROWS if r.name != "sudo-5000"]

# Spellings close to those above where bash runs no ssh (or ssh runs no pkill): nothing
# may be reported.
NOT_RUN = [
    Row("glob-no-match", f'ss[x] h "{BAD_REMOTE}"', None, ssh_file=True),
    Row("escaped-blank", f'ss\\ h h "{BAD_REMOTE}"', None),
    Row("command-v", f'command -v ssh h "{BAD_REMOTE}"', None),
    Row("taskset-p", f'taskset -p 1 ssh h "{BAD_REMOTE}"', None),
    Row("env-S-echo", f"env -S 'echo {BAD}'", None),
    Row("echo-to-cat", f"echo '{BAD}' | cat", None),
]


def _ids(rows: list[Row]) -> list[str]:
    return [r.name for r in rows]


# -- the gate ---------------------------------------------------------------------------


def _cli(text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "--no-cache", "--format", "concise", "-"],
        input=text + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _hook(text: str) -> subprocess.CompletedProcess[bytes]:
    payload = {
        "session_id": "0b7c5c3e",
        "transcript_path": "/home/u/.claude/projects/p/0b7c5c3e.jsonl",
        "cwd": "/home/u/project",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": text, "description": "Run it"},
        "tool_use_id": "toolu_01ABC",
    }
    return subprocess.run(
        [*CLI, "hook", "claude"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_the_cli_reports_the_spelling(row: Row) -> None:
    got = _cli(row.text)
    assert got.returncode == 1, (got.stdout, got.stderr)
    errors = [line for line in got.stdout.splitlines() if " HL103 [error] " in line]
    assert len(errors) == 1, got.stdout
    assert "`pkill -f sglang` matches the command line of its own shell" in errors[0]
    assert got.stderr == ""


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_the_hook_denies_the_spelling(row: Row) -> None:
    got = _hook(row.text)
    assert got.returncode == 0, got.stderr
    answer = json.loads(got.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert "HL103 [error]" in answer["permissionDecisionReason"]


@pytest.mark.parametrize("row", NOT_RUN, ids=_ids(NOT_RUN))
def test_a_spelling_that_runs_no_ssh_is_not_reported(row: Row) -> None:
    got = _cli(row.text)
    assert (got.returncode, got.stdout, got.stderr) == (0, "", "")
    hooked = _hook(row.text)
    assert (hooked.returncode, hooked.stdout) == (0, b"")


# -- bash, the oracle ---------------------------------------------------------------------


def _oracle_ready() -> str | None:
    """Why the oracle cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root: a mount namespace hides the real ssh"
    for tool in ("unshare", "sudo", "doas", "autossh", "chrt", "taskset", "script"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (scripts/test.sh installs it)"
    return None


@pytest.fixture(scope="module")
def oracle_ready() -> None:
    why = _oracle_ready()
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the bash oracle cannot run in CI: {why}")
        pytest.skip(why)


def _run_in_bash(row: Row, tmp_path: Path) -> list[list[str]]:
    """Run the row in bash with the real prefixes and a stand-in ssh (at /usr/bin/ssh, in a
    mount namespace of its own); the argv of each ssh run."""
    log = tmp_path / "log"
    log.mkdir()
    stand_in = tmp_path / "ssh"
    stand_in.write_text(f"#!/bin/sh\nprintf '%s\\0' \"$@\" > {log}/ssh.$$\n")
    stand_in.chmod(0o755)
    upper, work = tmp_path / "etc-upper", tmp_path / "etc-work"
    upper.mkdir()
    work.mkdir()
    (upper / "doas.conf").write_text("permit nopass root\n")
    (upper / "doas.conf").chmod(0o600)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    if row.ssh_file:
        (cwd / "ssh").write_text("")  # what a glob in the command name can match
    script = tmp_path / "row.sh"
    script.write_text(row.text + "\nwait\n")
    setup = (
        f"mount -t overlay overlay -o lowerdir=/etc,upperdir={upper},workdir={work} /etc"
        f" && mount --bind {stand_in} /usr/bin/ssh && cd {cwd} && exec bash {script}"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("SSH_")}
    done = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", setup],
        capture_output=True,
        text=True,
        timeout=60,
        env={**env, "SHELL": "/bin/bash"},
        check=False,
    )
    assert "mount:" not in done.stderr, done.stderr
    return [f.read_text().split("\0")[:-1] for f in sorted(log.iterdir())]


def _remote_pkill(remote: str, tmp_path: Path) -> list[list[str]]:
    """The remote shell (bash, as ssh's login shell here) running `remote`, with a pkill
    that logs its arguments: what pkill the remote command really runs."""
    calls = tmp_path / "pkill.log"
    define = f"pkill() {{ printf '%s\\0' \"$@\" >> {calls}; printf '\\n' >> {calls}; }}"
    subprocess.run(
        ["bash", "-c", f"{define}\n{remote}"],
        cwd=tmp_path,
        capture_output=True,
        timeout=30,
        check=False,
    )
    if not calls.exists():
        return []
    return [line.split("\0")[:-1] for line in calls.read_text().split("\n")[:-1]]


@pytest.mark.usefixtures("oracle_ready")
@pytest.mark.parametrize("row", ORACLE_ROWS, ids=_ids(ORACLE_ROWS))
def test_bash_runs_ssh_with_the_spelling(row: Row, tmp_path: Path) -> None:
    runs = _run_in_bash(row, tmp_path)
    assert runs == [row.argv]
    assert row.argv is not None
    # ssh joins the words after the host with blanks: the remote shell's command.
    remote = row.remote or row.argv[-1]
    assert _remote_pkill(remote, tmp_path) == [PKILL]


@pytest.mark.usefixtures("oracle_ready")
@pytest.mark.parametrize("row", NOT_RUN, ids=_ids(NOT_RUN))
def test_bash_runs_no_ssh_with_the_spelling(row: Row, tmp_path: Path) -> None:
    assert _run_in_bash(row, tmp_path) == []


# -- item 5: no shape of input turns into "clean" ------------------------------------------


def _nested_heredocs(depth: int) -> str:
    """`bash <<'E0'` ... around BAD: one more shell per level, and no escaping."""
    head = "".join(f"bash <<'E{k}'\n" for k in range(depth))
    tail = "".join(f"E{k}\n" for k in reversed(range(depth)))
    return head + BAD + "\n" + tail


def test_a_shell_within_the_depth_limit_is_checked() -> None:
    assert MAX_DEPTH == 16
    got = _cli(_nested_heredocs(MAX_DEPTH - 1).rstrip("\n"))
    assert got.returncode == 1, got.stderr
    assert sum(" HL103 [error] " in line for line in got.stdout.splitlines()) == 1


@pytest.mark.parametrize(
    "text",
    [
        _nested_heredocs(MAX_DEPTH),  # was exit 0: the ssh at depth 16 was never read
        _nested_heredocs(300),
        "ssh h " * 200 + "'pkill -f x; echo'",
        "ssh h " * 1_000 + BAD,
    ],
    ids=["heredocs-16", "heredocs-300", "ssh-words-200", "ssh-words-1000"],
)
def test_shells_nested_past_the_limit_are_refused_not_passed(text: str) -> None:
    got = _cli(text.rstrip("\n"))
    assert got.returncode == 2, (got.stdout, got.stderr)
    assert got.stderr == (
        f"heredoc-lint: -: internal error: TooDeep: a shell nested {MAX_DEPTH} deep "
        "starts another: not checked\n"
    )


def test_a_python_expression_too_deep_to_read_is_refused(tmp_path: Path) -> None:
    """30,000 `'' +` before the command: the reader runs out of stack, and that was a
    silent "no finding" (exit 0)."""
    script = tmp_path / "deep.py"
    chain = "'' + " * 30_000
    script.write_text(f"import subprocess\nsubprocess.run({chain}'{BAD}', shell=True)\n")
    # An unreadable source is info by default (its first look: 9 findings, 8 debatable):
    # --severity info shows it.
    got = subprocess.run(
        [*CLI, "--no-cache", "--severity", "info", "--format", "json", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if sys.version_info >= (3, 12):
        # From 3.12 `ast` builds its tree under a fixed C limit that no recursion limit
        # raises: Python itself cannot compile this file, and it is reported unreadable.
        assert got.returncode == 1, (got.stdout, got.stderr)
        (finding,) = json.loads(got.stdout)
        assert (finding["path"], finding["line"], finding["column"], finding["code"]) == (
            str(script),
            1,
            1,
            "HL001",
        )
        assert (finding["severity"], finding["evidence"]) == ("info", "source-unreadable")
        assert finding["message"].startswith("Python source cannot be read: ")
        assert "depth exceeded during ast construction" in finding["message"]
        return
    assert got.returncode == 2, (got.stdout, got.stderr)
    assert got.stderr == (
        f"heredoc-lint: {script}: internal error: RecursionError: a Python expression "
        "nested too deep to be checked\n"
    )


@pytest.mark.parametrize(
    ("text", "reported"),
    [("ssh h " * 1_000 + "echo hi", ["-:1:1: HL111"]), ("eval " * 200 + "echo hi", [])],
    ids=["ssh-words-1000", "eval-words-200"],
)
def test_a_chain_of_wrapper_words_alone_stops_at_the_limit(text: str, reported: list[str]) -> None:
    """Each shell of a word chain removes a level of quoting: past the limit there is only
    `echo hi` and more wrappers, nothing a rule checks, and the walk just stops there.
    Only the nesting itself is reported (HL111 for the ssh hops), once."""
    got = _cli(text)
    assert got.returncode == (1 if reported else 0) and got.stderr == "", got.stderr
    assert [line.split(" [")[0] for line in got.stdout.splitlines()] == reported
