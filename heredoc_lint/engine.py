"""The pipeline: text -> layers -> rules -> findings.  Knows nothing of the CLI."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

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
    findings.sort(key=lambda f: (f.start, f.code, f.end))
    return findings


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
    context = Context(path=path, file_text=text, fix_strategy=settings.fix_strategy,
                      wrappers=settings.wrappers)
    return check_layer(root, context, settings.rules())
