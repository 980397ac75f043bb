#!/usr/bin/env python3
"""Mutation testing of the core: which small, plausible bugs does the suite let through?

    nice -n 10 python3 bench/mutation.py [--module PATTERN ...] [--max-per-module N]
        [--seed S] [--budget SECONDS] [--jobs N] [--json OUT] [--list]
    nice -n 10 python3 bench/mutation.py --rows     # replay the 21 bugs of issue 20

For each core module (shell/, edits.py, fixes/, writer.py, suppress.py, cache.py, the
rules, the Python frontend), the mutation points are found on the AST: comparison flips
(`<` `<=`, `==` `!=`, `in` `not in`, `is` `is not`), boundaries +-1 on integer
constants, negated conditions, `and`/`or` swapped, `True`/`False` swapped, short strings
cut by a character, `+`/`-` swapped, slice ends moved by one, statements and returns
removed (made `pass`).  A sample of them (`--max-per-module`, a fixed `--seed`) is applied
one at a time in a scratch copy of the tree (one copy per job, under a temp dir; the
worktree is never touched), and the test files that cover the module (the table
`COVERING`) are run there with `pytest -x`; a mutant is *killed* when they fail (or time
out: each test gets `--test-timeout` seconds), and *survives* when they pass.  Each
module is first run unmutated (its AST printed back by `ast.unparse`, as every mutant
is; modules that share a row share one run): a module whose baseline fails is skipped,
not scored.

Prints the score (killed / run) per module and every survivor as `file:line: before ->
after`.  `--budget` stops starting mutants after that many seconds (the modules are
interleaved, so a cut run still samples all of them).  Not part of .ci/run.

A mutant read by hand and judged equivalent (no input can tell it from the original) or
harmless (durability only) goes into `bench/mutation_equivalents.tsv` with its reason
(`--describe MODULE:LINE` prints the line to fill in); it is then not run, not scored,
and listed with its reason.  `--survivors-of RUN.json` runs an earlier run's survivors
again (its kills kept); `--report A.json --report B.json` prints runs together.
"""

from __future__ import annotations

import argparse
import ast
import copy
import fnmatch
import functools
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "heredoc_lint"

# The core modules, as globs relative to the repository root.
CORE = (
    "heredoc_lint/shell/*.py",
    "heredoc_lint/fixes/edits.py",
    "heredoc_lint/fixes/*.py",
    "heredoc_lint/run/writer.py",
    "heredoc_lint/run/suppress.py",
    "heredoc_lint/run/cache.py",
    "heredoc_lint/rules/*.py",
    "heredoc_lint/frontends/python.py",
    "heredoc_lint/frontends/python/*.py",
    # The shell model the rules stand on (run 5e, bench/MUTATION.md, section 11).
    "heredoc_lint/layers/layer.py",
    "heredoc_lint/layers/wrappers.py",
    "heredoc_lint/layers/forwarders.py",
)

_RULE_TESTS = (
    "tests/test_rule_hl102.py",
    "tests/test_rule_hl103.py",
    "tests/test_rule_hl109.py",
    "tests/test_rule_hl106.py",
    "tests/test_cli.py",
    "tests/test_rule_hl101.py",
    "tests/test_rule_hl105.py",
    "tests/test_rules_core.py",
    "tests/test_rule_hl110.py",
    "tests/test_cases.py",
    "tests/test_rule_hl201.py",
    "tests/test_rule_hl111.py",
    "tests/test_rule_hl112.py",
    "tests/test_rules_doc.py",
    "tests/test_rule_hl104.py",
    "tests/test_rule_hl202.py",
    "tests/test_rule_hl108.py",
)
_SHELL_TESTS = (
    "tests/test_words.py",
    "tests/test_heredoc.py",
    "tests/test_edits.py",
    "tests/test_rule_hl102.py",
    "tests/test_fix_remote_heredoc.py",
    "tests/test_shell_structure.py",
    "tests/test_fix_hardening.py",
    "tests/test_rule_hl109.py",
    "tests/test_layers.py",
    "tests/test_rules_core.py",
    "tests/test_rule_hl103.py",
    "tests/test_rule_hl106.py",
    "tests/test_cli.py",
    "tests/test_rule_hl101.py",
    "tests/test_rule_hl105.py",
    "tests/test_rule_hl110.py",
    "tests/test_forwarders_body.py",
    "tests/test_script_wrappers.py",
    "tests/test_shell_names.py",
    "tests/test_templates.py",
    "tests/test_syntax_descriptor.py",
    "tests/test_wrappers.py",
    "tests/test_explain.py",
)
# tests/test_fix_guarantees.py and test_fix_e2e.py (two minutes each) are left to the
# writer's row and to the whole suite: the fix tests above cover the same bytes.
_FIX_TESTS = (
    "tests/test_edits.py",
    "tests/test_fix_remote_heredoc.py",
    "tests/test_cache.py",
    "tests/test_suppress_comments.py",
    "tests/test_python_rules.py",
    "tests/test_writer_inode.py",
    "tests/test_rule_hl106.py",
    "tests/test_rules_core.py",
    "tests/test_rule_hl107.py",
)
# The files a rule's helpers, its table and its docs are tested in.
_RULE_CORE_TESTS = (
    "tests/test_rules_core.py",
    "tests/test_rules_doc.py",
    "tests/test_fix_remote_heredoc.py",
    "tests/test_rule_hl101.py",
    "tests/test_rule_hl106.py",
    "tests/test_rule_hl110.py",
)
_RULE_HL107_TO_HL112_TESTS = tuple(f"tests/test_rule_hl{n}.py" for n in range(107, 113))
# Reading, writing, caching and suppressing: what every file goes through.
_IO_TESTS = (
    "tests/test_writer_inode.py",
    "tests/test_suppress_comments.py",
    "tests/test_cache.py",
    "tests/test_python_frontend.py",
    "tests/test_prefilter.py",
    "tests/test_python_offsets_literals.py",
    "tests/test_rule_hl201.py",
    "tests/test_fix_hardening.py",
    "tests/test_suppress_python.py",
    "tests/test_rule_hl202.py",
)
_PYTHON_TESTS = (*_IO_TESTS, "tests/test_python_rules.py")
_WRITE_TESTS = (
    "tests/test_edits.py",
    "tests/test_fix_remote_heredoc.py",
    "tests/test_python_rules.py",
)

