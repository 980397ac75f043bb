"""Issue 16, item 3 (shell side): an unquoted heredoc fed to a remote shell is a layer.

`ssh h <<EOF ... EOF`: the local shell expands the body, then the remote shell reads it as
its script.  The layer is the body as the remote shell receives it: bash's heredoc escapes
done (`\\$` is `$`, `\\<newline>` joins), each expansion kept as written and marked as the
parent's.  Bash is the oracle for that text (a `cat` fed the same heredoc prints what the
remote shell reads), and the real sshd for the remote commands: a background job in such
a body holds the session (HL104).  HL107 still reports the expansion itself, once.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
import rulekit as kit
from sshd import AT_ONCE, SshServer, long_job, run_local

from heredoc_lint.engine import check_shell, fix_shell
from heredoc_lint.layers.layer import Layer, file_layer, walk_layers
from heredoc_lint.model import Applicability, Severity
from heredoc_lint.run.settings import Settings


def _stdin_layer(text: str) -> Layer:
    (layer,) = [x for x in walk_layers(file_layer(text)) if x.kind == "stdin"]
    return layer


# -- the text of the layer, with bash as the oracle ------------------------------------------
BODIES = [
    "cd /srv/app\nnohup ./server &\n",
    'echo "\\$HOME is remote, $X is local"\n',
    "echo \\`date\\` and \\\\ and \\x\n",
    "ls \\\n  -l /srv\n",
    "\techo tab\n\t\techo two\n",  # with <<- : leading tabs go
    "x=$(echo local) y=`echo local2` z=${X:-d}\n",
    "echo 'single $X' \"double $X\"\n",
]


def _received(body: str, strip: bool) -> str:
    """What the command fed `<<EOF` (or `<<-EOF`) reads, by bash itself."""
    op = "<<-EOF" if strip else "<<EOF"
    script = f"cat {op}\n{body}EOF\n"
    done = subprocess.run(
        ["bash", "-c", script],
        env={"X": "LOCAL-X", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return done.stdout


def _values(layer: Layer) -> str:
    """The layer text with each expansion replaced by its local value (what bash sends):
    in double quotes, as in a heredoc body, each expands without splitting."""
    out = layer.text
    for e in sorted(layer.local_expansions, key=lambda e: e.start, reverse=True):
        source = layer.text[e.start : e.end]
        value = subprocess.run(
            ["bash", "-c", f'printf %s "{source}"'],
            env={"X": "LOCAL-X", "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout
        out = out[: e.start] + value + out[e.end :]
    return out


@pytest.mark.parametrize("body", BODIES)
def test_the_layer_is_what_the_remote_shell_reads(body: str) -> None:
    strip = body.startswith("\t")
    text = f"ssh h {'<<-EOF' if strip else '<<EOF'}\n{body}EOF\n"
    layer = _stdin_layer(text)
    assert layer.remote and layer.expanded
    assert _values(layer) == _received(body, strip)
    # every character maps back to the file character it came from
    for k, c in enumerate(layer.text):
        assert text[layer.file_offset(k)] == c


def test_a_backslash_ending_the_file_is_dropped_as_bash_drops_it(tmp_path: Path) -> None:
    """An unterminated body whose file ends in `\\`: bash hands on the body without it
    (and warns), so the remote shell reads `echo /root `, which parses.  (A script file:
    `bash -c` with such a string reads a byte past its end.)"""
    text = "ssh h <<EOF\necho $X \\"
    script = tmp_path / "t.sh"
    script.write_text("cat <<EOF\necho $X \\")
    done = subprocess.run(
        ["bash", str(script)],
        env={"X": "LOCAL-X", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.stdout == "echo LOCAL-X "
    assert _values(_stdin_layer(text)) == done.stdout
    assert "HL001" not in [f.code for f in check_shell(text, "t.sh", Settings())]


def test_expansions_are_the_parents() -> None:
    text = "ssh h <<EOF\necho $X ${Y} $(hostname) `id -u` \\$Z\nEOF\n"
    layer = _stdin_layer(text)
    shown = [layer.text[e.start : e.end] for e in layer.local_expansions]
    assert shown == ["$X", "${Y}", "$(hostname)", "`id -u`"]
    kinds = [(e.expansion.kind, e.expansion.name) for e in layer.local_expansions]
    assert kinds == [
        ("variable", "X"),
        ("variable", "Y"),
        ("command", "hostname"),
        ("backtick", "id -u"),
    ]
    # `$(hostname)` runs locally: no command of the layer stands for it
    assert [c.name for c in layer.script.commands] == ["echo"]


# -- the rules of the remote commands see them ---------------------------------------------


def _all(text: str) -> list[tuple[str, Severity, int, int]]:
    return [(f.code, f.severity, f.start, f.end) for f in check_shell(text, "t.sh", Settings())]


def test_hl104_in_an_unquoted_heredoc() -> None:
    text = "ssh web-1 <<EOF\ncd /srv/$APP\nnohup ./server &\nEOF\n"
    (f,) = kit.findings(text, "HL104")
    at = text.index("nohup")
    assert (f.start, f.severity) == (at, Severity.WARNING)
    assert kit.line_col(text, f.start) == (3, 1)
    fixed = fix_shell(text, "t.sh", settings=kit.settings_for("HL104"), unsafe=True).text
    assert fixed == text.replace("./server &", "./server > /dev/null 2>&1 < /dev/null &")


def test_hl109_in_an_unquoted_heredoc() -> None:
    text = "ssh web-1 bash -s <<EOF\nsudo echo $NAME > /etc/hostname\nEOF\n"
    (f,) = kit.findings(text, "HL109")
    assert f.severity is Severity.ERROR
    assert (f.start, kit.line_col(text, f.start)) == (text.index("> /etc"), (2, 17))
    # the fix would move `$NAME`, an expansion of the local shell: none is offered
    assert f.fix is None
    plain = "ssh web-1 bash -s <<EOF\nsudo echo web-1 > /etc/hostname\nEOF\n"
    (g,) = kit.findings(plain, "HL109")
    assert g.fix is not None and g.fix.applicability is Applicability.SAFE
    assert kit.apply_fix(plain, g) == plain.replace(
        "sudo echo web-1 > /etc/hostname", "echo web-1 | sudo tee /etc/hostname > /dev/null"
    )


def test_the_expansion_is_reported_once_by_hl107() -> None:
    text = "ssh web-1 <<EOF\necho $(hostname)\nnohup ./server &\nEOF\n"
    found = _all(text)
    op = text.index("<<")
    assert ("HL107", Severity.INFO, op, op + 2) in found
    expansion = text.index("$(hostname)")
    assert not [f for f in found if f[2] <= expansion < f[3]]  # no HL102 on it
    assert [f[0] for f in found] == ["HL107", "HL104"]


NEGATIVES = [
    "ssh web-1 <<EOF\nnohup ./server > /dev/null 2>&1 < /dev/null &\nEOF\n",
    "ssh -n web-1 <<EOF\nnohup ./server &\nEOF\n",  # ssh reads /dev/null, not the body
    "ssh web-1 'cat > run.sh' <<EOF\nnohup ./server &\nEOF\n",  # data for cat
    "ssh web-1 <<EOF\n$START_CMD\nEOF\n",  # what runs is the local value: unknown
    "ssh web-1 <<EOF\necho \\& nohup x\nEOF\n",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_no_remote_finding(text: str) -> None:
    assert kit.findings(text, "HL104") == []
    assert kit.findings(text, "HL109") == []


# -- at run time, through the real sshd -----------------------------------------------------


def test_the_job_holds_the_session(sshd: SshServer, tmp_path: Path) -> None:
    text = (
        f"LOG={tmp_path}/job.log\nssh {sshd.user}@web-1 <<EOF\n"
        "nohup sleep 6 2>\\$HOME/x.err &\necho started > $LOG\nEOF\n"
    )
    (f,) = kit.findings(text, "HL104")
    assert f.start == text.index("nohup")
    began = time.monotonic()
    ran = run_local(text, sshd, timeout=60)
    held = time.monotonic() - began
    assert ran.returncode == 0, ran.stderr
    assert (tmp_path / "job.log").read_text() == "started\n"  # $LOG was the local value
    assert held >= 5.5, f"ssh returned after {held:.2f}s: it did not wait for the job"
    fixed = fix_shell(text, "t.sh", settings=kit.settings_for("HL104"), unsafe=True).text
    assert kit.findings(fixed, "HL104") == []
    began = time.monotonic()
    ran = run_local(long_job(fixed, 6), sshd, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert time.monotonic() - began < AT_ONCE
