"""More pinned behaviours of the suppressions, through `engine.check_text`.

Each test kills a mutant that survived `bench/mutation.py` (issue 20, bench/MUTATION.md,
run 3).
"""

from __future__ import annotations

import pytest

from heredoc_lint.engine import Settings, check_text

# One script per rule that a ShellCheck code stands for, each with exactly one finding.
HL107 = "ssh h bash <<EOF\necho $HOME\nEOF\n"  # an unquoted heredoc to the remote shell
HL109 = "sudo echo x > /etc/f\n"  # the redirection is the unprivileged caller's
HL102 = 'ssh h "echo $HOME"\n'  # expanded on the client side


def _found(text: str) -> list[tuple[str, int, int]]:
    return [(f.code, f.start, f.end) for f in check_text(text, "shell", "t.sh", Settings())]


def test_each_script_has_its_one_finding() -> None:
    assert _found(HL107) == [("HL107", 11, 13)]
    assert _found(HL109) == [("HL109", 12, 13)]
    assert _found(HL102) == [("HL102", 12, 17)]


@pytest.mark.parametrize(
    ("shellcheck", "script"),
    [("SC2087", HL107), ("SC2024", HL109), ("SC2029", HL102)],
)
def test_shellcheck_directive_silences_its_own_rule(shellcheck: str, script: str) -> None:
    """`# shellcheck disable=SC2087` says the author knows the bug HL107 reports (SC2024:
    HL109, SC2029: HL102): alone on the line before, or among other codes."""
    assert _found(f"# shellcheck disable={shellcheck}\n{script}") == []
    assert _found(f"# shellcheck disable=SC2086,{shellcheck.lower()}\n{script}") == []
    # A directive for another ShellCheck code leaves the finding (shifted by its line).
    shift = len("# shellcheck disable=SC2086\n")
    assert _found(f"# shellcheck disable=SC2086\n{script}") == [
        (code, a + shift, b + shift) for code, a, b in _found(script)
    ]


@pytest.mark.parametrize(
    ("shellcheck", "script"),
    [("SC2087", HL109), ("SC2024", HL107), ("SC2029", HL107), ("SC2024", HL102)],
)
def test_shellcheck_directive_leaves_other_rules(shellcheck: str, script: str) -> None:
    text = f"# shellcheck disable={shellcheck}\n{script}"
    shift = len(f"# shellcheck disable={shellcheck}\n")
    assert _found(text) == [(code, a + shift, b + shift) for code, a, b in _found(script)]


# -- the Python frontend: a starred argument after the command does not hide it -----------


@pytest.mark.parametrize(
    ("call", "span"),
    [
        ("subprocess.run(\"ssh h 'pkill -f sglang; echo'\", *opts, shell=True)", (41, 46)),
        ('subprocess.run(["ssh", "h", "pkill -f sglang; echo"], *opts)', (47, 52)),
        ("subprocess.run(*opts)", None),  # the command itself is unknown
    ],
)
def test_starred_argument_after_the_command(call: str, span: tuple[int, int] | None) -> None:
    """`*opts` after the command (bufsize, executable... at run time) leaves the command
    the first argument: its pkill self-match is still found, at the `pkill` word."""
    text = f"import subprocess\n{call}\n"
    found = [(f.code, f.start, f.end) for f in check_text(text, "python", "t.py", Settings())]
    assert found == ([("HL103", *span)] if span else [])
    if span:
        assert text[span[0] : span[1]] == "pkill"


@pytest.mark.parametrize("indent", ["", "    "])
def test_fabric_connection_through_a_second_name(indent: str) -> None:
    """`d = c` where `c = fabric.Connection(...)`: `d.run(...)` runs on the remote host
    all the same, and its pkill self-match is reported at the `pkill` word."""
    body = 'c = fabric.Connection("h")\nd = c\nd.run("pkill -f sglang; echo")\n'
    if indent:
        body = "def f():\n" + "".join(indent + line + "\n" for line in body.splitlines())
    text = "import fabric\n" + body
    findings = check_text(text, "python", "t.py", Settings())
    assert [(f.code, text[f.start : f.end]) for f in findings] == [("HL103", "pkill")]
    assert findings[0].start == text.index("pkill")