_RUN5E_SHELL_TESTS = (
    *_SHELL_TESTS,
    "tests/test_unquoted_heredoc_layer.py",
)
_RUN5E_LAYER_TESTS = (
    *_SHELL_TESTS,
    "tests/test_kinds.py",
    "tests/test_unquoted_heredoc_layer.py",
)

# Module glob -> the test files that cover it (the first matching row wins; covering_tests
# drops repeats).  A rule `hlNNN_*.py` also gets tests/test_rule_hlNNN.py.
COVERING: tuple[tuple[str, tuple[str, ...]], ...] = (
    # Run 5e (bench/MUTATION.md, section 11): the shell modules split out of syntax.py and the
    # layer model, with the tests that name them.
    *((f"heredoc_lint/shell/{name}.py", _RUN5E_SHELL_TESTS) for name in ("heredoc_body", "names")),
    # HL104 is the one reader of shell/structure.py (the jobs of a script).
    (
        "heredoc_lint/shell/structure.py",
        (*_RUN5E_SHELL_TESTS, "tests/test_rule_hl104.py", *_RULE_CORE_TESTS),
    ),
    ("heredoc_lint/shell/definitions.py", _RUN5E_SHELL_TESTS),
    ("heredoc_lint/shell/*.py", _SHELL_TESTS),
    *((f"heredoc_lint/layers/{name}.py", _RUN5E_LAYER_TESTS) for name in ("layer", "wrappers")),
    ("heredoc_lint/layers/forwarders.py", _RUN5E_LAYER_TESTS),
    (
        "heredoc_lint/fixes/edits.py",
        (
            "tests/test_words.py",
            "tests/test_heredoc.py",
            "tests/test_edits.py",
            "tests/test_rule_hl102.py",
            "tests/test_fix_remote_heredoc.py",
            "tests/test_shell_structure.py",
            *_FIX_TESTS,
        ),
    ),
    (
        "heredoc_lint/fixes/python_fixes.py",
        (*_PYTHON_TESTS, "tests/test_cli.py", *_WRITE_TESTS),
    ),
    ("heredoc_lint/fixes/*.py", (*_FIX_TESTS, "tests/test_cli.py", "tests/test_rule_hl202.py")),
    (
        "heredoc_lint/run/writer.py",
        (*_IO_TESTS, "tests/test_fix_guarantees.py", *_WRITE_TESTS),
    ),
    (
        "heredoc_lint/run/suppress.py",
        (*_IO_TESTS, "tests/test_config.py", "tests/test_rules_core.py", *_WRITE_TESTS),
    ),
    ("heredoc_lint/run/cache.py", (*_IO_TESTS, *_WRITE_TESTS)),
    ("heredoc_lint/rules/hl002_*.py", (*_IO_TESTS, "tests/test_config.py", *_RULE_TESTS)),
    ("heredoc_lint/rules/hl10[126]_*.py", (*_RULE_TESTS, *_RULE_CORE_TESTS)),
    # Part A of run 4 (bench/MUTATION.md, section 7): the rule table, its docs page and the
    # helpers every rule uses, with the tests that reach them.
    (
        "heredoc_lint/rules/docstring.py",
        (
            "tests/test_rules_doc.py",
            "tests/test_rule_examples.py",
            "tests/test_rules_core.py",
            "tests/test_rule_hl201.py",
            "tests/test_rule_hl111.py",
        ),
    ),
    (
        "heredoc_lint/rules/doc.py",
        ("tests/test_rules_doc.py", "tests/test_lsp_rules_doc.py", *_RULE_TESTS),
    ),
    *(
        (f"heredoc_lint/rules/{name}", (*_RULE_TESTS, *_RULE_CORE_TESTS))
        for name in ("__init__.py", "base.py", "hl104_*.py")
    ),
    (
        "heredoc_lint/rules/hl00[1]_*.py",
        (*_RULE_TESTS, *_RULE_CORE_TESTS, "tests/test_precision_hl001.py"),
    ),
    (
        "heredoc_lint/rules/hl20*.py",
        (
            *_RULE_TESTS,
            *_PYTHON_TESTS,
            *_RULE_HL107_TO_HL112_TESTS,
            "tests/test_python_values.py",
            "tests/test_python_decoding.py",
        ),
    ),
    *(
        (f"heredoc_lint/rules/{name}", (*_RULE_TESTS, *_RULE_HL107_TO_HL112_TESTS))
        for name in ("hl10[789]_*.py", "hl11[012]_*.py")
    ),
    ("heredoc_lint/rules/*.py", _RULE_TESTS),
    (
        "heredoc_lint/frontends/python*",
        (
            "tests/test_python_frontend.py",  # first: a quick kill stops the run early
            "tests/test_prefilter.py",
            "tests/test_rule_hl201.py",
            "tests/test_python_channels_hl104.py",
            "tests/test_python_values.py",
            "tests/test_python_decoding.py",
            "tests/test_python_offsets_literals.py",
            "tests/test_python_asyncssh.py",
            "tests/test_python_pexpect.py",
            "tests/test_python_argv.py",
            "tests/test_python_rules.py",
            "tests/test_rule_hl202.py",
            "tests/test_python_offsets_runs.py",
            "tests/test_python_wrappers_config.py",
            *_PYTHON_TESTS,
            "tests/test_python_hardening.py",
        ),
    ),
)


