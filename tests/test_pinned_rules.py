"""Pinned behaviours of the rules: exact spans and counts through `engine.check_shell`.

Each test kills a bug that once survived the suite (issue 20, bench/MUTATION.md).  The
inputs are chosen so that the expected result does not depend on severities that the
precision work may move (only error cases, or only the span and count are pinned).
"""

from __future__ import annotations

import pytest

from heredoc_lint.engine import check_shell
from heredoc_lint.model import Finding, Severity


def _found(text: str, code: str) -> list[Finding]:
    return [f for f in check_shell(text, "t.sh") if f.code == code]


def _span(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return at, at + len(needle)


# -- HL102: an expansion is reported once, by the shell that performs it ------------------


@pytest.mark.parametrize(
    "text",
    [
        'ssh h "bash -c \\"echo $x\\""\n',
        'bash -c "ssh h \\"echo $x\\""\n',
        'ssh h "ssh g \\"cat > f << \'EOF\'\n$x\nEOF\\""\n',
    ],
)
def test_hl102_nested_expansion_reported_once_at_depth_1(text: str) -> None:
    """The local shell expands `$x` before any inner shell sees it: the inner layers
    receive its value, not `$x`, and must not report it again."""
    found = _found(text, "HL102")
    assert [(f.start, f.end, f.depth) for f in found] == [(*_span(text, "$x"), 1)]
    assert "local shell" in found[0].message


def test_hl102_in_quoted_heredoc_of_ssh_string_is_error() -> None:
    text = "ssh h \"cat > f << 'EOF'\nport $1\nEOF\"\n"
    (f,) = _found(text, "HL102")
    assert (f.start, f.end, f.severity) == (*_span(text, "$1"), Severity.ERROR)


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
    (f,) = _found(text, "HL103")
    assert (f.start, f.end, f.severity) == (*_span(text, "pkill"), Severity.ERROR)
    assert "`pkill -f myserver`" in f.message


def test_hl103_separate_option_argument_is_not_the_pattern() -> None:
    """`-u myserver` is the user: no pattern word is left, nothing to report."""
    assert _found('ssh h "pkill -f -u myserver; echo done"\n', "HL103") == []


def test_hl103_pkill_in_ssh_string_with_more_commands_is_error() -> None:
    text = 'ssh h "pkill -f x; y"\n'
    (f,) = _found(text, "HL103")
    assert (f.start, f.end, f.severity) == (7, 12, Severity.ERROR)


# -- HL109: a descriptor duplication is no file write ---------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "sudo echo x 2>&1\n",
        "sudo echo x >&2\n",
        "sudo echo x 1>&-\n",
        "sudo echo x 2>&1-\n",
        'ssh h "sudo echo x 2>&1"\n',
    ],
)
def test_hl109_descriptor_duplication_is_not_a_write(text: str) -> None:
    assert _found(text, "HL109") == []


def test_hl109_file_write_next_to_a_dup_is_reported_at_its_operator() -> None:
    text = "sudo echo x > /etc/foo 2>&1\n"
    (f,) = _found(text, "HL109")
    assert (f.start, f.end) == _span(text, ">")
    assert "/etc/foo" in f.message
