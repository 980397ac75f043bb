"""HL111 nested-quoting-depth: a string parsed by three shells, or one that needs the
`'\\''` / `\\\\\\"` escape chains to carry a quote through.

Anchors are the outer wrapper word (computed from the text); no fix (display-only
advice). What the rule warns about is checked with real bash: one escape missed for the
middle shell changes what the innermost shell runs, silently.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import rulekit as kit

from heredoc_lint.engine import Settings, check_shell
from heredoc_lint.model import Finding, Severity
from heredoc_lint.rules.hl111_nested_quoting_depth import INVALID

CODE = "HL111"


def hl111(text: str) -> list[Finding]:
    return kit.findings(text, CODE)


# Positives (warnings), three shells noted at info, negatives: INVALID and VALID in the
# rule's module.
def test_no_example_has_a_fix() -> None:
    for example in INVALID:
        (f,) = hl111(example.text)
        assert f.fix is None


def test_three_shells_written_with_escapes_have_their_evidence() -> None:
    escaped = [e for e in INVALID if e.says == "written with escapes"]
    assert len(escaped) == 4
    for example in escaped:
        (f,) = hl111(example.text)
        assert (f.severity, f.evidence) == (Severity.INFO, "three-shells-escaped")


def test_three_shells_one_report_at_the_outermost_word() -> None:
    """Depth 3 is reported once, at the outer wrapper, not once per inner layer."""
    text = "ssh a \"ssh b 'ssh c uptime'\"\n"
    (f,) = hl111(text)
    assert (f.start, f.end) == (0, 3)


def _bash(script: str) -> str:
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout


def test_the_fragility_is_real_in_bash() -> None:
    """Three shells (the script's, then two bash -c): a `$` meant for the innermost one
    must be escaped for the outermost; written plain, the outermost shell expands it."""
    plain = "x=outer; bash -c \"x=middle; bash -c 'x=inner; echo $x'\""
    assert _bash(plain) == "outer\n"
    escaped = "x=outer; bash -c \"x=middle; bash -c 'x=inner; echo \\$x'\""
    assert _bash(escaped) == "inner\n"
    for text in (plain, escaped):
        assert len(hl111(text + "\n")) == 1


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
    (one,) = kit.findings_selected(script, "HL111")
    assert (one.start, one.end, one.evidence) == (0, 4, evidence)


# -- HL112 --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("inner", "severity"),
    [("ssh b", "warning"), ("pdsh -w b", "info"), ("clush -w b", "info")],
)
def test_hl111_only_an_ssh_hop_is_a_middle_shell_that_starts_ssh(inner: str, severity: str) -> None:
    """`ssh a "ssh b '...'"`: the middle shell only starts another ssh, which `ssh -J`
    does without it (a warning that says so); pdsh and clush (names ending in `sh`) run
    on many hosts and are not that hop: the three shells are only noted."""
    (one,) = kit.findings_selected(f"ssh a \"{inner} 'echo x'\"\n", "HL111")
    assert (one.start, one.end, one.severity.value) == (0, 3, severity)
    assert ("`ssh -J` makes that hop" in one.message) is (severity == "warning")


def test_hl111_a_middle_shell_with_work_of_its_own_is_no_hop() -> None:
    """`ssh a "ssh b 'hostname'; ssh-copy-id b"` (optimuse/OpenStack-DM): the middle shell
    runs more than the inner ssh, which `ssh -J` cannot do for it: the three shells are
    only noted."""
    (one,) = kit.findings_selected("ssh a \"ssh b 'hostname'; ssh-copy-id b\"\n", "HL111")
    assert (one.evidence, one.severity.value) == ("three-shells-as-written", "info")


@pytest.mark.parametrize(
    ("options", "severity"),
    [
        ("-o StrictHostKeyChecking=no", "info"),  # fills the middle host's known_hosts
        ("-oStrictHostKeyChecking=no", "info"),
        ("-o 'UserKnownHostsFile /dev/null'", "info"),
        ("-i ~/.ssh/inner", "info"),  # the middle host's key
        ("-F cluster.conf", "info"),
        ("-p 2222", "warning"),  # `ssh -J a -p 2222 b` makes the same hop
    ],
)
def test_hl111_an_inner_ssh_that_reads_the_middle_hosts_files_is_no_hop(
    options: str, severity: str
) -> None:
    """`ssh n4 "ssh -o StrictHostKeyChecking=no n1 'echo'"` (mit-pdos/gokv, xen-utils):
    run on n4 to record n1's key in n4's known_hosts; `ssh -J` would read this machine's
    files instead, so the middle shell is there on purpose."""
    (one,) = kit.findings_selected(f"ssh a \"ssh {options} b 'echo x'\"\n", "HL111")
    assert one.severity.value == severity


@pytest.mark.parametrize(
    ("entry", "evidence"),
    [
        ("docker exec C ", "three-shells-as-written"),  # that ssh runs in the container
        ("kubectl exec pod -- ", "three-shells-as-written"),
        ("sudo ", "three-shells-changing"),  # the middle host's own shell, as root
    ],
)
def test_hl111_an_inner_ssh_in_a_container_is_no_hop(entry: str, evidence: str) -> None:
    """`ssh h "docker exec C ssh g echo 'ok'"` (round z, a webhook setup testing the
    container's own key): `ssh -J` would not start that ssh in the container."""
    (one,) = kit.findings_selected(f"ssh h \"{entry}ssh g echo 'ok'\"\n", "HL111")
    assert one.evidence == evidence


# -- HL111: a string two shells down an argv -------------------------------------------------


def test_hl111_two_shells_below_an_argv() -> None:
    """`subprocess.run(["ssh", host, "bash -c '...'"])`: no local shell reads the argv, so
    the `bash -c` string is parsed by two shells (the remote login shell, bash): no
    HL111, and the string's layer, two deep under a root that no wrapper word made, is
    read without error (hl111: the depth-2 check stops where the outer layer has no
    wrapper word)."""
    text = r"""import subprocess
import sys

host = sys.argv[1]
subprocess.run(["ssh", host, "bash -c 'echo $HOME'"])
subprocess.run(["ssh", host, "sudo sh -c 'echo \"$HOME\" > /tmp/x'"])
"""
    compile(text, "t.py", "exec")  # the file is Python
    found = kit.python_findings(text)
    assert [f.code for f in found if f.code == "HL111"] == []


# -- HL111: eval adds no shell process, on either side of the chain -----------------------------


@pytest.mark.parametrize(
    "text",
    [
        'bash -c "eval \\"echo \\\\\\$HOME\\""\n',  # the innermost layer is eval's
        'eval "bash -c \\"echo \\\\\\$HOME\\""\n',  # the middle layer is eval's
    ],
)
def test_hl111_an_eval_in_the_chain_escapes_for_no_process(text: str, tmp_path: Path) -> None:
    """eval runs its text in the shell that called it (bash: the same `$BASHPID`), so the
    escapes written for it add no process: info, not the warning about escapes for each
    shell (hl111 `_same_shell`, each `'eval'` cut)."""
    pids = kit.bash_as_sshd('echo $BASHPID; eval "echo \\$BASHPID"', None, tmp_path).stdout.split()
    assert len(pids) == 2 and pids[0] == pids[1]
    (found,) = kit.findings_selected(text, "HL111")
    assert (found.start, found.end) == (0, 4)
    assert found.severity.value == "info"
    assert "its innermost string arrives as written" in found.message


# -- HL001: a runbook's interactive session is typed into the program, not run by bash --------


def test_hl111_an_escape_before_the_innermost_strings_first_character_counts(
    tmp_path: Path,
) -> None:
    """`ssh h "bash -c '\\$HOME'"`: the local shell hands ssh `bash -c '$HOME'` (bash
    shows it), so the innermost string `$HOME` is written `\\$HOME` for a shell outside
    it: escapes for an outer shell (info), as for an escape further in (a bug found by hl111
    `_outer_shells_change`'s `a:b` -> `a + 1:b`: the escape before the first character
    was left out of the source looked at, and the string was said to arrive as written)."""
    for text, sent in [
        ("ssh h \"bash -c '\\$HOME'\"\n", "bash -c '$HOME'"),
        ("ssh h \"bash -c 'echo \\$HOME'\"\n", "bash -c 'echo $HOME'"),
    ]:
        words = kit.bash_as_sshd(f"printf '%s\\n' {text}", None, tmp_path).stdout
        assert words == f"ssh\nh\n{sent}\n"
        (found,) = kit.findings_selected(text, "HL111")
        assert (found.start, found.end) == (0, 3)
        assert found.evidence == "three-shells-escaped"
        assert found.message.startswith(
            "This command is parsed by three shells (local -> ssh -> bash -c): the innermost "
            "string is written with escapes for the shells outside it; "
        )


# -- HL104: a transient unit of the service manager is not the session's child -----------------


@pytest.mark.parametrize(
    "text",
    [
        "ssh h \"bash <<'EOF'\necho hi\nEOF\"\n",
        "ssh h \"bash <<'EOF'\necho \\\\$HOME\nEOF\"\n",
    ],
)
def test_hl111_a_heredoc_inside_a_remote_string_is_hl101s(text: str) -> None:
    """HL111 judges command strings; a script fed to bash by a heredoc inside the ssh
    string is HL101's (a finding at its `<<`), not a third shell's string for HL111
    (hl111 `check`: `if layer.kind != 'string': return` removed)."""
    found = check_shell(text, "t.sh", Settings(select=frozenset({"HL101", "HL111"})))
    assert [f.code for f in found] == ["HL101"]
    assert text[found[0].start : found[0].end] == "<<"


# -- HL111: a command of four shells is reported once, at its outer word ------------------------


def test_hl111_four_shells_are_reported_once_at_the_outer_ssh() -> None:
    """`ssh a "ssh b \\"ssh c '...'\\""`, the innermost string written with `'\\\\''`: one
    warning at the outer `ssh` (the hop through a remote shell); the innermost layer, two
    shells below the file, does not add an escape-chain warning of its own at the middle
    `ssh`.  (Run 7: the escape chain was looked for in every layer below the first.)"""
    text = "ssh a \"ssh b \\\"ssh c 'echo '\\\\\\\\''x'\\\\\\\\'''\\\"\"\n"
    found = kit.findings(text, "HL111", every_rule=True)
    assert [(f.start, f.severity.value) for f in found] == [(0, "warning")]
    assert "the middle shell only starts another ssh" in found[0].message


# -- HL111: eval runs its string in the same shell: no escape-chain warning --------------------


def test_hl111_eval_string_with_an_escape_chain_is_not_reported() -> None:
    """`eval 'printf "%s\\n" '\\''a b'\\'''`: the `'\\''` chain carries a quote into a
    string that the same shell runs (bash prints `a b`); no other shell parses it, so
    HL111's escape-chain warning, meant for `ssh h '...'`, is not made; the same string
    given to ssh is.  (Read ahead, run 7's sample: hl111:108, `"eval"` cut to `"val"`,
    warned here.)"""
    script = "printf \"%s\\n\" '\\''a b'\\''"
    ran = kit.bash_with_path(f"eval '{script}'")
    assert (ran.returncode, ran.stdout) == (0, "a b\n")
    assert kit.findings(f"eval '{script}'\n", "HL111", every_rule=True) == []
    found = kit.findings(f"ssh h '{script}'\n", "HL111", every_rule=True)
    assert [(f.start, f.end, f.severity.value) for f in found] == [(0, 3, "warning")]
    assert "needs the `'\\''` escape chain" in found[0].message
