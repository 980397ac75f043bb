"""Wrappers defined in the project's own Python modules (frontends/python/modules.py):
`from .util import execute_command` where util.py hands its parameter to a shell; the
calls' command strings are checked as that shell runs them, and a real run agrees."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_process import run_cli

from heredoc_lint.engine import check_text
from heredoc_lint.frontends import fragments, may_hold_fragments
from heredoc_lint.frontends.python.modules import project_wrappers
from heredoc_lint.layers.pywrappers import PyWrapper

UTIL = """import os
import subprocess
from subprocess import check_output


def execute_command(cmd):
    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout


def output(cmd):
    return check_output(cmd, shell=True)


def system(cmd):
    os.system(cmd)


def remote(client, cmd, timeout=10):
    return client.exec_command(cmd, timeout=timeout)


def listed(cmd):
    return subprocess.run(cmd, capture_output=True)  # an argv: no shell


def rebound(cmd):
    cmd = cmd.replace("x", "y")
    return subprocess.run(cmd, shell=True)
"""


def package(tmp_path: Path, main: str) -> Path:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "util.py").write_text(UTIL)
    (pkg / "main.py").write_text(main)
    return pkg / "main.py"


def hl103(path: Path) -> list[int]:
    text = path.read_text()
    return [
        text.count("\n", 0, f.start) + 1
        for f in check_text(text, "python", str(path))
        if f.code == "HL103"
    ]


def test_the_wrappers_a_module_defines(tmp_path: Path) -> None:
    main = package(tmp_path, "from .util import execute_command, output, system, remote\n")
    wrappers, stamp = project_wrappers(str(main), main.read_text())
    assert set(wrappers) == {
        PyWrapper("execute_command", 0, "sh"),
        PyWrapper("output", 0, "sh"),
        PyWrapper("system", 0, "sh"),
        PyWrapper("remote", 1, "ssh"),
    }
    assert str(tmp_path / "pkg" / "util.py") in stamp


@pytest.mark.parametrize(
    "main",
    [
        'from .util import execute_command\nexecute_command("pkill -f app; ./app")\n',
        'from pkg.util import execute_command as run\nrun("pkill -f app; ./app")\n',
        'from pkg import util\nutil.execute_command("pkill -f app; ./app")\n',
        'from . import util\nutil.system("pkill -f app; ./app")\n',
        'import pkg.util as u\nu.output("pkill -f app; ./app")\n',
        'from .util import remote\nremote(client, "pkill -f app; ./app")\n',
    ],
)
def test_a_call_of_an_imported_wrapper_is_checked(tmp_path: Path, main: str) -> None:
    assert hl103(package(tmp_path, main)) == [2]


@pytest.mark.parametrize(
    "main",
    [
        'from .util import listed\nlisted("pkill -f app; ./app")\n',  # no shell
        'from .util import rebound\nrebound("pkill -f app; ./app")\n',  # changed first
        'from .other import execute_command\nexecute_command("pkill -f app; ./app")\n',
        'import subprocess as util\nutil.execute_command("pkill -f app; ./app")\n',
        'from .util import execute_command\nexecute_command(cmd="pkill -f app; ./app")\n',
    ],
)
def test_what_is_not_a_wrapper_is_not_read(tmp_path: Path, main: str) -> None:
    assert hl103(package(tmp_path, main)) == []


def test_a_file_that_only_calls_an_imported_wrapper_may_hold_fragments(tmp_path: Path) -> None:
    # The memory bound asks this before it sends a large file to a worker of its own.
    main = package(tmp_path, "from .util import execute_command\nexecute_command('x')\n")
    text = main.read_text()
    assert may_hold_fragments("python", text, str(main))
    assert fragments("python", text, str(main))
    # The same text where no module of the project is found: nothing to parse.
    assert not may_hold_fragments("python", text, str(tmp_path / "main.py"))
    assert fragments("python", text, str(tmp_path / "main.py")) == []


def test_the_real_run_agrees(tmp_path: Path) -> None:
    """pgrep -f in the string that util's `subprocess.run(..., shell=True)` runs finds the
    shell running it: "busy" with no such process."""
    main = package(
        tmp_path,
        "from .util import execute_command\n\n\ndef busy():\n"
        '    return execute_command("pgrep -f hl-no-such-worker-7Q > /dev/null && echo busy")\n',
    )
    assert hl103(main) == [5]
    ran = subprocess.run(
        [sys.executable, "-c", "from pkg.main import busy; print(busy(), end='')"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert ran.stdout == "busy\n"


def test_editing_the_module_rechecks_the_importer(tmp_path: Path) -> None:
    main = package(
        tmp_path, 'from .util import execute_command\nexecute_command("pkill -f a; ./a")\n'
    )
    cache = str(tmp_path / "cache")

    def found() -> list[str]:
        ran = run_cli("--format", "json", "--cache-dir", cache, main)
        return [f["code"] for f in json.loads(ran.stdout)]

    assert found() == ["HL103"]
    util = tmp_path / "pkg" / "util.py"
    util.write_text(UTIL.replace("shell=True, capture_output", "capture_output"))
    assert found() == []
