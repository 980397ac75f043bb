"""`heredoc-lint lsp`: the language server, on stdin and stdout (pygls).

Only this command imports pygls and lsprotocol: a plain check never does.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from heredoc_lint import __version__
from heredoc_lint.kinds import SourceKind
from heredoc_lint.lsp import actions, diagnostics, hover
from heredoc_lint.lsp.checker import Checked, Checker, Snapshot
from heredoc_lint.lsp.positions import UTF16, Lines
from heredoc_lint.lsp.project import CONFIG_FILES, Project, forget, kind_of_document, project_for

log = logging.getLogger("heredoc_lint.lsp")


@dataclass
class Options:
    """What a client may set in initializationOptions (camelCase there)."""

    rules_doc_url: str
    check_timeout: float = 5.0  # seconds before a check is reported as too slow
    max_document_size: int = 2_000_000  # characters; larger documents are not checked
    interval: float = 0.05  # seconds between two checks of one document

    @classmethod
    def from_client(cls, given: Any) -> Options:
        options = cls(rules_doc_url=diagnostics.default_rules_doc())
        if not isinstance(given, dict):
            return options
        url = given.get("rulesDocUrl")
        if isinstance(url, str) and url:
            options.rules_doc_url = url
        for key, name, least in (
            ("checkTimeout", "check_timeout", 0.001),
            ("maxDocumentSize", "max_document_size", 1),
            ("debounce", "interval", 0),
        ):
            value = given.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool) and value >= least:
                setattr(options, name, type(getattr(options, name))(value))
        return options


class HeredocServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("heredoc-lint", __version__)
        self.options = Options(rules_doc_url=diagnostics.default_rules_doc())
        # uri -> the engine's kind of each open document
        self.open: dict[str, SourceKind | None] = {}
        self.checker = Checker(self.snapshot, self.publish, self.overran)
        self.shut_down = False
        self.memo = actions.Memo()

    @property
    def encoding(self) -> str:
        return str(self.workspace.position_encoding or UTF16)

    def snapshot(self, uri: str) -> Snapshot | None:
        kind = self.open.get(uri)
        if kind is None:
            return None
        document = self.workspace.get_text_document(uri)
        text = document.source
        if len(text) > self.options.max_document_size:
            return None
        return Snapshot(uri, document.version, text, kind, _path(uri))

    def publish(self, checked: Checked) -> None:
        log.debug(
            "%s v%s: %d finding(s) in %.1f ms",
            checked.snapshot.uri,
            checked.snapshot.version,
            len(checked.reported),
            checked.seconds * 1000,
        )
        lines = Lines(checked.snapshot.text)
        found = diagnostics.diagnostics(
            checked.reported, lines, self.encoding, self.options.rules_doc_url
        )
        if checked.project.error is not None:
            found.insert(0, diagnostics.notice(checked.project.error, _ERROR))
        if checked.error is not None:
            found.insert(0, diagnostics.notice(f"heredoc-lint failed: {checked.error}", _ERROR))
        self._send(checked.snapshot.uri, checked.snapshot.version, found)

    def overran(self, snapshot: Snapshot, budget: float) -> None:
        current = self.snapshot(snapshot.uri)
        if current is None or current.version != snapshot.version:
            return
        message = (
            f"heredoc-lint: checking this document takes more than {budget:g} s; its "
            "findings will appear when the check ends (run `heredoc-lint` on it instead)"
        )
        self._send(snapshot.uri, snapshot.version, [diagnostics.notice(message, _INFO)])

    def _send(self, uri: str, version: int | None, found: list[types.Diagnostic]) -> None:
        params = types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=version)
        self.text_document_publish_diagnostics(params)

    def document_changed(self, uri: str) -> None:
        document = self.workspace.get_text_document(uri)
        size = len(document.source)
        if size > self.options.max_document_size:
            self.checker.closed(uri)
            message = (
                f"heredoc-lint: not checked as you type: {size:,} characters, more than "
                f"{self.options.max_document_size:,} (maxDocumentSize); run `heredoc-lint` on it"
            )
            self._send(uri, document.version, [diagnostics.notice(message, _INFO)])
            return
        self.checker.changed(uri)

    @property
    def resolves_edits(self) -> bool:
        """Whether the client asks for a code action's edit only once it is chosen."""
        document = self.client_capabilities.text_document
        asked = document.code_action if document else None
        support = asked.resolve_support if asked else None
        return support is not None and "edit" in support.properties

    def target(self, checked: Checked) -> actions.Target:
        snapshot = checked.snapshot
        versioned = bool(
            (workspace := self.client_capabilities.workspace)
            and workspace.workspace_edit
            and workspace.workspace_edit.document_changes
        )
        return actions.Target(
            snapshot.uri,
            snapshot.version,
            snapshot.text,
            snapshot.kind,
            snapshot.path,
            self.encoding,
            versioned,
        )


