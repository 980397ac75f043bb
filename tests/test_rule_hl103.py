"""HL103 pkill-self-match: `pkill -f P` / `pgrep -f P` run by a shell whose own command
line matches P.

Anchors are computed from the text. Against the real sshd, the original command kills
its own remote shell (nothing after the pkill runs, ssh exits 143 or 255) and the fixed
one (`[x]yz`, safe) runs to the end. `pgrep -af` shows which processes hold the pattern:
a remote `bash -c` with a redirection (the warning tier), and none for a bare
`ssh h 'pgrep -af P'` (exempt: bash execs a lone simple command). The loopback client's
own argv holds the pattern too (NOTES: one process table), so only the remote `bash -c`
lines are looked at.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.engine import Settings, check_shell, check_text, fix_shell
from heredoc_lint.model import Applicability, Finding, Severity
from heredoc_lint.rules.hl103_pkill_self_match import INVALID, VALID

CODE = "HL103"
MARK = "hlzqmark"  # a word that no other process on this machine has on its command line


def hl103(text: str, path: str = "t.sh", *, command: bool = False) -> list[Finding]:
    return kit.findings(text, CODE, path=path, command=command)


# Positives, negatives and bracket fixes: INVALID and VALID in the rule's module.
def test_every_message_names_its_tool() -> None:
    for example in INVALID:
        (f,) = hl103(example.text)
        assert f"`{example.at} " in f.message, example


def test_examples_with_every_rule_on_and_as_run_sh() -> None:
    """The examples hold with every rule on, and the VALID texts as a script `run.sh`."""
    for example in INVALID:
        found = [f for f in check_text(example.text, "shell", "t.sh") if f.code == CODE]
        (f,) = found
        assert (f.start, f.end) == kit.span_of(example.text, example.at)
        assert not example.severity or f.severity.value == example.severity
        assert example.says in f.message
    for text in VALID:
        assert [f for f in check_text(text, "shell", "t.sh") if f.code == CODE] == []
        assert hl103(text, path="run.sh") == []


def test_every_fix_is_safe_also_on_an_agent_command_line() -> None:
    """The bracket fix is safe, and the same on an agent's command line: clean, applied
    twice."""
    fixed = [e for e in INVALID if e.fixed is not None]
    assert fixed
    for example in fixed:
        assert example.fixed is not None
        for f in (*hl103(example.text), *hl103(example.text, command=True)):
            assert f.fix is not None and f.fix.applicability is Applicability.SAFE, example
        (f,) = hl103(example.text, command=True)
        assert (f.start, f.end) == kit.span_of(example.text, example.at)
        assert fix_shell(example.text, command=True).text == example.fixed
        assert fix_shell(example.fixed, command=True).text == example.fixed
        assert hl103(example.fixed, command=True) == []


def test_a_filled_in_pattern_has_no_fix() -> None:
    """The value is not known: no bracket to place (the examples the fix leaves as they
    are)."""
    filled = [e for e in INVALID if e.fixed is None]
    assert filled
    for example in filled:
        (f,) = [f for f in check_text(example.text, "shell", "t.sh") if f.code == CODE]
        assert f.fix is None


def test_message_says_what_happens() -> None:
    (kill,) = hl103("ssh h 'pkill -f sglang; echo'\n")
    assert "kills that shell: the commands after it never run" in kill.message
    assert "143/255" in kill.message
    (grep,) = hl103("ssh h 'pgrep -f sglang; echo'\n")
    assert "always finds that shell" in grep.message


def test_script_name_matches_pattern() -> None:
    text = "#!/bin/bash\npkill -f deploy_app\nsleep 1\n"
    (f,) = hl103(text, path="scripts/deploy_app.sh")
    assert f.severity is Severity.ERROR and "the script `scripts/deploy_app.sh`" in f.message
    assert f.fix is None  # only renaming the script helps
    assert hl103(text, path="scripts/other.sh") == []


def test_agent_command_is_on_its_own_command_line() -> None:
    (f,) = hl103("pkill -f sglang; sleep 1", command=True)
    assert f.severity is Severity.ERROR and (f.start, f.end) == (0, 5)


def test_split_fix_when_the_word_appears_elsewhere_is_unsafe() -> None:
    text = 'ssh -p 2 h "pkill -f app 2>/dev/null; ./app --serve"\n'
    f = kit.single_fix(hl103(text), Applicability.UNSAFE)
    assert f.fix is not None and f.fix.strategy == "split"
    assert fix_shell(text).text == text
    fixed = fix_shell(text, unsafe=True).text
    assert fixed == "ssh -p 2 h 'pkill -f \\[a]pp 2>/dev/null'; ssh -p 2 h \"./app --serve\"\n"
    assert hl103(fixed) == []


# -- at run time, through the real sshd ---------------------------------------------------------


def _remote(sshd: SshServer, remote: str) -> str:
    """A script running `remote` over ssh and printing ssh's exit status."""
    return f'ssh {sshd.user}@gpu "{remote}"\necho "status=$?"\n'


