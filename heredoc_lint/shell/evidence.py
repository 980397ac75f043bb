"""What a script itself shows about the author's intent: the evidence rules rest on.

A rule reports at warning or error only what the code shows will go wrong.  This module
reads that evidence from a layer's structure (the tree-sitter tree and the commands of
`heredoc_lint.shell.syntax`), without changing how layers are built:

* `function_at`: the shell function whose body holds an offset: there `$1` is the
  function's argument, set by each call.
* `bindings`: the names a layer binds (assignment, `for`, `read`, `mapfile`, `getopts`,
  `printf -v`, `local`/`declare`), and where each binding ends.
* `root_guard_before`: a guard that exits unless the script runs as root
  (`[ "$EUID" -ne 0 ] && exit 1`, `if [ "$(id -u)" != 0 ]; then ...; exit 1; fi`), so
  that the code after it runs as root.
* `probes_machine`: a command substitution that asks about the machine it runs on
  (`$(hostname)`, `$(pgrep -f x)`): its value differs between the local and remote side.
"""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from heredoc_lint.shell.spans import Spans
from heredoc_lint.shell.syntax import Command, Script

if TYPE_CHECKING:
    from tree_sitter import Node


@dataclass(frozen=True)
class Function:
    name: str
    start: int  # the definition's span, in characters of the layer text
    end: int


@dataclass(frozen=True)
class Guard:
    """A statement that ends the script (or re-runs it as root) unless it runs as root."""

    start: int
    end: int
    function: Function | None  # the function whose body holds the guard, if any


@dataclass(frozen=True)
class _Structure:
    functions: tuple[Function, ...]
    guards: tuple[Guard, ...]


# Statements that hold other statements: the walk for functions and guards goes through
# these and nothing else (words and expressions hold no definition worth finding).
CONTAINERS = frozenset(
    {
        "program",
        "compound_statement",
        "subshell",
        "if_statement",
        "elif_clause",
        "else_clause",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "do_group",
        "case_statement",
        "case_item",
        "redirected_statement",
        "function_definition",
    }
)

# -- root guards ---------------------------------------------------------------------------
# Who the shell runs as: `$EUID`, `${UID}`, `$(id -u)`, `` `id -u` ``, `$(whoami)`, `$USER`,
# and the bare names of an arithmetic test (`(( EUID != 0 ))`).
_SUBJECT = (
    r"""(?:"?(?:\$\{?E?UID\}?|\$\(\s*id\s+-u\s*\)|`\s*id\s+-u\s*`|\$\(\s*whoami\s*\)"""
    r"""|`\s*whoami\s*`|\$\{?USER\}?|\$\(\s*id\s+-un\s*\))"?|\bE?UID\b)"""
)
_ROOT_VALUE = r"""(?:["']?(?:0|root)["']?)"""
_NOT_ROOT = re.compile(
    rf"{_SUBJECT}\s*(?:-ne|!=|-gt)\s*{_ROOT_VALUE}(?![\w])"
    rf"|{_ROOT_VALUE}\s*(?:-ne|!=|-lt)\s*{_SUBJECT}"
    r"|\(\(\s*E?UID\s*\)\)"  # `(( EUID ))`: true when not root
)
_IS_ROOT = re.compile(
    rf"{_SUBJECT}\s*(?:-eq|==?)\s*{_ROOT_VALUE}(?![\w])"
    rf"|{_ROOT_VALUE}\s*(?:-eq|==?)\s*{_SUBJECT}"
)
# What a guard does when the test says "not root": leave (`exit`), or run the script again
# as root (`exec sudo ...`).
_AS_ROOT = frozenset({"sudo", "su", "doas", "pkexec"})
# Where an `exit` leaves only a child process, not the script: `( exit 1 )`, `$(exit)`,
# a part of a pipeline, a function's body (which runs when called, not here).
_CHILD_SHELLS = frozenset(
    {"subshell", "command_substitution", "process_substitution", "pipeline", "function_definition"}
)