def covering_tests(module: str) -> list[str]:
    for pattern, tests in COVERING:
        if fnmatch.fnmatch(module, pattern):
            found = list(tests)
            stem = Path(module).stem
            if module.startswith("heredoc_lint/rules/hl"):
                found.insert(2, f"tests/test_rule_{stem.split('_')[0]}.py")
            # Test files that exist, and pytest options (`-k EXPR`) as they are.
            kept: list[str] = []
            for item in dict.fromkeys(found):
                option = item.startswith("-") or (kept and kept[-1] == "-k")
                if option or (ROOT / item.split("::")[0]).exists():
                    kept.append(item)
            return kept
    return []


# -- mutation points ----------------------------------------------------------------------

_FLIP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


@dataclass(frozen=True)
class Mutant:
    module: str  # path relative to the repository root
    index: int  # the mutation point's position in the module's list
    line: int
    operator: str
    before: str
    after: str
    scope: str = ""  # the enclosing function or class, dotted; "" at module level

    def where(self) -> str:
        return f"{self.module}:{self.line}"


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0]))
                ids.add(id(body[0].value))
    return ids


def _skipped(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Nodes whose mutation says nothing: type annotations, `__all__`, the RULE's
    metadata, `TYPE_CHECKING` blocks, `raise`/`assert` messages."""
    if any(isinstance(n, ast.Name) and n.id == "__doc__" for n in ast.walk(node)):
        return True  # `__doc__ or ""`: the rule's documentation
    current: ast.AST | None = node
    while current is not None:
        parent = parents.get(id(current))
        if isinstance(parent, ast.arg | ast.AnnAssign) and current is parent.annotation:
            return True
        if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef) and current is parent.returns:
            return True
        if isinstance(current, ast.If) and "TYPE_CHECKING" in ast.unparse(current.test):
            return True
        if isinstance(current, ast.Assert):
            return True
        if isinstance(current, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in current.targets
        ):
            return True  # the names a star import exports: nothing here uses it
        current = parent
    return False


# A mutation: (operator name, the node to edit, function that edits a copy of it in place
# or returns its replacement).
Edit = Callable[[ast.AST], ast.AST | None]


def _points(tree: ast.Module) -> Iterator[tuple[str, ast.AST, Edit]]:
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    docstrings = _docstring_nodes(tree)
    for node in ast.walk(tree):
        if id(node) in docstrings or _skipped(node, parents):
            continue
        if isinstance(node, ast.Compare):
            for k, op in enumerate(node.ops):
                if type(op) in _FLIP:
                    yield "compare", node, _set_op(k, _FLIP[type(op)]())
        elif isinstance(node, ast.BoolOp):
            other: ast.boolop = ast.Or() if isinstance(node.op, ast.And) else ast.And()
            yield "and/or", node, _set_attr("op", other)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield "negation", node, lambda n: n.operand  # type: ignore[attr-defined]
        elif isinstance(node, ast.If | ast.While | ast.IfExp):
            yield "negation", node, _negate_test
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
            yield (
                "arith",
                node,
                _set_attr("op", ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()),
            )
        elif isinstance(node, ast.Slice):
            if node.upper is not None:
                yield "slice", node, _shift_slice("upper", 1)
            if node.lower is not None:
                yield "slice", node, _shift_slice("lower", 1)
        elif isinstance(node, ast.Constant):
            parent = parents.get(id(node))
            if isinstance(parent, ast.JoinedStr):
                continue
            value = node.value
            if isinstance(value, bool):
                yield "constant", node, _set_attr("value", not value)
            elif isinstance(value, int) and not isinstance(parent, ast.Slice):
                yield "boundary", node, _set_attr("value", value + 1)
                yield "boundary", node, _set_attr("value", value - 1)
            elif isinstance(value, str) and 1 <= len(value) <= 8:
                yield "constant", node, _set_attr("value", value[1:])
        if isinstance(
            node, ast.Return | ast.Expr | ast.Assign | ast.AugAssign | ast.Continue | ast.Break
        ):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue
            yield "statement", node, lambda n: ast.copy_location(ast.Pass(), n)


def _set_op(k: int, op: ast.cmpop) -> Edit:
    def edit(node: ast.AST) -> None:
        assert isinstance(node, ast.Compare)
        node.ops[k] = op

    return edit


def _set_attr(name: str, value: object) -> Edit:
    def edit(node: ast.AST) -> None:
        setattr(node, name, value)

    return edit


def _negate_test(node: ast.AST) -> None:
    assert isinstance(node, ast.If | ast.While | ast.IfExp)
    node.test = ast.UnaryOp(ast.Not(), node.test)


def _shift_slice(end: str, by: int) -> Edit:
    def edit(node: ast.AST) -> None:
        value = getattr(node, end)
        setattr(node, end, ast.BinOp(value, ast.Add(), ast.Constant(by)))

    return edit


def _describe(node: ast.AST, limit: int = 70) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _apply(tree: ast.Module, index: int) -> tuple[ast.Module, str, str, str, int]:
    """A copy of `tree` with mutation point `index` applied; (tree, operator, before,
    after, line)."""
    mutated = copy.deepcopy(tree)
    operator, node, edit = list(_points(mutated))[index]
    before = _describe(node)
    line = getattr(node, "lineno", 0)
    replacement = edit(node)
    if replacement is not None and replacement is not node:
        _replace(mutated, node, replacement)
        after = _describe(replacement)
    else:
        after = _describe(node)
    return ast.fix_missing_locations(mutated), operator, before, after, line


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, name, new)
                return
            if isinstance(value, list) and any(v is old for v in value):
                value[[id(v) for v in value].index(id(old))] = new
                return
    raise ValueError("node not found")


@functools.cache
def source_of(module: str) -> str:
    """A module's text as it was when the run first read it: the worktree may change
    during a run (a fix, a test), and a mutant must be of the text the workspace holds."""
    return (ROOT / module).read_text()


def _scopes(tree: ast.Module) -> list[tuple[int, int, str]]:
    """(first line, last line, dotted name) of every def and class, outer before inner."""
    found: list[tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                found.append((child.lineno, child.end_lineno or child.lineno, name))
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def _scope_of(scopes: list[tuple[int, int, str]], line: int) -> str:
    inner = [name for first, last, name in scopes if first <= line <= last]
    return inner[-1] if inner else ""


def mutants(module: str) -> list[Mutant]:
    tree = ast.parse(source_of(module))
    scopes = _scopes(tree)
    found = []
    for index, (operator, node, _) in enumerate(_points(tree)):
        line = getattr(node, "lineno", 0)
        found.append(
            Mutant(module, index, line, operator, _describe(node), "", _scope_of(scopes, line))
        )
    return found


def mutated_source(mutant: Mutant) -> tuple[str, Mutant]:
    tree = ast.parse(source_of(mutant.module))
    scope = _scope_of(_scopes(tree), mutant.line)
    mutated, operator, before, after, line = _apply(tree, mutant.index)
    return ast.unparse(mutated) + "\n", Mutant(
        mutant.module, mutant.index, line, operator, before, after, scope
    )


# -- mutants judged equivalent by hand ------------------------------------------------------

EQUIVALENTS = ROOT / "bench" / "mutation_equivalents.tsv"


@dataclass(frozen=True)
class Equivalent:
    """A mutant read by hand and judged equivalent (no input tells it from the original)
    or harmless (durability only), with the reason.  Found again by what it changes and
    where, not by line: `module`, the enclosing `scope`, `operator`, `before`, `after`."""

    module: str
    scope: str  # `numeric#2`: only the second of several identical points in `numeric`
    operator: str
    before: str
    after: str
    reason: str

    def matches(self, mutant: Mutant) -> bool:
        scope, _, occurrence = self.scope.partition("#")
        same = (self.module, scope, self.operator, self.before, self.after) == (
            mutant.module,
            mutant.scope,
            mutant.operator,
            mutant.before,
            mutant.after,
        )
        return same and (not occurrence or occurrence_of(mutant) == int(occurrence))


@functools.cache
def _identical(module: str, scope: str, operator: str, before: str, after: str) -> list[Mutant]:
    """The points of today's `module` that make this same mutant, in the order of the text
    (a point added after one does not renumber it)."""
    alike = [
        m
        for m in mutants(module)
        if (m.scope, m.operator, m.before) == (scope, operator, before)
        and mutated_source(m)[1].after == after
    ]
    places = _places(module)
    return sorted(alike, key=lambda m: (places[m.index], m.index))


@functools.cache
def _places(module: str) -> list[tuple[int, int]]:
    """(line, column) of each mutation point of today's `module`, by index."""
    tree = ast.parse(source_of(module))
    return [
        (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)) for _, node, _ in _points(tree)
    ]


