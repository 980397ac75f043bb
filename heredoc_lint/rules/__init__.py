"""The rule table: one module per rule, each exporting `RULE`."""

from __future__ import annotations

import importlib

from heredoc_lint.rules.base import Context, Rule

__all__ = ["RULES", "Context", "Rule", "parse_codes", "rule_by_code", "select_rules", "triggers"]

_MODULES = (
    "hl001_parse_error",
    "hl002_unused_suppression",
    "hl101_heredoc_in_remote_string",
    "hl102_client_side_expansion",
    "hl103_pkill_self_match",
    "hl104_remote_background_holds_session",
    "hl105_ssh_swallows_loop_stdin",
    "hl106_ssh_argument_rejoin",
    "hl107_unquoted_heredoc_to_remote",
    "hl108_scp_port_flag",
    "hl109_sudo_redirect",
    "hl110_local_operator_after_ssh",
    "hl111_nested_quoting_depth",
    "hl112_heredoc_terminator",
    "hl201_shell_interpolation_unquoted",
    "hl202_runtime_heredoc_body",
)

RULES: tuple[Rule, ...] = tuple(
    importlib.import_module(f"heredoc_lint.rules.{name}").RULE for name in _MODULES
)


def triggers(rules: tuple[Rule, ...], wrappers: frozenset[str] = frozenset()) -> frozenset[str]:
    """Substrings one of which a text must hold for any of `rules` to find something in it."""
    from heredoc_lint.layers.grammars import LAYER_COMMANDS

    found: set[str] = set()
    for rule in rules:
        found |= LAYER_COMMANDS | wrappers if rule.triggers is None else rule.triggers
    return frozenset(found)


_EVERY = "ALL"  # ruff's word for every rule: the prefix "" that every code starts with


def parse_codes(value: str) -> frozenset[str]:
    """`HL101,hl2` as a set of codes or prefixes (`ALL`: every rule); ValueError names one
    that matches no rule.  (An option not given is None in options.codes, which does not
    call this.)"""
    words = (c.strip().upper() for c in value.split(","))
    codes = frozenset("" if word == _EVERY else word for word in words if word)
    for code in codes:
        if not any(r.code.startswith(code) for r in RULES):
            raise ValueError(f"unknown rule code or prefix `{code}` (see `heredoc-lint rules`)")
    return codes


def rule_by_code(code: str) -> Rule | None:
    code = code.upper()
    return next((r for r in RULES if r.code == code), None)


def _matches(code: str, selectors: frozenset[str]) -> bool:
    return any(code.startswith(s) for s in selectors)


def select_rules(
    select: frozenset[str] | None = None, ignore: frozenset[str] = frozenset()
) -> tuple[Rule, ...]:
    """Rules whose code starts with a selected prefix and with no ignored prefix."""
    return tuple(
        r
        for r in RULES
        if (select is None or _matches(r.code, select)) and not _matches(r.code, ignore)
    )
