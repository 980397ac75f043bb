"""The Literal value sets agree with the tables that act on them at run time.

mypy --strict (CI) proves that every value written for a kind is one of its set; these
tests prove the other half, that each set is exactly what the code dispatches on, so that
a value added to a table and not to its type (or the reverse) fails here.
"""

from __future__ import annotations

from typing import get_args

import pytest

from heredoc_lint.agents import hook
from heredoc_lint.cli.options import FIX_STRATEGIES, FORMATS, Format
from heredoc_lint.engine import KIND_ONLY, check_text, fix_kind
from heredoc_lint.frontends import FRONTENDS, fragments
from heredoc_lint.kinds import SourceKind, WrapperKind
from heredoc_lint.layers import wrappers
from heredoc_lint.layers.layer import LayerKind, root_layer, walk_layers
from heredoc_lint.lsp.project import LANGUAGES
from heredoc_lint.model import FixStrategy, Strategy
from heredoc_lint.report import output
from heredoc_lint.rules import hl102_client_side_expansion as hl102
from heredoc_lint.run import config
from heredoc_lint.run.settings import Settings
from heredoc_lint.shell.syntax import LoopKind, parse_script
from heredoc_lint.shell.words import ExpansionKind


def test_source_kinds_are_the_frontends() -> None:
    assert set(get_args(SourceKind)) == set(FRONTENDS)


def test_every_table_by_source_kind_names_every_kind() -> None:
    """A kind added to SourceKind must be decided in each table: none falls back silently."""
    kinds = set(get_args(SourceKind))
    assert set(KIND_ONLY) == kinds  # what checking a kind imports before the bound's fork
    assert set(hl102.NO_ARGUMENTS) == kinds  # whether its outermost shell has arguments
    assert set(LANGUAGES.values()) == kinds - {"command"}  # an editor holds no agent command


def test_wrapper_kinds_are_the_resolvers_and_the_configuration_choices() -> None:
    assert set(get_args(WrapperKind)) == set(wrappers.WRAPPER_KINDS)
    assert get_args(WrapperKind) == config.WRAPPER_KINDS


def test_formats_are_the_renderers_and_sarif() -> None:
    assert get_args(Format) == FORMATS
    assert set(FORMATS) == set(output.RENDERERS) | {"sarif"}


def test_hook_choices_are_their_types() -> None:
    assert get_args(hook.Agent) == hook.AGENTS
    assert get_args(hook.WarningMode) == hook.WARNING_MODES
    # a warning with "context" or "deny" decides that; with "ignore", it allows
    assert set(get_args(hook.WarningMode)) - {"ignore"} <= set(get_args(hook.Decision))


def test_fix_strategies_are_named_on_the_fixes() -> None:
    """Each --fix-strategy is the strategy recorded on the fix it produces."""
    assert get_args(Strategy) == FIX_STRATEGIES
    assert set(get_args(Strategy)) <= set(get_args(FixStrategy))
    text = "#!/bin/bash\nssh h \"cat > /etc/app.conf << 'EOF'\nport=8080\nEOF\"\n"
    for strategy in FIX_STRATEGIES:
        settings = Settings(fix_strategy=strategy)
        (finding,) = [f for f in check_text(text, "shell", "deploy.sh", settings) if f.fix]
        assert finding.fix is not None and finding.fix.strategy == strategy
        assert fix_kind(text, "shell", "deploy.sh", settings).text != text


def _expansion_kinds(text: str) -> list[ExpansionKind]:
    command = parse_script(text).commands[0]  # the substitutions' commands follow it
    return [e.kind for word in command.words for e in word.expansions]


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("echo $x $1 $? $(id) `id` $((1+2)) <(ls) ~root\n", None),
        ('echo "$@" $0\n', ["special", "special"]),
    ],
)
def test_expansion_kinds_found(text: str, kinds: list[str] | None) -> None:
    found = _expansion_kinds(text)
    if kinds is None:  # every kind, once each, in order
        kinds = list(get_args(ExpansionKind))
    assert found == kinds


def test_loop_kinds() -> None:
    script = parse_script("while read a; do x; done\nuntil false; do y; done\n")
    found = [loop.kind for command in script.commands for loop in command.loops]
    # tree-sitter-bash parses `until` as a while_statement: the keyword tells them apart
    assert found == ["while", "while", "until", "until"]
    assert set(found) == set(get_args(LoopKind))


def test_layer_kinds() -> None:
    text = "ssh h 'echo a'\nbash -s <<'EOF'\necho b\nEOF\n"
    (fragment,) = fragments("shell", text)
    found = [layer.kind for layer in walk_layers(root_layer(fragment))]
    assert found == list(get_args(LayerKind))  # the file, the ssh string, the heredoc script
