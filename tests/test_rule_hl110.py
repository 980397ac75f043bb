"""HL110 local-operator-after-ssh: `ssh h cd /x && cmd` runs cmd locally, the cd is lost.

Anchors (the operator) are computed from the text. The fix (unsafe; display-only when the
moved commands hold local expansions or redirections) moves the commands after the
operator into the remote string; it is re-checked and applied twice. Against the real
sshd, `ls` after `ssh h cd DIR &&` lists the local directory, and the fixed command lists
DIR.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer

from heredoc_lint.model import Applicability, Finding, Severity

CODE = "HL110"


def hl110(text: str) -> list[Finding]:
    return kit.findings(text, CODE)


# -- positives: (script, the text starting at the operator, what the message names) ---------
POSITIVES = [
    ("#!/bin/bash\nssh builder cd /src/project && make release\n", "&& make", "`cd`"),
    ("ssh builder 'cd /src/project' && make release && make install\n", "&& make release", "`cd`"),
    ("ssh -p 2222 ops@h export FOO=1; ./run.sh\n", "; ./run", "`export`"),
    ("ssh h cd /srv || make\n", "|| make", "`cd`"),
    ("ssh h FOO=1 && ./run\n", "&& ./run", "`FOO=1`"),
    ("ssh h umask 022 | tee log\n", "| tee", "`umask`"),
    ("ssh h source ~/.profile && ./deploy\n", "&& ./deploy", "`source`"),
    ("ssh h . /etc/profile && ./deploy\n", "&& ./deploy", "`.`"),
    ("ssh h ulimit -n 65536 && ./server\n", "&& ./server", "`ulimit`"),
    ("ssh h pushd /srv && make\n", "&& make", "`pushd`"),
    ("ssh h set -e && make\n", "&& make", "`set`"),
    ("ssh h 'cd /srv && export X=1' && make\n", "&& make", "`cd`, `export`"),
    ('ssh h cd "$dir" && make\n', "&& make", "`cd`"),
    ("ssh h cd /x && { make; }\n", "&& {", "the next command"),
    ("ssh h cd /x &&\n  make\n", "&&\n", "`cd`"),
    ("sudo -u deploy ssh h cd /srv && make\n", "&& make", "`cd`"),
    # nested layers: the operator inside a bash -c string, or inside an outer ssh string
    ("bash -c 'ssh h cd /x && make all'\n", "&& make all", "`cd`"),
    ('ssh gw "ssh inner cd /srv && make"\n', "&& make", "`cd`"),
]


@pytest.mark.parametrize(("text", "needle", "names"), POSITIVES)
def test_positive_anchor(text: str, needle: str, names: str) -> None:
    f = kit.assert_single(hl110(text), kit.span_of(text, needle), Severity.ERROR)
    assert "runs on this machine" in f.message
    assert f"so the {names} is lost" in f.message or names == "the next command"


def test_message_names_the_host_and_the_local_command() -> None:
    (f,) = hl110(kit.case_text("build_remote.sh"))
    assert "on builder" in f.message
    assert "`make release` runs on this machine" in f.message
    assert "the `cd` is lost" in f.message


def test_cli_json_line_and_column(tmp_path: Path) -> None:
    text = kit.case_text("build_remote.sh")
    (item,) = kit.cli_json(kit.copy_case("build_remote.sh", tmp_path), returncode=1)
    kit.assert_json_position(item, text, kit.span_of(text, "&& make"), (2, 29), (2, 31))
    assert item["severity"] == "error"
    assert item["fix"]["applicability"] == "unsafe"


NEGATIVES = [
    "ssh h 'cd /srv && make'\n",
    'ssh h "cd /x; make" && echo done\n',
    "ssh h cd /srv\nmake\n",  # a new line: not the `&&` trap
    "ssh h cd /srv;\nmake\n",
    "if ssh h cd /srv/app; then echo exists; fi\n",  # `;` of the if: a check
    "while ! ssh h cd /srv; do sleep 1; done\n",
    "ssh h cd /srv || exit 1\n",  # a local fallback is meant to run locally
    "ssh h cd /srv || true\n",
    "ssh h cd /srv || { echo missing; exit 1; }\n",
    "ssh h cd /srv &\n",
    "ssh h set && echo\n",  # `set` alone prints
    "ssh h export && echo\n",
    "ssh h uptime && echo ok\n",
    "ssh h ls /srv | grep x\n",
    "ssh h 'x=$(hostname)' && echo\n",
    "ssh -N -L 8080:localhost:80 h && echo\n",
    "cd /srv && make\n",
    "bash -c 'cd /x' && make\n",
    'echo "ssh h cd /x && make"\n',
    "ssh h && make\n",
    kit.case_text("clean_ok.sh"),
    kit.case_text("fanout.sh"),
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_negative(text: str) -> None:
    assert hl110(text) == []


# -- fixes ------------------------------------------------------------------------------
FIXES = [
    (
        kit.case_text("build_remote.sh"),
        "#!/bin/bash\nssh builder 'cd /src/project && make release'\n",
    ),
    (
        "ssh builder 'cd /src/project' && make release && make install\n",
        "ssh builder 'cd /src/project && make release && make install'\n",
    ),
    ("ssh -p 2222 ops@h export FOO=1; ./run.sh\n", "ssh -p 2222 ops@h 'export FOO=1; ./run.sh'\n"),
    ("ssh h umask 022 | tee log\n", "ssh h 'umask 022 | tee log'\n"),
    ("ssh h cd /srv && make; echo done\n", "ssh h 'cd /srv && make'; echo done\n"),
    ("ssh h cd /srv && make &\n", "ssh h 'cd /srv && make' &\n"),
    ("bash -c 'ssh h cd /x && make all'\n", "bash -c 'ssh h \"cd /x && make all\"'\n"),
    (
        "ssh h cd /srv && git log --format='%h %s'\n",
        "ssh h \"cd /srv && git log --format='%h %s'\"\n",
    ),
]


@pytest.mark.parametrize(("text", "fixed"), FIXES)
def test_fix_is_unsafe_clean_and_idempotent(text: str, fixed: str) -> None:
    kit.single_fix(hl110(text), Applicability.UNSAFE)
    outcome = kit.assert_fixed_clean_and_idempotent(text, CODE, unsafe=True)
    assert outcome == fixed


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ('ssh h cd "$dir" && make\n', '"cd $dir && make"'),
        ("ssh h cd /srv && make VERSION=$v\n", "'cd /srv && make VERSION=$v'"),
        ("ssh h cd /srv && make > build.log\n", "'cd /srv && make > build.log'"),
    ],
)
def test_fix_moving_local_expansions_or_files_is_display_only(text: str, content: str) -> None:
    kit.assert_display_only(text, CODE, content)


@pytest.mark.parametrize(
    "text",
    [
        "ssh h cd /x && { make; }\n",  # a compound: no simple command to move
        "ssh h cd /x < /dev/null && make\n",  # the ssh's own redirection
        "ssh h cd /x && make \\\n  all\n",
    ],
)
def test_no_fix_when_the_move_is_unclear(text: str) -> None:
    (f,) = hl110(text)
    assert f.fix is None


# -- runtime: the real ssh against the real sshd -------------------------------------------
def test_runtime_the_cd_is_lost_and_ls_runs_locally(sshd: SshServer, tmp_path: Path) -> None:
    remote = tmp_path / "src" / "project"
    remote.mkdir(parents=True)
    (remote / "remote-marker").write_text("")
    local = tmp_path / "here"
    local.mkdir()
    (local / "local-marker").write_text("")
    script = f"#!/bin/bash\nssh builder cd {remote} && ls && pwd\n"
    assert len(hl110(script)) == 1
    before = kit.run_ok(script, sshd, cwd=local)
    assert before.stdout.splitlines() == ["local-marker", str(local)]

    fixed = kit.fix_text(script, CODE, unsafe=True)
    assert fixed == f"#!/bin/bash\nssh builder 'cd {remote} && ls && pwd'\n"
    after = kit.run_ok(fixed, sshd, cwd=local)
    assert after.stdout.splitlines() == ["remote-marker", str(remote)]
