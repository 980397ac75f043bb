"""What every rule module provides, and the helpers they share."""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from heredoc_lint import severities
from heredoc_lint.kinds import SourceKind, WrapperKind
from heredoc_lint.layers.layer import Layer
from heredoc_lint.layers.triggers import RULE_TRIGGERS
from heredoc_lint.model import Finding, Fix, Severity, Strategy
from heredoc_lint.project.launchers import Launcher
from heredoc_lint.rules.docstring import RuleDoc, read


@dataclass(frozen=True)
class Context:
    """What a rule may know besides the layer: the file it came from."""

    path: str | None = None
    kind: SourceKind = "shell"
    file_text: str = ""
    fix_strategy: Strategy = "base64"
    wrappers: Mapping[str, WrapperKind] = field(default_factory=dict)
    root_launcher: Launcher | None = None  # what another file says runs it as root
    ssh_launcher: Launcher | None = None  # what another file says runs it over ssh


Check = Callable[[Layer, Context], Iterable[Finding]]


class Invalid(NamedTuple):
    """A text the rule reports, declared beside it in its module's `INVALID` list (as
    Fixit's lists and ShellCheck's `prop_` tests); tests/test_rule_lists.py runs them all,
    the rule alone selected, and a module's `VALID` texts, in which it finds nothing."""

    text: str  # a whole file, read as the module's EXAMPLES_KIND (shell by default)
    at: str  # the one finding covers exactly the first occurrence of this text
    fixed: str | None = None  # the text after `--fix --unsafe-fixes`; None: left as it is
    severity: str = ""  # its default severity ("error", "warning", "info"); "": not checked
    says: str = ""  # a part of its message


class FixAvailability(enum.Enum):
    """Whether a rule's findings carry a fix that `--fix` can apply, as in ruff."""

    NONE = "none"  # never (a display-only suggestion at most)
    SOMETIMES = "sometimes"  # some findings: the rule's "Fix safety" section says which
    ALWAYS = "always"


@dataclass(frozen=True)
class Rule:
    """A rule's record. Built by `rule()`, which reads everything but the code from the
    rule module's docstring."""

    code: str
    name: str
    check: Check
    # Text without any of these cannot hold a finding of the rule, so it is never parsed
    # for it. None: the rule needs a layer ≥ 1, so the names of the wrapper commands.
    triggers: frozenset[str] | None
    fix_availability: FixAvailability
    docs: RuleDoc

    @property
    def severity(self) -> Severity:
        """The highest default severity of its findings (heredoc_lint.severities)."""
        return severities.highest(self.code)

    @property
    def summary(self) -> str:
        return self.docs.summary

    @property
    def doc(self) -> str:
        """The documentation sections, as `heredoc-lint rule CODE` prints them."""
        return self.docs.text

    @property
    def fixable(self) -> bool:
        """tests/test_rule_examples.py checks that the Fix safety section says so, that the
        Example offers a fix, and that the rule's tests apply one exactly when it is true."""
        return self.fix_availability is not FixAvailability.NONE


def rule(
    code: str,
    name: str,
    check: Check,
    *,
    fix: FixAvailability,
) -> Rule:
    """The `RULE` of a rule module: its documentation and summary come from the docstring
    of the module that defines `check`, its triggers from `triggers.RULE_TRIGGERS` (none
    there: the layer commands); a docstring without its summary or one of its sections
    raises RuleDocError when the module is imported."""
    module = sys.modules[check.__module__]
    doc = read(module.__doc__, f"{code} {name}")
    return Rule(code, name, check, RULE_TRIGGERS.get(code), fix, doc)


def finding(
    layer: Layer,
    code: str,
    evidence: str,
    message: str,
    start: int,
    end: int,
    fix: Fix | None = None,
) -> Finding:
    """A finding anchored on layer.text[start:end], placed in the file; its severity is
    the one the table gives its evidence (heredoc_lint.severities).  Anchored in the value
    of a variable that reaches the layer (`cmd="..."; ssh h "$cmd"`), it says so: the
    anchor is the assignment, the layer's command is elsewhere."""
    for a, b, name in layer.literal_values:
        if a <= start < b:
            message += f" (this text is the value of `{name}`, given to {layer.wrapper})"
            break
    message += _sent_through(layer)
    return at_file(layer, code, evidence, message, layer.file_span(start, end), fix)


def _sent_through(layer: Layer) -> str:
    """How a layer started by a function of a sourced file gets its text, in words: the
    function and where it is (`on() { ssh "$HOST" "$@"; }` in lib/remote.sh)."""
    current = layer
    while current.parent is not None and current.command is not None:
        defined, name = current.parent.definitions, current.command.name
        body = None if defined is None or name is None else defined.functions.get(name)
        if body is not None and body.where:
            return f" (sent by `{body.name}` of {body.where} to {current.wrapper})"
        current = current.parent
    return ""


def at_file(
    layer: Layer,
    code: str,
    evidence: str,
    message: str,
    span: tuple[int, int],
    fix: Fix | None = None,
) -> Finding:
    """A finding anchored on a span already in file offsets."""
    tier = severities.severity(code, evidence)
    a, b = span
    return Finding(code, tier, message, a, b, layer.depth, layer.wrapper, fix, evidence)


def where(layer: Layer) -> str:
    """How messages name a layer: 'this script', 'the ssh command string'..."""
    if layer.wrapper is None:
        return "this script"
    if layer.depth == 0:
        # A Python frontend's root: the string of `subprocess.run(S, shell=True)`, not a file.
        return "this shell command string"
    if layer.kind == "stdin":
        return f"the script fed to {layer.wrapper}"
    return f"the {layer.wrapper} command string"


def quote_snippet(text: str, limit: int = 60) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 3] + "..."


def script_path(context: Context) -> str | None:
    """The path a fix may put files beside: only a shell script run as a file has one."""
    return context.path if context.kind == "shell" else None
