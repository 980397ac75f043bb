"""The typer-free check (`entry._plain_check`) reads its command lines as typer does.

A plain `heredoc-lint [OPTION...] PATH...` skips typer's imports; the values it hands to
`console.check_values` must be the very ones typer hands it, or it must leave the line
to typer.  Each command line below goes both ways and the two are compared.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from heredoc_lint.cli import app as cli
from heredoc_lint.cli import entry
from heredoc_lint.report import console

PLAIN = [
    ["a.sh"],
    ["check", "a.sh", "b.sh"],
    ["--format", "json", "a.sh"],
    ["--format=sarif", "a.sh"],
    ["--severity", "info", "--no-cache", "a.sh"],
    ["-j", "2", "--quiet", "a.sh"],
    ["--jobs=3", "-q", "dir/"],
    ["a.sh", "--cache-dir", "c"],
]
TO_TYPER = [
    [],
    ["-"],
    ["--", "a.sh"],
    ["--fix", "a.sh"],
    ["--select", "HL103", "a.sh"],
    ["--format", "yaml", "a.sh"],
    ["--jobs", "0", "a.sh"],
    ["-j2", "a.sh"],
    ["--no-cache"],
    ["rules"],
]


def _typer_values(args: list[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    seen: list[dict[str, Any]] = []
    monkeypatch.setattr(console, "check_values", lambda values: seen.append(values) or 0)
    assert cli.run(list(args)) == 0
    (values,) = seen
    return values


@pytest.mark.parametrize("args", PLAIN, ids=" ".join)
def test_a_plain_line_gets_the_values_typer_gives(
    args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = entry._plain_check(list(args))
    assert plain is not None, "read by typer: this line no longer takes the fast path"
    typer_values = _typer_values(args, monkeypatch)
    assert {k: v for k, v in plain.items() if k != "paths"} == {
        k: v for k, v in typer_values.items() if k != "paths"
    }
    assert [Path(p) for p in plain["paths"]] == [Path(p) for p in typer_values["paths"]]


@pytest.mark.parametrize("args", TO_TYPER, ids=lambda a: " ".join(a) or "nothing")
def test_any_other_line_is_left_to_typer(args: list[str]) -> None:
    assert entry._plain_check(list(args)) is None
