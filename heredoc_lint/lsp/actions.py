"""Code actions: each finding's fix, "fix all safe", and a suppression comment.

Everything here is computed from one snapshot of a document (its text and version):
the edits are in that text's coordinates, and a client that supports versioned edits is
told the version, so an edit never lands on a text it was not computed for.
"""

from __future__ import annotations

import functools
import io
import threading
import tokenize
from collections.abc import Callable, Hashable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

from lsprotocol import types

from heredoc_lint.engine import check_text, fix_kind, parse_error_count
from heredoc_lint.kinds import SourceKind
from heredoc_lint.lsp.diagnostics import to_range
from heredoc_lint.lsp.positions import Lines
from heredoc_lint.lsp.project import Project
from heredoc_lint.model import Applicability, Edit, Finding
from heredoc_lint.run import suppress
from heredoc_lint.run.settings import Settings

FIX_ALL = "source.fixAll.heredoc-lint"
FIX_ALL_TITLE = "Fix all safe heredoc-lint findings"
T = TypeVar("T")
# A fix that writes a new file beside the script (the scp strategy) is left to the CLI:
# an editor cannot give the file its mode.


@dataclass(frozen=True)
class Target:
    """The document version the actions are for, and how the client takes edits."""

    uri: str
    version: int | None
    text: str
    kind: SourceKind
    path: str | None
    encoding: str
    versioned: bool  # the client takes documentChanges (edits tied to a version)

    @property
    def lines(self) -> Lines:
        return Lines(self.text)