def _source(node: Node, text: str, char: Callable[[int], int]) -> str:
    """The text of `node` (`char` maps the tree's byte offsets to characters of `text`)."""
    return text[char(node.start_byte) : char(node.end_byte)]


def _leaves(nodes: list[Node], text: str, char: Callable[[int], int]) -> bool:
    """Whether the statements `nodes` run `exit` (or `exec sudo ...`) as a command of this
    shell: the word `exit` in an argument (`echo "exit"`) or in a subshell is not that."""

    stack = list(nodes)
    while stack:
        node = stack.pop()
        if node.type in _CHILD_SHELLS:
            continue
        if node.type == "command":
            name = node.child_by_field_name("name")
            arguments = node.children_by_field_name("argument")
            word = _source(name, text, char) if name is not None else ""
            if word == "exit" or (
                word == "exec" and arguments and _source(arguments[0], text, char) in _AS_ROOT
            ):
                return True
            continue
        stack.extend(node.named_children)
    return False


def _negated(condition: str) -> bool:
    return condition.lstrip().startswith("!")


def _says_not_root(condition: str) -> bool | None:
    """True: the condition holds when the shell is not root; False: when it is root;
    None: it is no root test."""
    if _NOT_ROOT.search(condition):
        return not _negated(condition)
    if _IS_ROOT.search(condition):
        return _negated(condition)
    return None


def _is_guard(node: Node, text: str, char: Callable[[int], int]) -> bool:
    """`TEST && { ...; exit; }`, `TEST || exit`, `if TEST; then ...; exit; fi`."""

    if node.type == "list":
        children = node.children
        if len(children) != 3:
            return False  # `a && b || c`: not one plain guard
        left, op, right = children
        polarity = _says_not_root(_source(left, text, char))
        if polarity is None or not _leaves([right], text, char):
            return False
        return (op.type == "&&") == polarity
    if node.type == "if_statement":
        condition = node.child_by_field_name("condition")
        if condition is None:
            return False
        polarity = _says_not_root(_source(condition, text, char))
        if polarity is None:
            return False
        branch = _then_branch(node) if polarity else _else_branch(node)
        return branch is not None and _leaves(branch, text, char)
    return False


def _then_branch(node: Node) -> list[Node] | None:
    """The statements between `then` and the first `elif`/`else`/`fi`."""
    out: list[Node] = []
    seen_then = False
    for child in node.children:
        if child.type == "then":
            seen_then = True
        elif child.type in ("elif_clause", "else_clause", "fi"):
            break
        elif seen_then and child.is_named:
            out.append(child)
    return out or None


def _else_branch(node: Node) -> list[Node] | None:
    for child in node.children:
        if child.type == "else_clause":
            return [c for c in child.children if c.is_named]
    return None


# -- the structure of a script, read once ---------------------------------------------------
_T = TypeVar("_T")


class PerScript(Generic[_T]):
    """A value per Script, kept while the Script lives, found by identity: a
    WeakKeyDictionary hashes the Script, which hashes all its commands and heredocs, so
    each look-up took time linear in the script (quadratic over a rule's questions)."""

    def __init__(self) -> None:
        self._kept: dict[int, tuple[weakref.ref[Script], _T]] = {}

    def get(self, script: Script) -> _T | None:
        kept = self._kept.get(id(script))
        return kept[1] if kept is not None and kept[0]() is script else None

    def of(self, script: Script, read: Callable[[Script], _T]) -> _T:
        """The value kept for `script`, or `read(script)`, kept from now on."""
        kept = self.get(script)
        return self.put(script, read(script)) if kept is None else kept

    def put(self, script: Script, value: _T) -> _T:
        key = id(script)
        self._kept[key] = (weakref.ref(script, functools.partial(self._drop, key)), value)
        return value

    def _drop(self, key: int, ref: weakref.ref[Script]) -> None:
        kept = self._kept.get(key)
        if kept is not None and kept[0] is ref:
            del self._kept[key]


_CACHE: PerScript[_Structure] = PerScript()


def _structure(script: Script) -> _Structure:
    return _CACHE.of(script, _read_structure)


