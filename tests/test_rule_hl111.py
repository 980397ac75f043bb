"""HL111 nested-quoting-depth: a string parsed by three shells, or one that needs the
`'\\''` / `\\\\\\"` escape chains to carry a quote through.

Anchors are the outer wrapper word (computed from the text); no fix (display-only
advice). What the rule warns about is checked with real bash: one escape missed for the
middle shell changes what the innermost shell runs, silently.
"""

from __future__ import annotations

import subprocess

import pytest
import rulekit as kit

from heredoc_lint.model import Finding, Severity

CODE = "HL111"


def hl111(text: str) -> list[Finding]:
    return kit.findings(text, CODE)


# -- positives: (text, the text at the anchor, what the message names) -------------------------
POSITIVES = [
    ("ssh gateway \"ssh db 'systemctl status pg'\"\n", "ssh gateway", "`ssh -J`"),
    ("ssh h 'echo '\\''quoted'\\'' done'\n", "ssh h", "`'\\''` escape chain"),
]


@pytest.mark.parametrize(("text", "needle", "named"), POSITIVES)
def test_positive_anchor(text: str, needle: str, named: str) -> None:
    (f,) = hl111(text)
    start = text.index(needle)
    assert (f.start, f.end) == (start, start + len(needle.split()[0]))
    assert f.severity is Severity.WARNING and f.fix is None
    assert named in f.message, f.message


# Three shells, written with escapes for the outer ones: escaped right, it is no bug (on
# real code read on first look, none was); info, as each later edit must keep the escapes.
ESCAPED = [
    "ssh h \"bash -c 'echo \\$HOME; date'\"\n",
    'ssh h "sudo sh -c \'echo \\"$n\\" > /proc/x\'"\n',
    'ssh h "bash -c \\"echo \\\\\\"x\\\\\\"\\""\n',
    "ssh h \"bash -lc 'test -x \\\"$D/bin\\\"'\"\n",
]


@pytest.mark.parametrize("text", ESCAPED)
def test_three_shells_written_with_escapes_is_info(text: str) -> None:
    (f,) = hl111(text)
    assert (f.severity, f.evidence) == (Severity.INFO, "three-shells-escaped")
    assert "written with escapes" in f.message, f.message


ARRIVES_AS_WRITTEN = [
    "ssh h \"sudo sh -c 'echo $n > /proc/x'\"\n",  # a substituted value is HL102's to judge
    "eval 'as_fn_append ()\n{\n  eval $1+=\\$2\n}'\n",  # eval: the same shell
    "ssh h \"bash -c 'echo hi; date'\"\n",
    'ssh -n "$h" "sh -c \'cd ~; nohup ./app >/dev/null 2>&1 &\'"\n',
    "sudo -u app bash -c 'eval \"$(rbenv init - bash)\"; bundle install'\n",  # eval's purpose
    "bash -c \"ssh h 'uptime; df'\"\n",  # a local middle shell: no hop for `ssh -J` to make
    "watch -n1 'ssh sw \"show x\" | grep y'\n",  # watch re-runs it here, on purpose
]


@pytest.mark.parametrize("text", ARRIVES_AS_WRITTEN)
def test_nothing_changed_on_the_way_is_info(text: str) -> None:
    """Evidence before a warning: no shell outside changes the innermost string."""
    (f,) = hl111(text)
    assert f.severity is Severity.INFO
    assert "arrives as written" in f.message


NEGATIVES = [
    "ssh h 'systemctl status pg'\n",  # one remote shell
    "ssh -J gateway db 'systemctl status pg'\n",  # the jump host runs no shell
    "bash -c 'echo hi'\n",
    'ssh h "echo \\"quoted\\""\n',  # one level of escaping
    "ssh h 'cat' <<'EOF'\nbash -c 'x'\nEOF\n",  # a heredoc on local stdin: data for cat
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_negative(text: str) -> None:
    assert hl111(text) == []


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
