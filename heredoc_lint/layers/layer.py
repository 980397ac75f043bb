"""Layers: every text that some shell parses, from the file down to the innermost string.

Layer 0 is the file (or the command an agent runs).  A wrapper command in a
layer (`ssh host CMD`, `bash -c S`, `eval S`, a heredoc fed to `bash -s`)
makes a child layer whose text is what the next shell receives, with every
character mapped back to the file offset it came from.  Expansions that the
parent shell performs are kept as their source text (the author's intent) and
listed in `local_expansions`, so that rules can say what will really happen.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from heredoc_lint.frontends import EditEncoder, Fragment
from heredoc_lint.kinds import WrapperKind
from heredoc_lint.layers.forwarders import forwarded
from heredoc_lint.layers.wrappers import (
    PREFIXES,
    WRAPPERS,
    Invocation,
    Role,
    basename,
    command_name,
    ifs_split,
    resolve,
    unwrap_prefixes,
)
from heredoc_lint.shell.definitions import Definitions, read_definitions
from heredoc_lint.shell.definitions import Literal as LiteralValue
from heredoc_lint.shell.heredoc import Heredoc
from heredoc_lint.shell.heredoc_body import read_unquoted
from heredoc_lint.shell.spans import Spans
from heredoc_lint.shell.syntax import Command, Script, parse_script
from heredoc_lint.shell.words import Expansion, OffsetRuns, Word

_QUOTES = str.maketrans("", "", "'\"\\")

# Shells nested deeper than this are refused (TooDeep), never passed as clean: written
# by hand, nesting stops long before (each level escapes its quotes once more).
MAX_DEPTH = 16

# file: a file's own text (or a fragment at depth 0); string: an argument, on a command
# line (`bash -c STRING`, ssh's remote command); stdin: a script fed to a shell (a heredoc).
LayerKind = Literal["file", "string", "stdin"]


def _holds_checked_text(layer: Layer) -> bool:
    """Whether the text below a layer at MAX_DEPTH holds anything a rule looks for besides
    more wrappers (`pkill`, a heredoc, `sudo`, `scp`...).  A chain of wrapper words alone
    (`ssh h ssh h ... echo hi`, `eval eval ...`) loses a level of quoting at each shell, so
    it carries nothing deeper that a rule could check: there the walk just stops."""
    from heredoc_lint.layers.triggers import ALL_TRIGGERS, present_triggers

    others = ALL_TRIGGERS - WRAPPERS.keys() - layer.wrappers.keys()
    return bool(present_triggers(layer.text, others))


class TooDeep(Exception):
    """A shell nested deeper than MAX_DEPTH starts another: the text is not checked, and
    the run says so (the CLI exits 2) instead of reporting nothing."""


@dataclass(frozen=True)
class LocalExpansion:
    """An expansion in a parent word that the parent shell performs."""

    start: int  # offsets into the child layer's text
    end: int
    expansion: Expansion
    parent_start: int  # where it stands in the parent layer's text


@dataclass(frozen=True)
class Layer:
    text: str
    offsets: Sequence[int] | None  # file offset of each character (+ the end); None: the file
    depth: int
    script: Script
    wrapper: str | None = None  # "ssh", "bash -c", ...: how messages name what runs it
    role: Role | None = None  # what runs it; None: the file's own shell, or a program's argv
    kind: LayerKind = "file"
    remote: bool = False
    shell: str = "bash"
    cmdline: str | None = None  # what this shell's process shows as its command line
    parent: Layer | None = field(default=None, repr=False)
    command: Command | None = field(default=None, repr=False)  # the wrapper command in the parent
    invocation: Invocation | None = field(default=None, repr=False)
    local_expansions: tuple[LocalExpansion, ...] = ()
    continuations: tuple[int, ...] = ()  # backslash-newlines the parent shell deletes
    source_words: tuple[Word, ...] = ()  # the parent words this layer was joined from
    parent_offsets: Sequence[int] = ()  # parent text offset of each character (+ the end)
    interpolations: tuple[tuple[int, int], ...] = ()  # values known only at run time (Python)
    # Text put in place of a `$NAME` the parent set to literal text (with_literal_text): its
    # span and the name.
    literal_values: tuple[tuple[int, int, str], ...] = ()
    prefix_words: tuple[Word, ...] = ()  # a root's: the words before its argv's wrapper
    verbatim: bool = False  # a root whose characters are the file's characters one for one
    # An unquoted heredoc's body: the parent did its escapes (`\$` is `$` here), so an
    # edit is its characters one for one only where no escape or expansion stands.
    expanded: bool = False
    encode_edit: EditEncoder | None = field(default=None, repr=False, compare=False)
    source_end: Callable[[int], int] | None = field(default=None, repr=False, compare=False)
    origin: object = field(default=None, repr=False, compare=False)  # the Fragment's (roots)
    wrappers: Mapping[str, WrapperKind] = field(default_factory=dict, repr=False, compare=False)
    # A script's: what the files it sources define for it (sourcing.imported).
    imported: Definitions | None = field(default=None, repr=False, compare=False)
    root_spans: tuple[tuple[int, int], ...] = ()  # a root's: text a root shell reads

    @functools.cached_property
    def invocations(self) -> tuple[tuple[Command, Invocation], ...]:
        """The commands of this layer that start another layer, with how they do it."""
        found = []
        names = WRAPPERS.keys() | self.wrappers.keys()
        defined = self.definitions
        # `may_be` reads the head alone, and most heads repeat (`local`, `echo`, `[[`):
        # each is looked at once per layer.
        heads: dict[str, bool] = {}
        for command in self.script.commands:
            # Only a command that can be named as a wrapper is de-quoted: de-quoting every
            # level of `$(` nested 10,000 deep would cost quadratic time.
            named = heads.get(command.head)
            if named is None:
                named = heads[command.head] = may_be(command, names)
            # Most commands named like a wrapper are not one (`command sed ...`): read
            # word by word, they stop at the first that is none.  One that is keeps the
            # words read as its own, and is resolved again from them as `words`: its
            # invocation holds the command's own words.
            lazy = command.lazy_words() if named else ()
            invocation = resolve(lazy, self.wrappers) if named else None
            if invocation is not None:
                command.keep_words(lazy)
                invocation = resolve(command.words, self.wrappers)
            if invocation is None and defined is not None and self._may_forward(command, named):
                invocation = forwarded(defined, command, self.wrappers)
            if invocation is not None:
                found.append((command, invocation))
        return tuple(found)

    @functools.cached_property
    def definitions(self) -> Definitions | None:
        """The functions and literal variables this layer defines for its commands to use
        as wrappers (`remote() { ssh "$HOST" "$@"; }`, `SSH="ssh -p 2222"`); None when
        it plainly defines neither (no look at the tree then)."""
        text = self.text
        found = None
        if self.script.assigned or "(" in text or "function" in text:
            found = read_definitions(self.script)
        if self.imported is not None:
            found = self._with_imported(found, self.imported)
        if found is None or not found.functions and not found.literals:
            return None
        return found

    def _with_imported(self, own: Definitions | None, imported: Definitions) -> Definitions:
        """The layer's own definitions, and those of its sourced files that it does not
        define or bind again itself (which of two reaches a call is then a guess)."""
        text = self.text
        functions = {
            name: body
            for name, body in imported.functions.items()
            if not re.search(
                rf"(?:^|[\s;&|(]){re.escape(name)}\s*\(\s*\)|\bfunction\s+{re.escape(name)}\b", text
            )
        }
        literals = {
            name: value for name, value in imported.literals.items() if name not in self.bindings
        }
        if own is not None:
            functions.update(own.functions)
            literals.update(own.literals)
        return Definitions(functions, literals)

    def _may_forward(self, command: Command, named: bool) -> bool:
        """A cheap look at whether `command` may call a forwarding function or use a
        literal variable: its head names a function, or it may hold a `$NAME`."""
        defined = self.definitions
        assert defined is not None
        head = command.head
        # (str.translate costs more than looking for the quote marks it would delete.)
        bare = head.translate(_QUOTES) if "'" in head or '"' in head or "\\" in head else head
        if bare in defined.functions:
            return True
        if not defined.literals:
            return False
        if any(command.start <= e.start < command.end for e in self.local_expansions):
            return False  # a `$NAME` there is the parent's, not a value this layer set
        if "$" in head:
            return True
        return named and self.text.find("$", command.start, command.end) >= 0

    @functools.cached_property
    def bindings(self) -> dict[str, int]:
        """evidence.bindings of this layer's script outside the expansions its parent
        performs: found once per layer, not once per expansion that asks (which was cubic
        in a string of n `$x`s).  Callers must not change the dict."""
        from heredoc_lint.shell import evidence

        skip = tuple((e.start, e.end) for e in self.local_expansions)
        return evidence.bindings(self.script, skip)

    @functools.cached_property
    def source_word_starts(self) -> list[int] | None:
        """Where each source word starts, when they are in order, apart and never empty
        (as the words of a command line are): what edits.py bisects; else None."""
        words = self.source_words
        if any(w.start >= w.end for w in words):
            return None
        if any(a.end > b.start for a, b in zip(words, words[1:], strict=False)):
            return None
        return [w.start for w in words]

    def file_offset(self, index: int) -> int:
        if self.offsets is None:
            return index
        index = max(0, min(index, len(self.offsets) - 1))
        return self.offsets[index]

    def file_offsets(self, indexes: Sequence[int]) -> Sequence[int]:
        """`file_offset` of each index, in one pass (a child layer maps every character)."""
        offsets = self.offsets
        if offsets is None:
            return indexes
        if indexes and min(indexes) >= 0 and max(indexes) < len(offsets):
            return tuple(map(offsets.__getitem__, indexes))
        return tuple(self.file_offset(i) for i in indexes)

    def file_span(self, start: int, end: int) -> tuple[int, int]:
        """The file span of text[start:end]; never empty for a non-empty range."""
        a = self.file_offset(start)
        if end <= start:
            return a, a
        last = self.file_offset(end - 1)
        source_end = self.root.source_end
        b = source_end(last) if source_end is not None else last + 1
        return a, max(b, a + 1)

    @property
    def wrapper_span(self) -> tuple[int, int] | None:
        """The file span of the wrapper word that created this layer."""
        if self.parent is None or self.command is None or self.invocation is None:
            return None
        word = self.command.words[self.invocation.index]
        return self.parent.file_span(word.start, word.end)

    @functools.cached_property
    def heredoc_commands(self) -> dict[int, Command]:
        """The command each heredoc feeds, by the offset of its `<<`."""
        if not self.script.heredocs:
            return {}
        return {
            r.heredoc.op_start: command
            for command in self.script.commands
            for r in command.redirects
            if r.heredoc is not None
        }

    @property
    def root(self) -> Layer:
        # Not cached: a root layer caching itself would be a reference cycle.
        layer = self
        while layer.parent is not None:
            layer = layer.parent
        return layer

    def is_runtime(self, start: int, end: int | None = None) -> bool:
        """Whether text[start:end] (or text[start]) holds a value a frontend fills in at run
        time (a Python f-string field, a workflow `${{ }}`), looked up in the root fragment."""
        root = self.root
        if not root.interpolations:
            return False
        for k in range(start, start + 1 if end is None else end):
            index = self._root_index(k)
            if index is not None and root._interpolation_spans.holds(index):
                return True
        return False

    @functools.cached_property
    def _interpolation_spans(self) -> Spans:
        return Spans(self.interpolations)

    @functools.cached_property
    def _expansion_spans(self) -> Spans:
        return Spans([(e.start, e.end) for e in self.local_expansions])

    @functools.cached_property
    def _heredoc_spans(self) -> Spans:
        return Spans([(h.body_start, h.body_end) for h in self.script.heredocs])

    def in_local_expansion(self, index: int) -> bool:
        """Whether text[index] is inside an expansion that the parent shell performs."""
        return self._expansion_spans.holds(index)

    def _root_index(self, index: int) -> int | None:
        layer = self
        while layer.parent is not None:
            if not layer.parent_offsets:
                return None
            index = layer.parent_offsets[min(index, len(layer.parent_offsets) - 1)]
            layer = layer.parent
        return index

    def heredoc_at(self, index: int) -> Heredoc | None:
        """The first heredoc (in the script's order) whose body holds text[index]."""
        k = self._heredoc_spans.first(index)
        return None if k is None else self.script.heredocs[k]


def may_be(command: Command, names: Collection[str]) -> bool:
    """`Command.may_be`, and a head that names its program as bash resolves a word
    (`wrappers.command_name`): an ANSI-C quoted `$'ssh'`, a brace expansion `{ssh,}`, a
    glob `ss[h]`.  Those are de-quoted to be sure; a head with `$(` or a backtick never."""
    if command.may_be(names):
        return True
    head = command.head
    if "$(" in head or "`" in head or head in ("[", "[["):
        return False
    return "$'" in head or "{" in head or "[" in head or "?" in head or "*" in head


@dataclass(frozen=True)
class Call:
    """A command of a layer that runs a named program, maybe behind `sudo`, `env`, ..."""

    command: Command
    index: int  # the program's word in `argv`
    name: str  # its name, without its directory
    # The command's words: `command.words`, or as bash splits them at `$IFS` (`split_ifs`).
    argv: tuple[Word, ...]

    @property
    def words(self) -> tuple[Word, ...]:
        """The program's argv: its name first."""
        return self.argv[self.index :]

    def behind(self, prefixes: frozenset[str]) -> int | None:
        """Index in `argv` of the first prefix command named one of `prefixes` that runs
        the program (`sudo` in `env A=1 sudo -u x CMD`); None if none."""
        for k in range(self.index):
            if command_name(self.argv[k]) in prefixes:
                return k
        return None


def calls(layer: Layer, names: frozenset[str], *, split_ifs: bool = False) -> Iterator[Call]:
    """The commands of `layer` that run one of `names` (ShellCheck's `CommandCheck
    (Basename "scp")`): by name without its directory, through prefix commands.

    `split_ifs`: read the words as bash splits them at an unquoted `$IFS`
    (`pkill${IFS}-f${IFS}x`), for a layer that leaves IFS as it came."""
    for call in _resolved_calls(layer, names | PREFIXES, split_ifs):
        if call.name in names:
            yield call


def calls_behind(layer: Layer, prefixes: frozenset[str]) -> Iterator[Call]:
    """The commands of `layer` run behind one of the prefix commands `prefixes`
    (`sudo CMD`, `env A=1 doas CMD`), whatever program they run."""
    for call in _resolved_calls(layer, PREFIXES, False):
        if call.behind(prefixes) is not None:
            yield call


def calls_behind_variable(layer: Layer, names: frozenset[str]) -> Iterator[Call]:
    """The commands of `layer` whose first word is one of the variables `names`, whole
    (`$SUDO CMD`, `${SUDO} CMD`), with the program run behind it and its prefixes; the
    variable is the call's word 0."""
    for command in layer.script.commands:
        words = command.words
        if len(words) < 2 or len(words[0].expansions) != 1:
            continue
        e = words[0].expansions[0]
        if e.kind != "variable" or e.name not in names:
            continue
        if words[0].value not in (f"${e.name}", f"${{{e.name}}}"):
            continue  # `${SUDO:-x}`, `$SUDO.x`: another value
        program = unwrap_prefixes(words[1:])
        if program is not None:
            real = words[1 + program]
            yield Call(command, 1 + program, command_name(real) or basename(real.value), words)


def _resolved_calls(layer: Layer, heads: frozenset[str], split_ifs: bool) -> Iterator[Call]:
    """Each command whose head may be one of `heads`, resolved through its prefixes."""
    for command in layer.script.commands:
        # A look at the head before de-quoting, as in `Layer.invocations`.
        if not may_be(command, heads) and not (split_ifs and "IFS" in command.head):
            continue
        argv = ifs_split(command.words) if split_ifs else command.words
        index = unwrap_prefixes(argv)
        if index is None:
            continue
        name = command_name(argv[index]) or basename(argv[index].value)
        yield Call(command, index, name, argv)


def file_layer(
    text: str, cmdline: str | None = None, wrappers: Mapping[str, WrapperKind] | None = None
) -> Layer:
    return Layer(text, None, 0, parse_script(text), cmdline=cmdline, wrappers=wrappers or {})


def root_layer(
    fragment: Fragment,
    wrappers: Mapping[str, WrapperKind] | None = None,
    imported: Definitions | None = None,
) -> Layer:
    """The layer a frontend's fragment starts: layer 0, or a remote string (depth 1);
    `imported`: what the files a script sources define for it."""
    return Layer(
        fragment.text,
        fragment.offsets,
        fragment.depth,
        parse_script(fragment.text),
        wrapper=fragment.wrapper,
        role=fragment.role,
        kind="string" if fragment.depth else "file",
        remote=fragment.remote,
        shell=fragment.shell,
        cmdline=fragment.cmdline,
        interpolations=fragment.interpolations,
        prefix_words=fragment.prefix_words,
        verbatim=fragment.verbatim or fragment.offsets is None,
        encode_edit=fragment.encode_edit,
        source_end=fragment.source_end,
        origin=fragment.origin,
        wrappers=wrappers or {},
        imported=imported,
        root_spans=fragment.root_spans,
    )


def _join_words(
    words: tuple[Word, ...],
) -> tuple[str, Sequence[int], tuple[LocalExpansion, ...], tuple[int, ...]]:
    """The layer text ssh (or eval) makes of `words`, and where each character came from."""
    parts: list[str] = []
    offsets = OffsetRuns()
    expansions: list[LocalExpansion] = []
    continuations: list[int] = []
    base = 0
    for n, word in enumerate(words):
        if n:
            parts.append(" ")
            offsets.add(words[n - 1].end)
            base += 1
        parts.append(word.value)
        offsets.extend(word.offsets[:-1])
        expansions.extend(
            LocalExpansion(base + e.start, base + e.end, e, word.offsets[e.start])
            for e in word.expansions
        )
        continuations.extend(base + k for k in word.continuations)
        base += len(word.value)
    offsets.add(words[-1].end if words else 0)
    return "".join(parts), offsets.build(), tuple(expansions), tuple(continuations)


def _child(
    parent: Layer,
    text: str,
    parent_offsets: Sequence[int],
    command: Command,
    invocation: Invocation,
    kind: LayerKind,
    **extra: object,
) -> Layer:
    shell = invocation.shell if invocation.shell != "login" else "bash"
    return Layer(
        text,
        parent.file_offsets(parent_offsets),
        parent.depth + 1,
        parse_script(text),
        wrapper=invocation.wrapper,
        role=invocation.role,
        kind=kind,
        remote=invocation.remote or parent.remote,
        shell=shell,
        cmdline=_cmdline(parent, invocation, shell, text, kind),
        parent=parent,
        command=command,
        invocation=invocation,
        parent_offsets=parent_offsets,
        wrappers=parent.wrappers,
        **extra,  # type: ignore[arg-type]
    )


def _cmdline(
    parent: Layer, invocation: Invocation, shell: str, text: str, kind: LayerKind
) -> str | None:
    """What the process that runs a child layer shows as its command line: a new shell's
    `bash -c TEXT`; for `eval`, which starts no process, its parent's own."""
    if invocation.role is Role.EVAL:
        return parent.cmdline
    return f"{shell} -c {text}" if kind == "string" else None


def without_local_regions(script: Script, expansions: tuple[LocalExpansion, ...]) -> Script:
    """Drop what lies inside the parent's own expansions: the parent runs `$(...)` itself."""
    if not expansions:
        return script
    inside = Spans([(e.start, e.end) for e in expansions]).holds

    return replace(
        script,
        commands=tuple(c for c in script.commands if not inside(c.start)),
        heredocs=tuple(h for h in script.heredocs if not inside(h.op_start)),
        errors=tuple(e for e in script.errors if not inside(e.start)),
    )


def with_literal_text(
    literals: Mapping[str, LiteralValue], before: int, words: tuple[Word, ...]
) -> tuple[tuple[Word, ...], tuple[tuple[int, int, str], ...]]:
    """`words` with each `$NAME` or `${NAME}` of `literals` (variables a layer assigns
    literal text once, at its top level: definitions.read_definitions) assigned before
    offset `before` replaced by that text, mapped to where the assignment writes it: the
    command kept in a variable (`cmd="pkill -f x; ./x"; ssh h "$cmd"`) is checked as if
    written there.  Unquoted, the value is split and rejoined, so it stands for itself
    only where that changes nothing: words apart by one blank, no pattern characters.
    Nothing of it is in the words' own source, so no fix edits it (edits.lift finds no
    word to encode).  Also returns where each value stands in the words joined with
    spaces, and its name.  (forwarders.with_literals is its argv counterpart: a whole
    word `$SSH` or `"${OPTS[@]}"` made into the value's words.)"""
    new_words: list[Word] = []
    spans: list[tuple[int, int, str]] = []
    base = 0
    for word in words:
        new, replaced = _substituted(word, literals, before)
        new_words.append(new)
        spans.extend((base + start, base + end, name) for start, end, name in replaced)
        base += len(new.value) + 1
    return tuple(new_words), tuple(spans)


# What makes an unquoted value's words differ from its text: IFS blanks other than one
# space between words, and the characters of a pathname pattern.
_SPLIT_CHANGES = re.compile(r"[\t\n*?\[]|  |\A | \Z")


def _substituted(
    word: Word, literals: Mapping[str, LiteralValue], before: int
) -> tuple[Word, list[tuple[int, int, str]]]:
    """The word with the values put in, and their spans in its new value with their names."""
    replaced: list[tuple[Expansion, Word]] = []
    for e in word.expansions:
        if replaced and e.start < replaced[-1][0].end:
            continue  # inside one already replaced
        literal = literals.get(e.name) if e.kind == "variable" else None
        if literal is None or literal.array or literal.end > before or len(literal.words) != 1:
            continue
        if word.value[e.start : e.end] not in (f"${e.name}", f"${{{e.name}}}"):
            continue  # `${x:-y}`, `${x%.sh}`: another value
        value = literal.words[0]
        if value.continuations or (not e.quoted and _SPLIT_CHANGES.search(value.value)):
            continue
        replaced.append((e, value))
    if not replaced:
        return word, []
    swapped = {id(e): value for e, value in replaced}
    text: list[str] = []
    offsets = OffsetRuns()
    expansions: list[Expansion] = []
    growth: list[tuple[int, int]] = []  # (end of a replaced expansion, characters gained)
    spans: list[tuple[int, int, str]] = []
    done = 0  # characters of word.value copied
    shift = 0  # characters gained so far
    for e in word.expansions:
        put = swapped.get(id(e))
        if put is None:
            expansions.append(replace(e, start=e.start + shift, end=e.end + shift))
            continue
        text.append(word.value[done : e.start])
        offsets.extend(word.offsets[done : e.start])
        text.append(put.value)
        offsets.extend(put.offsets[: len(put.value)])
        spans.append((e.start + shift, e.start + shift + len(put.value), e.name))
        shift += len(put.value) - (e.end - e.start)
        growth.append((e.end, shift))
        done = e.end
    text.append(word.value[done:])
    offsets.extend(word.offsets[done:])
    continuations = tuple(
        k + next((gained for end, gained in reversed(growth) if end <= k), 0)
        for k in word.continuations
    )
    new = replace(
        word,
        value="".join(text),
        offsets=offsets.build(),
        expansions=tuple(expansions),
        continuations=continuations,
    )
    return new, spans


def string_layer(parent: Layer, command: Command, invocation: Invocation) -> Layer:
    """The layer `invocation` makes of its words: their values joined with spaces, each
    variable the parent set to literal text replaced by that text (`with_literal_text`),
    unless the layer binds that name itself (`for i in ...; do echo $i`: HL102's bug,
    the value is the remote one that was meant)."""
    layer = _string_layer(parent, command, invocation, invocation.words, ())
    defined = parent.definitions
    if defined is None or not defined.literals:
        return layer
    names = {e.expansion.name for e in layer.local_expansions} & defined.literals.keys()
    names -= layer.bindings.keys()
    if not names:
        return layer
    literals = {name: defined.literals[name] for name in names}
    words, literal_values = with_literal_text(literals, command.start, invocation.words)
    return _string_layer(parent, command, invocation, words, literal_values)


def _string_layer(
    parent: Layer,
    command: Command,
    invocation: Invocation,
    words: tuple[Word, ...],
    literal_values: tuple[tuple[int, int, str], ...],
) -> Layer:
    text, offsets, expansions, continuations = _join_words(words)
    layer = _child(
        parent,
        text,
        offsets,
        command,
        invocation,
        "string",
        local_expansions=expansions,
        continuations=continuations,
        source_words=invocation.words,
        literal_values=literal_values,
    )
    return replace(layer, script=without_local_regions(layer.script, expansions))


def _stdin_layer(
    parent: Layer, command: Command, invocation: Invocation, heredoc: Heredoc
) -> Layer | None:
    if not heredoc.quoted:
        return _unquoted_stdin_layer(parent, command, invocation, heredoc)
    pieces = heredoc.body_lines(parent.text)
    text = "".join(line for _, line in pieces)
    offsets = [start + k for start, line in pieces for k in range(len(line))]
    offsets.append(heredoc.body_end)
    return _child(parent, text, tuple(offsets), command, invocation, "stdin")


def _unquoted_stdin_layer(
    parent: Layer, command: Command, invocation: Invocation, heredoc: Heredoc
) -> Layer:
    """`ssh h <<EOF`: the remote shell reads the body after the parent shell expanded it.
    The escapes are done (`\\$` is `$`); each expansion stays as written and is listed as
    the parent's, as in a string layer: HL107 reports it in the parent, and the rules of
    the remote commands (HL104, HL103, HL109) read the rest."""
    body = read_unquoted(parent.text, heredoc)
    expansions = tuple(
        LocalExpansion(start, end, expansion, body.offsets[start])
        for start, end, expansion in body.expansions
    )
    layer = _child(
        parent,
        body.text,
        (*body.offsets, heredoc.body_end),
        command,
        invocation,
        "stdin",
        local_expansions=expansions,
        expanded=True,
    )
    return replace(layer, script=without_local_regions(layer.script, expansions))


def _herestring_layer(parent: Layer, command: Command, invocation: Invocation, word: Word) -> Layer:
    """`bash <<< "S"`: the shell reads S and the newline bash adds as its script.  The
    parent shell expands the word first, as it does a double-quoted string."""
    text, offsets, expansions, continuations = _join_words((word,))
    layer = _child(
        parent,
        text + "\n",
        (*offsets[:-1], word.end, word.end),
        command,
        invocation,
        "stdin",
        local_expansions=expansions,
        continuations=continuations,
        source_words=(word,),
    )
    return replace(layer, script=without_local_regions(layer.script, expansions))


def child_layers(layer: Layer) -> Iterator[Layer]:
    """The layers that the commands of `layer` start, one level down."""
    if layer.depth >= MAX_DEPTH:
        if layer.invocations and _holds_checked_text(layer):
            raise TooDeep(f"a shell nested {MAX_DEPTH} deep starts another: not checked")
        return
    for command, invocation in layer.invocations:
        if invocation.words:
            yield string_layer(layer, command, invocation)
        if invocation.stdin_script:
            for redirect in command.redirects:
                if redirect.source_fd != 0:
                    continue
                if redirect.heredoc is not None:
                    child = _stdin_layer(layer, command, invocation, redirect.heredoc)
                    if child is not None:
                        yield child
                elif redirect.op == "<<<" and redirect.target is not None:
                    yield _herestring_layer(layer, command, invocation, redirect.target)
        if invocation.stdin_script and not invocation.words:
            child = _piped_layer(layer, command, invocation)
            if child is not None:
                yield child
        if invocation.script_file is not None:
            child = _substitution_layer(layer, command, invocation, invocation.script_file)
            if child is not None:
                yield child


def _piped_layer(parent: Layer, command: Command, invocation: Invocation) -> Layer | None:
    """`echo 'S' | bash`, `printf '%s\\n' 'S' | bash`: the shell reads what the command
    before the pipe prints as its script, when that is known: static words, and no
    backslash that an `echo -e` (or dash's echo) would read."""
    writer = _pipe_writer(parent, command)
    if writer is None or not writer.words or not all(w.static for w in writer.words):
        return None
    found = _printed(writer.words, parent.shell)
    if found is None:
        return None
    printed, newline = found
    if not printed:
        return None
    text, offsets, expansions, continuations = _join_words(printed)
    end = printed[-1].end
    layer = _child(
        parent,
        text + ("\n" if newline else ""),
        (*offsets[:-1], end, end) if newline else offsets,
        command,
        invocation,
        "stdin",
        continuations=continuations,
        source_words=printed,
    )
    return layer


def _printed(words: tuple[Word, ...], shell: str) -> tuple[tuple[Word, ...], bool] | None:
    """The words that a static `echo` or `printf '%s\\n' S`, run by `shell`, prints (joined
    by spaces), and whether a newline follows them; None for any other command, or for a
    backslash that an `echo -e` (or dash's echo) would read."""
    name = command_name(words[0])
    newline = True
    if name == "echo":
        k = 1
        while k < len(words) and re.fullmatch(r"-[neE]+", words[k].value):
            newline = newline and "n" not in words[k].value
            k += 1
        printed = words[k:]
        escapes = any("e" in w.value for w in words[1:k]) or shell in ("sh", "dash")
        if escapes and any("\\" in w.value for w in printed):
            return None
    elif name == "printf" and len(words) >= 3 and words[1].value == "%s\\n":
        if len(words) != 3:
            return None  # one line per argument: not the words joined
        printed = words[2:]
    else:
        return None
    return printed, newline


def _pipe_writer(layer: Layer, command: Command) -> Command | None:
    """The command whose output `command` reads through a pipe (`A | command`)."""
    for other in layer.script.commands:
        if other.end > command.start or other.next_op not in ("|", "|&"):
            continue
        between = layer.text[other.next_op_start + len(other.next_op or "") : command.start]
        if not between.replace("\\\n", "").strip(" \t\n"):
            return other
    return None


def _substitution_layer(
    parent: Layer, command: Command, invocation: Invocation, word: Word
) -> Layer | None:
    """`bash <(cat <<'EOF' ... EOF)`: the script is the quoted heredoc that the lone `cat`
    in the substitution prints.  What other commands print is not known here."""
    inside = [
        c for c in parent.script.commands if word.start < c.start < word.end and c.in_substitution
    ]
    if len(inside) != 1 or len(inside[0].words) != 1 or inside[0].name != "cat":
        return None
    heredocs = [r.heredoc for r in inside[0].redirects if r.heredoc is not None]
    if len(heredocs) != 1 or inside[0].redirects[-1].heredoc is None:
        return None
    return _stdin_layer(parent, command, invocation, heredocs[0])


def walk_layers(root: Layer) -> Iterator[Layer]:
    """`root` and every layer below it, depth first, in source order."""
    stack = [root]
    while stack:
        layer = stack.pop()
        yield layer
        stack.extend(reversed(list(child_layers(layer))))
