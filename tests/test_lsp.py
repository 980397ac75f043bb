"""`heredoc-lint lsp` end to end: the real server over stdio, driven by pygls' client.

Every expected range is computed here from the document text (the column of a
needle, counted in UTF-16 code units or UTF-8 bytes by Python's own codecs), not by
the server's position code; fixes are compared with what the CLI writes, and the hover
with what `heredoc-lint explain` prints.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from cli_process import CLI
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from heredoc_lint.lsp.positions import UTF8, UTF16, UTF32, Lines, characters, units

CASES = Path(__file__).parent / "cases"
SEED = (CASES / "seed000.sh").read_text()
ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 30.0  # generous: the machine is shared; a healthy answer takes milliseconds
T = TypeVar("T")


def run(body: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(asyncio.wait_for(body(), 120))


# -- a client ------------------------------------------------------------------------------


class Session:
    """One server process and a client that records every publishDiagnostics."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.client = LanguageClient("heredoc-lint-tests", "1")
        self.published: list[types.PublishDiagnosticsParams] = []
        self.arrived = asyncio.Event()
        self.versions: dict[str, int] = {}
        self.consumed: dict[str, int] = {}
        self.result: types.InitializeResult | None = None

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(ls: Any, params: types.PublishDiagnosticsParams) -> None:
            self.published.append(params)
            self.arrived.set()

    async def start(
        self,
        encodings: list[str] | None = None,
        options: dict[str, Any] | None = None,
        watch: bool = False,
        resolve: bool = False,
    ) -> types.InitializeResult:
        await self.client.start_io(*CLI, "lsp", cwd=str(self.cwd), env=_env())
        general = types.GeneralClientCapabilities(position_encodings=encodings)
        resolving = types.CodeActionClientCapabilities(
            resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"])
        )
        capabilities = types.ClientCapabilities(
            general=general if encodings else None,
            text_document=types.TextDocumentClientCapabilities(code_action=resolving)
            if resolve
            else None,
            workspace=types.WorkspaceClientCapabilities(
                workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
                did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                    dynamic_registration=True
                )
                if watch
                else None,
            ),
        )
        self.result = await self.client.initialize_async(
            types.InitializeParams(
                capabilities=capabilities,
                root_uri=self.cwd.as_uri(),
                initialization_options=options,
            )
        )
        self.client.initialized(types.InitializedParams())
        return self.result

    async def stop(self) -> None:
        if self.client._server is not None and self.client._server.returncode is None:
            await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
            self.client.exit(None)
            await asyncio.wait_for(self.client._server.wait(), TIMEOUT)
        await self.client.stop()

    def open(self, path: Path, text: str, language: str) -> str:
        uri = path.as_uri()
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, language, 1, text))
        )
        return uri

    def replace(self, uri: str, text: str) -> int:
        """Send the whole new text (a full-document change); returns the new version."""
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(self.versions[uri], uri),
                [types.TextDocumentContentChangeWholeDocument(text)],
            )
        )
        return self.versions[uri]

    async def diagnostics(
        self, uri: str, version: int | None = None, timeout: float = TIMEOUT
    ) -> list[types.Diagnostic]:
        """The diagnostics published for `uri` (at `version`, when given) after those
        this method returned last time for `uri`."""
        deadline = time.monotonic() + timeout
        while True:
            start = self.consumed.get(uri, 0)
            for n, params in enumerate(self.published[start:], start):
                if params.uri == uri and (version is None or params.version == version):
                    self.consumed[uri] = n + 1
                    return list(params.diagnostics)
            self.arrived.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no diagnostics for {uri} (version {version})")
            with _suppress_timeout():
                await asyncio.wait_for(self.arrived.wait(), left)

    async def code_actions(
        self, uri: str, diagnostic: types.Diagnostic | None, only: list[str] | None = None
    ) -> list[types.CodeAction]:
        where = diagnostic.range if diagnostic else types.Range(_pos(0, 0), _pos(0, 0))
        found = await asyncio.wait_for(
            self.client.text_document_code_action_async(
                types.CodeActionParams(
                    types.TextDocumentIdentifier(uri),
                    where,
                    types.CodeActionContext([diagnostic] if diagnostic else [], only=only),
                )
            ),
            TIMEOUT,
        )
        return [a for a in found or [] if isinstance(a, types.CodeAction)]

    async def hover(self, uri: str, line: int, column: int) -> types.Hover | None:
        return await asyncio.wait_for(
            self.client.text_document_hover_async(
                types.HoverParams(types.TextDocumentIdentifier(uri), _pos(line, column))
            ),
            TIMEOUT,
        )


class _suppress_timeout:
    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, *rest: object) -> bool:
        return kind is TimeoutError


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _pos(line: int, column: int) -> types.Position:
    return types.Position(line=line, character=column)