def occurrence_of(mutant: Mutant) -> int:
    """Which of the identical points of its scope `mutant` is (`--describe` prints it as
    `scope#N` where there are several); 0 when it is not a point of today's text."""
    alike = _identical(mutant.module, mutant.scope, mutant.operator, mutant.before, mutant.after)
    places = [(m.index, m.line) for m in alike]
    return (
        places.index((mutant.index, mutant.line)) + 1
        if (mutant.index, mutant.line) in places
        else 0
    )


def read_equivalents(path: Path = EQUIVALENTS) -> list[Equivalent]:
    """The registry: one tab-separated line per mutant, `#` lines are comments."""
    if not path.exists():
        return []
    found = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 6 or not fields[5].strip():
            raise SystemExit(f"{path}:{number}: want 6 tab-separated fields, the last a reason")
        found.append(Equivalent(*fields))
    return found


def equivalent_reason(mutant: Mutant, equivalents: Sequence[Equivalent]) -> str | None:
    return next((e.reason for e in equivalents if e.matches(mutant)), None)


# -- running ------------------------------------------------------------------------------

_TIMEOUT_PLUGIN = '''\
"""Per-test timeout for the mutation harness (SIGALRM; a hung test counts as a kill)."""
import os
import signal

import pytest

_SECONDS = int(os.environ.get("MUTATION_TEST_TIMEOUT", "60"))


def _expire(signum, frame):
    raise TimeoutError(f"mutation harness: test over {_SECONDS}s")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    old = signal.signal(signal.SIGALRM, _expire)
    signal.alarm(_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
'''


@dataclass
class Workspace:
    """One scratch copy of the tree, used by one job at a time."""

    path: Path

    @classmethod
    def create(cls, parent: Path, name: str) -> Workspace:
        path = parent / name
        ignore = shutil.ignore_patterns("__pycache__", ".heredoc_lint_cache", "*.pyc")
        for item in ("heredoc_lint", "tests", "fixtures", "scripts", "docs"):
            if (ROOT / item).exists():
                shutil.copytree(ROOT / item, path / item, ignore=ignore)
        for item in ("pyproject.toml", "README.md"):
            if (ROOT / item).exists():
                shutil.copy2(ROOT / item, path / item)
        for module in core_modules(()):  # the text the mutants are made of, not today's
            (path / module).write_text(source_of(module))
        (path / "_mutation_timeout.py").write_text(_TIMEOUT_PLUGIN)
        return cls(path)

    def run(
        self, tests: Sequence[str], test_timeout: int, timeout: float
    ) -> tuple[bool, float, str]:
        """(passed, seconds, last lines of output) of `pytest -x TESTS` in this copy."""
        env = {
            **os.environ,
            "PYTHONPATH": str(self.path),
            "MUTATION_TEST_TIMEOUT": str(test_timeout),
            "PYTHONDONTWRITEBYTECODE": "1",
            "CI": "true",
        }
        argv = [
            sys.executable,
            "-m",
            "pytest",
            "-x",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "_mutation_timeout",
            *tests,
        ]
        started = time.monotonic()
        proc = subprocess.Popen(
            argv,
            cwd=self.path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
            start_new_session=True,
        )
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return False, time.monotonic() - started, "timeout"
        tail = "\n".join(out.strip().splitlines()[-3:])
        return proc.returncode == 0, time.monotonic() - started, tail


GONE = "no longer a mutation point"


