"""HL104 remote-background-holds-session: a `&` job in an ssh command keeps ssh waiting.

Anchors are computed from the text. The fix (unsafe) adds the missing `> /dev/null`,
`2>&1` and `< /dev/null`, keeping a log target; it is re-checked and applied twice. Against
the real sshd, the original command holds ssh for the job's lifetime and the fixed one
returns at once.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.engine import check_text
from heredoc_lint.model import Applicability, Finding, Severity
from heredoc_lint.rules.hl104_remote_background_holds_session import INVALID

CODE = "HL104"


def hl104(text: str) -> list[Finding]:
    return kit.findings(text, CODE)


def warnings(text: str) -> list[Finding]:
    return [f for f in hl104(text) if f.severity is not Severity.INFO]


def test_message_names_the_attached_streams() -> None:
    (both,) = hl104("ssh h 'nohup sleep 6 &'\n")
    assert "stdout and stderr" in both.message
    assert "`nohup` does not detach it" in both.message
    (err,) = hl104("ssh h 'sleep 3 > x.log &'\n")
    assert "as its stderr:" in err.message


def test_cli_json_line_and_column(tmp_path: Path) -> None:
    text = kit.case_text("tail_logs.sh")
    (item,) = kit.cli_json(kit.copy_case("tail_logs.sh", tmp_path), "--select", CODE, returncode=1)
    kit.assert_json_position(item, text, kit.span_of(text, "nohup tail"), (2, 12))
    assert item["severity"] == "warning"
    assert item["layer"] == {"depth": 1, "wrapper": "ssh"}
    assert item["fix"]["applicability"] == "unsafe"


# -- the list case: its subshell holds the session (the runtime test below measures it) ----
LIST = "ssh worker-1 'cd /srv/jobs && nohup rq worker default > rq.log 2>&1 &'\n"


def test_a_list_whose_last_command_is_redirected_is_a_warning() -> None:
    found = hl104(LIST)
    assert [(f.severity, f.evidence) for f in found] == [(Severity.WARNING, "background-list")]
    assert (found[0].start, found[0].end) == kit.span_of(LIST, "cd /srv/jobs")
    assert "subshell" in found[0].message


def test_a_job_after_a_pkill_that_kills_its_shell_is_not_reported() -> None:
    """reload_workers.sh: `pkill -f 'rq worker'` kills the remote shell (HL103), so the
    list after it never starts and holds nothing; without the pkill, or once HL103's fix
    keeps the pkill from matching its shell, the list is reported."""
    text = kit.case_text("reload_workers.sh")
    assert hl104(text) == []
    assert [f.code for f in check_text(text, "shell")] == ["HL103"]
    assert len(hl104(kit.fix_text(text, "HL103", unsafe=True))) == 1
    assert len(hl104(text.replace("pkill -f 'rq worker'; ", ""))) == 1


# Positives, negatives and fixes: INVALID and VALID in the rule's module.
def test_every_fix_is_unsafe() -> None:
    """Each fixed example is fixed by `--unsafe-fixes` only: `--fix` alone leaves it."""
    for example in INVALID:
        if example.fixed is None:
            continue
        found = hl104(example.text)
        assert found
        for f in found:
            assert f.fix is not None and f.fix.applicability is Applicability.UNSAFE
        assert kit.fix_text(example.text, CODE) == example.text


# negatives among the labelled cases of tests/cases
@pytest.mark.parametrize("case", ["seed003.sh", "clean_ok.sh"])
def test_negative_case(case: str) -> None:
    assert warnings(kit.case_text(case)) == []


def test_cli_unsafe_fix_on_the_case_file(tmp_path: Path) -> None:
    path = kit.copy_case("tail_logs.sh", tmp_path)
    assert kit.cli_fix(path, "--unsafe-fixes", "--select", CODE) == (
        '#!/bin/bash\nssh web-1 "nohup tail -f /var/log/nginx/access.log'
        ' > /dev/null 2>&1 < /dev/null &"\n'
    )


# -- runtime: the real ssh against the real sshd -------------------------------------------
def _timed(script: str, server: SshServer) -> tuple[float, subprocess.CompletedProcess[str]]:
    began = time.monotonic()
    proc = run_local(script, server, timeout=60)
    return time.monotonic() - began, proc


RUNTIME = [
    "ssh web-1 'nohup sleep 6 &'\n",
    "ssh web-1 'sleep 6 > {tmp}/job.log &'\n",  # `> file` alone: stderr still holds
    "ssh web-1 'cd {tmp} && nohup sleep 6 > job.log 2>&1 &'\n",  # the list's subshell holds
    "ssh web-1 \"su {user} <<'EOF'\nnohup sleep 6 &\nEOF\"\n",  # su's shell reads stdin
]


@pytest.mark.parametrize("template", RUNTIME)
def test_runtime_ssh_waits_for_the_job_and_the_fix_returns_at_once(
    template: str, sshd: SshServer, tmp_path: Path
) -> None:
    if "su {user}" in template and os.geteuid() != 0:
        pytest.skip("su to oneself asks for a password unless root")
    script = "#!/bin/bash\n" + template.format(tmp=tmp_path, user=sshd.user)
    assert len(hl104(script)) == 1
    held, proc = _timed(script, sshd)
    assert proc.returncode == 0, proc.stderr
    assert held >= 5.5, f"ssh returned after {held:.2f}s: it did not wait for the job"

    fixed = kit.fix_text(script, CODE, unsafe=True)
    assert fixed != script and hl104(fixed) == []
    quick, proc = _timed(fixed, sshd)
    assert proc.returncode == 0, proc.stderr
    # 6 s if it held: the margin is for a loaded machine.
    assert quick < 4.5, f"the fixed command still held ssh for {quick:.2f}s"


# -- HL104: a transient unit of the service manager is not the session's child -----------------


@pytest.mark.parametrize(
    ("wrapper", "held"),
    [
        ("bash -c", True),
        ("systemd-run --unit=srv bash -c", False),
        ("sudo systemd-run bash -c", False),
    ],
)
def test_hl104_a_systemd_run_unit_does_not_hold_the_session(wrapper: str, held: bool) -> None:
    """`bash -c` in the remote string is the session's child: its background job keeps
    the session's stdout, and ssh waits.  systemd-run hands the command to the service
    manager as a transient unit (systemd-run(1): it runs outside the caller's session, its
    output to the journal unless `--pipe`/`--pty`), so the job holds nothing of the session
    (hl104 `_passes_through`: the systemd-run `return False` removed).  No systemd runs
    here to show it; the manual is the evidence."""
    text = f"ssh h \"{wrapper} 'nohup ./srv &'\"\n"
    found = kit.findings_selected(text, "HL104")
    if not held:
        assert found == []
        return
    (finding,) = found
    assert text[finding.start : finding.end] == "nohup"
    assert finding.severity is Severity.WARNING
    assert "still has the ssh session as its stdout and stderr" in finding.message


# -- HL104 in a Python channel: the channel, not an ssh session, is held --------------------


_CHANNEL = """\
import paramiko