_ERROR = types.DiagnosticSeverity.Error
_INFO = types.DiagnosticSeverity.Information


def _path(uri: str) -> str | None:
    return to_fs_path(uri) if uri.startswith("file:") else None


def build() -> HeredocServer:
    server = HeredocServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: HeredocServer, params: types.InitializeParams) -> None:
        ls.options = Options.from_client(params.initialization_options)
        ls.checker.budget = ls.options.check_timeout
        ls.checker.interval = ls.options.interval

    @server.feature(types.INITIALIZED)
    async def initialized(ls: HeredocServer, params: types.InitializedParams) -> None:
        watched = ls.client_capabilities.workspace
        if not (
            watched
            and watched.did_change_watched_files
            and watched.did_change_watched_files.dynamic_registration
        ):
            return  # each check reads the configuration afresh anyway
        watchers = [types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in CONFIG_FILES]
        registration = types.Registration(
            id="heredoc-lint-config",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
        )
        try:
            await ls.client_register_capability_async(
                types.RegistrationParams(registrations=[registration])
            )
        except Exception as error:  # a client that refuses: checks still read it afresh
            log.info("file watching not registered: %s", error)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: HeredocServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        ls.open[item.uri] = kind_of_document(item.language_id, _path(item.uri), item.text)
        if ls.open[item.uri] is not None:
            ls.document_changed(item.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: HeredocServer, params: types.DidChangeTextDocumentParams) -> None:
        log.debug("%s v%s changed", params.text_document.uri, params.text_document.version)
        if ls.open.get(params.text_document.uri) is not None:
            ls.document_changed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: HeredocServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        if ls.open.pop(uri, None) is not None:
            ls.checker.closed(uri)
            ls.memo.forget(uri)
            ls._send(uri, None, [])

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_changed(ls: HeredocServer, params: types.DidChangeWatchedFilesParams) -> None:
        if any(change.uri.endswith(CONFIG_FILES) for change in params.changes):
            forget()
            for uri, kind in ls.open.items():
                if kind is not None:
                    ls.document_changed(uri)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, actions.FIX_ALL],
            resolve_provider=True,
        ),
    )
    async def code_action(
        ls: HeredocServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        checked = await ls.checker.fresh(params.text_document.uri)
        if checked is None:
            return None  # closed, too big, too slow, or changed meanwhile: a stale request
        found = await asyncio.get_running_loop().run_in_executor(
            ls.checker.pool, _code_actions, ls, checked, params
        )
        if _wants(params.context.only, actions.FIX_ALL) and actions.may_fix_all(checked.reported):
            if ls.resolves_edits:  # computed when chosen: see resolve_action
                data = {"uri": checked.snapshot.uri, "version": checked.snapshot.version}
                found.append(actions.fix_all_action(data=data))
            else:
                edit = await _fix_all(ls, checked)
                if edit is not None:
                    found.append(actions.fix_all_action(edit))
        return found

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve_action(ls: HeredocServer, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        uri = data.get("uri")
        checked = await ls.checker.fresh(uri) if isinstance(uri, str) else None
        if checked is None or checked.snapshot.version != data.get("version"):
            return action  # the document changed since: no edit for the text it has now
        action.edit = await _fix_all(ls, checked)
        return action

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: HeredocServer, params: types.HoverParams) -> types.Hover | None:
        snapshot = ls.snapshot(params.text_document.uri)
        if snapshot is None:
            return None
        line = params.position.line
        project = await asyncio.get_running_loop().run_in_executor(
            ls.checker.pool, _project, snapshot
        )
        work = asyncio.get_running_loop().run_in_executor(
            ls.checker.pool,
            hover.layer_view,
            snapshot.text,
            snapshot.kind,
            snapshot.path,
            line + 1,
            project.settings,
        )
        try:
            shown = await asyncio.wait_for(work, ls.checker.budget)
        except TimeoutError:
            return None
        if shown is None:
            return None
        lines = Lines(snapshot.text)
        end = lines.position(lines.line_end(line), ls.encoding)
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=shown),
            range=types.Range(types.Position(line, 0), types.Position(*end)),
        )

    @server.feature(types.SHUTDOWN)
    def on_shutdown(ls: HeredocServer, params: None) -> None:
        ls.shut_down = True
        ls.checker.shutdown()

    return server


