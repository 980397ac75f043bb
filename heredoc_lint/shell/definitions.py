"""What a layer defines for its later commands to use: shell functions and literal values.

`read_definitions(script)` reads, from the tree-sitter tree of one layer:

* the functions defined at the top level whose body is one simple command (or the last
  command of an `&&`/`||` list): `remote() { ssh "$HOST" "$@"; }`.  A call of such a
  function after its definition runs that command with the call's arguments in `$@`.
* the variables assigned a literal at the top level (`SSH="ssh -p 2222"`,
  `OPTS=(-p 2222)`): no expansion in the value, so its words are known before run time.

A name defined more than once anywhere in the layer (a second definition, a `local`, an
assignment in a branch, a `read`, an `unset`) is left out: which value reaches a use is
then a guess, and a guess is no evidence (docs/wrappers.md, "Function and variable
wrappers").
"""

from __future__ import annotations

import bisect
import collections
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from heredoc_lint.shell.evidence import CONTAINERS, may_spell
from heredoc_lint.shell.syntax import Command, Script
from heredoc_lint.shell.words import Word, dequote

if TYPE_CHECKING:
    from tree_sitter import Node


@dataclass(frozen=True)
class FunctionBody:
    """A top-level function whose body is one command: the command a call runs."""

    name: str
    end: int  # where the definition ends: calls after it use it
    command: Command
    where: str = ""  # a function another file defines: that file and the command's line


@dataclass(frozen=True)
class Literal:
    """A top-level assignment of a value without expansions."""

    name: str
    end: int  # where the assignment ends: uses after it see the value
    words: tuple[Word, ...]  # an array's elements; a string value as one word
    array: bool


@dataclass(frozen=True)
class Definitions:
    functions: dict[str, FunctionBody]
    literals: dict[str, Literal]

    def names(self) -> frozenset[str]:
        return frozenset(self.functions) | frozenset(self.literals)


# Statements that hold other statements, where a second definition may hide: those
# evidence.py walks, and the lists and pipelines a definition may stand in.
_CONTAINERS = CONTAINERS | {"list", "pipeline", "negated_command"}
# What a value may not hold to be known before run time: an expansion of any kind.
_NOT_LITERAL = frozenset("$`~")
_EXPANSIONS = frozenset(
    {
        "simple_expansion",
        "expansion",
        "command_substitution",
        "arithmetic_expansion",
        "process_substitution",
        "brace_expression",
    }
)
# Commands that bind or drop a name they are given as a word.
_BINDERS = frozenset(
    {"unset", "local", "declare", "typeset", "readonly", "export", "read", "mapfile"}
)
_BINDERS |= {"readarray", "getopts", "printf"}
# Binders that, without options, bind a name only by assigning it: `export NAME=value`.
_DECLARING = ("export", "readonly")


def read_definitions(script: Script) -> Definitions:
    """The top-level functions that run one command, and the names bound once to a
    literal value, of `script`."""
    if script.tree is None:
        return Definitions({}, {})
    return Definitions(_functions(script), _literals(script))


def _source(script: Script, node: Node) -> str:
    return script.text[script.char(node.start_byte) : script.char(node.end_byte)]


def _functions(script: Script) -> dict[str, FunctionBody]:
    """Each function defined once, at the top level, whose body runs one simple command."""
    char = script.char
    by_start = {c.start: c for c in script.commands}
    functions: dict[str, FunctionBody] = {}
    for label, node in _defined_once(script).items():
        body = _body_command(node)
        command = None if body is None else by_start.get(char(body.start_byte))
        if command is not None:
            functions[label] = FunctionBody(label, char(node.end_byte), command)
    return functions


def function_bodies(script: Script) -> dict[str, tuple[int, int]]:
    """The span of the body of each function defined once, at the top level, with no
    redirection of its own (`f() { ...; } < file`): what a call of it runs."""
    if script.tree is None:
        return {}
    char = script.char
    bodies: dict[str, tuple[int, int]] = {}
    for label, node in _defined_once(script).items():
        body = node.child_by_field_name("body")
        if body is not None and not any(c.type.endswith("redirect") for c in node.children):
            bodies[label] = (char(body.start_byte), char(body.end_byte))
    return bodies


