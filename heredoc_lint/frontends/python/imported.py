"""Numeric constants that a file imports from a module of its own project.

`from settings import PORT` where settings.py, found next to the file (or in a parent
directory, as Python finds a package's modules), binds `PORT = 8000` once at module
level: PORT is that number, a safe shell word.  Only names in capitals are looked up,
and each version of a module is read once.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from heredoc_lint.frontends.python.parsing import quiet
from heredoc_lint.run.memory import limited

_PARENTS = 4  # how far up a top-level module is looked for
_MAX_SIZE = 512 * 1024


def imported_constant(path: str, module: str, name: str, level: int = 0) -> int | float | None:
    """The number `module.name` is bound to, when module is a file of the project
    (`level`: the dots of a relative import)."""
    found = module_file(path, module, level)
    if found is None:
        return None
    try:
        stat = found.stat()
    except OSError:
        return None
    # The file's version is part of the key: a module edited while the process lives (a
    # language server's session) is read again, not answered from its old text.
    return _numbers(str(found), (stat.st_ino, stat.st_mtime_ns, stat.st_size)).get(name)


def module_file(path: str, module: str, level: int) -> Path | None:
    """The file of the project's module `module` (`level`: the dots of a relative import),
    as Python would find it from the file at `path`; None when it is no file of the project."""
    if path in ("", "-"):
        return None
    try:
        here = Path(path).resolve().parent
    except (OSError, RuntimeError):
        return None
    parts = module.split(".")
    bases = [here, *list(here.parents)[:_PARENTS]]
    if level:  # `.` is the file's own package, `..` its parent
        bases = bases[level - 1 : level]
    for base in bases:
        target = base.joinpath(*parts)
        for candidate in (target.with_suffix(".py"), target / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


@functools.lru_cache(maxsize=64)
def _numbers(file: str, version: tuple[int, int, int]) -> dict[str, int | float]:
    """The module-level names of `file` bound once to a number (or arithmetic of them);
    `version`: its inode, mtime and size when it was found."""
    if version[2] > _MAX_SIZE:
        return {}
    try:
        with quiet():
            tree = ast.parse(Path(file).read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError) as error:
        if isinstance(error, MemoryError) and limited():
            raise  # the memory bound's: not knowing the numbers would hide findings
        return {}
    counts: dict[str, int] = {}
    values: dict[str, int | float] = {}
    for statement in tree.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else []
        for target in targets:
            for node in ast.walk(target):
                if isinstance(node, ast.Name):
                    counts[node.id] = counts.get(node.id, 0) + 1
        if isinstance(statement, ast.Assign) and len(targets) == 1:
            number = _number(statement.value)
            if number is not None and isinstance(targets[0], ast.Name):
                values[targets[0].id] = number
    return {k: v for k, v in values.items() if counts.get(k) == 1}


def _number(node: ast.expr, depth: int = 0) -> int | float | None:
    if depth > 8:
        return None
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _number(node.operand, depth + 1)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        left, right = _number(node.left, depth + 1), _number(node.right, depth + 1)
        if left is None or right is None:
            return None
        try:
            if isinstance(node.op, ast.Add):
                return left + right
            return left - right if isinstance(node.op, ast.Sub) else left * right
        except OverflowError:
            return None  # an int too large for a float: importing the module raises too
    return None
