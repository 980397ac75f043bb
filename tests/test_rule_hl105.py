"""HL105 ssh-swallows-loop-stdin: ssh in a `while read` loop eats the loop's input.

Anchors are computed from the text. The fix (`-n` after `ssh`, safe) is re-checked and
applied twice. Against the real sshd, the original loop handles one line of three and the
fixed loop handles all three.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sshd import SshServer, run_local

from heredoc_lint.engine import Settings, check_shell, fix_shell
from heredoc_lint.model import Applicability, Finding, Severity

CASES = Path(__file__).parent / "cases"
CODE = "HL105"
SETTINGS = Settings(select=frozenset({CODE}))


def hl105(text: str) -> list[Finding]:
    return [f for f in check_shell(text, "t.sh", SETTINGS) if f.code == CODE]


def line_col(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def ssh_span(text: str, needle: str) -> tuple[int, int]:
    """The span of the `ssh` word at the start of `needle`, found in `text`."""
    start = text.index(needle)
    return start, start + len("ssh")


# -- positives: (script, the text starting at the `ssh` word) -------------------------------
POSITIVES = [
    ('while read -r node; do\n  ssh "$node" "systemctl restart agent"\ndone < nodes.txt\n',
     'ssh "$node"'),
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
    found = hl105(text)
    assert len(found) == 1, found
    f = found[0]
    assert (f.start, f.end) == ssh_span(text, needle)
    assert f.severity is Severity.WARNING
    assert "the loop ends after the first line" in f.message
    assert "-n" in f.message


def test_cli_json_line_and_column(tmp_path: Path) -> None:
    text = (CASES / "fanout.sh").read_text()
    path = tmp_path / "fanout.sh"
    path.write_text(text)
    proc = subprocess.run(
        [sys.executable, "-m", "heredoc_lint", "--format", "json", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    items = json.loads(proc.stdout)
    assert [i["code"] for i in items] == [CODE]  # fanout.sh: HL105 only (no HL106)
    (item,) = items
    start, end = ssh_span(text, 'ssh "$node"')
    assert (item["line"], item["column"]) == line_col(text, start) == (3, 3)
    assert (item["end_line"], item["end_column"]) == line_col(text, end)
    assert item["fix"]["applicability"] == "safe"


NEGATIVES = [
    "while read -r node; do ssh -n \"$node\" uptime; done < nodes.txt\n",
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
    (CASES / "clean_ok.sh").read_text(),
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_negative(text: str) -> None:
    assert hl105(text) == []


def test_cases_have_no_false_positive() -> None:
    expect = json.loads((CASES / "expect.json").read_text())["cases"]
    for name in sorted(n for n in expect if n.endswith(".sh")):
        text = (CASES / name).read_text()
        wanted = [needle for code, needle in expect[name]["expect"] if code == CODE]
        got = [line_col(text, f.start)[0] for f in hl105(text)]
        lines = text.splitlines()
        assert got == [next(i + 1 for i, line in enumerate(lines) if n in line) for n in wanted]


# -- fixes ------------------------------------------------------------------------------
FIXES = [
    (
        (CASES / "fanout.sh").read_text(),
        (CASES / "fanout.sh").read_text().replace('ssh "$node"', 'ssh -n "$node"'),
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
    outcome = fix_shell(text, "t.sh", settings=SETTINGS)
    assert outcome.text == fixed
    assert hl105(outcome.text) == []
    assert fix_shell(outcome.text, "t.sh", settings=SETTINGS).text == outcome.text


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
    (f,) = hl105(text)
    assert f.fix is not None and f.fix.applicability is Applicability.UNSAFE
    assert fix_shell(text, "t.sh", settings=SETTINGS).text == text
    fixed = fix_shell(text, "t.sh", settings=SETTINGS, unsafe=True).text
    assert fixed == text.replace("ssh $h", "ssh -n $h")


def test_cli_fix_on_the_case_file(tmp_path: Path) -> None:
    path = tmp_path / "fanout.sh"
    path.write_text((CASES / "fanout.sh").read_text())
    proc = subprocess.run(
        [sys.executable, "-m", "heredoc_lint", "--fix", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'ssh -n "$node" "systemctl restart agent"' in path.read_text()


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
    before = run_local(script, sshd, cwd=tmp_path)
    assert before.returncode == 0, before.stderr
    assert before.stdout.splitlines() == ["restarted agent on node-a"]

    fixed = fix_shell(script, "t.sh", settings=SETTINGS).text
    assert fixed == script.replace('ssh "$node"', 'ssh -n "$node"')
    after = run_local(fixed, sshd, cwd=tmp_path)
    assert after.returncode == 0, after.stderr
    assert after.stdout.splitlines() == [
        "restarted agent on node-a",
        "restarted agent on node-b",
        "restarted agent on node-c",
    ]