def _defined_once(script: Script) -> dict[str, Node]:
    """The top-level definition of each function defined once in the whole script."""
    assert script.tree is not None
    starts = script.function_starts
    if not starts:
        return {}  # the script defines no function
    defined: collections.Counter[str] = collections.Counter()
    top_functions: list[tuple[str, Node]] = []
    stack = [(script.tree.root_node, False)]
    while stack:
        node, top = stack.pop()
        kind = node.type  # read once: each read builds a new str
        if kind == "function_definition":
            name = node.child_by_field_name("name")
            if name is not None:
                label = _source(script, name)
                defined[label] += 1
                if top:
                    top_functions.append((label, node))
        # Every container is a named node: the unnamed ones (`{`, `;`, `then`, `;;`, `)`
        # of a case item...) are not even made into Nodes.  And only a container where a
        # function definition starts is walked (syntax's walk went through every
        # container and noted each start): most hold none (bodies, branches).
        for child in node.named_children:
            if child.type in _CONTAINERS and _holds_start(starts, child):
                stack.append((child, kind == "program"))
    return {label: node for label, node in top_functions if defined[label] == 1}


def _holds_start(starts: tuple[int, ...], node: Node) -> bool:
    """Whether one of `starts` (sorted byte offsets) is inside `node`."""
    k = bisect.bisect_left(starts, node.start_byte)
    return k < len(starts) and starts[k] < node.end_byte


def _literals(script: Script) -> dict[str, Literal]:
    """Each name assigned once, at the top level, a value with no expansion in it, and
    bound by no other command."""
    assigned = collections.Counter(name for name, _ in script.assigned)
    candidates = _literal_assignments(script, assigned)
    if not candidates:
        return {}  # most scripts: the binding commands need no de-quoting then
    rebound = _rebound(script, {label for label, _, _ in candidates} | {"IFS"})
    split_at_ifs = "IFS" in assigned or "IFS" in rebound
    literals: dict[str, Literal] = {}
    for label, node, value in candidates:
        if label in rebound:
            continue
        words = _value_words(script, value, split_at_ifs)
        if words is not None and all(w is not None for w in words):
            end = script.char(node.end_byte)
            kept = tuple(w for w in words if w)
            literals[label] = Literal(label, end, kept, value.type == "array")
    return literals


def _literal_assignments(
    script: Script, assigned: collections.Counter[str]
) -> list[tuple[str, Node, Node]]:
    """The top-level assignments (name, assignment, value) with `=` of a name assigned
    once, of a value with no expansion in it."""
    assert script.tree is not None
    candidates: list[tuple[str, Node, Node]] = []
    for node in _top_level_assignments(script):
        name_node = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name_node is None or value is None:
            continue
        if value.type != "array" and _has_expansion(value):
            continue  # an array's elements are looked at one by one
        label = _source(script, name_node)
        if assigned[label] != 1:
            continue
        if _source(script, node)[len(label) : len(label) + 1] != "=":
            continue  # `A+=x`: appends to a value set elsewhere
        candidates.append((label, node, value))
    return candidates


def _top_level_assignments(script: Script) -> Iterator[Node]:
    """The assignments of the top level: `NAME=value`, and each of `export NAME=value` and
    `readonly NAME=value` without options (a settings file of `export` lines)."""
    assert script.tree is not None
    for node in script.tree.root_node.children:
        if node.type == "variable_assignment":
            yield node
        elif node.type == "declaration_command" and _source(script, node).startswith(_DECLARING):
            children = node.named_children
            if all(c.type in ("variable_assignment", "variable_name") for c in children):
                yield from (c for c in children if c.type == "variable_assignment")


def _rebound(script: Script, names: set[str]) -> set[str]:
    """Which of `names` a binding command (`read`, `local`, `unset`...) may bind: its
    static words, up to an `=`.  A look at each head before de-quoting: most commands are
    never de-quoted at all; nor is a binding command whose text cannot spell any of
    `names` (the `local` lines of a script bind names of its functions' own).
    `export`/`readonly` without options bind only by their `NAME=value` words, which
    count as assignments (script.assigned)."""
    text = script.text
    return {
        bound
        for command in script.commands
        if command.may_be(_BINDERS)
        and command.name in _BINDERS
        and not (command.name in _DECLARING and _no_options(command.words[1:]))
        and may_spell(text[command.start : command.end], names)
        for word in command.words[1:]
        if word.static and (bound := word.value.partition("=")[0]) in names
    }