def test_original_kills_its_shell_and_the_fix_runs_to_the_end(sshd: SshServer) -> None:
    remote = f"pkill -f {MARK}; echo after-pkill"
    original = _remote(sshd, remote)
    (f,) = hl103(original)
    assert f.severity is Severity.ERROR
    ran = run_local(original, sshd)
    assert "after-pkill" not in ran.stdout, ran.stdout
    assert "status=255" in ran.stdout or "status=143" in ran.stdout, ran.stdout

    fixed = fix_shell(original).text
    assert f"'[{MARK[0]}]'{MARK[1:]}" in fixed
    assert hl103(fixed) == []
    ran = run_local(fixed, sshd)
    assert "after-pkill\n" in ran.stdout and "status=0" in ran.stdout, ran.stdout + ran.stderr


def test_exempt_lone_pkill_survives(sshd: SshServer) -> None:
    """What makes the bare form exempt: bash execs pkill, so no shell holds the pattern."""
    text = f"ssh {sshd.user}@gpu 'pgrep -af {MARK}'\necho \"status=$?\"\n"
    assert hl103(text) == []
    ran = run_local(text, sshd)
    assert "status=0" in ran.stdout, ran.stdout + ran.stderr
    listed = [line.split()[1:3] for line in ran.stdout.splitlines() if MARK in line]
    assert ["bash", "-c"] not in listed and listed, ran.stdout  # only the local ssh client


def test_pgrep_with_a_redirection_finds_its_own_shell(sshd: SshServer) -> None:
    """The warning tier: bash keeps its shell for a lone command with a redirection."""
    text = f"ssh {sshd.user}@gpu 'pgrep -af {MARK} 2>/dev/null'\n"
    (f,) = hl103(text)
    assert f.severity is Severity.WARNING
    ran = run_local(text, sshd)
    assert any(line.split()[1:3] == ["bash", "-c"] for line in ran.stdout.splitlines()), ran


# -- a pattern filled in before the shell starts (issue: runtime patterns) -------------------
# (In shell: INVALID and VALID examples of the rule's module.)
FILLED = [
    ('c.exec_command(f"pkill -f {name} || true")\n', "python", "pkill", Severity.ERROR),
    ("c.exec_command(\"pkill -f '%s' 2>/dev/null\" % n)\n", "python", "pkill", Severity.WARNING),
    (
        "import subprocess\nsubprocess.run(f\"ssh h 'pkill -f {n}; go'\", shell=True)\n",
        "python",
        "pkill",
        Severity.ERROR,
    ),
]


@pytest.mark.parametrize(("text", "kind", "needle", "severity"), FILLED)
def test_filled_in_pattern_stands_on_the_command_line(
    text: str, kind: str, needle: str, severity: Severity
) -> None:
    found = [f for f in check_text(text, kind, f"t.{'py' if kind == 'python' else 'sh'}")]
    (f,) = [f for f in found if f.code == CODE]
    assert (f.start, f.end, f.severity) == (*kit.span_of(text, needle), severity)
    assert "is put into the text before the shell runs it" in f.message
    assert f.fix is None  # the value is not known: no bracket to place


FILLED_NEGATIVES = [
    ("c.exec_command(\"pkill -f '[s]%s'; x\" % n)\n", "python"),  # cannot match its own text
    ('c.exec_command(f"pkill -xf {name}; x")\n', "python"),  # -x
]


@pytest.mark.parametrize(("text", "kind"), FILLED_NEGATIVES)
def test_filled_in_negative(text: str, kind: str) -> None:
    path = f"t.{'py' if kind == 'python' else 'sh'}"
    assert [f for f in check_text(text, kind, path) if f.code == CODE] == []


