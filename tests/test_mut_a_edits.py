"""Fix lifting at the very end of an inner layer (issue 20, run 4a: edits.py).

`sudo echo hi > F 2>/dev/null` in an ssh string: HL109's fix removes `> F` and appends
` | sudo tee F > /dev/null` after the last redirection, which is the end of the remote
string.  That append must land after the string's last character and before its closing
quote (edits.py, `lift_once`'s appending branch).  Checked by the exact fixed text and by
the bytes the fixed command writes through the loopback sshd.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sshd import SshServer, run_local

from heredoc_lint.engine import check_shell, fix_shell


def _fixed(text: str) -> str:
    outcome = fix_shell(text, "t.sh", unsafe=True)
    assert outcome.error is None, outcome.error
    return outcome.text


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        (
            "ssh h 'sudo echo hi > {t} 2>/dev/null'\n",
            "ssh h 'echo hi 2>/dev/null | sudo tee {t} > /dev/null'\n",
        ),
        (
            'ssh h "sudo echo hi > {t} 2>/dev/null"\n',
            'ssh h "echo hi 2>/dev/null | sudo tee {t} > /dev/null"\n',
        ),
        # Two layers: the append at the end of the `bash -c` string becomes an insertion
        # before its closing `'` in the ssh string, then in the file.
        (
            "ssh h \"bash -c 'sudo echo hi > {t} 2>/dev/null'\"\n",
            "ssh h \"bash -c 'echo hi 2>/dev/null | sudo tee {t} > /dev/null'\"\n",
        ),
    ],
)
def test_append_at_the_end_of_a_remote_string(
    template: str, expected: str, sshd: SshServer, system_dir: Path
) -> None:
    target = system_dir / "motd"  # this test is about the fix's edit: HL109 must report it
    text = template.format(t=target)
    codes = [f.code for f in check_shell(text, "t.sh")]
    assert "HL109" in codes
    fixed = _fixed(text)
    assert fixed == expected.format(t=target)
    assert "HL109" not in [f.code for f in check_shell(fixed, "t.sh")]
    # Both write `hi` through the real sshd (the remote user is root: sudo needs no
    # password).
    for script in (text, fixed):
        target.unlink(missing_ok=True)
        proc = run_local(script, sshd)
        assert proc.returncode == 0, proc.stderr
        assert target.read_bytes() == b"hi\n"
