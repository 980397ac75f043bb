"""Each rule's documentation runs, and says truly whether the rule has a fix.

Its "Example" must produce the rule's finding, and its "Use instead" must be clean of it
(at the default severity, the one users see; at info for a rule all of whose evidence is
info by measurement): the examples are what `heredoc-lint rule
CODE` and docs/rules.md show, and an example that finds nothing teaches users a rule that
does not exist.

`Rule.fixable` comes from the rule's `fix` field (`FixAvailability`), as in ruff. Three
things hold it to the docs and the code: the docstring's "Fix safety" section says "No fix"
or "Display-only" exactly when the field says NONE, the Example's finding carries a fix
that `--fix` can apply exactly when the rule is fixable, and the rule's
tests/test_rule_*.py or the fixed texts of its INVALID examples apply a fix exactly then.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from heredoc_lint.engine import check_text
from heredoc_lint.kinds import SourceKind
from heredoc_lint.model import Applicability, Finding, Severity
from heredoc_lint.rules import RULES, Rule
from heredoc_lint.rules.base import FixAvailability
from heredoc_lint.rules.base import rule as make_rule
from heredoc_lint.rules.docstring import RuleDocError, read

TESTS = Path(__file__).resolve().parent
KINDS: dict[str, tuple[SourceKind, str]] = {
    "bash": ("shell", "example.sh"),
    "sh": ("shell", "example.sh"),
}
KINDS |= {"python": ("python", "example.py"), "markdown": ("markdown", "example.md")}
# Rules about the file itself rather than a command: nothing to show in an example.
NO_EXAMPLE = {"HL002"}
# What a test calls to apply a fix and look at the result (tests/rulekit.py, the engine).
# `assert_display_only` is not one: it checks that the fix is *not* applied.
APPLIERS = frozenset(
    {
        "fix_text",
        "fix_shell",
        "fix_kind",
        "cli_fix",
        "apply_fix",
        "assert_fixed_clean_and_idempotent",
    }
)


def _blocks(rule: Rule, title: str) -> list[tuple[str, str]]:
    """(language, text) of each fenced block of a section in a language this tool reads."""
    return [(lang, body) for lang, body in rule.docs.blocks(title) if lang in KINDS]


def _found(rule: Rule, language: str, text: str) -> list[Finding]:
    """The rule's findings a user sees: at the default threshold (warning), or at info
    for a rule measured on real code to be info whatever its evidence (its doc says so)."""
    kind, path = KINDS[language]
    shown = Severity.INFO if rule.severity is Severity.INFO else Severity.WARNING
    return [
        f
        for f in check_text(text, kind, path)
        if f.code == rule.code and f.severity.rank >= shown.rank
    ]


def _reported(rule: Rule, language: str, text: str) -> list[str]:
    return [f"{f.code} [{f.severity.value}] {f.message}" for f in _found(rule, language, text)]


DOCUMENTED = [rule for rule in RULES if rule.code not in NO_EXAMPLE]


@pytest.mark.parametrize("rule", DOCUMENTED, ids=[r.code for r in DOCUMENTED])
def test_example_produces_the_finding(rule: Rule) -> None:
    blocks = _blocks(rule, "Example")
    assert blocks, f"{rule.code}: no bash/python block under '## Example'"
    for language, text in blocks:
        assert _reported(rule, language, text), (rule.code, text)


@pytest.mark.parametrize("rule", DOCUMENTED, ids=[r.code for r in DOCUMENTED])
def test_use_instead_is_clean(rule: Rule) -> None:
    blocks = _blocks(rule, "Use instead")
    assert blocks, f"{rule.code}: no bash/python block under '## Use instead'"
    for language, text in blocks:
        assert not _reported(rule, language, text), (rule.code, text)


# -- fixable: the docstring, the Example and the tests agree ---------------------------------


def _applicable(finding: Finding) -> bool:
    """A fix that `--fix` (with `--unsafe-fixes`) writes: not a display-only one."""
    return finding.fix is not None and finding.fix.applicability is not Applicability.DISPLAY_ONLY


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_the_fix_safety_section_says_what_the_fix_field_says(rule: Rule) -> None:
    assert rule.docs.fixable == rule.fixable, (rule.code, rule.fix_availability)


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_example_offers_a_fix_exactly_when_fixable(rule: Rule) -> None:
    found = [f for lang, text in _blocks(rule, "Example") for f in _found(rule, lang, text)]
    offered = [f for f in found if _applicable(f)]
    if rule.fixable:
        assert offered, f"{rule.code} says it is fixable; its Example's finding has no fix"
    else:
        assert not offered, f"{rule.code} says it has no fix; its Example offers one"


def _applies_a_fix(source: str) -> set[str]:
    """The test functions of a test module that apply a fix: they call one of APPLIERS,
    directly or through a function of the module."""
    functions = {
        node.name: node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }

    def called(node: ast.AST) -> set[str]:
        names = set()
        for call in ast.walk(node):
            if isinstance(call, ast.Call):
                if isinstance(call.func, ast.Name):
                    names.add(call.func.id)
                elif isinstance(call.func, ast.Attribute):
                    names.add(call.func.attr)
        return names

    calls = {name: called(node) for name, node in functions.items()}
    applying = {name for name, names in calls.items() if names & APPLIERS}
    while grown := {n for n, names in calls.items() if names & applying} - applying:
        applying |= grown
    return {name for name in applying if name.startswith("test_")}


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_rule_tests_apply_a_fix_exactly_when_fixable(rule: Rule) -> None:
    path = TESTS / f"test_rule_{rule.code.lower()}.py"
    applying = _applies_a_fix(path.read_text(encoding="utf-8")) if path.exists() else set()
    # tests/test_rule_lists.py applies the fix of each INVALID example that has a fixed text
    listed = [e for e in getattr(sys.modules[rule.check.__module__], "INVALID", ()) if e.fixed]
    if rule.fixable:
        assert applying or listed, f"{rule.code} says it is fixable; no test applies a fix"
    else:
        assert not applying, f"{rule.code} says it has no fix; {path.name}: {sorted(applying)}"
        assert not listed, f"{rule.code} says it has no fix; its INVALID list fixes"


def test_fix_detector_follows_module_helpers() -> None:
    source = (
        "def fixed(t):\n    return kit.fix_text(t, 'HL1')\n"
        "def test_a():\n    assert fixed('x') == 'y'\n"
        "def test_b():\n    kit.assert_display_only('x', 'HL1', 'y')\n"
        "def test_c():\n    assert kit.findings('x', 'HL1') == []\n"
    )
    assert _applies_a_fix(source) == {"test_a"}


# -- the docstring reader fails loudly -------------------------------------------------------

GOOD = (
    "One line.\n\n## What it does\nFinds x y z.\n## Why is this bad?\nIt breaks a b.\n"
    "## Example\n```bash\nssh h x\n```\n## Use instead\n```bash\nssh h y\n```\n"
    "## Fix safety\n{fix}\n"
)


def test_reader_splits_summary_sections_and_blocks() -> None:
    doc = read(GOOD.format(fix="Safe: it only adds -n."), "HL999 t")
    assert doc.summary == "One line."
    assert doc.text.startswith("## What it does\nFinds x y z.\n")
    assert doc.section("Why is this bad?") == "It breaks a b."
    assert doc.blocks("Example") == (("bash", "ssh h x\n"),)
    assert doc.fixable


@pytest.mark.parametrize("fix", ["No fix: delete it.", "Display-only: the layers decide."])
def test_reader_no_fix_wording_is_not_fixable(fix: str) -> None:
    assert not read(GOOD.format(fix=fix), "HL999 t").fixable


@pytest.mark.parametrize(
    ("doc", "complaint"),
    [
        (GOOD.format(fix="Safe.").replace("One line.\n\n", ""), "one-line summary"),
        ("One line.\n", "no `## What it does`"),
        (GOOD.format(fix="Safe.").replace("## Use instead", "## Instead"), "sections"),
        (GOOD.format(fix="Safe.").replace("It breaks a b.", ""), "'Why is this bad?' is empty"),
        (GOOD.format(fix="Safe.").replace("```bash\nssh h y\n```", "y"), "has no code block"),
    ],
)
def test_reader_names_what_is_missing(doc: str, complaint: str) -> None:
    with pytest.raises(RuleDocError, match="HL999 t") as error:
        read(doc, "HL999 t")
    assert complaint in str(error.value)


def test_rule_factory_reads_the_module_of_its_check() -> None:
    built = make_rule("HL999", "x", RULES[0].check, fix=FixAvailability.NONE)
    assert built.docs == RULES[0].docs and built.summary == RULES[0].summary
    assert built.triggers is None and not built.fixable