def test_filled_in_pattern_kills_its_shell_at_run_time(sshd: SshServer) -> None:
    text = f'APP={MARK}\nssh {sshd.user}@gpu "pkill -f $APP; echo after-pkill"\necho "status=$?"\n'
    (f,) = hl103(text)
    assert f.severity is Severity.ERROR
    ran = run_local(text, sshd)
    assert "after-pkill" not in ran.stdout and "status=0" not in ran.stdout, ran.stdout
    control = text.replace("pkill -f $APP", "pkill -f '[h]'${APP:1}")
    assert hl103(control) == []
    ran = run_local(control, sshd)
    assert "after-pkill\n" in ran.stdout and "status=0" in ran.stdout, ran.stdout


def test_a_workflow_expression_in_a_script_file_is_not_on_a_command_line() -> None:
    """The runner writes a `run:` block to a file and runs `bash -e FILE`: a `${{ }}`
    value filled into the file is not on any command line."""
    text = (
        "on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: |\n          pkill -f ${{ inputs.pattern }}; echo x\n"
    )
    assert [f for f in check_text(text, "actions", ".github/workflows/x.yml")] == []
    inside_ssh = text.replace(
        "pkill -f ${{ inputs.pattern }}; echo x", 'ssh h "pkill -f ${{ inputs.p }}; x"'
    )
    (f,) = check_text(inside_ssh, "actions", ".github/workflows/x.yml")
    assert f.code == CODE and f.severity is Severity.ERROR


@pytest.mark.parametrize(
    ("pkill", "status"),
    [
        ("pkill -f", 143),
        ("pkill -9 -f", 137),
        ("pkill -KILL -f", 137),
        ("pkill --signal 9 -f", 137),
        ("pkill --signal=SIGKILL -f", 137),
    ],
)
def test_a_lone_pkill_says_its_shell_dies_with_the_signal(pkill: str, status: int) -> None:
    """dash keeps its shell for one bare command: pkill kills it, and the caller gets the
    signal's status, not pkill's; no command comes after it (measured: `sh -c`)."""
    mark = "zz-hl103-lone-mark"
    text = f"import subprocess\nsubprocess.run('{pkill} {mark}', shell=True, check=True)\n"
    (f,) = [f for f in check_text(text, "python", "t.py") if f.code == "HL103"]
    assert f.severity is Severity.WARNING
    assert "never run" not in f.message
    assert f"dies with exit status {status}/255 instead of pkill's" in f.message
    done = subprocess.run(["/bin/sh", "-c", f"{pkill} {mark}"], check=False)
    assert done.returncode == -(status - 128)  # killed by that signal


# -- a lone pkill in a Python call that drops the status: info ---------------------------
def _python_hl103(program: str) -> list[tuple[int, str, str]]:
    found = [f for f in check_text(program, "python", "t.py") if f.code == CODE]
    return [(program.count("\n", 0, f.start) + 1, f.severity.value, f.evidence) for f in found]


def test_a_lone_pkill_whose_status_is_dropped_is_info() -> None:
    """The shell's exit status is all a lone pkill's self-kill changes: a bare
    `os.system(...)` or `subprocess.run(...)` without `check=True` drops it; one whose
    value is used, or that checks it, keeps the warning."""
    program = (
        "import os, subprocess\n"
        f'os.system("pkill -f {MARK}")\n'
        f'subprocess.run("pkill -f {MARK}", shell=True, check=False)\n'
        f'status = os.system("pkill -f {MARK}")\n'
        f'subprocess.run("pkill -f {MARK}", shell=True, check=True)\n'
        f'subprocess.check_call("pkill -f {MARK}", shell=True)\n'
    )
    assert _python_hl103(program) == [
        (2, "info", "lone-status-ignored"),
        (3, "info", "lone-status-ignored"),
        (4, "warning", "dash-keeps-shell"),
        (5, "warning", "dash-keeps-shell"),
        (6, "warning", "dash-keeps-shell"),
    ]


def test_a_lone_pkill_kills_its_target_and_only_the_status_changes(tmp_path: Path) -> None:
    """Under /bin/sh (dash here), `os.system("pkill -f P")` kills the process P names
    and its own shell: the program sees a signal where pkill's status was meant, and
    `check=True` raises on it."""
    shell = subprocess.run(["readlink", "-f", "/bin/sh"], capture_output=True, text=True)
    assert shell.stdout.strip().endswith("dash"), "the claim is dash's"
    program = (
        "import os, subprocess, sys, time\n"
        "sleeper = [sys.executable, '-c', 'import time; time.sleep(60)', "
        f"'{MARK}']\n"
        "target = subprocess.Popen(sleeper)\n"
        "time.sleep(0.5)\n"
        f"print(os.system('pkill -f {MARK}'))\n"
        "print(target.wait(timeout=10))\n"
        "target = subprocess.Popen(sleeper)\n"
        "time.sleep(0.5)\n"
        "try:\n"
        f"    subprocess.run('pkill -f {MARK}', shell=True, check=True)\n"
        "except subprocess.CalledProcessError as error:\n"
        "    print('raised', error.returncode)\n"
        "print('killed' if target.wait(timeout=10) == -15 else 'alive')\n"
    )
    script = tmp_path / "stop.py"  # not `python3 -c`: its own command line would match
    script.write_text(program)
    out = subprocess.run(
        ["python3", str(script)], capture_output=True, text=True, timeout=60, check=True
    ).stdout.split("\n")
    assert out[:3] == ["15", "-15", "raised -15"], out
    assert "killed" in out[3], out


