"""The package's layout: one folder per pipeline stage, a small top level, and the shell
model below everything else.

README.md ("How it works") names the stages; these tests keep the tree to what it says.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "heredoc_lint"
STAGES = frozenset(
    {"agents", "cli", "fixes", "frontends", "layers", "lsp", "project", "report", "rules"}
    | {"run", "shell"}
)
# The public API and the one table every stage reads: nothing else sits at the top.
TOP_LEVEL = frozenset({"__init__", "__main__", "engine", "kinds", "model", "severities"})


def test_the_top_level_holds_the_api_and_the_stages_only() -> None:
    assert {path.stem for path in PACKAGE.glob("*.py")} == TOP_LEVEL
    packages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert packages == STAGES


def test_the_readme_names_every_stage() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## How it works", 1)[1].split("\n## ", 1)[0]
    assert [stage for stage in sorted(STAGES) if f"`{stage}/`" not in section] == []


def _project_imports(path: Path) -> set[str]:
    """The modules of heredoc_lint a file imports, anywhere in it (type-only ones too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            if node.module == "heredoc_lint":
                names.update(f"heredoc_lint.{alias.name}" for alias in node.names)
    return {name for name in names if name.startswith("heredoc_lint.")}


@pytest.mark.parametrize("path", sorted((PACKAGE / "shell").glob("*.py")), ids=lambda p: p.name)
def test_the_shell_model_imports_nothing_above_it(path: Path) -> None:
    above = {name for name in _project_imports(path) if not name.startswith("heredoc_lint.shell.")}
    assert above == set()


def test_the_import_reader_sees_every_form_of_import(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        "import heredoc_lint.run.memory\n"
        "from heredoc_lint import engine\n"
        "if TYPE_CHECKING:\n    from heredoc_lint.layers.layer import Layer\n"
        "def f():\n    from heredoc_lint.report import output\n"
    )
    assert _project_imports(path) == {
        "heredoc_lint.run.memory",
        "heredoc_lint.engine",
        "heredoc_lint.layers.layer",
        "heredoc_lint.report",
    }


def _tests_of_the_wrapper_name(path: Path) -> list[int]:
    """Lines where `X.wrapper` is compared (`==`, `in`, ...) or matched (`.startswith`,
    `.endswith`): a rule deciding by a display name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        operands: list[ast.expr] = []
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith")
        ):
            operands = [node.func.value]
        for operand in operands:
            if isinstance(operand, ast.BoolOp):  # `(layer.wrapper or "")`
                operand = operand.values[0]
            if isinstance(operand, ast.Attribute) and operand.attr == "wrapper":
                found.append(node.lineno)
    return sorted(found)


RULE_MODULES = sorted((PACKAGE / "rules").glob("hl*.py")) + [PACKAGE / "report" / "explain.py"]


@pytest.mark.parametrize("path", RULE_MODULES, ids=lambda p: p.name)
def test_rules_ask_the_role_of_a_layer_not_its_name(path: Path) -> None:
    # `wrapper` is how messages name a layer ("docker exec sh -c"); what runs it is
    # `role`: a new row's label must not change a finding (layers.wrappers.Role).
    assert _tests_of_the_wrapper_name(path) == []


def test_the_name_test_finder_sees_a_comparison_and_a_match(tmp_path: Path) -> None:
    path = tmp_path / "r.py"
    path.write_text(
        'if layer.wrapper == "eval":\n    pass\n'
        'ok = (outer.wrapper or "").endswith("ssh")\n'
        "name = f'{layer.wrapper}'\n"
    )
    assert _tests_of_the_wrapper_name(path) == [1, 3]
