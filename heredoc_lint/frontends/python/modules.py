"""Wrappers that the project's own Python modules define, read where they are imported.

    # util.py                                  # deploy.py
    def execute_command(cmd):                  from .util import execute_command
        subprocess.run(cmd, shell=True)        execute_command("pkill -f app; ./app")

A module of the project (found as `imported.py` finds one: beside the file or in a
directory above it, a relative import in its package) may define a function that hands
one of its parameters, as it is, to a shell: `subprocess.run/call/check_call/
check_output/Popen(p, shell=True)`, `os.system(p)`, `os.popen(p)`,
`subprocess.getoutput(p)` (a local `/bin/sh -c`), or `x.exec_command(p)` (paramiko: the
remote login shell). A file that imports such a function (`from .util import
execute_command`, `from pkg import util` ... `util.execute_command(...)`, `import
pkg.util as u` ... `u.execute_command(...)`) has it as a project wrapper
(pywrappers.PyWrapper, as if `python-wrappers` named it), so its calls' command strings
are checked as the function runs them. Only module-level functions whose parameter is
never bound again in their body are read, and the parameter is the call's positional
argument. The modules read enter the cache key of the file's findings (`stamp`).
"""

from __future__ import annotations

import ast
import functools
import os
import re
import sys

from heredoc_lint.frontends.python.imported import module_file
from heredoc_lint.frontends.python.parsing import quiet
from heredoc_lint.frontends.python.values import qualname
from heredoc_lint.layers.pywrappers import PyWrapper
from heredoc_lint.run.memory import limited

_MAX_SIZE = 512 * 1024
_SHELL_CALLS = frozenset(
    {"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output"}
    | {"subprocess.Popen"}
)
_STRING_CALLS = frozenset({"os.system", "os.popen", "subprocess.getoutput"})
_STRING_CALLS |= {"subprocess.getstatusoutput"}
# What a module's text holds when one of its functions may hand a parameter to a shell.
_CHANNEL_WORDS = (b"shell=True", b"system", b"popen", b"getoutput", b"exec_command")
# `from X import a, b as c` (over lines when in parentheses) and `import x.y as z, w`.
_FROM = re.compile(r"[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)")
_IMPORT = re.compile(r"[ \t]*import[ \t]+([^\n#;]+)")


def project_wrappers(path: str | None, text: str) -> tuple[tuple[PyWrapper, ...], str]:
    """The wrappers the file's imports of project modules bring in, and the stamp of the
    modules read (path, modification time, size of each)."""
    if path in (None, "", "-") or "import" not in text:
        return (), ""
    wrappers: list[PyWrapper] = []
    stamps: list[str] = []
    for local, module, level, name in _imported(text):
        found = _module(path, module, level)
        if found is None:
            continue
        file, stamp = found
        stamps.append(stamp)
        defined = _wrappers_of(file, stamp)
        if name is not None and name in defined:
            arg, runs = defined[name]
            wrappers.append(PyWrapper(local, arg, runs))
        elif name is None:
            wrappers += [PyWrapper(f"{local}.{f}", a, r) for f, (a, r) in defined.items()]
    return tuple(wrappers), "\n".join(sorted(set(stamps)))


def imports_project_modules(path: str | None, text: str) -> bool:
    """Whether the file imports a module of the project, in which project_wrappers may find
    wrappers: told without reading one."""
    if path in (None, "", "-") or "import" not in text:
        return False
    return any(_module(path, module, level) is not None for _, module, level, _ in _imported(text))


# The memory bound asks imports_project_modules of a large file before the frontend
# reads the same text: one read.
@functools.lru_cache(maxsize=1)
def _imported(text: str) -> tuple[tuple[str, str, int, str | None], ...]:
    """Each imported name: (the name the file uses, the module, the dots of a relative
    import, the function's name in the module or None when the name is the module)."""
    found: list[tuple[str, str, int, str | None]] = []
    for line in _import_lines(text):
        match = _FROM.match(text, line)
        if match is not None:
            dots, module, names = match.groups()
            if not dots and module.split(".")[0] in sys.stdlib_module_names:
                continue
            for local, name in _aliases(names.strip("()")):
                found.append((local, module, len(dots), name))  # a function of `module`
                found.append((local, f"{module}.{name}".strip("."), len(dots), None))  # a module
            continue
        match = _IMPORT.match(text, line)
        for local, name in _aliases(match.group(1)) if match is not None else ():
            if name.split(".")[0] not in sys.stdlib_module_names:
                found.append((local, name, 0, None))
    return tuple(found)


def _import_lines(text: str) -> list[int]:
    """Where each line that holds `import` starts (a search for the word is much faster
    than a multi-line pattern over the whole text)."""
    starts: list[int] = []
    at = text.find("import")
    while at >= 0:
        starts.append(text.rfind("\n", 0, at) + 1)
        end = text.find("\n", at)
        at = -1 if end < 0 else text.find("import", end)
    return starts


def _aliases(names: str) -> list[tuple[str, str]]:
    """`a, b as c` as (local name, name): [(a, a), (c, b)]."""
    found = []
    for part in names.replace("\n", " ").split(","):
        words = part.split()
        if len(words) == 1 and words[0].replace(".", "").isidentifier():
            found.append((words[0], words[0]))
        elif len(words) == 3 and words[1] == "as" and words[2].isidentifier():
            found.append((words[2], words[0]))
    return found


def _module(path: str, module: str, level: int) -> tuple[str, str] | None:
    """The module's file and its stamp, when it is a file of the project."""
    if not module and not level:
        return None
    file = module_file(path, module, level)
    if file is None:
        return None
    try:
        stat = os.stat(file)
    except OSError:
        return None
    if stat.st_size > _MAX_SIZE:
        return None
    return str(file), f"{file}\0{stat.st_mtime_ns}\0{stat.st_size}"


@functools.lru_cache(maxsize=128)
def _wrappers_of(file: str, stamp: str) -> dict[str, tuple[int, str]]:
    """The module-level functions of `file` that hand a parameter to a shell: name ->
    (the parameter's position, what runs it: "sh" or "ssh")."""
    try:
        with open(file, "rb") as handle:
            source = handle.read()
        if not any(channel in source for channel in _CHANNEL_WORDS):
            return {}  # most modules: no parse
        with quiet():
            tree = ast.parse(source)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError) as error:
        if isinstance(error, MemoryError) and limited():
            raise
        return {}
    imports = _module_imports(tree)
    found: dict[str, tuple[int, str]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            runs = _runs_parameter(node, imports)
            if runs is not None:
                found[node.name] = runs
    return found


def _module_imports(tree: ast.Module) -> dict[str, str]:
    imports: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                imports[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return imports


def _runs_parameter(
    function: ast.FunctionDef | ast.AsyncFunctionDef, imports: dict[str, str]
) -> tuple[int, str] | None:
    """(position, "sh" or "ssh") of the parameter the function hands to a shell as it
    is; None if it hands none, or binds that parameter again."""
    parameters = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    stored = {
        n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    for node in ast.walk(function):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        first = node.args[0]
        if not isinstance(first, ast.Name) or first.id not in parameters or first.id in stored:
            continue
        runs = _channel(node, imports)
        if runs is not None:
            return parameters.index(first.id), runs
    return None


def _channel(call: ast.Call, imports: dict[str, str]) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "exec_command":
        return "ssh"
    name = qualname(func, imports)
    if name in _STRING_CALLS:
        return "sh"
    shell = next((k.value for k in call.keywords if k.arg == "shell"), None)
    if name in _SHELL_CALLS and isinstance(shell, ast.Constant) and shell.value is True:
        return "sh"
    return None
