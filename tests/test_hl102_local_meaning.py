"""HL102: two patterns meant locally that the rule reported as warnings.

1. `$$` as part of a name (`/tmp/u.$$`, `job-$$`, `x=${$}.tmp`): a run id, which several
   calls of one run must agree on (`ssh h "sar 1 5 > /tmp/u.$$"; ssh h "cat /tmp/u.$$"`),
   and they do only with the local id.  `$$` where it names the process, or alone, stays
   evidence `special-parameter`: `kill $$`, `echo $$ > app.pid`, `/proc/$$/status`,
   `pid=$$` (info by default since its first look: 2 TP / 1 FP / 2 debatable in
   heredoc_lint/severities.py; a name is `special-parameter-local-use`, also info).
2. A docker or podman container of this host (`docker run img sh -c "make -j$(nproc)"`):
   a probe of what it shares with the host is this machine's, as meant (evidence
   `machine-probe-local-use`).  Through ssh, `docker -H ssh://h`, a context or DOCKER_HOST
   it stays a probe of this machine (evidence `machine-probe`, reported with an escape
   fix); so do the probes of the container's own files and processes (`$(which python)`,
   `$(pgrep app)`).  Both kinds default to info (heredoc_lint/severities.py: `machine-probe`
   measured 0 TP / 6 FP on a first look); the evidence kind tells them apart.

Bash is the oracle: a fake `ssh` (and `docker`) on PATH prints the command it is given,
which shows what the local shell put there.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import rulekit as kit

from heredoc_lint.model import Finding, Severity

CODE = "HL102"

_FAKE = """\
#!/bin/bash
# ssh HOST CMD / docker ... sh -c CMD: print the command string as it arrives
printf 'ran: %s\\n' "${@: -1}"
"""


def hl102(text: str) -> list[Finding]:
    return kit.findings(text, CODE)


def at(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    return start, start + len(needle)


def severity_at(text: str, needle: str, nth: int = 0) -> Severity:
    hits = [f for f in hl102(text) if (f.start, f.end) == at(text, needle, nth)]
    assert len(hits) == 1, hl102(text)
    return hits[0].severity


def run_with_fakes(tmp_path: Path, script: str) -> list[str]:
    """The command strings that the script's ssh and docker are given, in order."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name in ("ssh", "docker", "podman"):
        fake = bin_dir / name
        fake.write_text(_FAKE)
        fake.chmod(0o755)
    path = tmp_path / "s.sh"
    path.write_text(script)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", str(path)], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return [line.removeprefix("ran: ") for line in done.stdout.splitlines()]


# -- 1. `$$` in a name: info ------------------------------------------------------------------
NAME_MAKERS = [
    ('ssh h "sar 1 5 > /tmp/u.$$"\nssh h "cat /tmp/u.$$"\n', "$$", 0),
    ('ssh h "sar 1 5 > /tmp/u.$$"\nssh h "cat /tmp/u.$$"\n', "$$", 1),
    ('ssh h "sar 1 5 > /tmp/u.$$"\n', "$$", 0),  # one call: a name all the same
    ('ssh h "tail -f log.$$.txt"\n', "$$", 0),
    ('ssh h "mkdir job-$$ && cd job-$$"\n', "$$", 1),
    ('ssh h "x=${$}.tmp; touch $x"\n', "${$}", 0),
    ('ssh h "ls /tmp/u.${$}"\n', "${$}", 0),
    ("ssh h \"cat '/tmp/q.$$'\"\n", "$$", 0),  # quotes of the inner shell
    ('ssh h "make 2>/tmp/err.$$"\n', "$$", 0),  # a redirect's file name
    ('ssh h "tar czf b.tgz . --log=/tmp/l.$$"\n', "$$", 0),  # an option's file name
    ('ssh h "echo x; screen -dmS run$$ make"\n', "$$", 0),
]


@pytest.mark.parametrize(("text", "needle", "nth"), NAME_MAKERS)
def test_pid_in_a_name_is_meant_locally(text: str, needle: str, nth: int) -> None:
    found = [f for f in hl102(text) if (f.start, f.end) == at(text, needle, nth)]
    assert len(found) == 1, hl102(text)
    f = found[0]
    assert f.severity is Severity.INFO
    assert "a part of a name" in f.message
    assert f.fix is None  # no unsafe escape offered for what is meant


