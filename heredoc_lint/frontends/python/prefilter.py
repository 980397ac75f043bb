"""The cheap test before any parsing: whether a file may hold a call of interest."""

from __future__ import annotations

import bisect
import functools
import re

from heredoc_lint.frontends.python import channels
from heredoc_lint.frontends.python.positions import Lines
from heredoc_lint.layers.pywrappers import PyWrapper, last_names

# The standard library's calls of interest, by the name written before them.
_FUNCTIONS = channels.STANDARD_FUNCTIONS
_DIRECT = tuple(f"{module}.{name}(" for module, names in _FUNCTIONS.items() for name in names)
ANY_FUNCTION = "|".join(sorted({n for names in _FUNCTIONS.values() for n in names}))
# The closing parentheses a call may put between the name and its `(`: Python calls
# `(subprocess.run)(...)` as it calls `subprocess.run(...)`.
_CLOSING = r"(?:\)[ \t]*)*"
# No `\b` in front: Python's re scans an alternation that starts with `\b` slowly.
_DOT_CALL = re.compile(rf"\.[ \t]*(?:{ANY_FUNCTION})[ \t]*{_CLOSING}\(")
_OWNER = re.compile(r"(\w+)[ \t]*\Z")
_ALIAS = re.compile(r"[ \t]+as[ \t]+(\w+)")
_FROM_IMPORT = re.compile(
    r"from[ \t]+(?:subprocess|os|asyncio(?:\.subprocess)?)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)"
)
_LIBRARIES = channels.LIBRARIES  # read only in a file importing one
# An import of one of them: `import` or `from`, then only what an import statement holds
# before a module's name (names, dots, commas, blanks, a backslash-newline), then the name.
# So `import os, fabric`, `x = 1; import fabric` and `import \` + newline + `fabric` pass,
# as the finder reads them (scopes.py records every name of an import); a comment or a
# word in prose does not.  No `\b` in front: an alternation after `\b` scans slowly.
_LIBRARY_IMPORT = re.compile(
    r"(?:import|from)\b"
    # ... up to the next `import`/`from` only, where the next search starts: linear time.
    r"(?:(?!(?:import|from)\b)(?:[ \t\f\w.,]|\\(?:\r\n?|\n)))*?"
    rf"\b(?:{'|'.join(_LIBRARIES)})\b"
)


def _called_by_other_name(text: str) -> bool:
    """`import subprocess as sp` ... `sp.run(`; `from os import system as sh` ... `sh(`."""
    # `as` between blanks (a tab for either), after the module's name: `import os as o`.
    for at in _blank_as(text):
        # The name before it: a module whose functions are calls of interest?
        before = text[max(0, at - 12) : at].rstrip(" \t")
        if before.endswith(("subprocess", "os", "asyncio")):
            line = text[text.rfind("\n", 0, at) + 1 : at]
            alias = _ALIAS.match(text, at)
            if "import" in line and alias is not None:
                call = rf"\b{alias.group(1)}\s*\.\s*(?:{ANY_FUNCTION})\s*{_CLOSING}\("
                if re.search(call, text):
                    return True
    # `from os import system` (`as sh`): the name the file calls.
    for match in _FROM_IMPORT.finditer(text):
        for item in match.group(1).strip("()").split(","):
            parts = item.split()
            if parts and parts[0] in ANY_FUNCTION.split("|"):
                local = parts[-1] if len(parts) == 3 and parts[1] == "as" else parts[0]
                if re.search(rf"\b{local}\s*{_CLOSING}\(", text[match.end() :]):
                    return True
    return False


def _spaced_call(text: str) -> bool:
    """`subprocess . run (`, `(subprocess.run)(`: a module call written with blanks or
    parentheses."""
    for match in _DOT_CALL.finditer(text):
        owner = _OWNER.search(text, max(0, match.start() - 40), match.start())
        if owner is not None and owner.group(1) in _FUNCTIONS:
            return True
    return False


# The memory bound asks it of a large file before the frontend reads the same text
# (may_hold_calls): one scan.
@functools.lru_cache(maxsize=1)
def interesting(text: str) -> bool:
    """Whether `text` may hold a call of interest: the cheap test before any parsing.

    Substring tests first (each a fast scan); regular expressions only where those
    pass.  A superset: every file with a call the finder reads passes.
    """
    if channels.EXEC_COMMAND in text:
        return True
    if "subprocess" in text:
        if any(call in text for call in _DIRECT):
            return True
    elif "os.system(" in text or "os.popen(" in text:
        return True
    if _spaced_call(text) or _may_import_by_other_name(text) and _called_by_other_name(text):
        return True
    return any(name in text for name in _LIBRARIES) and _LIBRARY_IMPORT.search(text) is not None


def _wrapper_call(wrappers: tuple[PyWrapper, ...]) -> re.Pattern[str]:
    names = "|".join(sorted(re.escape(n) for n in last_names(wrappers)))
    return re.compile(rf"\b(?:{names})[ \t]*\(")


def calls_a_wrapper(text: str, wrappers: tuple[PyWrapper, ...]) -> bool:
    """Whether `text` may call one of the project's wrappers (its last name, then `(`)."""
    return bool(wrappers) and _wrapper_call(wrappers).search(text) is not None


def wrapper_lines(text: str, lines: Lines, wrappers: tuple[PyWrapper, ...]) -> list[int]:
    """The lines where a call of a project's wrapper may start (as parsing.hot_lines)."""
    return [
        bisect.bisect_right(lines.starts, m.start()) for m in _wrapper_call(wrappers).finditer(text)
    ]


# `as` between blanks, a tab for either (`import subprocess\tas\tsp`): Python reads a tab
# between the words of an import as a space.
_BLANK_AS = re.compile(r"[ \t]as[ \t]")
_BLANK_FROM = re.compile(r"from[ \t]")


def _blank_as(text: str) -> list[int]:
    """Where an `as` between blanks stands (the offset of the blank before it), in order.
    str.find, not a regex, where the text has no tab: ` as ` is common in prose, and
    regexes scan slowly here."""
    if "\t" in text:
        return [m.start() for m in _BLANK_AS.finditer(text)]
    found = []
    at = text.find(" as ")
    while at >= 0:
        found.append(at)
        at = text.find(" as ", at + 4)
    return found


def _may_import_by_other_name(text: str) -> bool:
    """The substring test before _called_by_other_name: an `as` or a `from` before a blank."""
    if "\t" not in text:
        return " as " in text or "from " in text
    return _BLANK_AS.search(text) is not None or _BLANK_FROM.search(text) is not None
