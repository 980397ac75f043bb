"""The declared dependencies: every import is declared, and the lowest pins follow them.

A fresh virtualenv has only what pyproject.toml declares, so an import that the machine's
own Python happens to provide must not pass unnoticed; and the `--deps lowest` run of
scripts/test.sh installs scripts/lowest-constraints.txt, which must say what
pyproject.toml says.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
# Imported but, on purpose, not declared: the one line saying why.
UNDECLARED = {"atheris": "tests/fuzz/harness.py is a fuzzer run by hand (see its README)"}


def _script(name: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lowest_constraints = _script("lowest_constraints")


def test_the_lowest_constraints_are_generated_from_pyproject() -> None:
    on_disk = (ROOT / "scripts" / "lowest-constraints.txt").read_text(encoding="utf-8")
    assert on_disk == lowest_constraints.render(), "run python scripts/lowest_constraints.py"


def test_a_requirement_without_a_floor_is_refused(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\ndependencies = ["typer<0.29"]\n')
    with pytest.raises(SystemExit, match="needs exactly one `>=` floor"):
        lowest_constraints.render(pyproject)


def _imported_top_names(paths: list[Path]) -> dict[str, Path]:
    names: dict[str, Path] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found = [node.module]
            else:
                continue
            for name in found:
                names.setdefault(name.split(".")[0], path)
    return names


# The project's own folders of Python code: a module of any of them may import another's
# (a test imports a bench script, a bench script the test suite's sshd, tests/fuzz ...).
_PROJECT_FOLDERS = ("heredoc_lint", "tests", "bench", "scripts")


def _project_modules() -> list[Path]:
    """Every module of the project's own code, and every folder that holds one."""
    modules = [path for folder in _PROJECT_FOLDERS for path in (ROOT / folder).rglob("*.py")]
    return modules + sorted({path.parent for path in modules})


def _declared(*extras: str) -> set[str]:
    texts = [*(importlib.metadata.requires("heredoc-lint") or [])]
    chosen = set()
    for text in texts:
        requirement = Requirement(text)
        marker = requirement.marker
        if marker is None or any(marker.evaluate({"extra": extra}) for extra in extras):
            chosen.add(canonicalize_name(requirement.name))
    return chosen


@pytest.mark.parametrize(
    ("folder", "extras"),
    [
        ("heredoc_lint", ("lsp",)),
        ("tests", ("test",)),
        ("bench", ("test",)),
        ("scripts", ("test",)),
    ],
)
def test_every_import_is_declared(folder: str, extras: tuple[str, ...]) -> None:
    """Each third-party module imported under the folder comes from a distribution that
    the project's dependencies (plus the given extras) name directly."""
    paths = sorted((ROOT / folder).rglob("*.py"))
    paths = [p for p in paths if "data" not in p.relative_to(ROOT).parts]
    local = {path.stem for path in _project_modules()} | set(_PROJECT_FOLDERS)
    declared = _declared(*extras)
    distributions = importlib.metadata.packages_distributions()
    undeclared = {}
    for name, path in _imported_top_names(paths).items():
        if name in sys.stdlib_module_names or name in local or name in UNDECLARED:
            continue
        owners = {canonicalize_name(d) for d in distributions.get(name, [])}
        if not owners & declared:
            undeclared[name] = str(path.relative_to(ROOT))
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"


def test_the_table_of_dependency_modules_is_the_declared_one() -> None:
    """heredoc_lint.run.installation names, for each runtime dependency (and the lsp
    extra's), the module it provides: the declared ones, no more, no less."""
    from heredoc_lint.run.installation import DISTRIBUTIONS

    distributions = importlib.metadata.packages_distributions()
    provided = {
        canonicalize_name(d) for module in DISTRIBUTIONS for d in distributions.get(module, [])
    }
    assert {canonicalize_name(d) for d in DISTRIBUTIONS.values()} == provided
    assert provided == _declared("lsp")


def test_a_python_without_the_dependencies_is_told_so_in_one_line(tmp_path: Path) -> None:
    """A checkout run by a Python that lacks the dependencies (`python -S`: no
    site-packages) says which package is missing, one line per file it could not check,
    exits 2, and prints no traceback and no "internal error"."""
    script = tmp_path / "deploy.sh"
    script.write_text("#!/bin/bash\nssh h \"pkill -f app; ./start\"\n")
    done = subprocess.run(
        [sys.executable, "-S", "-m", "heredoc_lint", "--no-cache", str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 2, done
    assert done.stderr.splitlines() == [
        f"heredoc-lint: {script}: the package tree-sitter (module `tree_sitter`) is not "
        f"installed for {sys.executable}: install heredoc-lint with its dependencies "
        "(`python3 -m pip install .` in a checkout, or `pip install heredoc-lint`)"
    ]
