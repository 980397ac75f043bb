"""Python call sites that hand a string to a shell: layer-0 and remote fragments.

Finding the calls
    `subprocess.run/call/check_call/check_output/Popen` with `shell=True` (the string is
    layer 0, run by `/bin/sh -c`), `os.system`, `os.popen`, `subprocess.getoutput`,
    `subprocess.getstatusoutput`, `asyncio.create_subprocess_shell` (layer 0, sh);
    `subprocess.*` with an argv list and `asyncio.create_subprocess_exec` (the wrapper
    table of wrappers.py decides: `["ssh", host, CMD]` and `["bash", "-lc", S]` make a
    layer of depth 1); `X.exec_command(CMD)` for any receiver X (paramiko: the remote
    login shell, depth 1); fabric and invoke (see `_Finder._method_kind`).  Import
    aliases are followed (`from subprocess import run as sh`, `import os as o`).

The fabric/invoke heuristic
    `run`, `sudo` and `local` are common method names, so they count only in a file that
    imports fabric or invoke.  A receiver is a fabric `Connection` (remote: depth 1) when
    it is a `Connection(...)`/`SerialGroup(...)`/`ThreadingGroup(...)` call, a name bound
    once to one (also `with Connection(...) as c`), a parameter annotated `Connection`,
    the first parameter of a function decorated with fabric's `@task`, or, in a file that
    imports fabric, a name like `c`, `cxn`, `conn`, `connection` or `*_conn`.  It is an
    invoke `Context` (layer 0, `/bin/bash -c`) when it is `Context(...)`, annotated
    `Context`, the first parameter of invoke's `@task`, or `c`/`ctx`/`context` in a file
    that imports invoke but not fabric.  `X.local(...)` always runs locally.
    `invoke.run(...)` is layer 0; fabric 1's `fabric.api.run/sudo` are remote and its
    `local` is layer 0 (`/bin/sh`).  fabric 2 and invoke run `sudo CMD` through the shell
    (the redirections of CMD are the caller's): their `.sudo(CMD)` fragment is
    `sudo CMD`, the `sudo ` taken from the method name.

Reading the strings
    Constants (str and bytes, raw, triple-quoted, implicit and `+` concatenation),
    f-strings (their structure from libcst), `%` and `str.format` templates, and names
    bound once to such a value in the same function (or an enclosing one) or the module.
    A value known only at run time (an f-string field, a `%s`, a `{}` field, an unknown
    name) becomes a placeholder `${__hl_N}` that the shell parser reads as an expansion;
    its span is in `Fragment.interpolations` and every character of the text maps to
    the file offset of the source that produced it (the start of an escape sequence,
    the `{...}` of a field), so that findings land on the right column.

Speed
    A regular-expression prefilter skips files with no call of interest; `ast` (fast,
    in C) finds the calls; libcst is imported only for an f-string in such a call.

The modules, one job each
    decoding    the file's text as Python reads it (a PEP 263 coding line)
    prefilter   the cheap text test before any parsing
    parsing     `ast.parse`, syntax errors as `SourceError`, the lines worth reading
    positions   ast (line, byte column) to character offsets
    model       units, atoms, groups, run-time values (`Interp`), `PyFragment`
    literals    string tokens and their escapes
    scopes      names, bindings (the items of a `for`), imports, the calls of interest
    values      what a run-time value is (quoted, a number, a str, a word list)
    origins     where a value comes from (argv, environ, a public parameter...) and
                whether it is shell text on purpose (a glob, options, `~`)
    imported    numbers imported from the project's own modules
    reading     string expressions (literals, f-strings, `+`, `%`, `.format`) as elements
    calls       which call runs its string in which shell: the fragments
    encode      edits of a fragment's text written back into the Python source
    queries     what rules ask of a layer a Python fragment started
"""

from __future__ import annotations

import sys
from dataclasses import replace

from heredoc_lint.frontends import Fragment, SourceError
from heredoc_lint.frontends.python.calls import Finder
from heredoc_lint.frontends.python.decoding import Decoded, decode
from heredoc_lint.frontends.python.model import (
    Analysis,
    Atom,
    Elems,
    Group,
    Interp,
    PyFragment,
    Unit,
)
from heredoc_lint.frontends.python.modules import imports_project_modules, project_wrappers
from heredoc_lint.frontends.python.parsing import (
    hot_lines,
    parse_partly,
    python2_file,
    unread_message,
)
from heredoc_lint.frontends.python.positions import Lines
from heredoc_lint.frontends.python.prefilter import calls_a_wrapper, interesting, wrapper_lines
from heredoc_lint.frontends.python.queries import fragment_of, root_index, runtime_spans
from heredoc_lint.frontends.python.scopes import ScopeBuilder
from heredoc_lint.layers.pywrappers import PyWrapper