# -- the last bare command of a bash string: bash runs it in its shell's place ---------------
LAST_COMMAND = [  # (the string, bash kills itself)
    (f"cd /tmp && pkill -f {MARK}", False),
    (f"true; pkill -f {MARK}", False),
    (f"false || pkill -f {MARK}", False),
    (f"true\npkill -f {MARK}\n", False),
    (f"pkill -f {MARK}; cd /tmp", True),
    (f"trap 'echo' EXIT; pkill -f {MARK}", True),
    (f"cd /tmp && pkill -f {MARK} > /dev/null", True),
    (f"true | pkill -f {MARK}", True),
    (f"if true; then pkill -f {MARK}; fi", True),
]


@pytest.mark.parametrize(("string", "kills"), LAST_COMMAND)
def test_the_last_bare_command_of_a_bash_string_replaces_its_shell(
    string: str, kills: bool
) -> None:
    """bash 5.2 hands its process to the last bare command of a `-c` string (after `;`,
    `&&`, `||` or a newline; not with a redirection, a pipe, an `if` or an EXIT trap):
    pkill finds no shell to kill. It is info, as dash and older bash keep the shell."""
    done = subprocess.run(["bash", "-c", string], capture_output=True, timeout=30)
    assert (done.returncode in (-15, 143)) is kills, done
    (f,) = hl103(f'ssh h "{string}"\n')
    if kills:
        assert f.evidence == "shares-string" and f.severity is Severity.ERROR
    else:
        assert (f.evidence, f.severity) == ("last-command", Severity.INFO)
        assert "bash 5.2 runs the command in its place" in f.message


def test_a_pkill_followed_only_by_itself_loses_only_the_status() -> None:
    """`pkill -f P ; pkill -f P`: the first kills its shell and P's process, and what is
    lost is the same pkill again: only the status (143) changes, so it is info."""
    string = f"pkill -f {MARK} ; pkill -f {MARK}"
    target = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", MARK])
    time.sleep(0.5)  # started: its command line holds the mark
    try:
        done = subprocess.run(["bash", "-c", string], capture_output=True, timeout=30)
        assert done.returncode in (-15, 143), done
        assert target.wait(timeout=10) == -15  # the process meant is killed all the same
    finally:
        target.kill()
    f = hl103(f'ssh h "{string}"\n')[0]
    assert (f.evidence, f.severity) == ("repeat-lost", Severity.INFO)
    for lost in ("./start", "true"):  # `|| true` or `; true` keeps the status: it is lost
        f = hl103(f'ssh h "{string}; {lost}"\n')[0]
        assert (f.evidence, f.severity) == ("shares-string", Severity.ERROR)


def test_a_pkill_that_ends_an_eval_does_not_end_the_string() -> None:
    """`eval 'pkill -f P'; ./restart`: eval runs in its caller's shell, whose string goes
    on after it; that shell is killed (bash shows it), not replaced."""
    string = f"eval 'pkill -f {MARK}'; echo after"
    done = subprocess.run(["bash", "-c", string], capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stdout) == (-15, "")
    (f,) = hl103(f'ssh h "{string}"\n')
    assert (f.evidence, f.severity) == ("shares-string", Severity.ERROR)