def session(tmp_path: Path, **start: Any) -> Callable[[Callable[[Session], Awaitable[T]]], T]:
    """Run `body` against a started server in `tmp_path`, and always stop it."""

    def runner(body: Callable[[Session], Awaitable[T]]) -> T:
        async def whole() -> T:
            s = Session(tmp_path)
            await s.start(**start)
            try:
                return await body(s)
            finally:
                await s.stop()

        return run(whole)

    return runner


# -- expected positions, computed independently ---------------------------------------------


def col(text: str, encoding: str) -> int:
    """The column after `text` in `encoding`, by Python's codecs."""
    if encoding == UTF16:
        return len(text.encode("utf-16-le")) // 2
    if encoding == UTF8:
        return len(text.encode("utf-8"))
    return len(text)


def span_of(text: str, line: int, needle: str, encoding: str, nth: int = 0) -> tuple[int, ...]:
    """(line, start column, line, end column) of the nth `needle` on 0-based `line`."""
    row = text.split("\n")[line]
    at = -1
    for _ in range(nth + 1):
        at = row.index(needle, at + 1)
    return (line, col(row[:at], encoding), line, col(row[: at + len(needle)], encoding))


def as_tuple(r: types.Range) -> tuple[int, ...]:
    return (r.start.line, r.start.character, r.end.line, r.end.character)


def found(diagnostics: list[types.Diagnostic]) -> list[tuple[Any, ...]]:
    return sorted((d.code, *as_tuple(d.range)) for d in diagnostics)