@dataclass
class Result:
    mutant: Mutant
    killed: bool
    seconds: float
    note: str = ""
    equivalent: str = ""  # the registry's reason; such a mutant is not run nor scored

    @property
    def gone(self) -> bool:
        """An earlier run's survivor whose code today's text no longer has: not scored."""
        return self.note == GONE


@dataclass
class ModuleReport:
    module: str
    tests: list[str]
    points: int
    baseline_ok: bool = True
    baseline_seconds: float = 0.0
    results: list[Result] = field(default_factory=list)

    @property
    def scored(self) -> list[Result]:
        return [r for r in self.results if not r.equivalent and not r.gone]

    @property
    def score(self) -> float | None:
        """Killed / run, the mutants judged equivalent left out."""
        if not self.scored:
            return None
        return sum(r.killed for r in self.scored) / len(self.scored)


def core_modules(patterns: Sequence[str]) -> list[str]:
    found: list[str] = []
    for glob in CORE:
        for path in sorted(ROOT.glob(glob)):
            module = str(path.relative_to(ROOT))
            if path.name == "__init__.py" and path.stat().st_size < 400:
                continue  # only imports
            if not patterns or any(p in module for p in patterns):
                found.append(module)
    return list(dict.fromkeys(found))


def _interleave(samples: dict[str, list[Mutant]]) -> list[Mutant]:
    """Round-robin over the modules: a run cut by the budget still covers each."""
    order: list[Mutant] = []
    queues = [list(q) for q in samples.values()]
    while any(queues):
        for queue in queues:
            if queue:
                order.append(queue.pop(0))
    return order


class Pool:
    """Workspaces handed out to one job at a time."""

    def __init__(self, workspaces: list[Workspace]) -> None:
        self.free = list(workspaces)
        self.lock = threading.Lock()

    def take(self) -> Workspace:
        with self.lock:
            return self.free.pop()

    def give(self, workspace: Workspace) -> None:
        with self.lock:
            self.free.append(workspace)


def _write_module(workspace: Workspace, module: str, source: str) -> None:
    (workspace.path / module).write_text(source)


def _restore(workspace: Workspace, module: str) -> None:
    _write_module(workspace, module, source_of(module))


def _newer_first(tests: list[str], since: float) -> list[str]:
    """The test files changed after `since` (an earlier run's results) first: in a re-run
    of its survivors, the tests written to kill them run before the rest of the row, and
    `pytest -x` stops at the first failure.  Options (`-k EXPR`) keep their place at the
    end; a survivor still runs every test of the row."""
    files: list[str] = []
    options: list[str] = []
    items = iter(tests)
    for item in items:
        if item == "-k":
            options += [item, next(items)]
        elif item.startswith("-"):
            options.append(item)
        else:
            files.append(item)
    newer = [f for f in files if (ROOT / f.split("::")[0]).stat().st_mtime > since]
    return newer + [f for f in files if f not in newer] + options


def run_baseline(pool: Pool, reports: Sequence[ModuleReport], test_timeout: int) -> None:
    """One run of a test row with every module that row covers printed back by
    `ast.unparse` (as each mutant is): modules that share a row share a baseline."""
    workspace = pool.take()
    try:
        for report in reports:
            source = ast.unparse(ast.parse(source_of(report.module))) + "\n"
            _write_module(workspace, report.module, source)
        ok, seconds, tail = workspace.run(reports[0].tests, test_timeout, timeout=1800)
        for report in reports:
            report.baseline_ok, report.baseline_seconds = ok, seconds
        if not ok:
            names = ", ".join(r.module for r in reports)
            print(f"  baseline FAILS for {names}: {tail}", flush=True)
    finally:
        for report in reports:
            _restore(workspace, report.module)
        pool.give(workspace)