# -- pgrep asking for the oldest match: the process meant while it runs ---------------------
@pytest.mark.parametrize(
    "string",
    [f"pgrep -f {MARK} | head -1", f"pgrep -f {MARK} | head -n 1", f"pgrep -o -f {MARK}; true"],
)
def test_pgrep_asking_for_the_oldest_match_is_info(string: str) -> None:
    """pgrep lists by pid, and a running target is older than the shell that looks for
    it: the first match is the target while it runs, the shell only when it does not
    (bash shows both)."""
    (f,) = hl103(f'ssh h "{string}"\n')
    assert (f.evidence, f.severity) == ("oldest-first", Severity.INFO)
    alone = subprocess.run(["bash", "-c", string], capture_output=True, text=True)
    assert alone.stdout.strip()  # no target runs: the shell's own pid
    marked = subprocess.Popen(["python3", "-c", "import time; time.sleep(30)", MARK])
    try:
        subprocess.run(["sleep", "0.3"], check=True)
        found = subprocess.run(["bash", "-c", string], capture_output=True, text=True)
    finally:
        marked.kill()
    assert int(found.stdout.split()[0]) == marked.pid  # the target, older than the shell


# -- pgrep whose listing a grep filters: the shell's own line never gets through ---------------
def _listing(string: str, *, target: bool) -> str:
    """What `bash -c string` prints, with or without a process holding MARK running."""
    marked = (
        subprocess.Popen(["python3", "-c", "import time; time.sleep(30)", MARK]) if target else None
    )
    try:
        if marked:
            subprocess.run(["sleep", "0.3"], check=True)
        return subprocess.run(["bash", "-c", string], capture_output=True, text=True).stdout
    finally:
        if marked:
            marked.kill()


@pytest.mark.parametrize(
    "string",
    [
        f"pgrep -af {MARK} | grep -v grep",
        f"pgrep -af {MARK} | grep python3 | grep -v grep",  # the shell's line holds python3
        f"pgrep -a -f {MARK} | grep -v 'bash -c'",
        f"pgrep --list-full -f {MARK} | grep -vw grep | sort",
        f"pgrep -af {MARK} | grep -vF 'af {MARK}'",
        f"pgrep -af {MARK} | grep -v -i GREP",
    ],
)
def test_pgrep_whose_listing_drops_its_own_shell_is_not_reported(string: str) -> None:
    """`pgrep -a` prints each match's command line, its own shell's too, and that line
    holds the pipeline's text: a grep after it that drops the line (`-v` a word of that
    text) leaves only the processes meant (bash shows it)."""
    assert hl103(f'ssh h "{string}"\n') == []
    assert _listing(string, target=False) == ""
    assert MARK in _listing(string, target=True)


@pytest.mark.parametrize(
    "string",
    [
        f"pgrep -f {MARK} | grep -v grep",  # pids only: nothing for grep to drop
        f"pgrep -af {MARK} | grep -v py'thon'3",  # the line holds py'thon'3, not python3
        f"pgrep -af {MARK} | grep -i time.sleep",  # a plain grep keeps its own text's line
        f"pgrep -af {MARK} | grep python3",  # the shell's line holds python3 too
    ],
)
def test_pgrep_whose_grep_keeps_its_own_shell_stays_an_error(string: str) -> None:
    (f,) = hl103(f'ssh h "{string}"\n')
    assert (f.evidence, f.severity) == ("shares-string", Severity.ERROR)
    assert _listing(string, target=False) != ""


def test_a_grep_that_is_not_plain_text_keeps_the_finding() -> None:
    """A regex grep cannot say here which lines it drops: the finding stays."""
    (f,) = hl103(f"ssh h \"pgrep -af {MARK} | grep -v 'gr[e]p'\"\n")
    assert f.evidence == "shares-string"


def test_a_python_string_whose_grep_drops_its_shell_is_not_reported() -> None:
    program = (
        "import subprocess\n"
        f"subprocess.run(['ssh', h, f\"pgrep -af '{{p}} {MARK}' | grep python | grep -v grep\"])\n"
        f"subprocess.run(['ssh', h, f\"pgrep -af '{{p}} {MARK}' | grep python\"])\n"
    )
    assert _python_hl103(program) == [(3, "error", "shares-string")]


def test_pgrep_whose_matches_are_counted_stays_an_error() -> None:
    (f,) = hl103(f'ssh h "pgrep -f {MARK} | wc -l"\n')
    assert (f.evidence, f.severity) == ("shares-string", Severity.ERROR)


# -- HL103: a heredoc script's pkill matches the shell that feeds it ------------------------------