def apply_edits(text: str, edits: list[types.TextEdit], encoding: str = UTF16) -> str:
    """Apply LSP edits as a client does: positions in the original text, applied from
    the end (written here with Python's codecs, not with the server's code)."""

    def offset(p: types.Position) -> int:
        rows = text.split("\n")
        before = sum(len(r) + 1 for r in rows[: p.line])
        row = rows[p.line] if p.line < len(rows) else ""
        n = 0
        while n < len(row) and col(row[: n + 1], encoding) <= p.character:
            n += 1
        return before + n

    spans = sorted(
        ((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits), reverse=True
    )
    for a, b, new in spans:
        text = text[:a] + new + text[b:]
    return text


def edits_of(action: types.CodeAction, uri: str, version: int) -> list[types.TextEdit]:
    assert action.edit is not None and action.edit.document_changes
    (change,) = action.edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.uri == uri and change.text_document.version == version
    return [e for e in change.edits if isinstance(e, types.TextEdit)]


# The seed command with non-ASCII text before it on its own line: é is one UTF-16 unit and
# two UTF-8 bytes, 😀 two UTF-16 units and four UTF-8 bytes.
SEED_WIDE = SEED.replace("ssh -p", "echo é😀; ssh -p", 1)


def seed_expected(text: str, encoding: str) -> list[tuple[Any, ...]]:
    """The seed's findings as `heredoc-lint` reports them at warning and above (see
    tests/cases/expect.json and test_cases.py), placed by needle."""
    return sorted(
        [
            ("HL103", *span_of(text, 1, "pkill", encoding)),
            ("HL101", *span_of(text, 1, "<<", encoding)),
            ("HL102", *span_of(text, 4, "$1", encoding)),
            ("HL102", *span_of(text, 5, "\\", encoding)),
            ("HL102", *span_of(text, 6, "\\", encoding)),
            ("HL102", *span_of(text, 7, "\\", encoding)),
            ("HL102", *span_of(text, 8, "$2", encoding)),
        ]
    )


# -- positions (pure) ------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", [UTF8, UTF16, UTF32])
def test_positions_round_trip(encoding: str) -> None:
    text = "a\r\né😀x\rq\n\n😀😀 z"
    lines = Lines(text)
    assert lines.starts == [0, 3, 7, 9, 10]
    for offset in range(len(text) + 1):
        line, column = lines.position(offset, encoding)
        row_start = lines.starts[line]
        shown = text[row_start:offset].rstrip("\r\n")
        assert column == col(shown, encoding)
        if text[offset - 1 : offset + 1] != "\r\n":  # inside a line break: its line's end
            assert lines.offset(line, column, encoding) == offset


def test_position_inside_a_character_stops_before_it() -> None:
    assert characters("😀a", 1, UTF16) == 0  # half a surrogate pair
    assert characters("😀a", 2, UTF16) == 1
    assert characters("éa", 1, UTF8) == 0  # half of é
    assert units("é😀", UTF8) == 6 and units("é😀", UTF16) == 3 and units("é😀", UTF32) == 2
    lines = Lines("ab\ncd")
    assert lines.offset(0, 99, UTF16) == 2  # past a line's end: its end
    assert lines.offset(7, 0, UTF16) == 5  # past the last line: the end


def test_project_settings_follow_the_configuration_files(tmp_path: Path) -> None:
    from heredoc_lint.lsp.project import project_for

    script = tmp_path / "a" / "b" / "run.sh"
    script.parent.mkdir(parents=True)
    assert project_for(str(script)).config_path is None
    outer = tmp_path / ".heredoc-lint.toml"
    outer.write_text('ignore = ["HL103"]\n')
    assert project_for(str(script)).settings.ignore == frozenset({"HL103"})
    # Rewritten, same size: the mtime tells.
    outer.write_text('ignore = ["HL104"]\n')
    os.utime(outer, ns=(time.time_ns(), time.time_ns() + 1_000_000))
    assert project_for(str(script)).settings.ignore == frozenset({"HL104"})
    # A nearer file wins once it exists; a pyproject.toml without our table is passed over.
    (tmp_path / "a" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert project_for(str(script)).config_path == outer
    nearer = tmp_path / "a" / ".heredoc-lint.toml"
    nearer.write_text('severity = "error"\nper-file-ignores = { "b/*.sh" = ["HL101"] }\n')
    project = project_for(str(script))
    assert project.config_path == nearer
    assert project.threshold.value == "error" and project.settings.ignore == {"HL101"}
    nearer.unlink()
    assert project_for(str(script)).config_path == outer


# -- the server ------------------------------------------------------------------------------


def test_diagnostics_for_the_seed_at_utf16_ranges(tmp_path: Path) -> None:
    path = tmp_path / "seed.sh"
    path.write_text(SEED_WIDE)

    async def body(s: Session) -> None:
        assert s.result is not None
        assert s.result.capabilities.position_encoding == UTF16
        uri = s.open(path, SEED_WIDE, "shellscript")
        got = await s.diagnostics(uri, 1)
        assert found(got) == seed_expected(SEED_WIDE, UTF16)
        # 😀 is two UTF-16 units: the column of pkill is one more than in code points.
        pkill = next(d for d in got if d.code == "HL103")
        assert pkill.range.start.character == SEED_WIDE.split("\n")[1].index("pkill") + 1
        assert pkill.severity == types.DiagnosticSeverity.Error
        assert pkill.source == "heredoc-lint"
        assert pkill.message.startswith("pkill-self-match: `pkill -f sglang` matches")
        assert pkill.code_description is not None
        href = pkill.code_description.href
        assert href.endswith("/docs/rules.md#hl103-pkill-self-match")
        # The anchor is a heading of docs/rules.md.
        assert "## HL103 pkill-self-match" in (ROOT / "docs" / "rules.md").read_text()
        heredoc = next(d for d in got if d.code == "HL101")
        assert heredoc.severity == types.DiagnosticSeverity.Warning

    session(tmp_path)(body)


def test_utf8_is_used_when_the_client_offers_it(tmp_path: Path) -> None:
    path = tmp_path / "seed.sh"

    async def body(s: Session) -> None:
        assert s.result is not None
        assert s.result.capabilities.position_encoding == UTF8
        uri = s.open(path, SEED_WIDE, "shellscript")
        got = await s.diagnostics(uri, 1)
        assert found(got) == seed_expected(SEED_WIDE, UTF8)
        pkill = next(d for d in got if d.code == "HL103")
        # é is 2 bytes and 😀 4: 4 more than in code points.
        assert pkill.range.start.character == SEED_WIDE.split("\n")[1].index("pkill") + 4

    session(tmp_path, encodings=[UTF8, UTF16])(body)


PYTHON = 'import os\n\np = input()\nos.system(f"echo é😀 {p}")\n'
# A value read with `input()` (HL201 evidence `input`) is info by default since
# heredoc_lint/severities.py measured it: the Python documents below are checked in a
# project that reports info, as `--severity info` does.
INFO_CONFIG = 'severity = "info"\n'


def _info_project(tmp_path: Path) -> Path:
    """A directory whose configuration reports findings down to info."""
    folder = tmp_path / "info"
    folder.mkdir(exist_ok=True)
    (folder / ".heredoc-lint.toml").write_text(INFO_CONFIG)
    return folder


MARKDOWN = "# Deploy\n\nRun é😀:\n\n```bash\n" + SEED_WIDE.split("\n", 1)[1] + "```\n"


WORKFLOW = (
    "on: push\njobs:\n  deploy:\n    runs-on: ubuntu-latest\n    steps:\n"
    '      - run: echo é😀; ssh h "pkill -f sglang; echo"\n'
)


def test_python_and_markdown_documents(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        py = s.open(_info_project(tmp_path) / "deploy.py", PYTHON, "python")
        md = s.open(tmp_path / "README.md", MARKDOWN, "markdown")
        got_py = await s.diagnostics(py, 1)
        assert found(got_py) == [("HL201", *span_of(PYTHON, 3, "{p}", UTF16))]
        assert got_py[0].severity == types.DiagnosticSeverity.Information
        assert "it is read from input (`input()`)" in got_py[0].message
        got_md = await s.diagnostics(md, 1)
        shift = MARKDOWN.split("\n").index("```bash") + 1 - 1  # the seed's line 1 is here
        expected = sorted(
            (code, a + shift, b, c + shift, d)
            for code, a, b, c, d in seed_expected(SEED_WIDE, UTF16)
        )
        assert found(got_md) == expected
        # A workflow is known by its place, whatever its language id.
        workflow = tmp_path / ".github" / "workflows" / "ci.yml"
        wf = s.open(workflow, WORKFLOW, "yaml")
        expected = [("HL103", *span_of(WORKFLOW, 5, "pkill", UTF16))]
        assert found(await s.diagnostics(wf, 1)) == expected
        # A language id the server does not know, with a name it does not know either:
        # no diagnostics at all, and no error.
        other = s.open(tmp_path / "notes.txt", "ssh h 'cat <<EOF'\n", "plaintext")
        with pytest.raises(AssertionError):
            await s.diagnostics(other, timeout=1.0)

    session(tmp_path)(body)


def _no_pkill(text: str) -> str:
    return text.replace("pkill -9 -f sglang 2>/dev/null; ", "", 1)


def _cli_fix(tmp_path: Path, text: str, name: str = "cli.sh") -> str:
    path = tmp_path / name
    path.write_text(text)
    subprocess.run(
        [*CLI, "--fix", "--no-cache", str(path)],
        env=_env(),
        capture_output=True,
        check=False,
        cwd=tmp_path,
    )
    return path.read_text()


def _bash_parses(text: str) -> bool:
    return subprocess.run(["bash", "-n"], input=text, text=True, check=False).returncode == 0


def test_quick_fix_gives_a_document_that_rechecks_clean(tmp_path: Path) -> None:
    text = _no_pkill(SEED_WIDE)
    path = tmp_path / "deploy.sh"

    async def body(s: Session) -> None:
        uri = s.open(path, text, "shellscript")
        got = await s.diagnostics(uri, 1)
        assert {d.code for d in got} == {"HL101", "HL102"}
        heredoc = next(d for d in got if d.code == "HL101")
        offered = await s.code_actions(uri, heredoc)
        fixes = [a for a in offered if a.title.startswith("Fix HL101")]
        assert len(fixes) == 1 and fixes[0].is_preferred
        assert fixes[0].kind == types.CodeActionKind.QuickFix
        assert "(unsafe)" not in fixes[0].title
        fixed = apply_edits(text, edits_of(fixes[0], uri, 1))
        # The same text as `heredoc-lint --fix` writes, and bash parses it.
        assert fixed == _cli_fix(tmp_path, text)
        assert _bash_parses(fixed)
        version = s.replace(uri, fixed)
        assert await s.diagnostics(uri, version) == []

    session(tmp_path)(body)


def test_fix_all_matches_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "seed.sh"

    async def body(s: Session) -> None:
        uri = s.open(path, SEED_WIDE, "shellscript")
        await s.diagnostics(uri, 1)
        offered = await s.code_actions(uri, None, only=["source.fixAll"])
        assert [a.kind for a in offered] == ["source.fixAll.heredoc-lint"]
        assert offered[0].title == "Fix all safe heredoc-lint findings"
        fixed = apply_edits(SEED_WIDE, edits_of(offered[0], uri, 1))
        assert fixed == _cli_fix(tmp_path, SEED_WIDE) != SEED_WIDE
        version = s.replace(uri, fixed)
        # The fixes of every pass (the pkill pattern is fixed in the second).
        assert "'[s]'glang" in fixed
        assert await s.diagnostics(uri, version) == []

    session(tmp_path)(body)


def test_fix_all_is_resolved_when_chosen_where_the_client_can(tmp_path: Path) -> None:
    path = tmp_path / "seed.sh"

    async def body(s: Session) -> None:
        uri = s.open(path, SEED_WIDE, "shellscript")
        await s.diagnostics(uri, 1)
        # Without a filter (the editor's menu at the cursor), the fix-all is listed too.
        listed = [
            a for a in await s.code_actions(uri, None) if a.kind == "source.fixAll.heredoc-lint"
        ]
        assert len(listed) == 1 and listed[0].edit is None and listed[0].data is not None
        resolved = await asyncio.wait_for(s.client.code_action_resolve_async(listed[0]), TIMEOUT)
        fixed = apply_edits(SEED_WIDE, edits_of(resolved, uri, 1))
        assert fixed == _cli_fix(tmp_path, SEED_WIDE)
        # Chosen after the document changed: no edit for a text it was not made for.
        s.replace(uri, SEED_WIDE + "\n")
        stale = await asyncio.wait_for(s.client.code_action_resolve_async(listed[0]), TIMEOUT)
        assert stale.edit is None

    session(tmp_path, resolve=True)(body)


def test_suppression_comment_goes_before_the_statement(tmp_path: Path) -> None:
    path = tmp_path / "seed.sh"

    async def body(s: Session) -> None:
        uri = s.open(path, SEED_WIDE, "shellscript")
        got = await s.diagnostics(uri, 1)
        # A finding inside the ssh string (line 5): the comment cannot go there, it goes
        # alone on the line before the statement that holds it.
        inner = next(d for d in got if d.code == "HL102" and d.range.start.line == 4)
        offered = await s.code_actions(uri, inner)
        suppress = [a for a in offered if a.title == "Suppress HL102 with a comment"]
        assert len(suppress) == 1
        after = apply_edits(SEED_WIDE, edits_of(suppress[0], uri, 1))
        lines = after.split("\n")
        assert lines[1] == "# heredoc-lint: disable=HL102"
        assert lines[2].startswith("echo é😀; ssh -p")
        assert _bash_parses(after)
        version = s.replace(uri, after)
        rechecked = await s.diagnostics(uri, version)
        assert sorted({d.code for d in rechecked}) == ["HL101", "HL103"]

    session(tmp_path)(body)


def test_python_suppression_goes_before_the_string(tmp_path: Path) -> None:
    """A finding inside a Python string over several lines: the comment goes alone on the
    line before the string, where Python reads a comment."""
    text = (
        "import subprocess\n\n\ndef f(h):\n    subprocess.run(\n"
        '        ["ssh", h, """\npkill -f sglang\n./restart\n"""],\n    )\n'
    )

    async def body(s: Session) -> None:
        uri = s.open(tmp_path / "deploy.py", text, "python")
        (finding,) = await s.diagnostics(uri, 1)
        assert (finding.code, finding.range.start.line) == ("HL103", 6)
        offered = await s.code_actions(uri, finding)
        (action,) = [a for a in offered if a.title == "Suppress HL103 with a comment"]
        after = apply_edits(text, edits_of(action, uri, 1))
        lines = after.split("\n")
        assert lines[5:7] == ["        # heredoc-lint: disable=HL103", '        ["ssh", h, """']
        compile(after, "deploy.py", "exec")
        assert await s.diagnostics(uri, s.replace(uri, after)) == []

    session(tmp_path)(body)


def test_unsafe_fixes_are_marked_and_display_only_ones_not_offered(tmp_path: Path) -> None:
    unsafe_text = (CASES / "build_remote.sh").read_text()
    shown_only = 'ssh h cd "$dir" && make\n'  # moving "$dir" to the remote side changes it

    async def body(s: Session) -> None:
        uri = s.open(tmp_path / "build.sh", unsafe_text, "shellscript")
        (finding,) = await s.diagnostics(uri, 1)
        assert finding.code == "HL110"
        offered = await s.code_actions(uri, finding)
        (fix,) = [a for a in offered if a.title.startswith("Fix HL110")]
        assert fix.title.startswith("Fix HL110 (unsafe): ") and not fix.is_preferred
        fixed = apply_edits(unsafe_text, edits_of(fix, uri, 1))
        assert _bash_parses(fixed)
        assert await s.diagnostics(uri, s.replace(uri, fixed)) == []
        other = s.open(tmp_path / "other.sh", shown_only, "shellscript")
        (finding,) = await s.diagnostics(other, 1)
        assert finding.code == "HL110"
        titles = [a.title for a in await s.code_actions(other, finding)]
        assert titles == ["Suppress HL110 with a comment"]

    session(tmp_path)(body)


def test_python_fix_and_suppression(tmp_path: Path) -> None:
    text = 'import os\n\np = input()\nif p:\n    os.system(f"echo é😀 {p}")\n'

    async def body(s: Session) -> None:
        uri = s.open(_info_project(tmp_path) / "run.py", text, "python")
        (finding,) = await s.diagnostics(uri, 1)
        assert (finding.code, *as_tuple(finding.range)) == (
            "HL201",
            *span_of(text, 4, "{p}", UTF16),
        )
        assert finding.severity == types.DiagnosticSeverity.Information
        assert "it is read from input (`input()`)" in finding.message
        offered = {a.title: a for a in await s.code_actions(uri, finding)}
        assert set(offered) == {
            "Fix HL201 (unsafe): Quote the value with `shlex.quote(...)`",
            "Suppress HL201 with a comment",
        }
        fixed = apply_edits(text, edits_of(offered[next(iter(sorted(offered)))], uri, 1))
        compile(fixed, "run.py", "exec")
        assert "import shlex\n" in fixed and "{shlex.quote(str(p))}" in fixed
        suppressed = apply_edits(text, edits_of(offered["Suppress HL201 with a comment"], uri, 1))
        compile(suppressed, "run.py", "exec")
        # Inside the `if` block, indented as the statement it is for.
        assert suppressed.split("\n")[4] == "    # heredoc-lint: disable=HL201"
        assert await s.diagnostics(uri, s.replace(uri, suppressed)) == []
        assert await s.diagnostics(uri, s.replace(uri, fixed)) == []

    session(tmp_path)(body)


def test_hover_in_markdown(tmp_path: Path) -> None:
    path = tmp_path / "README.md"
    path.write_text(MARKDOWN)
    line = MARKDOWN.split("\n").index("```bash") + 1  # 0-based: the ssh line
    explained = subprocess.run(
        [*CLI, "explain", f"{path}:{line + 1}"],
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout

    async def body(s: Session) -> None:
        uri = s.open(path, MARKDOWN, "markdown")
        shown = await s.hover(uri, line, 3)
        assert shown is not None and isinstance(shown.contents, types.MarkupContent)
        # The report quotes the file's own ``` fence: a longer fence holds it.
        assert "```" in explained and "````" not in explained
        assert shown.contents.value == f"````text\n{explained.rstrip()}\n````"
        assert f"heredoc-lint explain: {path}, line {line + 1}" in explained
        assert await s.hover(uri, 0, 0) is None  # the title: no command

    session(tmp_path)(body)


def test_hover_shows_the_layer_view(tmp_path: Path) -> None:
    path = tmp_path / "seed.sh"
    path.write_text(SEED_WIDE)
    explained = subprocess.run(
        [*CLI, "explain", f"{path}:2"],
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout

    async def body(s: Session) -> None:
        uri = s.open(path, SEED_WIDE, "shellscript")
        shown = await s.hover(uri, 1, 20)
        assert shown is not None
        assert isinstance(shown.contents, types.MarkupContent)
        assert shown.contents.kind == types.MarkupKind.Markdown
        assert shown.contents.value == f"```text\n{explained.rstrip()}\n```"
        assert "Layer" in explained or "layer" in explained
        # The shebang line hands nothing to another shell: no hover.
        assert await s.hover(uri, 0, 3) is None

    session(tmp_path)(body)


def test_configuration_files_are_watched_where_the_client_can(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        registered: list[types.RegistrationParams] = []

        @s.client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def on_register(ls: Any, params: types.RegistrationParams) -> None:
            registered.append(params)

        await s.start(watch=True)
        uri = s.open(tmp_path / "seed.sh", SEED, "shellscript")
        await s.diagnostics(uri, 1)  # by then the registration, sent at initialized, is in
        (params,) = registered
        (registration,) = params.registrations
        assert registration.method == "workspace/didChangeWatchedFiles"
        options = registration.register_options
        globs = sorted(
            w["globPattern"] if isinstance(w, dict) else w.glob_pattern
            for w in (options["watchers"] if isinstance(options, dict) else options.watchers)
        )
        assert globs == ["**/.heredoc-lint.toml", "**/pyproject.toml"]

    async def whole() -> None:
        s = Session(tmp_path)
        try:
            await body(s)
        finally:
            await s.stop()

    run(whole)


def test_configuration_change_changes_diagnostics(tmp_path: Path) -> None:
    path = tmp_path / "src" / "seed.sh"
    path.parent.mkdir()
    config = tmp_path / ".heredoc-lint.toml"

    async def body(s: Session) -> None:
        uri = s.open(path, SEED, "shellscript")
        assert "HL103" in {d.code for d in await s.diagnostics(uri, 1)}
        config.write_text('ignore = ["HL103"]\n')
        s.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                [types.FileEvent(config.as_uri(), types.FileChangeType.Created)]
            )
        )
        got = await s.diagnostics(uri, 1)
        assert sorted({d.code for d in got}) == ["HL101", "HL102"]
        # Without a notification (a client that does not watch files), the next check
        # reads the file again.
        config.write_text('severity = "error"\n')
        version = s.replace(uri, SEED + "\n")
        got = await s.diagnostics(uri, version)
        assert sorted({d.code for d in got}) == ["HL102", "HL103"]  # HL101 is a warning
        # A broken configuration is reported, and the defaults apply.
        config.write_text("select = 3\n")
        version = s.replace(uri, SEED)
        got = await s.diagnostics(uri, version)
        assert got[0].severity == types.DiagnosticSeverity.Error
        assert got[0].message.startswith(str(config)) and "`select`" in got[0].message
        assert sorted({d.code for d in got[1:]}) == ["HL101", "HL102", "HL103"]

    session(tmp_path)(body)


def test_a_document_that_does_not_parse(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        # A shell string and a Python file that do not parse (HL001 evidence
        # `shell-string-refused`, `source-unreadable`) are info: not shown by default,
        # shown where the project reports info.
        shell = 'ssh web-1 "if true; then echo ok"\n'
        uri = s.open(tmp_path / "broken.sh", shell, "shellscript")
        assert await s.diagnostics(uri, 1) == []
        project = _info_project(tmp_path)
        uri = s.open(project / "broken.sh", shell, "shellscript")
        got = await s.diagnostics(uri, 1)
        assert [(d.code, d.severity) for d in got] == [
            ("HL001", types.DiagnosticSeverity.Information)
        ]
        assert as_tuple(got[0].range)[0] == 0
        broken = "def f(:\n    os.system('x')\n"
        py = s.open(tmp_path / "broken.py", broken, "python")
        assert await s.diagnostics(py, 1) == []
        py = s.open(project / "broken.py", broken, "python")
        got = await s.diagnostics(py, 1)
        assert [(d.code, d.severity) for d in got] == [
            ("HL001", types.DiagnosticSeverity.Information)
        ]
        assert got[0].message.startswith("parse-error: Python syntax error")
        # Still answering: the seed in another document.
        seed = s.open(tmp_path / "seed.sh", SEED_WIDE, "shellscript")
        assert found(await s.diagnostics(seed, 1)) == seed_expected(SEED_WIDE, UTF16)

    session(tmp_path)(body)


def test_stale_results_are_dropped(tmp_path: Path) -> None:
    async def body(s: Session) -> None:
        uri = s.open(tmp_path / "seed.sh", SEED, "shellscript")
        texts = [SEED + "#" * n + "\n" for n in range(1, 30)]
        versions = [s.replace(uri, t) for t in texts]
        last = versions[-1]
        await s.diagnostics(uri, last)
        await asyncio.sleep(0.3)
        mine = [p.version for p in s.published if p.uri == uri]
        assert mine[-1] == last
        assert mine == sorted(mine)  # never an older version after a newer one
        assert len(mine) < len(versions)  # the burst was checked in fewer checks

    session(tmp_path)(body)


def test_a_5mb_document_is_not_checked_as_you_type(tmp_path: Path) -> None:
    big = "#!/bin/bash\n" + "echo hello world $x\n" * 250_000
    assert len(big) > 5_000_000

    async def body(s: Session) -> None:
        uri = s.open(tmp_path / "big.sh", big, "shellscript")
        got = await s.diagnostics(uri, 1)
        assert len(got) == 1 and "not checked as you type" in got[0].message
        assert got[0].severity == types.DiagnosticSeverity.Information
        # An incremental edit of the big document, and the server still answers others.
        s.versions[uri] += 1
        s.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(s.versions[uri], uri),
                [
                    types.TextDocumentContentChangePartial(
                        types.Range(_pos(1, 0), _pos(1, 0)), "ssh h 'cat <<EOF'\n"
                    )
                ],
            )
        )
        await s.diagnostics(uri, 2)
        seed = s.open(tmp_path / "seed.sh", SEED_WIDE, "shellscript")
        assert found(await s.diagnostics(seed, 1)) == seed_expected(SEED_WIDE, UTF16)
        assert await s.hover(uri, 1, 0) is None  # too big to explain too

    session(tmp_path)(body)


# A check of about a second on this machine (1,500 HL103 findings).
SLOW = "#!/bin/bash\n" + 'ssh h "pkill -f sglang; echo"\n' * 1500


def test_a_slow_check_blocks_nothing(tmp_path: Path) -> None:
    slow = SLOW

    async def body(s: Session) -> None:
        uri = s.open(tmp_path / "slow.sh", slow, "shellscript")
        started = time.monotonic()
        seed = s.open(tmp_path / "seed.sh", SEED_WIDE, "shellscript")
        answer = await s.diagnostics(seed, 1)
        if len(answer) == 1 and "takes more than" in answer[0].message:
            # On a loaded machine the seed's own check can pass 0.05 s while it shares
            # the interpreter with the slow one: its findings then follow the notice.
            answer = await s.diagnostics(seed, 1)
        assert found(answer) == seed_expected(SEED_WIDE, UTF16)
        assert not [
            p
            for p in s.published
            if p.uri == uri and p.diagnostics and p.diagnostics[0].code == "HL103"
        ]  # the slow check is not done yet
        first = await s.diagnostics(uri, 1)
        assert len(first) == 1 and "takes more than 0.05 s" in first[0].message
        assert first[0].severity == types.DiagnosticSeverity.Information
        # The seed, opened after the slow document, was answered before the slow check
        # ended; the slow document's findings follow when its check ends.
        final = await s.diagnostics(uri, 1, timeout=120)
        assert len(final) == 1500 and {d.code for d in final} == {"HL103"}
        assert time.monotonic() - started > 0.3

    session(tmp_path, options={"checkTimeout": 0.05})(body)


# -- robustness with a raw client --------------------------------------------------------------


def _frame(message: dict[str, Any] | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _did_open(uri: str, text: str) -> bytes:
    """The frame that opens a shell script `text` at `uri`."""
    document = {"uri": uri, "languageId": "shellscript", "version": 1, "text": text}
    return _frame(
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {"textDocument": document},
        }
    )


def _read_message(stream: Any) -> dict[str, Any]:
    length = None
    while True:
        line = stream.readline()
        if not line:
            raise EOFError
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    assert length is not None
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def _await_id(stream: Any, wanted: int) -> dict[str, Any]:
    while True:
        message = _read_message(stream)
        if message.get("id") == wanted and "method" not in message:
            return message


def _raw_server(tmp_path: Path) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        [*CLI, "lsp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
        env=_env(),
    )
    assert server.stdin is not None
    server.stdin.write(
        _frame(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"processId": None, "rootUri": None, "capabilities": {}},
            }
        )
    )
    server.stdin.write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    server.stdin.flush()
    assert "capabilities" in _await_id(server.stdout, 1)["result"]
    return server


def test_server_survives_malformed_requests(tmp_path: Path) -> None:
    server = _raw_server(tmp_path)
    assert server.stdin is not None
    try:
        for bad in (
            b"{this is not json",
            b'{"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": 7}',
            b'{"jsonrpc": "2.0", "id": 3, "method": "no/such/method", "params": {}}',
            b'{"jsonrpc": "2.0", "id": 4, "method": "textDocument/codeAction",'
            b' "params": {"textDocument": {"uri": "file:///nowhere.sh"}}}',
            b"[]",
        ):
            server.stdin.write(_frame(bad))
        server.stdin.flush()
        assert "error" in _await_id(server.stdout, 3)
        # Then a well-formed exchange still works: open a document, get its diagnostics.
        uri = (tmp_path / "seed.sh").as_uri()
        server.stdin.write(_did_open(uri, SEED))
        server.stdin.flush()
        while True:
            message = _read_message(server.stdout)
            if message.get("method") == "textDocument/publishDiagnostics":
                assert message["params"]["uri"] == uri
                assert "HL101" in {d["code"] for d in message["params"]["diagnostics"]}
                break
        server.stdin.write(_frame({"jsonrpc": "2.0", "id": 9, "method": "shutdown"}))
        server.stdin.flush()
        assert _await_id(server.stdout, 9).get("result", "missing") is None
        server.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
        server.stdin.flush()
        assert server.wait(TIMEOUT) == 0
    finally:
        server.kill()
        server.wait()


def test_server_exits_when_the_client_disconnects(tmp_path: Path) -> None:
    server = _raw_server(tmp_path)
    assert server.stdin is not None
    try:
        # A check of several seconds under way when the client goes: the server still
        # ends at once, without waiting for it.
        slow = "#!/bin/bash\n" + 'ssh h "pkill -f sglang; echo"\n' * 4000
        server.stdin.write(_did_open((tmp_path / "slow.sh").as_uri(), slow))
        server.stdin.flush()
        time.sleep(0.2)
        started = time.monotonic()
        server.stdin.close()  # no shutdown, no exit: the client is simply gone
        server.wait(TIMEOUT)
        assert time.monotonic() - started < 5
    finally:
        server.kill()
        server.wait()


def test_a_plain_check_never_imports_pygls(tmp_path: Path) -> None:
    (tmp_path / "seed.sh").write_text(SEED)
    for args in (["seed.sh"], ["check", "seed.sh"], ["--command", "ssh h 'pkill -f x; y'"]):
        ran = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "heredoc_lint", *args],
            env=_env(),
            capture_output=True,
            text=True,
            cwd=tmp_path,
            check=False,
        )
        assert ran.returncode == 1, ran.stderr[-500:]  # findings
        assert "heredoc_lint.engine" in ran.stderr or "heredoc_lint.report.console" in ran.stderr
        assert "pygls" not in ran.stderr and "lsprotocol" not in ran.stderr


def test_without_pygls_the_command_says_how_to_install_it(tmp_path: Path) -> None:
    # pygls made unimportable, as where the `lsp` extra was not installed.
    code = (
        "import sys; sys.modules['pygls'] = None; sys.modules['lsprotocol'] = None\n"
        "from heredoc_lint.cli.entry import main; main(['lsp'])"
    )
    ran = subprocess.run(
        [sys.executable, "-c", code], env=_env(), capture_output=True, text=True, check=False
    )
    assert ran.returncode == 2
    assert "pip install 'heredoc-lint[lsp]'" in ran.stderr
    assert ran.stdout == ""
