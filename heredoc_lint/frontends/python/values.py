"""What a run-time value is: shell-safe (quoted, a number), a str, a word list."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from heredoc_lint.frontends.python.scopes import LoopValue, Scope, follow
from heredoc_lint.layers.triggers import PYTHON_PLACEHOLDER

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
_STR_LISTS = frozenset({"sys.argv", "os.environ"})


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
    """(safe as a shell word: quoted, a number, a token, a literal; known to be a str)."""
    safe, is_str = _nature(node, scope, imports, depth)
    return safe or provably_safe(node, scope, imports, depth), is_str


def _nature(
    node: ast.expr, scope: Scope, imports: Mapping[str, str], depth: int = 0
) -> tuple[bool, bool]:
    if depth > MAX_DEPTH:
        return False, False
    if isinstance(node, ast.Constant):
        number = isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        return number, isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return False, True
    if isinstance(node, ast.Call):
        return _call_nature(node, imports)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        left = node.left
        is_str = isinstance(left, (ast.JoinedStr, ast.Constant)) and not isinstance(
            getattr(left, "value", ""), bytes
        )
        return False, is_str or nature(left, scope, imports, depth + 1)[1]
    if isinstance(node, ast.Subscript) and qualname(node.value, imports) in _STR_LISTS:
        return False, True  # `sys.argv[1]`, `os.environ["X"]`
    if isinstance(node, ast.Name):
        value, owner, names = follow(node, scope)  # a chain of names is one step
        if names:
            return nature(value, owner, imports, depth + 1)
        annotation = scope.annotation(node.id)
        if isinstance(annotation, ast.Name):
            return annotation.id in ("int", "float"), annotation.id == "str"
    return False, False


def _call_nature(node: ast.Call, imports: Mapping[str, str]) -> tuple[bool, bool]:
    """`_nature` of a call's value: a quoter's or an encoder's, a number's, `str()`'s, a
    str method's or a path's."""
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


# -- values that are provably one safe shell word ---------------------------------------------

# Calls whose value is a number whatever their arguments (by the called name's last part).
_NUMERIC_CALLS = frozenset(
    {
        "randint",
        "randrange",
        "getpid",
        "getppid",
        "getuid",
        "geteuid",
        "getgid",
        "getegid",
        "time_ns",
        "monotonic",
        "perf_counter",
        "cpu_count",
    }
)
_NUMERIC_QUALIFIED = frozenset({"time.time", "random.random", "random.uniform"})
# Calls whose text is letters, digits and `-`/`_` only: uuids, hex digests, tokens.
_TOKEN_CALLS = frozenset({"uuid1", "uuid4", "token_hex", "token_urlsafe", "hexdigest", "hex"})
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else ""


def is_quoter(call: ast.Call, imports: Mapping[str, str]) -> bool:
    """`shlex.quote`, `pipes.quote`, `self._shell.quote`, `sh_quote`: any `...quote`."""
    if qualname(call.func, imports) in QUOTERS:
        return True
    last = _last_name(call.func).lower()
    return last.endswith("quote") and "unquote" not in last


def numeric(node: ast.expr, scope: Scope, imports: Mapping[str, str], depth: int = 0) -> bool:
    """Whether `node` is provably a number: its text is digits, a sign, a point, `e`."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return numeric(node.operand, scope, imports, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        return numeric(node.left, scope, imports, depth + 1) and numeric(
            node.right, scope, imports, depth + 1
        )
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call):
        # `sock.getsockname()[1]`: a port
        return _last_name(node.value.func) in ("getsockname", "getpeername")
    if isinstance(node, ast.Call):
        name = qualname(node.func, imports) or ""
        if isinstance(node.func, ast.Name) and node.func.id not in imports:
            return node.func.id in NUMBERS
        return name in _NUMERIC_QUALIFIED or _last_name(node.func) in _NUMERIC_CALLS
    if isinstance(node, ast.Name):
        found = choices(node, scope, depth + 1)
        if found is not None:
            return all(numeric(v, s, imports, depth + 1) for v, s in found)
        annotation = scope.annotation(node.id)
        return isinstance(annotation, ast.Name) and annotation.id in ("int", "float")
    return False


def choices(node: ast.expr, scope: Scope, depth: int = 0) -> list[tuple[ast.expr, Scope]] | None:
    """Every value `node` may have, when the file lists them all.

    A name bound by assignments, by an `if`/`else` of values, or by a `for` over a
    literal list; None when one of its values is not written here (a parameter...).
    """
    if depth > MAX_DEPTH:
        return None
    if isinstance(node, ast.IfExp):
        body = choices(node.body, scope, depth + 1)
        orelse = choices(node.orelse, scope, depth + 1)
        return None if body is None or orelse is None else body + orelse
    if not isinstance(node, ast.Name):
        return [(node, scope)]
    owner = scope.owner(node.id)
    if owner is None:
        return None
    found: list[tuple[ast.expr, Scope]] = []
    for value in owner.bindings[node.id]:
        items: list[ast.expr] | None = [value] if value is not None else None
        if isinstance(value, LoopValue):
            literal = isinstance(value.iter, (ast.List, ast.Tuple, ast.Set))
            elts = value.iter.elts if isinstance(value.iter, (ast.List, ast.Tuple, ast.Set)) else []
            items = elts if literal and not any(isinstance(e, ast.Starred) for e in elts) else None
        if items is None:
            return None
        for item in items:
            more = choices(item, owner, depth + 1)
            if more is None:
                return None
            found.extend(more)
    return found or None


def provably_safe(node: ast.expr, scope: Scope, imports: Mapping[str, str], depth: int = 0) -> bool:
    """A value the shell reads as the one word it is, whatever happens at run time.

    Numbers, quoted values (`shlex.quote`, any function named `...quote`), uuids and
    hex tokens, and names whose every value is a literal written in the file.
    """
    if depth > MAX_DEPTH:
        return False
    if numeric(node, scope, imports, depth):
        return True
    if isinstance(node, ast.Call):
        if is_quoter(node, imports) or _last_name(node.func) in _TOKEN_CALLS:
            return True
        if isinstance(node.func, ast.Name) and node.func.id == "str" and len(node.args) == 1:
            return provably_safe(node.args[0], scope, imports, depth + 1)
        return False
    if isinstance(node, ast.Attribute) and node.attr == "hex":
        return isinstance(node.value, ast.Call) and _last_name(node.value.func) in _TOKEN_CALLS
    if isinstance(node, (ast.Name, ast.IfExp)):
        found = choices(node, scope, depth + 1)
        if found is None:
            return False
        return all(
            isinstance(v, ast.Constant) or provably_safe(v, s, imports, depth + 1) for v, s in found
        )
    return False