__all__ = [
    "Analysis",
    "Atom",
    "Elems",
    "Group",
    "Interp",
    "PyFragment",
    "Unit",
    "analyse",
    "fragment_of",
    "fragments",
    "interesting",
    "root_index",
    "runtime_spans",
]


def analyse(
    text: str,
    *,
    whole: bool = False,
    path: str | None = None,
    fixable: bool = True,
    wrappers: tuple[PyWrapper, ...] = (),
) -> tuple[Analysis, list[Fragment]]:
    """The analysis of a Python file and its fragments (`whole`: read every statement)."""
    tree, unread = parse_partly(text)
    analysis = Analysis(text, tree, Lines(text), python2=python2_file(text), path=path)
    analysis.fixable = fixable
    analysis.unread = unread
    builder = ScopeBuilder(analysis)
    hot = None if whole else hot_lines(text, analysis.lines)
    if hot is not None and wrappers:
        hot = sorted({*hot, *wrapper_lines(text, analysis.lines, wrappers)})
    module = builder.build(tree, hot)
    analysis.module_names = set(module.bindings)
    finder = Finder(analysis, builder, wrappers)
    return analysis, list(finder.fragments(builder.calls))


def fragments(
    text: str, path: str | None = None, wrappers: tuple[PyWrapper, ...] = ()
) -> list[Fragment]:
    """The shell strings of a Python file's subprocess, os, asyncio, paramiko, fabric calls
    (and of the project's own wrappers: `wrappers`, pywrappers.py, and those its imports
    of the project's modules bring in, modules.py)."""
    wrappers = wrappers + project_wrappers(path, text)[0]
    decoded = decode(text)  # the text Python reads: its coding line decides
    if decoded is None:
        return _fragments(text, path, wrappers=wrappers)
    try:
        found = _fragments(decoded.text, path, fixable=False, wrappers=wrappers)
    except SourceError as error:
        offset = decoded.file_offset(error.offset)
        partial = tuple(_in_file(fragment, decoded) for fragment in error.partial)
        raise SourceError(error.message, offset, info=error.info, partial=partial) from None
    return [_in_file(fragment, decoded) for fragment in found]


def may_hold_calls(text: str, path: str | None, wrappers: tuple[PyWrapper, ...] = ()) -> bool:
    """Whether `fragments` may find a call in `text`, told without parsing it or another
    file: when not, it finds none before it parses anything."""
    decoded = decode(text)
    read = text if decoded is None else decoded.text  # what Python reads: its coding line
    return (
        interesting(read) or calls_a_wrapper(read, wrappers) or imports_project_modules(path, text)
    )


def _fragments(
    text: str, path: str | None, *, fixable: bool = True, wrappers: tuple[PyWrapper, ...] = ()
) -> list[Fragment]:
    if not interesting(text) and not calls_a_wrapper(text, wrappers):
        return []
    # The readers recurse along the tree: a long `+` chain is deep.  Python 3.11 calls
    # between Python functions use no C stack, so a higher limit is safe here.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        analysis, found = analyse(text, path=path, fixable=fixable, wrappers=wrappers)
    except RecursionError as error:
        # Deeper than anything written by hand, and not checked: never "clean" (exit 2).
        raise RecursionError("a Python expression nested too deep to be checked") from error
    finally:
        sys.setrecursionlimit(limit)
    if analysis.unread:
        first = analysis.unread[0]
        raise SourceError(unread_message(analysis.unread), first.start, partial=tuple(found))
    return found


def _in_file(fragment: Fragment, decoded: Decoded) -> Fragment:
    """A fragment of Python's text of the file, placed in the file's own text; no edit."""
    assert fragment.offsets is not None  # every Python fragment maps its characters
    offsets = tuple(decoded.file_offset(o) for o in fragment.offsets)
    # A character's source is read in Python's text, not in the file's (UTF-7...).
    return replace(fragment, offsets=offsets, encode_edit=None, verbatim=False, source_end=None)