class Memo:
    """What was computed for one version of each document (a fix-all, a suppression's
    place): an editor asks for code actions at every cursor move, and these re-check the
    document.  A new version forgets the old one's.  Thread-safe: one computes, the
    others wait for its result."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._versions: dict[str, tuple[int | None, dict[Hashable, Future[Any]]]] = {}

    def claim(self, uri: str, version: int | None, key: Hashable) -> tuple[Future[Any], bool]:
        """The future of `key` for this version, and whether the caller must fill it."""
        with self._lock:
            known = self._versions.get(uri)
            if known is None or known[0] != version:
                known = (version, {})
                self._versions[uri] = known
            table = known[1]
            if key in table:
                return table[key], False
            future: Future[Any] = Future()
            table[key] = future
            return future, True

    def compute(self, target: Target, key: Hashable, work: Callable[[], T]) -> T:
        future, mine = self.claim(target.uri, target.version, key)
        if mine:
            fill(future, work)
        result: T = future.result()
        return result

    def forget(self, uri: str) -> None:
        with self._lock:
            self._versions.pop(uri, None)


def fill(future: Future[Any], work: Callable[[], Any]) -> None:
    try:
        future.set_result(work())
    except Exception as error:
        future.set_exception(error)


def workspace_edit(target: Target, edits: Sequence[Edit]) -> types.WorkspaceEdit:
    lines = target.lines
    text_edits = [
        types.TextEdit(to_range(lines, e.start, e.end, target.encoding), e.content)
        for e in sorted(edits, key=lambda e: (e.start, e.end))
    ]
    if target.versioned:
        document = types.OptionalVersionedTextDocumentIdentifier(target.uri, target.version)
        return types.WorkspaceEdit(
            document_changes=[types.TextDocumentEdit(document, list(text_edits))]
        )
    return types.WorkspaceEdit(changes={target.uri: text_edits})


def minimal_edit(before: str, after: str) -> Edit:
    """One edit that turns `before` into `after`, keeping their common head and tail (an
    editor keeps the cursor and folds outside it)."""
    head = 0
    limit = min(len(before), len(after))
    while head < limit and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < limit - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    return Edit(head, len(before) - tail, after[head : len(after) - tail])


def _fix_title(finding: Finding) -> str:
    assert finding.fix is not None
    unsafe = finding.fix.applicability is Applicability.UNSAFE
    return f"Fix {finding.code}{' (unsafe)' if unsafe else ''}: {finding.fix.message}"


def fix_actions(
    target: Target, findings: Sequence[Finding], diagnostics: Sequence[types.Diagnostic]
) -> list[types.CodeAction]:
    """A quick fix for each distinct fix among `findings` (`diagnostics` are theirs, in the
    same order); safe fixes first and preferred, display-only ones never offered."""
    by_fix: dict[tuple[Edit, ...], list[int]] = {}
    for i, finding in enumerate(findings):
        fix = finding.fix
        if fix is None or fix.applicability is Applicability.DISPLAY_ONLY or fix.new_files:
            continue
        by_fix.setdefault(fix.edits, []).append(i)
    actions = []
    for edits, members in by_fix.items():
        first = findings[members[0]]
        assert first.fix is not None
        safe = first.fix.applicability is Applicability.SAFE
        actions.append(
            types.CodeAction(
                title=_fix_title(first),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostics[i] for i in members],
                is_preferred=safe,
                edit=workspace_edit(target, edits),
            )
        )
    actions.sort(key=lambda a: not a.is_preferred)
    return actions


def may_fix_all(findings: Sequence[Finding]) -> bool:
    """Whether a fix-all can change anything: some finding has a safe fix (`findings`:
    those the document reports; the fix-all changes no other)."""
    return any(f.fix is not None and f.fix.applicability is Applicability.SAFE for f in findings)


def fix_all_edit(target: Target, project: Project) -> types.WorkspaceEdit | None:
    """Every safe fix of the findings the document reports, as `heredoc-lint --fix`
    applies them (pass after pass); None when they change nothing or need a new file."""
    outcome = fix_kind(
        target.text, target.kind, target.path, project.settings, threshold=project.threshold
    )
    if outcome.text == target.text or outcome.new_files or outcome.error:
        return None
    return workspace_edit(target, [minimal_edit(target.text, outcome.text)])


def fix_all_action(edit: types.WorkspaceEdit | None = None, data: Any = None) -> types.CodeAction:
    """The fix-all action: with its edit, or with `data` to resolve it by later."""
    return types.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL, edit=edit, data=data)


# -- suppression comments ----------------------------------------------------------------


def directive_line(code: str, indent: str, newline: str) -> str:
    return f"{indent}# heredoc-lint: disable={code}{newline}"


def _spans(
    text: str, kind: SourceKind, path: str | None, settings: Settings
) -> tuple[list[tuple[int, int]], ...]:
    """File spans of each command (with its heredocs) and of each fragment (in Python, of
    each logical line and multi-line string): the statements `suppress` lets a directive
    cover (as engine._statements lists them); the project's
    `wrappers` and `python-wrappers` count, as in `check`."""
    from heredoc_lint.frontends import SourceError, fragments
    from heredoc_lint.layers.layer import root_layer

    if kind == "python":
        return [], suppress.python_statements(text)
    try:
        found = fragments(kind, text, path, settings.python_wrappers)
        roots = [root_layer(f, settings.wrappers) for f in found]
    except SourceError:
        return [], []
    commands, pieces = [], []
    for root in roots:
        if root.offsets is not None:
            pieces.append(root.file_span(0, len(root.text)))
        for command in root.script.commands:
            end = max([command.end] + [r.heredoc.end for r in command.redirects if r.heredoc])
            commands.append(root.file_span(command.start, end))
    return commands, pieces


def _places(lines: Lines, offset: int, spans: Sequence[tuple[int, int]]) -> Iterator[int]:
    """The lines before which a directive may go: the finding's own line, then the first
    line of each statement around it, innermost first."""
    yield lines.position(offset, "utf-32")[0]
    around = sorted((s for s in spans if s[0] <= offset < s[1]), key=lambda s: -s[0])
    for start, _ in around:
        yield lines.position(start, "utf-32")[0]


def _between_commands(at: int, commands: Sequence[tuple[int, int]]) -> bool:
    """Whether a new line at `at` falls between commands, not inside one (a string, a
    heredoc body...), where a shell would read it as part of that command."""
    return not any(a < at < b for a, b in commands)


def _python_comment(text: str, at: int) -> bool:
    """Whether the text tokenizes with a comment starting at `at` (not inside a string)."""
    lines = Lines(text)
    line, column = lines.position(at, "utf-32")
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT and token.start == (line + 1, column):
                return True
    except (tokenize.TokenError, SyntaxError):
        return False
    return False


def _same_otherwise(before: Sequence[Finding], after: Sequence[Finding], code: str) -> bool:
    """The directive silenced `code` here and changed nothing else."""
    others = sorted((f.code, f.message) for f in before if f.code != code)
    others_after = sorted((f.code, f.message) for f in after if f.code != code)
    count = sum(1 for f in before if f.code == code)
    return others == others_after and sum(1 for f in after if f.code == code) < count


def suppression_edit(
    target: Target, finding: Finding, project: Project, findings: Sequence[Finding]
) -> Edit | None:
    """A line `# heredoc-lint: disable=CODE` before the finding's line or its statement's
    first line, where it is a comment and silences the finding; None if there is none.

    Each candidate is checked by checking the text with it: the finding is gone and every
    other one is still there, nothing more fails to parse, and the new line is not inside
    a command (or, in Python, it tokenizes as a comment)."""
    text, lines = target.text, target.lines
    newline = "\r\n" if "\r\n" in text else "\n"
    commands, pieces = _spans(text, target.kind, target.path, project.settings)
    errors = parse_error_count(text, target.kind, project.settings)
    tried: set[int] = set()
    for line in _places(lines, finding.start, commands + pieces):
        at = lines.starts[line]
        if at in tried:
            continue
        tried.add(at)
        if target.kind != "python" and not _between_commands(at, commands):
            continue
        own = text[at : lines.line_end(line)]
        indent = own[: len(own) - len(own.lstrip(" \t"))]
        insert = directive_line(finding.code, indent, newline)
        after = text[:at] + insert + text[at:]
        if target.kind == "python" and not _python_comment(after, at + len(indent)):
            continue
        if parse_error_count(after, target.kind, project.settings) > errors:
            continue
        rechecked = check_text(after, target.kind, target.path, project.settings)
        if _same_otherwise(findings, rechecked, finding.code):
            return Edit(at, at, insert)
    return None


def suppression_actions(
    target: Target,
    project: Project,
    findings: Sequence[Finding],
    chosen: Sequence[Finding],
    diagnostics: Sequence[types.Diagnostic],
    memo: Memo,
) -> list[types.CodeAction]:
    """One "suppress" action per code among the `chosen` findings (`diagnostics` are
    theirs); `findings` are all of the document's, every severity."""
    by_code: dict[str, list[int]] = {}
    for i, finding in enumerate(chosen):
        by_code.setdefault(finding.code, []).append(i)
    found = []
    for code, members in by_code.items():
        first = chosen[members[0]]
        edit = memo.compute(
            target,
            ("suppress", first.code, first.start),
            functools.partial(suppression_edit, target, first, project, findings),
        )
        if edit is None:
            continue
        found.append(
            types.CodeAction(
                title=f"Suppress {code} with a comment",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostics[i] for i in members],
                edit=workspace_edit(target, [edit]),
            )
        )
    return found