def test_bash_the_two_calls_get_the_same_local_id(tmp_path: Path) -> None:
    """The name the two calls share is the local id, the same in both; with `\\$$` each
    remote shell would make its own (the fake ssh shows what is sent)."""
    sent = run_with_fakes(
        tmp_path, 'ssh h "sar 1 5 > /tmp/u.$$"\nssh h "cat /tmp/u.$$"\necho "local $$"\n'
    )
    pid = sent[2].removeprefix("local ")
    assert sent[:2] == [f"sar 1 5 > /tmp/u.{pid}", f"cat /tmp/u.{pid}"]
    escaped = run_with_fakes(tmp_path, 'ssh h "sar 1 5 > /tmp/u.\\$$"\nssh h "cat /tmp/u.\\$$"\n')
    assert escaped == ["sar 1 5 > /tmp/u.$$", "cat /tmp/u.$$"]
    # two remote shells are two processes: `$$` there differs between the calls
    remote = subprocess.run(
        ["bash", "-c", 'bash -c "echo /tmp/u.\\$$"; bash -c "echo /tmp/u.\\$$"'],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert remote[0] != remote[1]


# -- `$$` that names the process: still `special-parameter`, info since its first look --------
PROCESS = [
    ('ssh h "kill $$"\n', "$$", 0),
    ('ssh h "echo $$ > /tmp/app.pid"\n', "$$", 0),
    ('ssh h "wait $$"\n', "$$", 0),
    ('ssh h "sudo kill -9 $$"\n', "$$", 0),
    ('ssh h "kill -TERM -$$"\n', "$$", 0),
    ('ssh h "cat /proc/$$/status"\n', "$$", 0),
    ('ssh h "strace -p$$"\n', "$$", 0),
    ('ssh h "pid=$$; echo \\$pid"\n', "$$", 0),
    ('ssh h "mkdir $$"\n', "$$", 0),  # alone: not known to be a name
    ('ssh h "echo \\"$$\\""\n', "$$", 0),
]


@pytest.mark.parametrize(("text", "needle", "nth"), PROCESS)
def test_pid_naming_the_process_is_info_as_a_special_parameter(
    text: str, needle: str, nth: int
) -> None:
    """Info like a name's `$$` (the first-look tier of `special-parameter`), told apart from
    it by the evidence kind."""
    assert severity_at(text, needle, nth) is Severity.INFO
    (f,) = [f for f in hl102(text) if (f.start, f.end) == at(text, needle, nth)]
    assert f.evidence == "special-parameter"


# -- 2. a container of this host: info --------------------------------------------------------
CONTAINERS = [
    ('docker run img bash -c "make -j$(nproc)"\n', "$(nproc)"),
    ('docker exec c sh -c "echo $(hostname)"\n', "$(hostname)"),
    ('podman run img sh -c "echo $(uname -m)"\n', "$(uname -m)"),
    ('sudo docker exec -u root c sh -c "chown $(id -u) /out"\n', "$(id -u)"),
    ('docker compose exec web sh -c "make -j`nproc`"\n', "`nproc`"),
    ('ssh h "docker run i sh -c \\"make -j\\$(nproc)\\""\n', "$(nproc)"),  # both on h
]


@pytest.mark.parametrize(("text", "needle"), CONTAINERS)
def test_host_probe_in_a_local_container_is_meant_locally(text: str, needle: str) -> None:
    found = [f for f in hl102(text) if text[f.start : f.end] == needle]
    assert len(found) == 1, hl102(text)
    assert found[0].evidence == "machine-probe-local-use"
    assert found[0].severity is Severity.INFO
    assert "and so does the container" in found[0].message
    assert found[0].fix is None


def test_bash_docker_gets_the_local_value(tmp_path: Path) -> None:
    sent = run_with_fakes(tmp_path, 'docker run img bash -c "make -j$(nproc)"\nnproc\n')
    assert sent == [f"make -j{sent[1]}", sent[1]]


# -- another machine, or the container's own world: still a probe of this machine -------------
ELSEWHERE = [
    ('ssh h "nproc; make -j$(nproc)"\n', "$(nproc)"),
    ('docker -H ssh://h run img sh -c "make -j$(nproc)"\n', "$(nproc)"),
    ('docker --host=tcp://h:2375 run img sh -c "make -j$(nproc)"\n', "$(nproc)"),
    ('docker --context prod run img sh -c "make -j$(nproc)"\n', "$(nproc)"),
    ('DOCKER_HOST=ssh://h docker run img sh -c "make -j$(nproc)"\n', "$(nproc)"),
    ('env DOCKER_HOST=ssh://h docker run img sh -c "make -j$(nproc)"\n', "$(nproc)"),
    ('export DOCKER_HOST=ssh://h\ndocker run img sh -c "make -j$(nproc)"\n', "$(nproc)"),
    ('docker exec c ssh h "echo $(nproc)"\n', "$(nproc)"),
    ('kubectl exec p -- sh -c "echo $(nproc)"\n', "$(nproc)"),
    ('docker exec c sh -c "$(which python) app.py"\n', "$(which python)"),
    ('docker exec c sh -c "kill $(pgrep app)"\n', "$(pgrep app)"),
    ('docker exec c sh -c "echo $(cat /etc/os-release)"\n', "$(cat /etc/os-release)"),
]


@pytest.mark.parametrize(("text", "needle"), ELSEWHERE)
def test_probe_elsewhere_stays_a_machine_probe(text: str, needle: str) -> None:
    """Not the local-use kind: `machine-probe` (default severity info since its first look,
    0 TP / 6 FP), with the message and the escape fix of a probe of this machine."""
    found = [f for f in hl102(text) if text[f.start : f.end] == needle]
    assert len(found) == 1, hl102(text)
    assert found[0].evidence == "machine-probe"
    assert found[0].severity is Severity.INFO
    assert "describes this machine" in found[0].message
    assert "and so does the container" not in found[0].message
    assert found[0].fix is not None
