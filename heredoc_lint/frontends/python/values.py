"""What a run-time value is: shell-safe (quoted, a number), a str, a word list."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from heredoc_lint.frontends import PYTHON_PLACEHOLDER
from heredoc_lint.frontends.python.scopes import Scope

QUOTERS = frozenset({"shlex.quote", "shlex.join", "pipes.quote"})
NUMBERS = frozenset({"int", "len", "float", "round", "abs", "ord", "hash", "id", "sum", "max"})
STR_METHODS = frozenset(
    {
        "strip",
        "lstrip",
        "rstrip",
        "lower",
        "upper",
        "replace",
        "join",
        "format",
        "decode",
        "title",
        "casefold",
        "removeprefix",
        "removesuffix",
        "zfill",
        "ljust",
        "rjust",
        "center",
        "expandtabs",
        "as_posix",
    }
)
NUMERIC_SPEC = re.compile(r".*[bcdoxXneEfFgG%]\Z", re.DOTALL)
MAX_DEPTH = 8


# A run-time value is unknown: the command line HL103 matches against leaves it out.
PLACEHOLDERS = re.compile(re.escape(PYTHON_PLACEHOLDER) + r"\d+\}")


def placeholder(interp: int) -> str:
    return f"{PYTHON_PLACEHOLDER}{interp}}}"


def word_list(node: ast.expr) -> bool:
    """`" ".join(args)` (maybe `.encode()`d): words joined for the shell to split again."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "encode"
    ):
        node = node.func.value
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "join"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str | bytes)
        and node.func.value.value.strip() == ""
        and len(node.func.value.value) > 0
    )


def escaped_chars(node: ast.expr) -> str:
    """The characters a chain of `.replace(C, ...)` calls has taken care of."""
    chars = ""
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "replace"
        and node.args
    ):
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            chars += first.value
        node = node.func.value
    return chars


def qualname(node: ast.expr, imports: Mapping[str, str]) -> str | None:
    """The qualified name an imported name or attribute chain stands for (`subprocess.run`)."""
    if isinstance(node, ast.Name):
        return imports.get(node.id)
    if isinstance(node, ast.Attribute):
        base = qualname(node.value, imports)
        return f"{base}.{node.attr}" if base else None
    return None


def nature(
    node: ast.expr, scope: Scope, imports: Mapping[str, str], depth: int = 0
) -> tuple[bool, bool]:
    """(safe as a shell word: quoted or a number, known to be a str)."""
    if depth > MAX_DEPTH:
        return False, False
    if isinstance(node, ast.Constant):
        number = isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        return number, isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return False, True
    if isinstance(node, ast.Call):
        name = qualname(node.func, imports)
        if name in QUOTERS or _encoded(node, imports):
            return True, True
        if isinstance(node.func, ast.Name) and node.func.id not in imports:
            if node.func.id in NUMBERS:
                return True, False
            if node.func.id == "str":
                return False, True
        if isinstance(node.func, ast.Attribute) and node.func.attr in STR_METHODS:
            return False, True
        return False, bool(name and name.startswith(("os.path.", "posixpath.")))
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        left = node.left
        is_str = isinstance(left, (ast.JoinedStr, ast.Constant)) and not isinstance(
            getattr(left, "value", ""), bytes
        )
        return False, is_str or nature(left, scope, imports, depth + 1)[1]
    if isinstance(node, ast.Name):
        bound = scope.value(node.id)
        if bound is not None:
            return nature(bound[0], bound[1], imports, depth + 1)
        annotation = scope.annotation(node.id)
        if isinstance(annotation, ast.Name):
            return annotation.id in ("int", "float"), annotation.id == "str"
    return False, False


def _encoded(node: ast.Call, imports: Mapping[str, str]) -> bool:
    """`base64.b64encode(...).decode()`, `x.hex()`, `h.hexdigest()`: shell-safe text."""
    func = node.func
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr in ("hex", "hexdigest"):
        return True
    inner = func.value
    return (
        func.attr == "decode"
        and isinstance(inner, ast.Call)
        and (qualname(inner.func, imports) or "").endswith(
            ("base64.b64encode", "base64.urlsafe_b64encode", "base64.b32encode")
        )
    )