def test_hl103_the_shell_that_feeds_a_heredoc_script_is_killed(tmp_path: Path) -> None:
    """`bash -c 'bash <<EOF ... pkill -f NAME ... EOF'`: the outer shell holds the heredoc
    on its command line and waits for the inner bash; bash shows pkill killing it (SIGTERM,
    nothing after the heredoc runs).  HL103 reports it, naming that feeding shell (hl103
    `feeder_cmdline`: `cmdline is None` -> `is not None`)."""
    name = f"srv-{uuid.uuid4().hex}"
    script = f"bash <<EOF\npkill -f {name}\necho inner-after\nEOF\necho outer-after\n"
    ran = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
        cwd=tmp_path,
    )
    assert ran.returncode == -15, (ran.returncode, ran.stdout, ran.stderr)
    assert "outer-after" not in ran.stdout
    text = f"bash -c '{script}'\n"
    (found,) = kit.findings_selected(text, "HL103")
    assert text[found.start : found.end] == "pkill"
    assert found.severity is Severity.ERROR
    assert found.message.startswith(
        f"`pkill -f {name}` matches the command line of the shell that feeds it this script "
        "(`bash -c bash <<EOF"
    )
    assert "kills that shell: its commands after this script never run" in found.message


# -- shell/syntax.py: a `$` that starts no expansion is a plain character -------------------


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


# -- HL103: a pattern that matches only a literal heredoc body gets no fix ------------------


def test_hl103_no_fix_when_only_the_literal_heredoc_body_matches() -> None:
    """`pkill -f "myjob|E[[:space:]]{9}"` in an ssh string whose `<<\\E` body is `myjob`:
    with the bracket (`[m]yjob`) the pattern still matches the shell's command line, but
    only in the body, which HL101's fix takes out of the string: HL103 reports the
    self-match and offers no fix of its own.  The body is blanked where it stands (one
    blank a character: 6, so `E` and the blanks after it stay under 9), before the bracket
    edit shifts the text: blanked after it, two characters too early, the body's last
    `b` was left beside the terminator, `b[[:space:]]E` matched there and a split fix
    was offered for a match that HL101's fix removes (a bug, fixed).  (Run 7: the blank
    count `body_end - body_start` made `body_end + body_start` let `E[[:space:]]{9}`
    match and offered a split fix.)"""
    for pattern in ("myjob|E[[:space:]]{9}", "myjob|b[[:space:]]E"):
        text = f"ssh h 'pkill -f \"{pattern}\"; cat <<\\E\nmyjob\nE\n'\n"
        found = [f for f in check_shell(text, "t.sh") if f.code in ("HL101", "HL103")]
        assert [(f.code, text[f.start : f.end], f.severity.value) for f in found] == [
            ("HL103", "pkill", "error"),
            ("HL101", "<<", "info"),
        ]
        assert found[0].fix is None
        assert found[1].fix is not None and found[1].fix.strategy == "base64"


# -- HL103: POSIX character classes in the pattern ----------------------------------------


def _ere_matches(pattern: str, line: str, *, valid: bool = True) -> bool:
    """Whether the POSIX extended regex matches `line` (grep -E: glibc's regcomp, as pkill);
    a pattern regcomp rejects (exit 2) matches nothing: pkill only reports the error."""
    proc = subprocess.run(
        ["grep", "-qE", "--", pattern], input=line.encode(), timeout=30, check=False
    )
    assert proc.returncode in ((0, 1) if valid else (2,)), (pattern, proc.stderr)
    return proc.returncode == 0


@pytest.mark.parametrize(
    ("pattern", "after"),
    [
        ("echo[[:space:]]end", "echo end"),
        ("echo[[:blank:]]end", "echo end"),
        ("sleep [[:digit:]]", "sleep 0"),
        ("echo [[:alpha:]]nd", "echo end"),
        ("echo [[:alnum:]]nd", "echo end"),
        ("echo [[:lower:]]nd", "echo end"),
        ("echo [[:upper:]]ND", "echo END"),
        ("a[[:punct:]]b", "echo a.b"),
        ("echo [[:xdigit:]]nd", "echo end"),
        ("echo[[:digit:]]end", "echo end"),  # no digit there: no self-match
        ("echo [[:upper:]]nd", "echo end"),
        ("ech[[:nosuch:]]", "echo"),  # not a class: regcomp fails, pkill kills nothing
        ("echo [[:word:]]nd", "echo end"),  # Perl's and Python's, not POSIX: fails too
        ("echo[[:graph:]]end", "echo end"),
        ("echo[[:print:]]end", "echo end"),
        ("echo[[:cntrl:]]end", "echo end"),
    ],
)
def test_hl103_posix_classes_match_like_pkill(pattern: str, after: str) -> None:
    """`pkill -f 'echo[[:space:]]end'; echo end` matches its own shell's command line
    exactly when the ERE does: HL103 reports it then, at the `pkill` word, and only then."""
    text = f"ssh h 'pkill -f \"{pattern}\"; {after}'\n"
    own = f'bash -c pkill -f "{pattern}"; {after}'
    found = [(f.start, f.end) for f in kit.findings_selected(text, "HL103")]
    invalid = ":nosuch:" in pattern or ":word:" in pattern
    matches = _ere_matches(pattern, own, valid=not invalid)
    assert found == ([(7, 12)] if matches else [])