def _read_structure(script: Script) -> _Structure:
    tree = script.tree
    if tree is None:
        return _Structure((), ())
    char = script.char  # tree-sitter's byte offsets to the layer's characters
    text = script.text
    functions: list[Function] = []
    guards: list[Guard] = []
    stack: list[tuple[Node, Function | None]] = [(tree.root_node, None)]
    while stack:
        node, inside = stack.pop()
        if node.type == "function_definition":
            name = node.child_by_field_name("name")
            label = text[char(name.start_byte) : char(name.end_byte)] if name else "?"
            inside = Function(label, char(node.start_byte), char(node.end_byte))
            functions.append(inside)
        elif node.type in ("list", "if_statement") and _is_guard(node, text, char):
            guards.append(Guard(char(node.start_byte), char(node.end_byte), inside))
            continue
        for child in node.children:
            if child.type in CONTAINERS or child.type in ("list", "if_statement"):
                stack.append((child, inside))
    functions.sort(key=lambda f: f.start)
    guards.sort(key=lambda g: g.start)
    return _Structure(tuple(functions), tuple(guards))


def functions(script: Script) -> tuple[Function, ...]:
    return _structure(script).functions


def function_at(script: Script, index: int) -> Function | None:
    """The innermost function definition whose text holds `index`."""
    found: Function | None = None
    for function in _structure(script).functions:
        if function.start <= index < function.end:
            found = function  # sorted by start: a later one that holds it is inner
        elif function.start > index:
            break
    return found


def root_guard_before(script: Script, index: int) -> Guard | None:
    """A root guard that has run whenever the code at `index` runs.

    A guard at the top level covers the top-level code after it and every function
    (functions run when called, and scripts call them after their checks); a guard inside
    a function covers the rest of that function.
    """
    here = function_at(script, index)
    for guard in _structure(script).guards:
        if guard.function is None and (guard.end <= index or here is not None):
            return guard
        if guard.function is not None and guard.function == here and guard.end <= index:
            return guard
    return None


# -- root by what the script does ------------------------------------------------------------
# Commands that only root may run (what they change): a script that runs one of them
# without sudo is run as root, or it fails there anyway.
_ROOT_ONLY = {
    "apt-get": frozenset({"install", "remove", "purge", "update", "upgrade", "dist-upgrade"}),
    "apt": frozenset({"install", "remove", "purge", "update", "upgrade"}),
    "yum": frozenset({"install", "remove", "update", "upgrade"}),
    "dnf": frozenset({"install", "remove", "update", "upgrade"}),
    "zypper": frozenset({"install", "in", "remove", "rm", "update", "up"}),
    "apk": frozenset({"add", "del", "update", "upgrade"}),
    "systemctl": frozenset({"enable", "disable", "start", "stop", "restart", "daemon-reload"}),
    "useradd": frozenset(),
    "usermod": frozenset(),
    "groupadd": frozenset(),
    "modprobe": frozenset(),
    "sysctl": frozenset({"-w", "-p"}),
}


# Commands that change files, and the directories only root may change: `rm -rf
# /etc/yum.repos.d/ceph*` without sudo (round q: hbulpf/ServerOps) works only as root.
_FILE_CHANGES = frozenset({"rm", "mv", "cp", "mkdir", "ln", "touch", "chmod", "chown", "install"})
_ROOT_DIRECTORIES = ("/etc/", "/usr/", "/boot/", "/lib/", "/sbin/", "/bin/", "/root/")


def _changes_root_files(name: str, words: list[str]) -> bool:
    """Whether `name words...` changes a file in a directory only root may change: any
    operand of rm, mkdir, touch, chmod, chown; the target (the last operand) of cp, mv,
    ln, install, whose other operands are only read."""
    if name not in _FILE_CHANGES:
        return False
    operands = [w for w in words if not w.startswith("-")]
    if name in ("cp", "mv", "ln", "install"):
        operands = operands[-1:]
    return any(
        w.startswith(_ROOT_DIRECTORIES) and not w.startswith("/usr/local/") for w in operands
    )