def run_mutant(pool: Pool, mutant: Mutant, report: ModuleReport, test_timeout: int) -> Result:
    workspace = pool.take()
    try:
        source, described = mutated_source(mutant)
        _write_module(workspace, mutant.module, source)
        limit = max(60.0, 3 * report.baseline_seconds + 30)
        passed, seconds, tail = workspace.run(report.tests, test_timeout, timeout=limit)
        return Result(
            described,
            not passed,
            seconds,
            "" if passed else tail.splitlines()[-1:][0] if tail else "",
        )
    finally:
        _restore(workspace, mutant.module)
        pool.give(workspace)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument(
        "--module", action="append", default=[], help="substring of a module path (repeatable)"
    )
    parser.add_argument("--max-per-module", type=int, default=20)
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--budget", type=float, default=3300.0, help="seconds; no new mutant after")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--test-timeout", type=int, default=60, help="seconds per test")
    parser.add_argument("--json", type=Path, help="write every result here")
    parser.add_argument("--list", action="store_true", help="list modules, tests and point counts")
    parser.add_argument(
        "--survivors-of",
        type=Path,
        action="append",
        default=[],
        help="a --json of an earlier run (repeatable): run its survivors again, count its "
        "kills as kills",
    )
    parser.add_argument(
        "--report",
        type=Path,
        action="append",
        default=[],
        help="a --json of an earlier run (repeatable): print the scores of these runs "
        "together, the registry of equivalents applied, and run nothing",
    )
    parser.add_argument(
        "--rows", action="store_true", help="replay the 21 planted bugs of issue 20"
    )
    parser.add_argument(
        "--describe",
        metavar="MODULE:LINE",
        help="print the mutation points on that line as lines of the registry of "
        "equivalents (the reason left to write)",
    )
    args = parser.parse_args(argv)
    if args.rows:
        return replay_rows()

    modules = core_modules(args.module)
    reports = {m: ModuleReport(m, covering_tests(m), len(mutants(m))) for m in modules}
    if args.list:
        for report in reports.values():
            print(f"{report.module:58} {report.points:5} points  {' '.join(report.tests)}")
        return 0
    equivalents = read_equivalents()
    if args.describe:
        module, _, line = args.describe.rpartition(":")
        for m in mutants(module):
            if m.line == int(line):
                d = mutated_source(m)[1]
                scope = d.scope
                if len(_identical(d.module, d.scope, d.operator, d.before, d.after)) > 1:
                    scope += f"#{occurrence_of(d)}"  # several alike: name this one
                print("\t".join((d.module, scope, d.operator, d.before, d.after, "REASON")))
        return 0
    samples: dict[str, list[Mutant]] = {}
    if args.report:
        for path in args.report:
            _earlier_results(path, reports, equivalents, keep_survivors=True)
        print_report([r for r in reports.values() if r.results], 0.0)
        return 0
    if args.survivors_of:
        for path in args.survivors_of:
            for module, again in _earlier_results(path, reports, equivalents).items():
                samples.setdefault(module, []).extend(again)
        since = max(path.stat().st_mtime for path in args.survivors_of)
        for report in reports.values():
            report.tests = _newer_first(report.tests, since)
    else:
        rng = random.Random(args.seed)
        for module in reports:
            every = mutants(module)
            samples[module] = sorted(
                rng.sample(every, min(args.max_per_module, len(every))), key=lambda m: m.index
            )
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mutation-") as scratch:
        pool = Pool([Workspace.create(Path(scratch), f"w{k}") for k in range(args.jobs)])
        rows: dict[tuple[str, ...], list[ModuleReport]] = {}
        for module, sample in samples.items():
            if sample:
                rows.setdefault(tuple(reports[module].tests), []).append(reports[module])
        print(f"baselines of {len(rows)} test rows...", flush=True)
        with ThreadPoolExecutor(args.jobs) as executor:
            list(executor.map(lambda r: run_baseline(pool, r, args.test_timeout), rows.values()))
        order = [m for m in _interleave(samples) if reports[m.module].baseline_ok]
        print(f"{len(order)} mutants, budget {args.budget:.0f}s, {args.jobs} jobs", flush=True)

        def one(mutant: Mutant) -> Result | None:
            report = reports[mutant.module]
            described = mutated_source(mutant)[1]
            reason = equivalent_reason(described, equivalents)
            if reason is not None:
                report.results.append(Result(described, False, 0.0, equivalent=reason))
                print(f"  equivalent {described.where()} [{described.operator}]", flush=True)
                return None
            if time.monotonic() - started > args.budget:
                return None
            result = run_mutant(pool, mutant, report, args.test_timeout)
            report.results.append(result)
            mark = "killed " if result.killed else "SURVIVED"
            print(
                f"  {mark} {result.mutant.where()} [{result.mutant.operator}] "
                f"{result.mutant.before} -> {result.mutant.after} ({result.seconds:.0f}s)",
                flush=True,
            )
            return result

        with ThreadPoolExecutor(args.jobs) as executor:
            list(executor.map(one, order))
    print_report(list(reports.values()), time.monotonic() - started)
    if args.json:
        args.json.write_text(
            json.dumps(
                [
                    {
                        "module": r.module,
                        "tests": r.tests,
                        "points": r.points,
                        "baseline_ok": r.baseline_ok,
                        "score": r.score,
                        "results": [
                            {
                                **asdict(x.mutant),
                                "killed": x.killed,
                                "seconds": x.seconds,
                                "equivalent": x.equivalent,
                            }
                            for x in r.results
                        ],
                    }
                    for r in reports.values()
                ],
                indent=1,
            )
        )
    return 0


def _earlier_results(
    path: Path,
    reports: dict[str, ModuleReport],
    equivalents: Sequence[Equivalent],
    keep_survivors: bool = False,
) -> dict[str, list[Mutant]]:
    """The results of an earlier run: its kills go into `reports` as they were, and so do
    the mutants the registry now calls equivalent; the survivors are returned (to run
    again), found again in today's source by what they change, not by index, or with
    `keep_survivors` go into `reports` as survivors.  A mutant already in `reports` (from
    another file) is taken once, a kill first."""
    samples: dict[str, list[Mutant]] = {}
    for entry in json.loads(path.read_text()):
        report = reports.get(entry["module"])
        if report is None:
            continue
        current: dict[tuple[int, str, str], list[Mutant]] = {}
        moved: dict[tuple[str, str, str], list[Mutant]] = {}  # by scope, for moved lines
        for m in mutants(report.module):
            current.setdefault((m.line, m.operator, m.before), []).append(m)
            moved.setdefault((m.scope, m.operator, m.before), []).append(m)
        seen = {_identity(r.mutant): r for r in report.results}
        for item in entry["results"]:
            fields = {k: item[k] for k in ("module", "index", "line", "operator", "before")}
            mutant = Mutant(**fields, after=item["after"], scope=item.get("scope", ""))
            earlier = seen.get(_identity(mutant))
            if earlier is not None and (earlier.killed or not item["killed"]):
                continue
            if earlier is not None:
                report.results.remove(earlier)
            reason = equivalent_reason(mutant, equivalents)
            if reason is not None:  # judged since: not scored, whatever the run found
                report.results.append(Result(mutant, False, item["seconds"], equivalent=reason))
                seen[_identity(mutant)] = report.results[-1]
                continue
            if item["killed"]:
                report.results.append(Result(mutant, True, item["seconds"], "earlier run"))
                seen[_identity(mutant)] = report.results[-1]
                continue
            candidates = [  # the same point: its line, text and (when recorded) scope
                c
                for c in current.get((mutant.line, mutant.operator, mutant.before), [])
                if not mutant.scope or c.scope == mutant.scope
            ]
            again = next(
                (c for c in candidates if mutated_source(c)[1].after == mutant.after), None
            )
            if again is None:  # its line moved: the same point in its scope, the nearest
                alike = [
                    c
                    for c in moved.get((mutant.scope, mutant.operator, mutant.before), [])
                    if mutated_source(c)[1].after == mutant.after
                ]
                again = min(alike, key=lambda c: abs(c.line - mutant.line), default=None)
            if again is None:
                print(f"  {GONE}: {mutant.where()} {mutant.before}")
                if keep_survivors:  # still the run's survivor: reported, not dropped
                    report.results.append(Result(mutant, False, item["seconds"], GONE))
                    seen[_identity(mutant)] = report.results[-1]
                continue
            described = mutated_source(again)[1]
            if _identity(described) in seen:  # met already at today's line: a kill stays one
                continue
            reason = equivalent_reason(described, equivalents)
            if reason is not None or keep_survivors:
                report.results.append(
                    Result(described, False, item["seconds"], equivalent=reason or "")
                )
                # Under both names: a later run finds it at its line of today.
                seen[_identity(mutant)] = seen[_identity(described)] = report.results[-1]
            elif not any(
                _identity(m) == _identity(described) for m in samples.get(mutant.module, [])
            ):
                samples.setdefault(mutant.module, []).append(again)
    return samples


