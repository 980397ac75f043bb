"""HL104 in a Python file with many channel calls: each call is judged by its own reads.

The frontend reads the module's channel calls once (`frontends/python/waits.py`), then
finds each fragment's call by where its characters are; these pin that each finding
belongs to its own call, whatever the others around it do. (Through the real sshd, the
waits themselves are shown in tests/test_python_channels_hl104.py.)
"""

from __future__ import annotations

from rulekit import line_of

from heredoc_lint.engine import check_text
from heredoc_lint.model import Finding, Severity

JOB = "nohup ./serve > /tmp/serve.log &"  # stderr still holds the session


def hl104(text: str) -> list[Finding]:
    return [f for f in check_text(text, "python", "p.py") if f.code == "HL104"]


def test_each_call_is_judged_by_its_own_reads() -> None:
    program = (
        "import paramiko\n"
        "client = paramiko.SSHClient()\n"
        "def deploy(names):\n"
        f'    client.exec_command("{JOB}")\n'  # line 4: nothing read
        f'    _, out, err = client.exec_command("{JOB}")\n'  # line 5: read on line 7
        "    print(names)\n"
        "    print(out.read())\n"
        f'    cmd = "{JOB}"\n'  # line 8: given by name, read on line 10
        "    _, log, _ = client.exec_command(cmd)\n"
        "    for line in log:\n"
        "        print(line)\n"
    )
    found = sorted(hl104(program), key=lambda f: f.start)
    assert [(line_of(program, f), f.severity) for f in found] == [
        (4, Severity.INFO),
        (5, Severity.WARNING),
        (8, Severity.WARNING),
    ]
    assert "reading its output (line 7)" in found[1].message
    assert "reading its output (line 10)" in found[2].message


def test_the_first_read_after_the_call_is_named() -> None:
    """A read before the call is not the call's, and of two reads the nearer is named."""
    program = (
        "import paramiko\n"
        "client = paramiko.SSHClient()\n"
        "def run(out):\n"
        "    out.read()\n"
        f'    _, out, _ = client.exec_command("{JOB}")\n'
        "    if out:\n"
        "        print(out.readline())\n"
        "    out.read()\n"
    )
    (finding,) = hl104(program)
    assert finding.severity is Severity.WARNING
    assert "reading its output (line 7)" in finding.message


def test_many_calls_in_one_function_each_keep_their_finding() -> None:
    body = "".join(
        f'    _, out{i}, _ = client.exec_command("nohup ./job{i} > /tmp/j.log &")\n'
        + (f"    out{i}.read()\n" if i % 2 else "")
        for i in range(200)
    )
    program = "import paramiko\nclient = paramiko.SSHClient()\ndef f():\n" + body
    found = hl104(program)
    assert len(found) == 200
    warned = sorted(program[f.start : f.end + 40] for f in found if f.severity is Severity.WARNING)
    assert len(warned) == 100
    assert all(int(w.split("job")[1].split(" ")[0]) % 2 == 1 for w in warned)