def root_by_action(script: Script, with_sudo: frozenset[str] = frozenset()) -> Command | None:
    """The first command of `script` that only root may run, run without sudo at its
    top level or in a function: `apt-get install -y nginx`, `systemctl restart nginx`
    (not `systemctl --user`), `useradd app`, `rm -rf /etc/yum.repos.d/ceph*`. None
    where there is none.  A program of `with_sudo` (those the script runs with sudo
    elsewhere) is no evidence: `sudo systemctl stop a` then `systemctl start b` is a
    sudo left out by a user, not a root shell (round aa: a Pi runbook's dnsmasq step)."""
    for command in script.commands:
        if command.in_substitution or not command.words:
            continue
        name = command.words[0].value.rsplit("/", 1)[-1] if command.words[0].static else ""
        if name in with_sudo:
            continue
        rest = [w.value for w in command.words[1:] if w.static]
        if _changes_root_files(name, rest):
            return command
        needed = _ROOT_ONLY.get(name)
        if needed is None:
            continue
        if "--user" in rest or "--dry-run" in rest or "-s" in rest and name == "apt-get":
            continue
        if not needed or any(word in needed for word in rest):
            return command
    return None


# -- bindings ------------------------------------------------------------------------------
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Options of `read` that take a value; `-a NAME` binds the array NAME.
_READ_VALUE_OPTIONS = frozenset("deinNptu")
_DECLARE = frozenset({"local", "declare", "typeset", "readonly"})


def _read_names(command: Command) -> Iterator[str]:
    words = command.words[1:]
    k = 0
    while k < len(words):
        value = words[k].value if words[k].static else ""
        if value.startswith("-") and len(value) > 1 and value != "--":
            letters = value[1:]
            for n, letter in enumerate(letters):
                if letter == "a" or letter in _READ_VALUE_OPTIONS:
                    rest = letters[n + 1 :]
                    target = rest or (words[k + 1].value if k + 1 < len(words) else "")
                    if letter == "a" and _NAME.match(target):
                        yield target
                    if not rest:
                        k += 1
                    break
            k += 1
            continue
        if value == "--":
            k += 1
            continue
        if _NAME.match(value):
            yield value
        k += 1


def _bound_by(command: Command) -> Iterator[str]:
    name = command.name
    if name is None:
        return
    words = command.words
    if name == "read":
        yield from _read_names(command)
    elif name in ("mapfile", "readarray"):
        last = words[-1].value if len(words) > 1 and words[-1].static else ""
        yield last if _NAME.match(last) else "MAPFILE"
    elif len(words) > 2 and (name == "getopts" or (name == "printf" and words[1].value == "-v")):
        yield words[2].value  # `getopts ab opt`, `printf -v var ...`
    elif name in _DECLARE:
        for word in words[1:]:
            if word.static and _NAME.match(word.value):
                yield word.value  # `local x`: x is this scope's own from here on


_BINDINGS: PerScript[dict[str, int]] = PerScript()


def bindings(script: Script, skip: tuple[tuple[int, int], ...] = ()) -> dict[str, int]:
    """Each name `script` binds, with the offset where its first binding ends.

    `skip`: regions whose text some other shell runs (a parent's `$(...)`).  Without it
    the answer is remembered: a file's bindings are asked for once per expansion of each
    of its ssh strings.  Callers must not change the dict.
    """
    if not skip:
        return _BINDINGS.of(script, lambda s: _bindings(s, ()))
    return _bindings(script, skip)


def _bindings(script: Script, skip: tuple[tuple[int, int], ...]) -> dict[str, int]:
    # Each offset against each span was quadratic: a string of n `$x`s has n of both.
    skipped = Spans(skip).holds

    found: dict[str, int] = {}
    for name, end in script.assigned:
        if not skipped(end - 1):
            found[name] = min(found.get(name, end), end)
    for command in script.commands:
        if skipped(command.start) or command.name not in _BINDERS:
            continue
        for name in _bound_by(command):
            found[name] = min(found.get(name, command.end), command.end)
    return found


