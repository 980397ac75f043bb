"""`python-wrappers` in the language server and in `heredoc-lint explain`, as in `check`.

A real pyproject.toml names the project's own `myproj.remote.run` (it runs its
argument over ssh); the real server (driven by pygls' client, as in
tests/test_lsp.py) and the real CLI must read a call of it as the channel it is: the
diagnostic, its quick fix and suppression, the hover's layer view, and `explain`.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from cli_process import CLI
from lsprotocol import types
from test_lsp import (
    UTF16,
    Session,
    _env,
    apply_edits,
    as_tuple,
    edits_of,
    session,
    span_of,
)

CONFIG = (
    '[tool.heredoc-lint]\npython-wrappers = { "myproj.remote.run" = { arg = 0, runs = "ssh" } }\n'
)
# `host` is a parameter of a public function named as a host: evidence that warns by
# default (a value read with `input()`, or a parameter named as a path or as nothing, is
# info since heredoc_lint/severities.py measured it, and `explain` shows what `check`
# reports at its default threshold).
TEXT = 'from myproj import remote\n\n\ndef show(host):\n    remote.run(f"ping -c 1 {host}")\n'
LINE = 4  # 0-based: the wrapper's call


def _explain(tmp_path: Path, target: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "explain", target], cwd=tmp_path, env=_env(), capture_output=True, text=True
    )


def test_explain_reads_the_configured_wrapper(tmp_path: Path) -> None:
    (tmp_path / "run.py").write_text(TEXT)
    (tmp_path / "pyproject.toml").write_text(CONFIG)
    done = _explain(tmp_path, f"run.py:{LINE + 1}")
    assert done.returncode == 0, done.stderr
    column = TEXT.split("\n")[LINE].index("{host}") + 1
    assert f"  {LINE + 1}:{column} HL201 [warning] `host` is put into" in done.stdout, done.stdout
    assert "into the `myproj.remote.run` command string" in done.stdout
    assert "Layer 1 · the string `myproj.remote.run` runs on the remote host" in done.stdout
    assert "shlex.quote(str(host))" in done.stdout  # the fixed file, as `check --fix` makes it
    # Without the setting the call is nobody's channel: nothing on that line.
    (tmp_path / "pyproject.toml").write_text("[tool.heredoc-lint]\n")
    done = _explain(tmp_path, f"run.py:{LINE + 1}")
    assert done.returncode == 0, done.stderr
    assert f"no shell command on line {LINE + 1}" in done.stdout
    assert "HL201" not in done.stdout


def test_explain_of_a_broken_configuration_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "run.py").write_text(TEXT)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.heredoc-lint]\npython-wrappers = { "a.b" = { arg = 0, runs = "rsh" } }\n'
    )
    done = _explain(tmp_path, "run.py")
    assert done.returncode == 2
    assert "python-wrappers.a.b" in done.stderr and "Traceback" not in done.stderr


def test_the_server_reads_the_configured_wrapper(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(CONFIG)
    path = tmp_path / "run.py"
    path.write_text(TEXT)
    explained = _explain(tmp_path, f"{path}:{LINE + 1}")
    assert explained.returncode == 0, explained.stderr
    assert "HL201" in explained.stdout

    async def body(s: Session) -> None:
        uri = s.open(path, TEXT, "python")
        (finding,) = await s.diagnostics(uri, 1)
        assert (finding.code, *as_tuple(finding.range)) == (
            "HL201",
            *span_of(TEXT, LINE, "{host}", UTF16),
        )
        assert finding.severity == types.DiagnosticSeverity.Warning
        assert "it comes from a parameter of the public function `show`" in finding.message
        assert "into the `myproj.remote.run` command string" in finding.message
        # The hover shows the wrapper's layers, as `explain` does with the configuration.
        shown = await s.hover(uri, LINE, 8)
        assert shown is not None and isinstance(shown.contents, types.MarkupContent)
        assert shown.contents.value == f"```text\n{explained.stdout.rstrip()}\n```"
        assert await s.hover(uri, 3, 0) is None  # `def show(host):`: no shell there
        offered = {a.title: a for a in await s.code_actions(uri, finding)}
        assert set(offered) == {
            "Fix HL201 (unsafe): Quote the value with `shlex.quote(...)`",
            "Suppress HL201 with a comment",
        }
        fix = offered["Fix HL201 (unsafe): Quote the value with `shlex.quote(...)`"]
        fixed = apply_edits(TEXT, edits_of(fix, uri, 1))
        compile(fixed, "run.py", "exec")
        assert "{shlex.quote(str(host))}" in fixed
        suppress = offered["Suppress HL201 with a comment"]
        suppressed = apply_edits(TEXT, edits_of(suppress, uri, 1))
        assert suppressed.split("\n")[LINE] == "    # heredoc-lint: disable=HL201"
        assert await s.diagnostics(uri, s.replace(uri, suppressed)) == []
        assert await s.diagnostics(uri, s.replace(uri, fixed)) == []

    session(tmp_path)(body)