def _identity(mutant: Mutant) -> tuple[str, int, str, str, str]:
    return (mutant.module, mutant.line, mutant.operator, mutant.before, mutant.after)


def print_report(reports: Sequence[ModuleReport], seconds: float) -> None:
    print(f"\n{'module':58} {'killed/run':>10} {'equiv':>5} {'score':>6}  (points)")
    total_killed = total_run = total_equivalent = 0
    for report in reports:
        run = len(report.scored)
        killed = sum(r.killed for r in report.scored)
        equivalent = len(report.results) - run
        total_killed += killed
        total_run += run
        total_equivalent += equivalent
        score = "-" if not run else f"{killed / run:.2f}"
        note = "" if report.baseline_ok else "  baseline fails: not scored"
        print(
            f"{report.module:58} {killed:>4}/{run:<5} {equivalent:>5} {score:>6}  "
            f"({report.points}){note}"
        )
    overall = f"{total_killed / total_run:.2f}" if total_run else "-"
    print(
        f"{'all':58} {total_killed:>4}/{total_run:<5} {total_equivalent:>5} {overall:>6}"
        f"  in {seconds:.0f}s"
    )
    results = sorted(
        (r for report in reports for r in report.results if not r.killed),
        key=lambda r: (r.mutant.module, r.mutant.line),
    )
    for title, chosen in (
        ("survivors", [r for r in results if not r.equivalent and not r.gone]),
        (
            "judged equivalent (bench/mutation_equivalents.tsv)",
            [r for r in results if r.equivalent],
        ),
        (
            "survivors of an earlier run whose code is gone (removed or rewritten since;"
            " not scored)",
            [r for r in results if r.gone],
        ),
    ):
        if chosen:
            print(f"\n{title}:")
        for r in chosen:
            m = r.mutant
            print(f"  {m.where()} {m.scope or '<module>'} [{m.operator}] {m.before} -> {m.after}")
            if r.equivalent:
                print(f"      {r.equivalent}")


# -- the 21 bugs of issue 20, replayed ------------------------------------------------------


@dataclass(frozen=True)
class Row:
    name: str
    module: str
    old: str
    new: str
    tests: tuple[str, ...]