_BINDERS = frozenset({"read", "mapfile", "readarray", "getopts", "printf", *_DECLARE})
_ENDS: PerScript[dict[str, int | None]] = PerScript()


def binding_end(script: Script, name: str) -> int | None:
    """`bindings(script).get(name)`, without de-quoting the binding commands whose text
    cannot spell `name`: a rule that asks of a name or two need not read every `local`
    line of the script (HL102 asked for 30 scripts' every binding, of which it used one)."""
    every = _BINDINGS.get(script)
    if every is not None:
        return every.get(name)
    ends = _ENDS.of(script, lambda _: {})
    if name not in ends:
        ends[name] = _binding_end(script, name)
    return ends[name]


def _binding_end(script: Script, name: str) -> int | None:
    ends = [end for assigned, end in script.assigned if assigned == name]
    text = script.text
    for command in script.commands:
        if command.name not in _BINDERS:
            continue
        # `mapfile` with no name of its own binds MAPFILE, which its text need not spell.
        if name != "MAPFILE" and not may_spell(text[command.start : command.end], (name,)):
            continue
        if name in _bound_by(command):
            ends.append(command.end)
    return min(ends, default=None)


def may_spell(text: str, names: Collection[str]) -> bool:
    """Whether a static word of `text` may de-quote to one of `names`, alone or up to an
    `=`.  A name of a variable or a function (`[A-Za-z_][A-Za-z0-9_]*`) has its letters
    in the text in order, with nothing between them but what de-quoting deletes: quote
    marks, backslashes, backslash-newlines; or `$'...'` and `$"..."`, which may make
    letters of other characters (a text with those may spell any name).  Any other name
    (`printf -v` binds what its word says) may be spelled by any text."""
    if "$'" in text or '$"' in text or not all(_NAME.match(name) for name in names):
        return True
    if "\\\n" in text:
        text = text.replace("\\\n", "")
    if "'" in text or '"' in text or "\\" in text:
        text = text.translate(_QUOTING)
    return any(name in text for name in names)


_QUOTING = str.maketrans("", "", "'\"\\")


def bound_before(bindings: Mapping[str, int], name: str, index: int) -> bool:
    """Whether a layer whose `bindings` these are binds `name` before `index` (in its text)."""
    end = bindings.get(name)
    return end is not None and end <= index


# -- commands that ask about the machine ------------------------------------------------------
# (Not `pwd`: `ssh n "cd $(pwd) && ./train"` means the same path on the other machine, as
# launchers on a shared file system do; it was the precision corpus's most common case.)
PROBE_COMMANDS = frozenset(
    {
        "hostname",
        "whoami",
        "id",
        "uname",
        "nproc",
        "which",
        "pgrep",
        "pidof",
        "nvidia-smi",
        "lscpu",
        "ifconfig",
        "ip",
        "free",
        "getconf",
        "arch",
        "hostid",
        "logname",
        "tty",
    }
)
_SYSTEM_FILES = ("/etc/", "/proc/", "/sys/", "/run/", "/var/run/", "/dev/")
_FILE_READERS = frozenset({"cat", "head", "tail", "readlink", "realpath"})


# Variables every login shell sets for itself, from its own machine and session: a value
# of them expanded by another shell is that shell's machine's.
SHELL_SET_NAMES = frozenset({"HOME", "PWD", "OLDPWD", "USER", "LOGNAME", "HOSTNAME", "SHLVL"})


def probes_machine(command: str) -> bool:
    """Whether a command substitution's text asks about the machine it runs on."""
    words = command.split()
    if not words:
        return False
    head = words[0].rsplit("/", 1)[-1]
    if head in PROBE_COMMANDS:
        return True
    if head in ("command", "type") and len(words) > 1 and words[1] in ("-v", "-p", "-P"):
        return True
    if head in _FILE_READERS:
        return any(w.strip("'\"\\").startswith(_SYSTEM_FILES) for w in words[1:])
    return False
