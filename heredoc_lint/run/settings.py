"""What a check is asked to do: which rules, which fix strategy, which extra wrappers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from heredoc_lint.layers.pywrappers import PyWrapper

if TYPE_CHECKING:
    from heredoc_lint.kinds import WrapperKind
    from heredoc_lint.model import Strategy
    from heredoc_lint.rules import Rule


@dataclass(frozen=True)
class Settings:
    select: frozenset[str] | None = None  # codes or prefixes; None: every rule
    ignore: frozenset[str] = frozenset()
    fix_strategy: Strategy = "base64"
    wrappers: Mapping[str, WrapperKind] = field(default_factory=dict)  # extra name -> kind
    python_wrappers: tuple[PyWrapper, ...] = ()  # the project's own Python callables
    warn_unused_suppressions: bool = False
    prefilter: bool = True  # skip texts without any trigger of the selected rules
    # Whether `# heredoc-lint: disable=...` comments in the text count: not in an agent's
    # command, which the agent itself writes, unless the user's configuration says so.
    directives: bool = True

    def cache_key(self) -> str:
        """Every field, so that a field added later cannot give stale cache hits."""
        import json
        from dataclasses import fields

        def plain(value: object) -> object:
            if isinstance(value, frozenset):
                return sorted(value)
            if isinstance(value, Mapping):
                return sorted(value.items())
            return value

        return json.dumps({f.name: plain(getattr(self, f.name)) for f in fields(self)})

    @property
    def wrapper_names(self) -> frozenset[str]:
        return frozenset(self.wrappers)

    def rules(self) -> tuple[Rule, ...]:
        from heredoc_lint.rules import select_rules

        return select_rules(self.select, self.ignore)