# -- HL103: the split fix only where the ssh starts its statement --------------------------


@pytest.mark.parametrize(
    ("before", "runs"),
    [("", True), ("true && ", True), ("true || ", False), ("test -d /nonexistent && ", False)],
)
def test_hl103_split_fix_keeps_the_condition_of_the_ssh(
    before: str, runs: bool, tmp_path: Path
) -> None:
    """`sglang` stands in the string twice, so only moving the pkill into an ssh call of
    its own helps; behind `&&` or `||` that would run the rest unconditionally (or the
    pkill alone conditionally), so no fix is offered there."""
    text = f"{before}ssh h 'pkill -f sglang; echo sglang'\n"
    (finding,) = kit.findings_selected(text, "HL103")
    assert (finding.start, finding.end) == (len(before) + 7, len(before) + 12)
    fixed = fix_shell(text, "t.sh", Settings(select=frozenset({"HL103"})), unsafe=True).text
    expected = b"<-f><sglang>\nsglang\n" if runs else b""
    assert kit.run_with_pkill_printing_ssh(text, tmp_path).stdout == expected
    if before:
        assert fixed == text
    else:
        assert fixed == "ssh h 'pkill -f \\[s]glang'; ssh h 'echo sglang'\n"
        assert (
            kit.run_with_pkill_printing_ssh(fixed, tmp_path).stdout == b"<-f><[s]glang>\nsglang\n"
        )


# -- HL103: a script file whose name the pattern matches -----------------------------------


def test_hl103_script_keeps_its_process_for_its_last_command(tmp_path: Path) -> None:
    """bash runs a script file in its own process to the end (no exec of the last command,
    unlike `bash -c`): `pgrep -f NAME` as the only command of NAME.sh finds that bash."""
    script = tmp_path / "hl103_selfmatch_probe.sh"
    text = "#!/bin/bash\npgrep -f hl103_selfmatch_probe\n"
    script.write_text(text)
    proc = subprocess.run(
        ["bash", str(script)], capture_output=True, timeout=30, check=False, text=True
    )
    assert proc.returncode == 0 and proc.stdout.strip(), "pgrep found its own bash"
    findings = check_shell(text, str(script), Settings(select=frozenset({"HL103"})))
    assert [(f.severity, f.start, f.end) for f in findings] == [(Severity.WARNING, 12, 17)]
    assert "always finds that shell" in findings[0].message


@pytest.mark.parametrize("flags", ["-f", "--full", "--exact -f", "-x -f", "-f --exact", "-xf"])
def test_hl103_exact_flag_agrees_with_pgrep(flags: str) -> None:
    """With `--exact` (`-x`) the pattern must match the whole command line, which its
    shell's never is: real pgrep, run by `bash -c` on the same string, decides."""
    remote = f"pgrep {flags} zq_hl103_exact_probe; echo $?"
    proc = subprocess.run(
        ["bash", "-c", remote], capture_output=True, text=True, timeout=30, check=False
    )
    matched_itself = proc.stdout.splitlines()[-1] == "0"
    assert matched_itself == ("x" not in flags)
    text = f"ssh h '{remote}'\n"
    found = [(f.start, f.end) for f in kit.findings_selected(text, "HL103")]
    assert found == ([(7, 12)] if matched_itself else [])