ROWS = (
    Row(
        "HL102 nested expansion reported at every depth",
        "heredoc_lint/rules/hl102_client_side_expansion.py",
        "    if parent is None:\n        return False\n    return parent.in_local_",
        "    if parent is None or True:\n        return False\n    return parent.in_local_",
        ("tests/test_rule_hl102.py::test_hl102_nested_expansion_reported_once_at_depth_1",),
    ),
    Row(
        "HL103 -uroot skips the next word",
        "heredoc_lint/rules/hl103_pkill_self_match.py",
        "takes_arg = k == len(letters) - 1",
        "takes_arg = True",
        ("tests/test_rule_hl103.py::test_hl103_option_arguments_do_not_hide_the_pattern",),
    ),
    Row(
        "HL106 fix does not escape \\ in double quotes",
        "heredoc_lint/rules/hl106_ssh_argument_rejoin.py",
        "if c in '\\\\\"`$' else c for c in text)",
        "if c in '\"`$' else c for c in text)",
        ("tests/test_rule_hl106.py::test_hl106_fix_escapes_backslashes_in_double_quotes",),
    ),
    Row(
        "HL106 remote operator no longer turns off reports",
        "heredoc_lint/rules/hl106_ssh_argument_rejoin.py",
        '            shell_text = shell_text or bool(told[index].texts("control"))',
        "            pass",
        ("tests/test_rule_hl106.py::test_hl106_remote_operator_turns_off_later_words",),
    ),
    Row(
        "HL109 2>&1 taken for a file write",
        "heredoc_lint/rules/hl109_sudo_redirect.py",
        "redirect.heredoc is not None or _is_dup(redirect):",
        "redirect.heredoc is not None:",
        ("tests/test_rule_hl109.py::test_hl109_descriptor_duplication_is_not_a_write",),
    ),
    Row(
        "words: $'\\1234' reads four octal digits",
        "heredoc_lint/shell/words.py",
        "j < i + 4 and body[j] in _OCTAL",
        "j < i + 5 and body[j] in _OCTAL",
        (
            "tests/test_words.py::test_ansi_octal_escape_reads_three_digits_like_bash",
            "tests/test_words.py::test_ansi_octal_space_splits_on_the_remote_side",
        ),
    ),
    Row(
        "words: unquoted [ is no glob",
        "heredoc_lint/shell/words.py",
        'if c in "*?[" or',
        'if c in "*?" or',
        ("tests/test_words.py::test_globbing_flag_agrees_with_bash",),
    ),
    Row(
        "heredoc: unquoted body keeps backslash-newline",
        "heredoc_lint/shell/heredoc.py",
        "return value if self.quoted else _join_continuations(value)",
        "return value",
        ("tests/test_heredoc.py::test_unquoted_heredoc_body_joins_continuations_like_bash",),
    ),
    Row(
        "heredoc: joined line not tested as terminator",
        "heredoc_lint/shell/heredoc.py",
        "            if not item.quoted:\n                line = _join_continuations(line)",
        "            if False:\n                line = _join_continuations(line)",
        ("tests/test_heredoc.py::test_joined_line_can_be_the_terminator",),
    ),
    Row(
        "edits: span end inside an escape kept",
        "heredoc_lint/fixes/edits.py",
        "    if states.get(b) is Quote.INSIDE and b > a:\n        b -= 1\n",
        "",
        ("tests/test_edits.py::test_split_fix_ends_before_an_escaped_backslash",),
    ),
    Row(
        "remote_heredoc: unquoted body with \\ counted literal",
        "heredoc_lint/fixes/remote_heredoc.py",
        'for c in "$`\\\\")',
        'for c in "$`")',
        ("tests/test_fix_remote_heredoc.py::test_unquoted_body_with_backslashes_keeps_its_bytes",),
    ),
    Row(
        "remote_heredoc: stdin delimiter occurs in the body",
        "heredoc_lint/fixes/remote_heredoc.py",
        "    while delimiter in lines:",
        "    while False:",
        (
            "tests/test_fix_remote_heredoc.py::test_stdin_fix_picks_a_delimiter_absent_from_the_body",
        ),
    ),
    Row(
        "remote_heredoc: stdin fix for ssh -n",
        "heredoc_lint/fixes/remote_heredoc.py",
        '        or invocation.ssh.has_flag("n")\n',
        "",
        ("tests/test_fix_remote_heredoc.py::test_stdin_fix_not_offered_to_ssh_n",),
    ),
    Row(
        "remote_heredoc: CRLF terminator without \\r",
        "heredoc_lint/fixes/remote_heredoc.py",
        'ending = "\\r\\n" if',
        'ending = "\\n" if',
        ("tests/test_fix_remote_heredoc.py::test_stdin_fix_in_a_crlf_file_ends_its_heredoc",),
    ),
    Row(
        "remote_heredoc: base64 over the argument limit",
        "heredoc_lint/fixes/remote_heredoc.py",
        "        return None  # the string would no longer fit",
        "        pass  # the string would no longer fit",
        ("tests/test_fix_remote_heredoc.py::test_base64_fix_stays_under_the_argument_limit",),
    ),
    Row(
        "writer: fixed file loses its mode",
        "heredoc_lint/run/writer.py",
        "            handle.flush()\n"
        "            os.fchmod(handle.fileno(), stat.S_IMODE(info.st_mode))",
        "            handle.flush()",
        ("tests/test_writer_inode.py::test_fix_keeps_the_file_mode",),
    ),
    Row(
        "suppress: code prefixes not honoured",
        "heredoc_lint/run/suppress.py",
        "any(code.startswith(c) for c in codes)",
        "any(code == c for c in codes)",
        ("tests/test_suppress_comments.py::test_directive_code_prefixes_are_honoured",),
    ),
    Row(
        "suppress: directive after the closing quote ignored",
        "heredoc_lint/run/suppress.py",
        "places = {line, first_of.get(line, line), last_of.get(line, line)}",
        "places = {line, first_of.get(line, line)}",
        (
            "tests/test_suppress_comments.py::test_directive_after_the_closing_quote_covers_the_statement",
        ),
    ),
    Row(
        "suppress: foreign noqa reported as HL002",
        "heredoc_lint/run/suppress.py",
        'ours = directive.codes == _ALL or any(c.startswith("HL") for c in directive.codes)',
        "ours = True",
        ("tests/test_suppress_comments.py::test_foreign_noqa_is_not_an_unused_suppression",),
    ),
    Row(
        "cache: fingerprint ignores mtime",
        "heredoc_lint/run/cache.py",
        "relative_to(package)}:{info.st_size}:{info.st_mtime_ns}",
        "relative_to(package)}:{info.st_size}",
        ("tests/test_cache.py::test_same_size_edit_of_the_tool_invalidates_the_cache",),
    ),
    Row(
        "python: ctx.run is invoke beside fabric",
        "heredoc_lint/frontends/python*",
        "if self.invoke and not self.fabric and _INVOKE_NAMES",
        "if self.invoke and _INVOKE_NAMES",
        ("tests/test_python_frontend.py::test_ctx_run_is_invoke_only_without_fabric",),
    ),
    Row(
        "python: prefilter drops os.popen",
        "heredoc_lint/frontends/python*",
        '    "os": ("system", "popen"),',
        '    "os": ("system",),',
        ("tests/test_prefilter.py::test_prefilter_keeps_an_os_popen_call_alone",),
    ),
)


def _row_file(row: Row) -> Path | None:
    """The file that holds the row's text; `python*` is the frontend, a module or a package."""
    if row.module.endswith("*"):
        base = row.module.rstrip("*")
        candidates = [ROOT / f"{base}.py", *sorted(ROOT.glob(f"{base}/*.py"))]
    else:
        candidates = [ROOT / row.module]
    for path in candidates:
        if path.is_file() and path.read_text().count(row.old) == 1:
            return path
    return None


def replay_rows() -> int:
    failures = 0
    with tempfile.TemporaryDirectory(prefix="mutation-rows-") as scratch:
        workspace = Workspace.create(Path(scratch), "w")
        for number, row in enumerate(ROWS, start=1):
            path = _row_file(row)
            if path is None:
                print(
                    f"{number:2} {row.name}: the planted text is no longer in the source "
                    "(update ROWS)"
                )
                failures += 1
                continue
            relative = str(path.relative_to(ROOT))
            (workspace.path / relative).write_text(path.read_text().replace(row.old, row.new))
            planted_ok, _, _ = workspace.run(row.tests, 120, timeout=900)
            _restore(workspace, relative)
            clean_ok, _, tail = workspace.run(row.tests, 120, timeout=900)
            verdict = (
                "planted, failed; removed, passed"
                if (not planted_ok and clean_ok)
                else (f"NOT KILLED (planted passed={planted_ok}, clean passed={clean_ok}) {tail}")
            )
            failures += not (not planted_ok and clean_ok)
            print(f"{number:2} {row.name}: {verdict}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
