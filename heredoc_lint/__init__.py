"""heredoc-lint: find and fix the shell-quoting bugs that break remote commands.

The public API, for embedding (an agent platform checking every command, a
batch job over many transcripts):

    >>> import heredoc_lint
    >>> [f.code for f in heredoc_lint.check_text('ssh h "pkill -f app; ./app"', kind="command")]
    ['HL103']
    >>> heredoc_lint.fix_text("ssh h 'pkill -f sglang; sleep 1'", kind="command").text
    "ssh h 'pkill -f \\\\[s]glang; sleep 1'"

`check_text(text, kind="shell", path=None, settings=None) -> list[Finding]` and
`fix_text(text, kind="shell", path=None, settings=None, unsafe=False,
threshold=Severity.INFO) -> FixOutcome` are pure functions: no global state, safe to
call from many threads at once. `fix_text` fixes the findings at or above `threshold`
only: pass the severity you report at, so that nothing unreported is changed.
`kind` is one of "shell", "command" (a command line an agent runs), "python",
"markdown", "actions". Offsets in findings and edits are character offsets
into `text`. Nothing is imported until first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Finding", "FixOutcome", "Settings", "Severity", "check_text", "fix_text"]

if TYPE_CHECKING:
    from heredoc_lint.engine import Settings, check_text
    from heredoc_lint.engine import fix_kind as fix_text
    from heredoc_lint.fixes.fixer import FixOutcome
    from heredoc_lint.model import Finding, Severity

_LAZY = {
    "check_text": ("heredoc_lint.engine", "check_text"),
    "fix_text": ("heredoc_lint.engine", "fix_kind"),
    "Settings": ("heredoc_lint.engine", "Settings"),
    "FixOutcome": ("heredoc_lint.fixes.fixer", "FixOutcome"),
    "Finding": ("heredoc_lint.model", "Finding"),
    "Severity": ("heredoc_lint.model", "Severity"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'heredoc_lint' has no attribute {name!r}")
    import importlib

    module, attribute = _LAZY[name]
    return getattr(importlib.import_module(module), attribute)
