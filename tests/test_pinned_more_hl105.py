"""HL105's fix (`ssh -n`) is safe exactly when the remote command reads no stdin: each
remote command is run through the loopback sshd of tests/sshd.py with and without stdin.

Kills mutants of the rule's command tables that survived `bench/mutation.py` (issue 20,
bench/MUTATION.md, run 3).  In a file of its own: its sshd round trips take a minute,
which the other rules' mutants need not pay.
"""

from __future__ import annotations

import shlex

import pytest
from sshd import SshServer, run_local

from heredoc_lint.engine import Settings, check_shell
from heredoc_lint.model import Applicability, Edit, Finding


def _findings(text: str, code: str) -> list[Finding]:
    return check_shell(text, "t.sh", Settings(select=frozenset({code})))


# -- HL105: the fix's safety follows what the remote command reads -------------------------

# Remote commands, and whether they read the standard input ssh forwards.
_REMOTES = [
    ("cat", True),
    ("cat /etc/hostname", False),
    ("cat -", True),
    ("base64", True),
    ("gzip -c | wc -c", True),
    ("xz -c | wc -c", True),
    ("bzip2 -c | wc -c", True),
    ("sort", True),
    ("sort /etc/hostname", False),
    ("uniq", True),
    ("wc -l", True),
    ("head", True),
    ("tail", True),
    ("md5sum", True),
    ("sha256sum", True),
    ("tac", True),
    ("tee /dev/null", True),
    ("read x; echo got $x", True),
    ("xargs echo", True),
    ("xargs", True),
    ("grep l", True),
    ("grep l /etc/hostname; true", False),
    ("sed -n p", True),
    ("awk 1", True),
    ("jq -R .", True),
    ("python3", True),
    ("python3 -", True),
    ("perl", True),
    ("node", True),
    ("dd status=none", True),
    ("dd if=/etc/hostname status=none", False),
    ("bash", True),
    ("bash -s", True),
    ("bash -c 'echo hi'", False),
    ("sh -s x", True),
    ("sqlite3", True),
    ("echo hi", False),
    ("uptime > /dev/null; echo up", False),
    # An option's argument is no file (`head -n 1` reads stdin; bug 3 of run 3).
    ("head -n 1", True),
    ("head -n1", True),
    ("tail -n 1", True),
    ("head -n 1 /etc/hostname", False),
    ("sort -k 1", True),
    ("sort -k 1 /etc/hostname", False),
    ("cut -d : -f 1", True),
    ("cut -d : -f 1 /etc/hostname", False),
    ("tr a-z A-Z", True),
    ("fold -w 3", True),
    ("grep -e l", True),
    ("grep -e l /etc/hostname; true", False),
    ("awk -F : 1", True),
    ("perl -ne print", True),
    ("python3 -c 'import sys; print(sys.stdin.read())'", True),
    # Behind a prefix command the program still reads the stdin ssh forwards.
    ("sudo cat", True),
    ("sudo cat /etc/hostname", False),
    ("nice sort", True),
    ("env A=1 head -n 1", True),
    ("nohup echo hi 2>/dev/null", False),
]


@pytest.mark.parametrize(("remote", "reads"), _REMOTES)
def test_hl105_fix_is_safe_only_when_the_remote_reads_nothing(
    remote: str, reads: bool, sshd: SshServer
) -> None:
    """The remote command reads its stdin exactly when its output through the real sshd
    changes between `ssh -n` and two lines on stdin; only then is `-n` an unsafe fix."""
    quoted = shlex.quote(remote)
    piped = run_local(f"printf 'echo l1\\necho l2\\n' | ssh h {quoted}", sshd)
    nulled = run_local(f"ssh -n h {quoted}", sshd)
    outcome = (piped.returncode, piped.stdout, piped.stderr)
    assert (outcome != (nulled.returncode, nulled.stdout, nulled.stderr)) == reads, outcome
    text = f"while read h; do ssh h {quoted}; done < hosts\n"
    (found,) = _findings(text, "HL105")
    assert (found.start, found.end) == (17, 20)
    assert found.fix is not None
    assert found.fix.edits == (Edit(20, 20, " -n"),)
    expected = Applicability.UNSAFE if reads else Applicability.SAFE
    assert found.fix.applicability is expected


@pytest.mark.parametrize(
    "option",
    [
        "-o StdinNull=yes",
        "-o StdinNull=true",
        "-o stdinnull=TRUE",
        "-o 'StdinNull yes'",
        "-o StdinNull=no",
        "-o StdinNull=false",
        "-n",
        "-f",
    ],
)
def test_hl105_stdin_null_option_agrees_with_ssh(option: str, sshd: SshServer) -> None:
    """`-o StdinNull=yes` (or `true`, any case) makes ssh read /dev/null like `-n`: the
    remote `cat` then gets nothing through the real sshd, and HL105 says nothing."""
    if option == "-f":  # backgrounded: its output arrives after ssh returned
        reads = False
    else:
        proc = run_local(f"printf 'l1\\n' | ssh {option} h cat", sshd)
        assert proc.returncode == 0, proc.stderr
        reads = proc.stdout == "l1\n"
    assert reads == option.lower().endswith(("=no", "=false"))
    text = f"while read h; do ssh {option} h uptime; done < hosts\n"
    assert bool(_findings(text, "HL105")) == reads
