"""HL105 ssh-swallows-loop-stdin: ssh in a `while read` loop eats the loop's input.

Anchors are computed from the text. The fix (`-n` after `ssh`, safe) is re-checked and
applied twice. Against the real sshd, the original loop handles one line of three and the
fixed loop handles all three.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer

from heredoc_lint.model import Applicability, Finding, Severity

CODE = "HL105"


def hl105(text: str) -> list[Finding]:
    return kit.findings(text, CODE)


# -- positives: (script, the text starting at the `ssh` word) -------------------------------
POSITIVES = [
    (
        'while read -r node; do\n  ssh "$node" "systemctl restart agent"\ndone < nodes.txt\n',
        'ssh "$node"',
    ),
    ("while read -r h; do ssh $h uptime; done < hosts\n", "ssh $h"),
    ("while IFS= read -r h; do ssh $h uptime; done < hosts\n", "ssh $h"),
    ("while IFS=, read -r h port; do ssh -p $port $h uptime; done < hosts.csv\n", "ssh -p"),
    ("cat hosts | while read h; do ssh -o BatchMode=yes $h uptime; done\n", "ssh -o"),
    ("while read h; do out=$(ssh $h hostname); echo $out; done < hosts\n", "ssh $h hostname"),
    ("while read h; do timeout 5 ssh $h uptime || echo fail; done < hosts\n", "ssh $h"),
    ("while read h; do for c in a b; do ssh $h $c; done; done < hosts\n", "ssh $h $c"),
    ("until ! read h; do ssh $h uptime; done < hosts\n", "ssh $h"),
    ("while read h; do\n  if true; then\n    ssh -tq $h uptime\n  fi\ndone\n", "ssh -tq"),
    # the loop inside a remote layer: the inner ssh eats the remote loop's input
    ("ssh gw 'while read h; do ssh $h uptime; done < hosts'\n", "ssh $h"),
    ("bash -c 'while read h; do ssh $h uptime; done' < hosts\n", "ssh $h"),
]


@pytest.mark.parametrize(("text", "needle"), POSITIVES)
def test_positive_anchor(text: str, needle: str) -> None:
    f = kit.assert_single(hl105(text), kit.span_of(text, needle), Severity.WARNING)
    assert "the loop ends after the first line" in f.message
    assert "-n" in f.message


def test_cli_json_line_and_column(tmp_path: Path) -> None:
    text = kit.case_text("fanout.sh")
    items = kit.cli_json(kit.copy_case("fanout.sh", tmp_path), returncode=1)
    assert [i["code"] for i in items] == [CODE]  # fanout.sh: HL105 only (no HL106)
    (item,) = items
    kit.assert_json_position(item, text, kit.span_of(text, 'ssh "$node"'), (3, 3))
    assert item["fix"]["applicability"] == "safe"


NEGATIVES = [
    'while read -r node; do ssh -n "$node" uptime; done < nodes.txt\n',
    "while read -r h; do ssh -nT $h uptime; done < hosts\n",
    "while read -r h; do ssh -f -N -L 8080:localhost:80 $h; done < hosts\n",
    "while read -r h; do ssh -o StdinNull=yes $h uptime; done < hosts\n",
    "while read -u 3 h; do ssh $h uptime; done 3< hosts\n",
    "while read -r h <&3; do ssh $h uptime; done 3< hosts\n",
    "while read -r h < /dev/tty; do ssh $h uptime; done\n",
    "for h in a b c; do ssh $h uptime; done\n",
    "for h in $(cat hosts); do ssh $h uptime; done\n",
    "while true; do ssh h uptime; sleep 5; done\n",
    "while read -r h; do ssh $h uptime < /dev/null; done < hosts\n",
    "while read -r h; do ssh $h 'cat > f' < local.txt; done < hosts\n",
    "while read -r h; do echo hi | ssh $h cat; done < hosts\n",
    "while read -r h; do ssh $h bash -s <<'EOF'\nuptime\nEOF\ndone < hosts\n",
    "while read -r h; do ssh $h cat <<< data; done < hosts\n",
    "while read -r h; do ssh $h uptime & done < hosts\n",  # async: stdin is /dev/null
    "while read -r h; do\n  while read -r x; do :; done < other\n  true\ndone < hosts\n",
    "while read -r h; do scp f $h:/tmp; done < hosts\n",
    "ssh h uptime\n",
    # an inner loop fed by a file that nothing else reads
    "for h in a b; do while sleep 1; do ssh $h uptime; done < /dev/null; done\n",
    kit.case_text("clean_ok.sh"),
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_negative(text: str) -> None:
    assert hl105(text) == []


# -- fixes ------------------------------------------------------------------------------
FIXES = [
    (
        kit.case_text("fanout.sh"),
        kit.case_text("fanout.sh").replace('ssh "$node"', 'ssh -n "$node"'),
    ),
    (
        "while read h; do timeout 5 ssh -p 2222 $h uptime; done < hosts\n",
        "while read h; do timeout 5 ssh -n -p 2222 $h uptime; done < hosts\n",
    ),
    (
        "ssh gw 'while read h; do ssh $h uptime; done < hosts'\n",
        "ssh gw 'while read h; do ssh -n $h uptime; done < hosts'\n",
    ),
    (
        'ssh gw "while read h; do ssh \\$h uptime; done < hosts"\n',
        'ssh gw "while read h; do ssh -n \\$h uptime; done < hosts"\n',
    ),
    (
        "while read h; do ssh $h a; ssh $h b; done < hosts\n",
        "while read h; do ssh -n $h a; ssh -n $h b; done < hosts\n",
    ),
]


@pytest.mark.parametrize(("text", "fixed"), FIXES)
def test_fix_is_safe_clean_and_idempotent(text: str, fixed: str) -> None:
    for f in hl105(text):
        assert f.fix is not None and f.fix.applicability is Applicability.SAFE
    outcome = kit.assert_fixed_clean_and_idempotent(text, CODE, unsafe=False)
    assert outcome == fixed


@pytest.mark.parametrize(
    "text",
    [
        "while read h; do ssh $h; done < hosts\n",  # a login shell reads what arrives
        "while read h; do ssh $h bash -s; done < hosts\n",
        "while read h; do ssh $h 'cat > /tmp/x'; done < hosts\n",
        "while read h; do ssh $h tee /tmp/x; done < hosts\n",
    ],
)
def test_fix_is_unsafe_when_the_remote_side_reads_stdin(text: str) -> None:
    kit.single_fix(hl105(text), Applicability.UNSAFE)
    assert kit.fix_text(text, CODE) == text
    assert kit.fix_text(text, CODE, unsafe=True) == text.replace("ssh $h", "ssh -n $h")


def test_cli_fix_on_the_case_file(tmp_path: Path) -> None:
    path = kit.copy_case("fanout.sh", tmp_path)
    assert 'ssh -n "$node" "systemctl restart agent"' in kit.cli_fix(path)


# -- runtime: the real ssh against the real sshd -------------------------------------------
def test_runtime_loop_handles_one_line_and_three_after_the_fix(
    sshd: SshServer, tmp_path: Path
) -> None:
    (tmp_path / "nodes.txt").write_text("node-a\nnode-b\nnode-c\n")
    script = (
        "#!/bin/bash\n"
        "while read -r node; do\n"
        '  ssh "$node" "echo restarted agent on $node"\n'
        "done < nodes.txt\n"
    )
    assert len(hl105(script)) == 1
    before = kit.run_ok(script, sshd, cwd=tmp_path)
    assert before.stdout.splitlines() == ["restarted agent on node-a"]

    fixed = kit.fix_text(script, CODE)
    assert fixed == script.replace('ssh "$node"', 'ssh -n "$node"')
    after = kit.run_ok(fixed, sshd, cwd=tmp_path)
    assert after.stdout.splitlines() == [
        "restarted agent on node-a",
        "restarted agent on node-b",
        "restarted agent on node-c",
    ]


# -- `until` loops: tree-sitter-bash parses them as `while_statement` ----------------------
UNTIL_READ = 'until read -r node; do\n  ssh "$node" "echo ran on $node"\ndone < nodes.txt\n'
UNTIL_NOT_READ = UNTIL_READ.replace("until read", "until ! read")


def test_until_loop_is_named_as_written() -> None:
    (until,) = hl105(UNTIL_NOT_READ)
    assert "inside this `until ! read` loop" in until.message
    (while_,) = hl105(UNTIL_NOT_READ.replace("until ! read", "while read"))
    assert "inside this `while read` loop" in while_.message


def test_until_read_runs_no_ssh_while_lines_are_left(sshd: SshServer, tmp_path: Path) -> None:
    """`until read` stops at the first line it reads: the body, and its ssh, never run
    while the input has lines, so there is nothing for ssh to swallow."""
    assert hl105(UNTIL_READ) == []
    (tmp_path / "nodes.txt").write_text("node-a\nnode-b\n")
    assert kit.run_ok("#!/bin/bash\n" + UNTIL_READ, sshd, cwd=tmp_path).stdout == ""
    negated = kit.run_ok("#!/bin/bash\n" + UNTIL_NOT_READ, sshd, cwd=tmp_path)
    assert negated.stdout.splitlines() == ["ran on node-a"]  # node-b swallowed
