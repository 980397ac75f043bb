"""One set of shell names (heredoc_lint.shell.names), checked against the real shells.

Every name in SHELLS must be a program that runs `NAME -c SCRIPT` as sh does, and every
reader of shell names (the wrapper table, the agent hooks, the GitHub Actions frontend)
must take the same set.  `busybox sh -c S` is a layer the way `sh -c S` is.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import rulekit as kit
from test_actions import workflow

from heredoc_lint.agents.commands import script_from_argv, unwrap_shell_c
from heredoc_lint.engine import check_text
from heredoc_lint.frontends.actions import fragments
from heredoc_lint.layers.wrappers import WRAPPERS, resolve
from heredoc_lint.model import Severity
from heredoc_lint.run.discover import kind_of
from heredoc_lint.shell.names import MULTICALL, SHELLS
from heredoc_lint.shell.syntax import parse_script

# Shells that Debian ships only as a BusyBox applet (Alpine's /bin/ash is BusyBox).
_APPLETS = {"ash": ["busybox", "ash"]}


def _argv(name: str) -> list[str] | None:
    """How to start the real shell NAME here; None when it is not installed."""
    if name in _APPLETS:
        return _APPLETS[name] if shutil.which("busybox") else None
    return [name] if shutil.which(name) else None


def _require(argv: list[str] | None, name: str) -> list[str]:
    if argv is None:
        message = f"{name} is not installed (apt-get install zsh ksh mksh busybox)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return argv


@pytest.mark.parametrize("name", sorted(SHELLS))
def test_each_name_runs_a_c_script_like_sh(name: str) -> None:
    argv = _require(_argv(name), name)
    # $0 is the first argument after the script; `;` and `&&` are the shell's own.
    done = subprocess.run(
        [*argv, "-c", 'printf "%s|" "$0" "$1"; false && echo no; echo ok', "zero", "one"],
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "zero|one|ok\n")


@pytest.mark.parametrize("name", sorted(SHELLS))
def test_each_name_reads_its_script_from_stdin_with_s(name: str) -> None:
    argv = _require(_argv(name), name)
    done = subprocess.run(
        [*argv, "-s", "a"],
        input='echo "got $1"\n',
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "got a\n")


def test_busybox_runs_the_applet_its_first_word_names() -> None:
    argv = _require(shutil.which("busybox") and ["busybox"], "busybox")
    done = subprocess.run(
        [*argv, "sh", "-c", 'echo "$0"', "x"], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout) == (0, "x\n")
    assert {"busybox"} == MULTICALL


def test_not_a_shell_name_busybox_sh() -> None:
    # `busybox-sh` was listed once; no shell of that name exists: busybox is run as
    # `busybox sh`, which the resolver reads below.
    assert "busybox-sh" not in SHELLS
    assert shutil.which("busybox-sh") is None


def test_the_wrapper_table_resolves_every_shell() -> None:
    for name in SHELLS:
        assert name in WRAPPERS
        found = resolve(parse_script(f"{name} -c 'a; b'").commands[0].words)
        assert found is not None
        assert (found.wrapper, [w.value for w in found.words]) == (f"{name} -c", ["a; b"])


@pytest.mark.parametrize("line", ["busybox sh -c 'a; b'", "busybox ash -c 'a; b'"])
def test_busybox_shell_is_a_layer(line: str) -> None:
    found = resolve(parse_script(line).commands[0].words)
    assert found is not None
    assert found.index == 1  # the applet's word, after `busybox`
    assert [w.value for w in found.words] == ["a; b"]


def test_busybox_sh_pkill_self_match_is_found() -> None:
    # Measured with BusyBox 1.35: `busybox ash -c 'pkill -f fooXYZ; echo after'` prints
    # nothing and dies of SIGTERM: the shell's own command line holds the pattern.
    text = "busybox ash -c 'pkill -f fooXYZ; echo after'\n"
    found = [(f.code, text[f.start : f.end]) for f in check_text(text, "shell", "t.sh")]
    assert ("HL103", "pkill") in found
    argv = _require(shutil.which("busybox") and ["busybox"], "busybox")
    done = subprocess.run(
        [*argv, "ash", "-c", "pkill -f fooXYZ; echo after"],
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )
    assert (done.returncode, done.stdout) == (-15, "")  # killed by its own SIGTERM


@pytest.mark.parametrize("name", sorted(SHELLS))
def test_agent_argv_of_every_shell(name: str) -> None:
    assert script_from_argv([name, "-c", "ls"]) == "ls"
    assert script_from_argv(["busybox", name, "-c", "ls"]) == "ls"
    assert unwrap_shell_c(f"{name} -lc 'ls | wc'") == "ls | wc"
    assert unwrap_shell_c("busybox sh -c 'ls | wc'") == "ls | wc"


@pytest.mark.parametrize("name", sorted(SHELLS - {"bash", "sh"}))
def test_actions_step_with_any_shell_is_read(name: str) -> None:
    # `shell: mksh {0}` runs the step's script with mksh: GitHub Actions takes any
    # command line holding {0}.  It used to be read only for bash, sh, zsh, dash, ksh.
    text = workflow(f"      - run: scp -p 22 f h:/x\n        shell: {name} {{0}}\n")
    (fragment,) = fragments(text)
    assert fragment.cmdline.split()[0] == name
    assert [f.code for f in check_text(text, "actions", "w.yml")] == ["HL108"]


@pytest.mark.parametrize("name", sorted(SHELLS))
def test_a_shebang_of_every_shell_is_a_shell_script(name: str) -> None:
    for head in (f"#!/bin/{name}\n", f"#!/usr/bin/env {name}\n", f"#! /usr/bin/{name} -e\n"):
        assert kind_of(Path("deploy"), head.encode()) == "shell"
    assert kind_of(Path("deploy"), f"#!/bin/{name}x\n".encode()) is None


@pytest.mark.parametrize("name", sorted(SHELLS))
def test_only_dash_keeps_its_process_for_a_lone_command(name: str) -> None:
    # HL103 exempts a lone `pkill -f P` in `NAME -c` unless the shell is sh or dash: the
    # others exec the command, so no process with P on its command line is left to kill.
    # (/bin/sh is dash here, as on Debian and Ubuntu.)
    argv = _require(_argv(name), name)
    mark = f"hlzqlone{os.getpid()}{name}"
    done = subprocess.run(
        [*argv, "-c", f"pkill -f {mark}"], capture_output=True, text=True, timeout=10, check=False
    )
    killed = done.returncode == -15
    assert killed == (name in ("sh", "dash")), done.returncode


# -- shell/names.py: each POSIX-family shell, by name ---------------------------------------


MARK = "hlmutemark"  # no other process on this machine has it on its command line


# Written out, not read from SHELLS: a name dropped from the set must fail here.
_SHELL_ARGV = {
    "sh": ["sh"],
    "bash": ["bash"],
    "dash": ["dash"],
    "zsh": ["zsh"],
    "ksh": ["ksh"],
    "mksh": ["mksh"],
    "ash": ["busybox", "ash"],
}


def test_each_shell_name_starts_a_layer() -> None:
    """`NAME -c 'pkill -f P; echo after'` kills its own shell for each of the seven
    shells (the real program runs it: SIGTERM, `after` never printed), and
    HL103 says so at the `pkill` (names `SHELLS`, each name)."""
    for name, argv in _SHELL_ARGV.items():
        script = f"pkill -f {MARK}; echo after"
        ran = subprocess.run(
            [*argv, "-c", script], capture_output=True, text=True, check=False, timeout=30
        )
        # killed by SIGTERM (-15), or the shell's status 143 (128 + SIGTERM)
        assert ran.returncode in (-15, 143) and ran.stdout == "", (name, ran)
        text = f"{name} -c '{script}'\n"
        at = text.index("pkill")
        found = kit.findings(text, "HL103")
        assert [(f.start, f.end, f.severity) for f in found] == [
            (at, at + len("pkill"), Severity.ERROR)
        ], name
