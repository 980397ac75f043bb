"""The pipeline: text -> layers -> rules -> findings.  Knows nothing of the CLI."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from heredoc_lint.fixer import FixOutcome, fix_text
from heredoc_lint.layers import Layer, file_layer, walk_layers
from heredoc_lint.model import Finding
from heredoc_lint.rules import Context, Rule, select_rules


@dataclass(frozen=True)
class Settings:
    select: frozenset[str] | None = None
    ignore: frozenset[str] = frozenset()
    fix_strategy: str = "base64"
    wrappers: Mapping[str, str] = field(default_factory=dict)

    def rules(self) -> tuple[Rule, ...]:
        return select_rules(self.select, self.ignore)


def check_layer(root: Layer, context: Context, rules: Sequence[Rule]) -> list[Finding]:
    findings: list[Finding] = []
    for layer in walk_layers(root, context.wrappers):
        for rule in rules:
            findings.extend(rule.check(layer, context))
    # Several inner layers can report the same thing at the same outer word.
    unique = {(f.code, f.start, f.end, f.message): f for f in findings}
    return sorted(unique.values(), key=lambda f: (f.start, f.code, f.end))


def check_shell(
    text: str,
    path: str | None = None,
    settings: Settings | None = None,
    *,
    command: bool = False,
) -> list[Finding]:
    """Findings for a shell file, or for one command line when `command` is true.

    A command line (what an agent runs) is itself on the command line of the
    shell that runs it; a script is not, but its path is.
    """
    settings = settings or Settings()
    root = file_layer(text, cmdline=f"bash -c {text}" if command else None)
    context = Context(
        path=path, file_text=text, fix_strategy=settings.fix_strategy, wrappers=settings.wrappers
    )
    return check_layer(root, context, settings.rules())


def parse_error_count(text: str, settings: Settings | None = None, *, command: bool = False) -> int:
    """How many layers of `text` do not parse: a fix may never make this grow."""
    settings = settings or Settings()
    root = file_layer(text, cmdline=f"bash -c {text}" if command else None)
    return sum(1 for layer in walk_layers(root, settings.wrappers) if layer.script.errors)


def fix_shell(
    text: str,
    path: str | None = None,
    settings: Settings | None = None,
    *,
    unsafe: bool = False,
    command: bool = False,
) -> FixOutcome:
    settings = settings or Settings()
    return fix_text(
        text,
        lambda t: check_shell(t, path, settings, command=command),
        lambda t: parse_error_count(t, settings, command=command),
        unsafe=unsafe,
    )
