"""Hover: the layer view of `heredoc-lint explain FILE:LINE`, for a line whose command
passes through more than one shell."""

from __future__ import annotations

import re

from heredoc_lint.kinds import SourceKind
from heredoc_lint.report.lines import LineIndex
from heredoc_lint.run.settings import Settings


def passes_shells(
    text: str, kind: SourceKind, path: str | None, line: int, settings: Settings
) -> bool:
    """Whether a command on `line` (1-based) hands text to another shell (an ssh string,
    `bash -c`, a heredoc fed to a shell...), or is itself run by another shell; the
    project's `wrappers` and `python-wrappers` count, as in `check`."""
    from heredoc_lint.frontends import SourceError, fragments
    from heredoc_lint.layers.layer import child_layers, root_layer

    try:
        found = fragments(kind, text, path, settings.python_wrappers)
        roots = [root_layer(f, settings.wrappers) for f in found]
    except SourceError:
        return False
    index = LineIndex(text)
    for root in roots:
        starters = {id(child.command) for child in child_layers(root)}
        for command in root.script.commands:
            if root.depth == 0 and id(command) not in starters:
                continue
            end = max([command.end] + [r.heredoc.end for r in command.redirects if r.heredoc])
            a, b = root.file_span(command.start, end)
            if index.position(a)[0] <= line <= index.position(max(a, b - 1))[0]:
                return True
    return False


def markdown(report: str) -> str:
    """The report in a fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", report)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{report.rstrip()}\n{fence}"


def layer_view(
    text: str, kind: SourceKind, path: str | None, line: int, settings: Settings
) -> str | None:
    """The hover's Markdown for `line` (1-based), or None where there is nothing to show."""
    if not passes_shells(text, kind, path, line, settings):
        return None
    from heredoc_lint.report.explain import explain

    return markdown(explain(text, kind, path, line, settings))
