"""docs/channels.md names the runtime tests of its cells: each name is a test that exists.

`SHELL[CODE-channel]`, `ARGV[name]` and `SUDO[channel]` are the parametrised tests of
tests/test_channels_runtime_{shell,argv,sudo}.py (the doc says so above its table), and a
`tests/...py::name` is a function of that file. No cell is left "(static)".
"""

from __future__ import annotations

import re
from pathlib import Path

import test_channels_runtime_argv as argv
import test_channels_runtime_shell as shell
import test_channels_runtime_sudo as sudo

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "channels.md").read_text()
TABLE = "\n".join(line for line in DOC.splitlines() if line.startswith("| "))


def test_no_cell_is_static() -> None:
    assert "(static)" not in DOC


def test_every_shell_reference_runs_on_every_channel() -> None:
    cited = re.findall(r"`SHELL\[(HL\d{3})-\*\]`", TABLE)
    codes = {case.code for case in shell.CASES}
    assert set(cited) == codes, set(cited) ^ codes


def test_every_argv_and_sudo_reference_is_a_case() -> None:
    argv_cited = set(re.findall(r"`ARGV\[([^\]]+)\]`", TABLE))
    sudo_cited = set(re.findall(r"`SUDO\[([^\]]+)\]`", TABLE))
    assert argv_cited == set(argv.CASES), argv_cited ^ set(argv.CASES)
    assert sudo_cited == set(sudo.CHANNELS), sudo_cited ^ set(sudo.CHANNELS)


def test_every_named_test_function_exists() -> None:
    for path, name in re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", DOC):
        assert f"\ndef {name}(" in (ROOT / path).read_text(), (path, name)