def _no_options(words: Sequence[Word]) -> bool:
    return not any(w.value.startswith(("-", "+")) or not w.static for w in words)


def _value_words(script: Script, value: Node, split_at_ifs: bool) -> tuple[Word | None, ...] | None:
    """The words of an assigned value: an array's elements, or the string as one word;
    None for a string when IFS is changed (its words are not known)."""
    if value.type == "array":
        elements = [c for c in value.children if c.is_named and c.type != "comment"]
        return tuple(_element_word(script.text, script.char, c) for c in elements)
    if split_at_ifs:
        return None  # a string value is split at $IFS: its words are not known
    return (_literal_word(script.text, script.char, value),)


def _body_command(node: Node) -> Node | None:
    """The one simple command of a function body that runs the call's arguments:
    `{ cmd; }`, `( cmd )`, `{ cd /x && cmd; }`, or, in a body of several statements
    (`{ echo "to $HOST" >&2; ssh "$HOST" "$@"; }`), the only one that holds `$@`, `$*`
    or `$1`; None for any other body."""
    body = node.child_by_field_name("body")
    if body is None or body.type not in ("compound_statement", "subshell"):
        return None
    statements = [c for c in body.children if c.is_named and c.type != "comment"]
    if len(statements) != 1:
        forwarding = [s for s in statements if _ARGUMENTS.search(s.text or b"")]
        if len(forwarding) != 1:
            return None
        statements = forwarding
    statement = statements[0]
    if statement.type == "redirected_statement":
        inner = statement.child_by_field_name("body")
        statement = inner if inner is not None else statement
    while statement.type == "list":
        if any(c.type == "||" for c in statement.children):
            return None  # `a || b`: b runs only when a fails
        named = [c for c in statement.children if c.is_named]
        statement = named[-1]
    return statement if statement.type == "command" else None


# The call's arguments in a statement: `$@`, `${@}`, `$*`, `$1`, `${2}`...
_ARGUMENTS = re.compile(rb"\$(?:[@*1-9]|\{[@*1-9])")


def _has_expansion(node: Node) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in _EXPANSIONS:
            return True
        stack.extend(current.children)
    return False


# An array element that is one word whatever its value: a variable in double quotes.
_QUOTED_VARIABLE = re.compile(r'"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})"')


def _element_word(text: str, char: Callable[[int], int], node: Node) -> Word | None:
    """An array element as one word: a literal, or a variable in double quotes (`-p
    "$port"`: the option's value is not known, its place among the words is)."""
    start, end = char(node.start_byte), char(node.end_byte)
    if _QUOTED_VARIABLE.fullmatch(text, start, end):
        return dequote(text, start, end)
    return _literal_word(text, char, node)


def _literal_word(text: str, char: Callable[[int], int], node: Node) -> Word | None:
    start, end = char(node.start_byte), char(node.end_byte)
    if _NOT_LITERAL & set(text[start:end]):
        return None
    word = dequote(text, start, end)
    if not word.static or word.globbing or word.braces:
        return None
    return word


# Commands that give a name a value only known at run time.
_READERS = frozenset({"read", "mapfile", "readarray", "getopts", "printf"})


def assigned_values(script: Script) -> dict[str, tuple[str | None, ...]]:
    """Every value each name is assigned anywhere in `script` (in a function, a branch,
    a `local`), as bash would give it when it holds no expansion, else None; a name a
    `for` loop or a reading command binds has a None among its values."""
    if script.tree is None:
        return {}
    values: dict[str, list[str | None]] = collections.defaultdict(list)
    stack = [script.tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "variable_assignment":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if name is not None:
                word = None if value is None else _literal_word(script.text, script.char, value)
                known = "" if value is None else None if word is None else word.value
                values[_source(script, name)].append(known)
        elif node.type == "for_statement":
            variable = node.child_by_field_name("variable")
            if variable is not None:
                values[_source(script, variable)].append(None)
        stack.extend(node.children)
    for command in script.commands:
        if command.may_be(_READERS) and command.name in _READERS:
            for word in command.words[1:]:
                if word.static and word.value in values:
                    values[word.value].append(None)
    return {name: tuple(found) for name, found in values.items()}