client = paramiko.SSHClient()
client.connect("h")
stdin, stdout, stderr = client.exec_command("nohup ./server &")
print(stdout.read())
stdin, stdout, stderr = client.exec_command("./worker &")
"""


def test_hl104_names_the_python_channel_that_a_background_job_holds() -> None:
    """paramiko's `exec_command("nohup ./server &")`: the job keeps the channel's stdout and
    stderr, and `stdout.read()` on line 6 waits for the channel to close: a warning that
    says so; the second call's output is never read: info.  (Run 7: the channel
    message's `held = ...` made `pass` left `held` unbound there: the check crashed.)"""
    found = [f for f in check_text(_CHANNEL, "python", "t.py") if f.code == "HL104"]
    assert [(_CHANNEL[f.start : f.end], f.severity.value) for f in found] == [
        ("nohup", "warning"),
        ("./worker", "info"),
    ]
    held = (
        "still has the channel of `exec_command` as its stdout and stderr: the remote shell "
        "exits, but the channel stays open until this job exits"
    )
    assert found[0].message.startswith(f"The background command `nohup ./server &` {held}")
    assert (
        "(`nohup` does not detach it from the session), and reading its output (line 6) "
        "waits for the channel to close" in found[0].message
    )
    assert f"{held}, and the file does not show that anything waits for it" in (found[1].message)
