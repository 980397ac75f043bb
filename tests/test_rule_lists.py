"""The examples each rule module declares beside the rule: `INVALID` texts it reports,
where and how (heredoc_lint.rules.base.Invalid), and `VALID` texts in which it finds
nothing, at any severity.  Each rule is run alone (HL002 with every rule and
`--warn-unused-suppressions`), on the text read as the module's
EXAMPLES_KIND (shell unless it says otherwise); a fixed text is what `--fix
--unsafe-fixes` writes, and nothing is written where an example has none.
"""

from __future__ import annotations

import subprocess
import sys
from types import ModuleType

import pytest

from heredoc_lint.engine import Settings, check_text, fix_kind
from heredoc_lint.kinds import SourceKind
from heredoc_lint.model import Finding, Severity
from heredoc_lint.rules import RULES, Rule
from heredoc_lint.rules.base import Invalid

PATHS: dict[SourceKind, str] = {"shell": "t.sh", "python": "t.py", "markdown": "t.md"}


def _module(code: str) -> ModuleType:
    (rule,) = [r for r in RULES if r.code == code]
    return sys.modules[rule.check.__module__]


def _kind(code: str) -> SourceKind:
    kind: SourceKind = getattr(_module(code), "EXAMPLES_KIND", "shell")
    return kind


def _examples(name: str) -> list[tuple[str, object]]:
    return [(r.code, e) for r in RULES for e in getattr(_module(r.code), name, ())]


def _id(code: str, example: object) -> str:
    text = example.text if isinstance(example, Invalid) else str(example)
    return f"{code}:{text.strip().splitlines()[0][:40] if text.strip() else '(blank)'}"


INVALID = _examples("INVALID")
VALID = _examples("VALID")


def _found(code: str, text: str) -> list[Finding]:
    kind = _kind(code)
    return [f for f in check_text(text, kind, PATHS[kind], _settings(code)) if f.code == code]


def _settings(code: str) -> Settings:
    if code == "HL002":  # about the other rules' suppressions: they run too, and it is opt-in
        return Settings(warn_unused_suppressions=True)
    return Settings(select=frozenset({code}))


@pytest.mark.parametrize(("code", "example"), INVALID, ids=[_id(*e) for e in INVALID])
def test_an_invalid_example_is_reported_as_it_says(code: str, example: Invalid) -> None:
    found = _found(code, example.text)
    assert len(found) == 1, found
    (finding,) = found
    assert example.text[finding.start : finding.end] == example.at
    assert finding.start == example.text.index(example.at)
    if example.severity:
        assert finding.severity.value == example.severity
    assert example.says in finding.message


@pytest.mark.parametrize(("code", "example"), INVALID, ids=[_id(*e) for e in INVALID])
def test_an_invalid_example_is_fixed_as_it_says(code: str, example: Invalid) -> None:
    kind = _kind(code)
    fixed = fix_kind(example.text, kind, PATHS[kind], _settings(code), unsafe=True).text
    assert fixed == (example.text if example.fixed is None else example.fixed)
    if example.fixed is not None:  # the fix is whole: nothing left to report or to fix
        assert _found(code, fixed) == []
        assert fix_kind(fixed, kind, PATHS[kind], _settings(code), unsafe=True).text == fixed
        # and it writes no new error of any rule, and bash reads a fixed script whole.
        assert _errors(fixed, kind) <= _errors(example.text, kind)
        if kind == "shell":
            checked = subprocess.run(["bash", "-n"], input=fixed, capture_output=True, text=True)
            assert (checked.returncode, checked.stderr) == (0, ""), fixed


def _errors(text: str, kind: SourceKind) -> set[tuple[str, str]]:
    """(code, evidence) of every rule's errors: what a fix must not write.  (Notes may
    follow a fix: HL111 says that a quoting it deepened is three shells deep.)"""
    found = check_text(text, kind, PATHS[kind], Settings())
    return {(f.code, f.evidence) for f in found if f.severity is Severity.ERROR}


@pytest.mark.parametrize(("code", "text"), VALID, ids=[_id(*e) for e in VALID])
def test_a_valid_example_is_not_reported(code: str, text: str) -> None:
    assert _found(code, text) == []


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_every_rule_declares_its_examples(rule: Rule) -> None:
    module = _module(rule.code)
    assert len(getattr(module, "INVALID", ())) >= 3, f"{rule.code}: fewer than 3 INVALID"
    assert len(getattr(module, "VALID", ())) >= 3, f"{rule.code}: fewer than 3 VALID"
    assert all(isinstance(e, Invalid) for e in module.INVALID)
    assert all(isinstance(e, str) for e in module.VALID)