@pytest.mark.parametrize("signal", ["-STOP", "-TTOU", "-9", "-KILL"])
def test_hl103_signal_names_take_no_argument(signal: str) -> None:
    """`-STOP` is a signal, not `-S -T -O -P` with `-P` taking the next word: real pkill
    with `-STOP -f` finds a process by its full command line (so `-f` was read as a
    flag), and HL103 reads the `-f` too."""
    sleeper = subprocess.Popen(["sleep", "30.4817"])
    try:
        proc = subprocess.run(
            ["pkill", signal, "-f", "^sleep 30[.]4817$"],
            capture_output=True,
            timeout=30,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr  # found by its argument: `-f` took effect
    finally:
        sleeper.kill()
        sleeper.wait()
    text = f"ssh h 'pkill {signal} -f sglang; echo'\n"
    found = [(f.start, f.end) for f in kit.findings_selected(text, "HL103")]
    assert found == [(7, 12)]


@pytest.mark.parametrize(
    ("pattern", "fixed_pattern"),
    [
        ("[0-9]*sglang", "[0-9]*[s]glang"),  # the bracket expression is skipped whole
        ("[[:digit:]]*sglang", "[[:digit:]]*[s]glang"),
        ("\\.sglang", "\\.[s]glang"),
    ],
)
def test_hl103_bracket_fix_matches_the_same_processes(
    pattern: str, fixed_pattern: str, tmp_path: Path
) -> None:
    """The bracketed pattern the remote pkill receives matches (grep -E) the same command
    lines as the original, and no longer the command line of its own shell."""
    text = f"ssh h 'pkill -f \"{pattern}\"; echo'\n"
    fixed = fix_shell(text, "t.sh", Settings(select=frozenset({"HL103"})), unsafe=True).text
    assert fixed == f"ssh h 'pkill -f \"{fixed_pattern}\"; echo'\n"
    received = kit.run_with_pkill_printing_ssh(fixed, tmp_path).stdout.decode()
    assert received == f"<-f><{fixed_pattern}>\n\n"
    for line in ("python -m sglang", "x5sglang", "run .sglang", "pylang", "sglan g", "other"):
        assert _ere_matches(fixed_pattern, line) == _ere_matches(pattern, line), line
    assert _ere_matches(pattern, f'bash -c pkill -f "{pattern}"; echo')
    assert not _ere_matches(fixed_pattern, f'bash -c pkill -f "{fixed_pattern}"; echo')


# -- HL103: pkill's options, the attached argument included ------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "pkill -f -uroot myserver",
        "pkill -f -u root myserver",
        "pkill -uroot -f myserver",
        "pkill -fuuser myserver",
        "pkill --uid=0 -f myserver",
        "pkill --uid 0 -f myserver",
    ],
)
def test_hl103_option_arguments_do_not_hide_the_pattern(command: str) -> None:
    """`-uroot` carries its argument: the next word is the pattern, not u's argument."""
    text = f'ssh h "{command}; echo done"\n'
    (f,) = kit.findings(text, "HL103", every_rule=True)
    assert (f.start, f.end, f.severity) == (*kit.occurrence_span(text, "pkill"), Severity.ERROR)
    assert "`pkill -f myserver`" in f.message


def test_hl103_separate_option_argument_is_not_the_pattern() -> None:
    """`-u myserver` is the user: no pattern word is left, nothing to report."""
    assert kit.findings('ssh h "pkill -f -u myserver; echo done"\n', "HL103", every_rule=True) == []


def test_hl103_pkill_in_ssh_string_with_more_commands_is_error() -> None:
    text = 'ssh h "pkill -f x; y"\n'
    (f,) = kit.findings(text, "HL103", every_rule=True)
    assert (f.start, f.end, f.severity) == (7, 12, Severity.ERROR)


def test_a_pattern_that_matches_only_the_scripts_directory_depends_on_how_it_starts(
    tmp_path: Path,
) -> None:
    """`pkill -f code-server` in code-server/stop.sh: bash shows the path it was given, so
    the script kills itself when started as `bash code-server/stop.sh` and not as
    `./stop.sh` from its directory (bench/corpus: tannguyencse19/devops).  Info."""
    name = f"hl-{uuid.uuid4().hex[:8]}"
    folder = tmp_path / name
    folder.mkdir()
    script = f"pkill -f {name}\necho survived\n"
    (folder / "stop.sh").write_text(script)
    through = subprocess.run(
        ["bash", f"{name}/stop.sh"], cwd=tmp_path, capture_output=True, text=True, timeout=30
    )
    inside = subprocess.run(
        ["bash", "./stop.sh"], cwd=folder, capture_output=True, text=True, timeout=30
    )
    assert (through.returncode, through.stdout) == (-15, "")
    assert (inside.returncode, inside.stdout) == (0, "survived\n")
    (f,) = [f for f in check_shell(script, f"{name}/stop.sh") if f.code == "HL103"]
    assert (f.evidence, f.severity) == ("path-directory", Severity.INFO)
    assert f"when it is started by a path through `{name}/`" in f.message
    # The pattern in the script's own name matches however it is started: a warning.
    (g,) = [g for g in check_shell(script, f"{name}/{name}.sh") if g.code == "HL103"]
    assert g.evidence != "path-directory" and g.severity is not Severity.INFO
