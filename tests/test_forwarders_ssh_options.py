"""Issue 16, item 4 (shell side): the ssh options of a forwarding function are read.

    remote() { ssh -t root@h "$@"; }
    remote "sudo echo x > /etc/f; nohup ./server &"

A call of a function whose ssh has `-t`, `-f`, `-n` or a root login starts the layer of
that ssh, with those options where the rules read them: HL104 sees the `-t`/`-f` (no
session is held), HL109 the root login (`root@h`, `-l root`: the redirection is root's),
HL105 the `-n` (ssh reads /dev/null, not the loop's lines).  Each call says what the same
ssh written out says.  Behind a function, no fix edits the body's ssh through the call:
HL105 says to put `-n` in the function, and offers no edit.

Bash is the oracle, through the loopback sshd: a forwarding call in a `while read` loop
reads the loop's lines (one pass instead of three), which `-n` in the body cures; a `-f`
call returns before its remote job ends.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.engine import check_shell
from heredoc_lint.model import Severity
from heredoc_lint.run.settings import Settings

STRINGS = [
    "sudo echo x > /etc/f; ./x",  # HL109, unless the login is root
    "nohup ./server &",  # HL104, unless -t or -f
    "pkill -f hlmark; ./x",  # HL103
    "cd /srv && sudo echo x > /etc/f && nohup ./server &",
]
OPTIONS = ["-t", "-f", "-n", "-tt", "-l root", "-l deploy", "-o BatchMode=yes -p 22", "-nt"]
HOSTS = ["h", "root@h", "deploy@h"]


def _said(text: str) -> list[tuple[str, Severity, str]]:
    found = check_shell(text, "t.sh", Settings())
    return sorted((f.code, f.severity, f.message) for f in found if f.code != "HL102")


@pytest.mark.parametrize("remote", STRINGS)
@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize("options", OPTIONS)
def test_the_call_says_what_the_ssh_says(remote: str, host: str, options: str) -> None:
    direct = f'ssh {options} {host} "{remote}"\n'
    called = f'remote() {{ ssh {options} {host} "$@"; }}\nremote "{remote}"\n'
    assert _said(called) == _said(direct)


@pytest.mark.parametrize("remote", STRINGS)
@pytest.mark.parametrize("host", HOSTS)
def test_the_host_as_an_argument(remote: str, host: str) -> None:
    direct = f'ssh -t {host} "{remote}"\n'
    called = f'on() {{ ssh -t "$1" "${{@:2}}"; }}\non {host} "{remote}"\n'
    assert _said(called) == _said(direct)


def test_what_the_options_change() -> None:
    """The readings that differ from a plain `ssh h`: shown one by one."""
    plain = 'remote() {{ ssh {o} "$@"; }}\nremote "sudo echo x > /etc/f; nohup ./server &"\n'
    assert [s[0] for s in _said(plain.format(o="h"))] == ["HL104", "HL109"]
    assert [s[0] for s in _said(plain.format(o="-t h"))] == ["HL109"]
    assert [s[0] for s in _said(plain.format(o="-f h"))] == ["HL109"]
    assert [s[0] for s in _said(plain.format(o="root@h"))] == ["HL104"]
    assert [s[0] for s in _said(plain.format(o="-l root h"))] == ["HL104"]
    assert [s[0] for s in _said(plain.format(o="-t -l root h"))] == []


# -- HL105: a forwarding call in a `while read` loop ---------------------------------------
LOOP = (
    'on() {{ ssh {n}"$1" "${{@:2}}"; }}\n'
    'while read -r h; do\n  on "$h" echo "seen $h"\ndone < {hosts}\n'
)


def test_hl105_at_the_call_without_an_edit() -> None:
    text = LOOP.format(n="", hosts="hosts")
    (f,) = kit.findings(text, "HL105")
    at = text.index('on "$h"')
    assert (f.start, f.end, f.severity) == (at, at + 2, Severity.WARNING)
    assert kit.line_col(text, f.start) == (3, 3)
    assert "use `ssh -n` in the function `on` (or `on ... < /dev/null`)" in f.message
    assert f.fix is None  # `on -n` would make `-n` the destination
    assert kit.findings(LOOP.format(n="-n ", hosts="hosts"), "HL105") == []


def test_hl105_behind_a_literal_keeps_its_fix() -> None:
    text = 'SSH="ssh -o BatchMode=yes"\nwhile read -r h; do\n  $SSH "$h" uptime\ndone < hosts\n'
    (f,) = kit.findings(text, "HL105")
    assert f.start == text.index('$SSH "$h"')
    assert f.fix is not None
    assert kit.apply_fix(text, f) == text.replace('$SSH "$h"', '$SSH -n "$h"')


def test_bash_shows_the_loop_swallowed(sshd: SshServer, tmp_path: Path) -> None:
    hosts = tmp_path / "hosts"
    hosts.write_text("".join(f"{sshd.user}@gpu-{k}\n" for k in "abc"))
    ran = run_local(LOOP.format(n="", hosts=hosts), sshd, timeout=60)
    assert ran.stdout.count("seen ") == 1, ran.stdout + ran.stderr
    ran = run_local(LOOP.format(n="-n ", hosts=hosts), sshd, timeout=60)
    assert ran.stdout.count("seen ") == 3, ran.stdout + ran.stderr


# -- HL104: -f returns at once, a plain call holds the session ------------------------------


def _returned_after(text: str, sshd: SshServer) -> float:
    """Seconds until the call returned, timed by the script itself: a `-f` ssh keeps the
    captured stdout open in the background, so the end of the process says nothing."""
    timed = f'start=$(date +%s%N)\n{text}echo "ms=$(( ($(date +%s%N) - start) / 1000000 ))"\n'
    ran = run_local(timed, sshd, timeout=60)
    assert ran.returncode == 0, ran.stderr
    (line,) = [x for x in ran.stdout.splitlines() if x.startswith("ms=")]
    return int(line[3:]) / 1000


def test_bash_shows_f_does_not_hold(sshd: SshServer) -> None:
    job = 'remote() {{ ssh {o} {host} "$@"; }}\nremote "cd /tmp; nohup sleep 6 &"\n'
    host = f"{sshd.user}@web-1"
    held = job.format(o="", host=host)
    (f,) = kit.findings(held, "HL104")
    assert f.start == held.index("nohup")
    assert _returned_after(held, sshd) >= 5.5
    free = job.format(o="-f", host=host)
    assert kit.findings(free, "HL104") == []
    assert _returned_after(free, sshd) < 4.5