def _project(snapshot: Snapshot) -> Project:
    return project_for(snapshot.path)


def _wants(only: Sequence[str] | None, kind: str) -> bool:
    """Whether a request limited to the kinds `only` takes an action of `kind` (a kind
    covers its sub-kinds: `source` covers `source.fixAll.heredoc-lint`)."""
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


async def _fix_all(ls: HeredocServer, checked: Checked) -> types.WorkspaceEdit | None:
    """The fix-all edit of this version, computed once (in a worker thread); None if it
    changes nothing, or is not ready within the budget (it goes on, for the next ask)."""
    target = ls.target(checked)
    future, mine = ls.memo.claim(target.uri, target.version, "fix-all")
    if mine:
        ls.checker.pool.submit(
            actions.fill, future, lambda: actions.fix_all_edit(target, checked.project)
        )
    try:
        edit: types.WorkspaceEdit | None = await asyncio.wait_for(
            asyncio.shield(asyncio.wrap_future(future)), ls.checker.budget
        )
    except TimeoutError:
        return None
    return edit


def _code_actions(
    ls: HeredocServer, checked: Checked, params: types.CodeActionParams
) -> list[types.CodeAction]:
    """The actions for the requested range (in a worker thread: the fixes re-check)."""
    target = ls.target(checked)
    lines = target.lines
    first = lines.offset(params.range.start.line, params.range.start.character, target.encoding)
    last = lines.offset(params.range.end.line, params.range.end.character, target.encoding)
    reported = checked.reported
    shown = diagnostics.diagnostics(reported, lines, target.encoding, ls.options.rules_doc_url)
    chosen = [i for i, f in enumerate(reported) if f.start <= last and first <= f.end]
    found: list[types.CodeAction] = []
    if _wants(params.context.only, types.CodeActionKind.QuickFix):
        found += actions.fix_actions(
            target, [reported[i] for i in chosen], [shown[i] for i in chosen]
        )
        found += actions.suppression_actions(
            target,
            checked.project,
            checked.findings,
            [reported[i] for i in chosen],
            [shown[i] for i in chosen],
            ls.memo,
        )
    return found


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="heredoc-lint lsp",
        description="The heredoc-lint language server: speaks LSP on stdin and stdout.",
    )
    parser.add_argument("--stdio", action="store_true", help="Use stdio (the default).")
    parser.add_argument("--log-file", help="Write the server's log here.")
    parser.add_argument("--verbose", action="store_true", help="Log at debug level.")
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(
        filename=args.log_file,
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    # The protocol gets its own copy of stdout; what anything else prints goes to stderr,
    # where it cannot break a message.
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    server = build()
    server.start_io(sys.stdin.buffer, out)
    server.checker.shutdown()
    # As the protocol says: 0 after a shutdown request, 1 when the client just went.
    return 0 if server.shut_down else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
