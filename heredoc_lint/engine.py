"""The pipeline: text -> layers -> rules -> findings.  Knows nothing of the CLI."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

from heredoc_lint import severities
from heredoc_lint.fixes.fixer import FixOutcome, fix_text
from heredoc_lint.frontends import SourceError, fragments
from heredoc_lint.kinds import SourceKind, WrapperKind
from heredoc_lint.layers.grammars import LAYER_COMMANDS
from heredoc_lint.layers.layer import Layer, root_layer, walk_layers
from heredoc_lint.layers.pywrappers import PyWrapper
from heredoc_lint.layers.triggers import holds_trigger, present_triggers
from heredoc_lint.layers.triggers import trigger_pattern as trigger_pattern  # part of the API
from heredoc_lint.model import Finding, Severity
from heredoc_lint.project import sourcing
from heredoc_lint.project.launchers import runs_as_root_by, runs_over_ssh_by
from heredoc_lint.rules import Context, Rule, triggers
from heredoc_lint.run import suppress
from heredoc_lint.run.settings import Settings as Settings  # re-exported: part of the API
from heredoc_lint.shell.definitions import Definitions

UNPARSABLE = 1_000_000  # a text that no longer parses in its own format at all


def check_layer(
    root: Layer, context: Context, rules: Sequence[Rule], needed: frozenset[str] | None
) -> list[Finding]:
    """Findings of `rules` in `root` and the layers below it; with `needed` (the rules'
    triggers), a rule is skipped in a layer that holds none of its own."""
    findings: list[Finding] = []
    layer_commands = LAYER_COMMANDS | frozenset(context.wrappers)
    if root.imported is not None:  # calls of a sourced file's functions may start a layer
        layer_commands |= root.imported.names()
    for layer in walk_layers(root):
        present = None if needed is None else present_triggers(layer.text, needed)
        for rule in rules:
            if present is None or _has_work(rule, layer, present, layer_commands):
                findings.extend(rule.check(layer, context))
    return findings


def _has_work(
    rule: Rule, layer: Layer, present: frozenset[str], layer_commands: frozenset[str]
) -> bool:
    """Whether `layer` holds one of `rule`'s triggers.  A rule about layers (no triggers of
    its own) looks at every inner layer, and at layer 0 when it names a wrapper."""
    if rule.triggers is None:
        return layer.depth > 0 or bool(present & layer_commands)
    return bool(present & rule.triggers)


def _roots(
    kind: SourceKind,
    text: str,
    path: str | None,
    needed: frozenset[str] | None = None,
    wrappers: Mapping[str, WrapperKind] | None = None,
    python_wrappers: tuple[PyWrapper, ...] = (),
    imported: Definitions | None = None,
) -> tuple[list[Layer], bool]:
    """The root layer of each fragment, skipping those that hold none of `needed`; and
    whether none was skipped.

    A fragment with run-time values (Python) is always kept: HL201 and HL202
    look at the values themselves; so is one a remote shell runs (paramiko's
    exec_command, fabric's run): the rules about layers look at every such layer.
    """
    whole_text = kind in ("shell", "command")  # one fragment: the text itself
    if whole_text and needed is not None and not holds_trigger(text, needed):
        return [], False
    every = fragments(kind, text, path, python_wrappers)
    kept = [
        f
        for f in every
        if needed is None or f.interpolations or f.depth or holds_trigger(f.text, needed)
    ]
    return [root_layer(f, wrappers, imported) for f in kept], len(kept) == len(every)


def check_text(
    text: str, kind: SourceKind = "shell", path: str | None = None, settings: Settings | None = None
) -> list[Finding]:
    """Findings for `text` read as `kind` (shell, command, python, markdown, actions)."""
    return _check(text, kind, path, settings or Settings())[0]


def _check(
    text: str, kind: SourceKind, path: str | None, settings: Settings
) -> tuple[list[Finding], list[Layer] | None]:
    """check_text's findings, and the roots it parsed when they are all of the text's
    (no fragment left out for want of a trigger)."""
    context = Context(
        path=path,
        kind=kind,
        file_text=text,
        fix_strategy=settings.fix_strategy,
        wrappers=settings.wrappers,
        root_launcher=runs_as_root_by(kind, path, text),
        ssh_launcher=runs_over_ssh_by(kind, path, text),
    )
    rules = settings.rules()
    findings: list[Finding] = []
    imported = sourcing.imported(path, text) if kind == "shell" else None
    defined = None if imported is None else imported.definitions
    try:
        # A script that another file runs over ssh is a remote shell's text from its first
        # line: no trigger in it need start the session, and every rule reads it.
        prefilter = settings.prefilter and context.ssh_launcher is None
        needed = triggers(rules, settings.wrapper_names) if prefilter else None
        if needed is not None and defined is not None:
            needed |= defined.names()
        roots, complete = _roots(
            kind, text, path, needed, settings.wrappers, settings.python_wrappers, defined
        )
    except SourceError as error:
        start = max(0, min(error.offset, len(text) - 1))  # the last character at the end
        why = "source-not-checked" if error.info else "source-unreadable"
        tier = severities.severity("HL001", why)
        findings.append(Finding("HL001", tier, error.message, start, start + 1, evidence=why))
        if not error.partial:
            return findings, None
        roots, complete = [root_layer(f, settings.wrappers, defined) for f in error.partial], False
    for root in roots:
        findings.extend(check_layer(root, context, rules, needed))
    # Several inner layers can report the same thing at the same outer word, and a Python
    # value used by several calls (`run(cmd)` or `sudo(cmd)`) is reported at its one place
    # by each of them, in words that name the call: one finding per place.
    findings = _one_per_place(findings)
    findings = suppress.apply(
        text,
        findings,
        _statements(roots, kind, text),
        kind=kind,
        roots=roots,
        enabled=settings.directives,
        report_unused=settings.warn_unused_suppressions,
    )
    findings.sort(key=lambda f: (f.start, f.code, f.end))
    return findings, roots if complete else None


def _one_per_place(findings: list[Finding]) -> list[Finding]:
    """Of the findings of one rule at one span, the most severe (then one with a fix),
    the first of those."""
    best: dict[tuple[str, int, int], Finding] = {}
    for f in findings:
        key = (f.code, f.start, f.end)
        kept = best.get(key)
        if kept is None or (f.severity.rank, f.fix is not None) > (
            kept.severity.rank,
            kept.fix is not None,
        ):
            best[key] = f
    return list(best.values())


def _check_counting_errors(
    text: str, kind: SourceKind, path: str | None, settings: Settings
) -> tuple[list[Finding], int]:
    """check_text and parse_error_count of `text`, from one parse where they can share it."""
    findings, roots = _check(text, kind, path, settings)
    if roots is None:
        return findings, parse_error_count(text, kind, settings)
    return findings, _errors(roots)


def _errors(roots: list[Layer]) -> int:
    return sum(1 for root in roots for layer in walk_layers(root) if layer.script.errors)


def _statements(roots: Sequence[Layer], kind: SourceKind, text: str) -> Iterator[tuple[int, int]]:
    """File spans of each top-level command (with its heredocs) and of each fragment; in
    Python, of each logical line and each string over several lines, since no comment can
    go inside a string.

    A generator: only a file with suppression comments needs them."""
    if kind == "python":
        yield from suppress.python_statements(text)
        return
    for root in roots:
        if root.offsets is not None:  # a fragment (a Markdown block...) is one statement
            yield root.file_span(0, len(root.text))
        for command in root.script.commands:
            end = max([command.end] + [r.heredoc.end for r in command.redirects if r.heredoc])
            yield root.file_span(command.start, end)


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
    return check_text(text, "command" if command else "shell", path, settings)


def parse_error_count(
    text: str, kind: SourceKind = "shell", settings: Settings | None = None
) -> int:
    """How many layers of `text` do not parse: a fix may never make this grow."""
    wrappers = (settings or Settings()).wrappers
    try:
        roots, _ = _roots(kind, text, None, wrappers=wrappers)
    except SourceError:
        return UNPARSABLE
    return _errors(roots)


def parses(text: str, kind: SourceKind = "shell") -> bool:
    """Whether every layer-0 text of the file parses: only such files are ever rewritten.

    A shell script is also read by bash itself (`bash -n` runs nothing): tree-sitter
    accepts some scripts bash refuses, such as a stray `done` on a line of its own.
    """
    try:
        roots, _ = _roots(kind, text, None)
    except SourceError:
        return False
    if any(root.script.errors for root in roots if root.depth == 0):
        return False
    if kind == "shell":
        from heredoc_lint.shell.bash import bash_accepts

        return bash_accepts(text) is not False
    return True


# What only one kind of text needs, checked or fixed: the library that reads it and the
# modules that import it when first used.  A run with no text of that kind does not
# import them before it forks the memory bound's worker.  (libcst, 170 ms, is imported
# only by a check that needs it, outside the limit: memory.imported_outside_the_limit.)
KIND_ONLY: dict[SourceKind, tuple[str, ...]] = {
    "shell": (),
    "command": (),
    "python": ("heredoc_lint.frontends.python", "heredoc_lint.fixes.python_fixes"),
    "markdown": ("markdown_it", "markdown_it.token", "heredoc_lint.frontends.markdown"),
    "actions": ("yaml", "heredoc_lint.frontends.actions"),
}


def import_all(kinds: Iterable[SourceKind] | None = None, *, fixing: bool = True) -> None:
    """Import now what checking and fixing texts of `kinds` (None: every kind) would
    import when first needed; what only fixing needs (the runner's diff and writer)
    when `fixing`.  A process that checks under a memory limit (heredoc_lint.run.memory)
    is forked after this: an import under the limit could fail, as a library's mapping
    did, and the memory is the program's, not the input's.

    Not the cache's module (10 ms): a run with a cache has imported it before it forks
    (runner.run opens the cache first), and a run without one never imports it."""
    import importlib
    import io  # noqa: F401
    import pkgutil
    import shutil  # noqa: F401
    import subprocess  # noqa: F401  (shell.bash)
    import tokenize  # noqa: F401  (suppress)

    if fixing:
        import difflib  # noqa: F401  (runner's diff)

        import heredoc_lint.run.writer  # noqa: F401
    from heredoc_lint.shell.syntax import _language

    wanted = set(KIND_ONLY) if kinds is None else set(kinds)
    skipped = tuple(
        name for kind, names in KIND_ONLY.items() if kind not in wanted for name in names
    )
    for kind in wanted:
        for name in KIND_ONLY[kind]:
            importlib.import_module(name)

    def walk(package: str) -> None:
        # pkgutil.walk_packages would import the packages of the kinds skipped.
        for module in pkgutil.iter_modules(importlib.import_module(package).__path__):
            name = f"{package}.{module.name}"
            if not name.startswith(skipped):
                importlib.import_module(name)
                if module.ispkg:
                    walk(name)

    for package in ("fixes", "frontends", "rules", "shell"):
        walk(f"heredoc_lint.{package}")
    _language()


def fix_kind(
    text: str,
    kind: SourceKind = "shell",
    path: str | None = None,
    settings: Settings | None = None,
    *,
    unsafe: bool = False,
    findings: list[Finding] | None = None,
    threshold: Severity = Severity.INFO,
) -> FixOutcome:
    """Apply fixes to `text` read as `kind`, pass after pass (see fixer.py).

    `findings`: those `check_text` gave for `text` with the same settings, if known.
    `threshold`: the lowest severity the run reports; only what it reports is fixed
    (the default, info, is every finding `check_text` gives)."""
    settings = settings or Settings()
    return fix_text(
        text,
        lambda t: _check_counting_errors(t, kind, path, settings),
        lambda t: parse_error_count(t, kind, settings),
        unsafe=unsafe,
        findings=findings,
        threshold=threshold,
    )


def fix_shell(
    text: str,
    path: str | None = None,
    settings: Settings | None = None,
    *,
    unsafe: bool = False,
    command: bool = False,
) -> FixOutcome:
    return fix_kind(text, "command" if command else "shell", path, settings, unsafe=unsafe)
