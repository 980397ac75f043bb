"""`heredoc-lint explain`: how a command passes through each shell, layer by layer.

For every layer (the local shell, the string ssh sends, a `bash -c` string, a
script fed on stdin...) the report shows the words the shell splits each
command into, the exact text the next shell receives with every expansion
the outer shell performs marked `⟨$1⟩` and every backslash-newline it deletes
marked, each heredoc body as it will arrive (and as it arrives when the local
values are empty), every `pkill -f` / `pgrep -f` whose pattern matches the
command line of the shell running it (with the match underlined), the
findings, and the fixed command.  Plain text, no colour: made to be pasted
into a bug report.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field

from heredoc_lint.engine import check_text, fix_kind
from heredoc_lint.frontends import SourceError, fragments
from heredoc_lint.kinds import SourceKind
from heredoc_lint.layers.layer import Layer, LocalExpansion, child_layers, root_layer, walk_layers
from heredoc_lint.layers.wrappers import Role
from heredoc_lint.model import Finding, Severity, reported
from heredoc_lint.report.lines import LineIndex
from heredoc_lint.rules.base import Context
from heredoc_lint.rules.hl103_pkill_self_match import SelfMatch, decide
from heredoc_lint.run.settings import Settings
from heredoc_lint.shell.heredoc import Heredoc
from heredoc_lint.shell.syntax import Command
from heredoc_lint.shell.words import Word

WORD_LIMIT = 70  # characters of a long word shown in a word list
JOINED = "⟨\\↵ deleted⟩"
RULE = "─" * 78
ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}


@dataclass
class _Report:
    lines: list[str] = field(default_factory=list)

    def add(self, text: str = "", indent: int = 0) -> None:
        for line in text.split("\n"):
            self.lines.append((" " * indent + line).rstrip())

    def block(self, text: str, indent: int = 4, gutter: str = "│ ") -> None:
        """Text shown exactly, each line behind a gutter (a final newline shows as `⏎`)."""
        if text == "":
            self.add(f"{gutter}(empty)", indent)
            return
        body = text[:-1] if text.endswith("\n") else text
        shown = body.split("\n")
        for n, line in enumerate(shown):
            last = n == len(shown) - 1
            suffix = "⏎" if last and text.endswith("\n") else ""
            self.lines.append(" " * indent + gutter + line.replace("\t", "→") + suffix)
        if not text.endswith("\n"):
            self.lines.append(" " * indent + "  (no final newline)")

    def text(self) -> str:
        return "\n".join(self.lines).rstrip("\n") + "\n"


# -- where things are -------------------------------------------------------------------


class _Places:
    def __init__(self, text: str, path: str | None, findings: Sequence[Finding] = ()) -> None:
        self.index = LineIndex(text)
        self.path = path
        # What check reports (every severity), by code and file offset: the layer view
        # shows these verdicts beside what they are about, and decides nothing itself.
        self.verdicts = {(f.code, f.start): f for f in findings}
        self.shown: set[tuple[str, int]] = set()  # verdicts printed already (once each)
        self._origins: dict[int, list[tuple[int, int] | None]] = {}
        self._keep: list[Layer] = []

    def at(self, layer: Layer, start: int) -> str:
        line, column = self.index.position(layer.file_offset(start))
        return f"{line}:{column}"

    def line_of(self, offset: int) -> int:
        return self.index.position(offset)[0]

    def origins(self, layer: Layer) -> list[tuple[int, int] | None]:
        """`_origins(layer)`, computed once per layer."""
        key = id(layer)
        if key not in self._origins:
            parent = self.origins(layer.parent) if layer.parent is not None else None
            self._origins[key] = _origins(layer, parent)
            self._keep.append(layer)  # the id stays this layer's while the report is made
        return self._origins[key]


def _command_end(command: Command) -> int:
    ends = [command.end]
    ends += [r.heredoc.end for r in command.redirects if r.heredoc is not None]
    return max(ends)


def _file_lines(layer: Layer, command: Command, places: _Places) -> tuple[int, int]:
    a, b = layer.file_span(command.start, _command_end(command))
    return places.line_of(a), places.line_of(max(a, b - 1))


# -- how the outer shell changes the text ---------------------------------------------


def _who(layer: Layer) -> str:
    """The shell that performs this layer's local expansions: its parent's."""
    parent = layer.parent
    if parent is None or parent.depth == 0:
        return "the local shell"
    return f"the layer-{parent.depth} shell"


def _origins(
    layer: Layer, above: list[tuple[int, int] | None] | None
) -> list[tuple[int, int] | None]:
    """For each character of the layer: the (depth, start) of the outer expansion it
    stands for, its own parent's or one further out; None for plain text.  `above` is
    the parent's list."""
    origin: list[tuple[int, int] | None] = [None] * len(layer.text)
    if above is not None:
        for i in range(len(layer.text)):
            k = layer.parent_offsets[i] if i < len(layer.parent_offsets) else -1
            if 0 <= k < len(above):
                origin[i] = above[k]
    for e in layer.local_expansions:
        for i in range(e.start, min(e.end, len(origin))):
            origin[i] = (layer.depth, e.start)
    return origin


def _marked(
    layer: Layer,
    start: int,
    end: int,
    origin: list[tuple[int, int] | None],
    *,
    empty: bool = False,
) -> str:
    """layer.text[start:end] as the layer's shell receives it.

    What outer shells substitute is shown as `⟨$1⟩` (or left out with `empty`), and
    the backslash-newlines the parent deletes as `⟨\\↵ deleted⟩` (or just removed).
    """
    text = layer.text
    joins = set(layer.continuations)
    out: list[str] = []
    i = start
    while i < end:
        here = origin[i]
        if here is not None:
            j = i
            while j < end and origin[j] == here:
                j += 1
            if not empty:
                out.append(f"⟨{text[i:j]}⟩")
            i = j
            continue
        if i in joins:
            out.append("" if empty else JOINED)
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _describe_expansion(layer: Layer, item: LocalExpansion) -> str:
    """What the outer shell substitutes: a fact about the value, not a verdict (the
    verdict is HL102's finding, shown beside it)."""
    e = item.expansion
    local = "local" if _who(layer) == "the local shell" else "outer"
    if e.kind == "positional":
        number = int(e.name) if e.name.isdigit() else 0
        nth = ORDINALS.get(number, f"{number}th")
        return f"the {local} shell's {nth} positional parameter: EMPTY when there is none"
    if e.kind == "special":
        return {
            "@": f"all of the {local} shell's positional parameters",
            "*": f"all of the {local} shell's positional parameters",
            "#": f"how many positional parameters the {local} shell has",
            "0": f"the {local} shell's own name",
            "$": f"the PID of the {local} shell, not of the shell that runs the string",
            "!": f"the {local} shell's last background job: EMPTY when there is none",
            "?": f"the exit status of the {local} shell's last command",
            "-": f"the {local} shell's option flags",
        }.get(e.name, f"a special parameter of the {local} shell")
    if e.kind == "variable":
        return f"the {local} value of {e.name}: EMPTY if it is not set there"
    if e.kind in ("command", "backtick"):
        return f"runs `{' '.join(e.name.split())}` on the {local} side, before sending"
    if e.kind == "arithmetic":
        return f"computed by the {local} shell"
    if e.kind == "tilde":
        return f"the {local} home directory"
    return f"expanded by the {local} shell"


# -- words and commands -----------------------------------------------------------------


def _short(text: str, limit: int = WORD_LIMIT) -> str:
    flat = text.replace("\n", "⏎").replace("\t", "→")
    return flat if len(flat) <= limit else flat[: limit - 1] + f"… ({len(text)} chars)"


def _word_value(layer: Layer, word: Word, origin: list[tuple[int, int] | None]) -> str:
    """A word's value, with the parts outer shells substituted marked `⟨$1⟩`."""
    out: list[str] = []
    previous: tuple[int, int] | None = None
    for i, char in enumerate(word.value):
        offset = word.offsets[i]
        here = origin[offset] if 0 <= offset < len(origin) else None
        if here is None:
            if previous is not None:
                out.append("⟩")
            out.append(char)
        elif here != previous:
            out.append(("⟩" if previous is not None else "") + "⟨" + char)
        else:
            out.append(char)
        previous = here
    if previous is not None:
        out.append("⟩")
    return "".join(out)


def _words(layer: Layer, command: Command, origin: list[tuple[int, int] | None]) -> str:
    shown = []
    for word in (*command.assignments, *command.words):
        value = _short(_word_value(layer, word, origin))
        shown.append("'" + value.replace("'", "\\'") + "'")
    return "[" + ", ".join(shown) + "]"


def _redirects(layer: Layer, command: Command) -> str:
    parts = []
    for r in command.redirects:
        if r.heredoc is not None:
            h = r.heredoc
            parts.append(
                f"<<{'-' if h.strip_tabs else ''}{repr(h.delimiter) if h.quoted else h.delimiter}"
            )
        else:
            parts.append(_short(layer.text[r.start : r.end], 40))
    return "  ".join(parts)


# -- pkill -f ---------------------------------------------------------------------------


def _pkills(layer: Layer, places: _Places) -> list[SelfMatch]:
    """HL103's verdict on every `pkill -f` / `pgrep -f` of the layer."""
    return list(decide(layer, Context(path=places.path, file_text=places.index.text)))


def _underline(cmdline: str, start: int, end: int, indent: int) -> list[str]:
    """The line of `cmdline` holding the match, with carets under it."""
    line_start = cmdline.rfind("\n", 0, start) + 1
    line_end = cmdline.find("\n", start)
    line_end = len(cmdline) if line_end < 0 else line_end
    line = cmdline[line_start:line_end]
    column = start - line_start
    width = max(1, min(end, line_end) - start)
    left = max(0, column - 40)
    shown = ("…" if left else "") + line[left : column + width + 40]
    if column + width + 40 < len(line):
        shown += "…"
    pad = column - left + (1 if left else 0)
    return [" " * indent + shown, " " * indent + " " * pad + "^" * width]


# -- one layer --------------------------------------------------------------------------


def _title(layer: Layer) -> str:
    if layer.depth == 0:
        return f"Layer 0 · the local shell ({layer.shell}) reads the text"
    wrapper = layer.wrapper or "?"
    where = "on the remote host" if layer.remote else "locally"
    if layer.parent is None:
        return f"Layer {layer.depth} · the string `{wrapper}` runs {where}"
    if layer.kind == "stdin":
        return f"Layer {layer.depth} · the script fed on stdin to `{wrapper}`, run {where}"
    if layer.role is Role.SSH:
        return (
            f"Layer {layer.depth} · the string {wrapper} sends; the remote login shell runs it "
            f"as `{layer.shell} -c STRING`"
        )
    if layer.role is Role.EVAL:
        return f"Layer {layer.depth} · the words eval joins, run again by the same shell"
    return f"Layer {layer.depth} · the string `{wrapper}` runs"


def _explain_layer(
    report: _Report,
    layer: Layer,
    commands: Sequence[Command],
    places: _Places,
    path: str | None,
) -> None:
    report.add(RULE)
    report.add(_title(layer))
    report.add(RULE)
    if layer.parent is None:
        _explain_source(report, layer, places, commands)
    else:
        _explain_received(report, layer, places)
    if layer.script.errors:
        error = layer.script.errors[0]
        report.add(
            f"! this text does not parse (at {places.at(layer, error.start)}): the shell "
            "that runs it fails there",
            2,
        )
    report.add("")
    _explain_commands(report, layer, places, commands)
    _explain_pkills(report, layer, places, commands)
    _explain_heredocs(report, layer, places, commands)


def _explain_source(
    report: _Report, layer: Layer, places: _Places, commands: Sequence[Command]
) -> None:
    """The file's lines that hold the commands of a layer read from the file, and the
    text the shell receives when the file's escapes are undone (a fragment's)."""
    report.add("source:", 2)
    first = min(_file_lines(layer, c, places)[0] for c in commands)
    last = max(_file_lines(layer, c, places)[1] for c in commands)
    width = len(str(last))
    for number in range(first, last + 1):
        report.add(f"{number:>{width}} │ {places.index.line_text(number)}", 4)
    if layer.offsets is not None and not layer.verbatim:
        start = min(c.start for c in commands)
        end = max(_command_end(c) for c in commands)
        report.add("the text the shell receives (the file's escapes undone):", 2)
        report.block(layer.text[start:end])


def _explain_commands(
    report: _Report, layer: Layer, places: _Places, commands: Sequence[Command]
) -> None:
    """The commands the layer's shell splits the text into: words, redirections, the
    operator after each, and HL103's mark on a `pkill -f` that matches its own shell."""
    shell = "the local shell" if layer.depth == 0 else f"the layer-{layer.depth} shell"
    if layer.parent is None and layer.depth:
        shell = "the remote shell" if layer.remote else f"`{layer.wrapper or layer.shell}`"
    report.add(f"{shell} splits it into {len(commands)} command(s):", 2)
    matches = {id(m.call.command): m for m in _pkills(layer, places) if m.reported}
    for n, command in enumerate(commands, 1):
        parts = [f"{n}. {_words(layer, command, places.origins(layer))}"]
        redirects = _redirects(layer, command)
        if redirects:
            parts.append(redirects)
        if command.next_op not in (None, "\n"):
            parts.append(f"{command.next_op}")
        if id(command) in matches:
            parts.append(f"✗ HL103: {matches[id(command)].call.tool} matches its own shell")
        report.add("  ".join(parts), 4)


def _explain_received(report: _Report, layer: Layer, places: _Places) -> None:
    parent = layer.parent
    assert parent is not None
    who = _who(layer)
    sends = "ssh sends" if layer.role is Role.SSH else "the shell receives"
    if layer.kind == "stdin":
        report.add("the script, exactly as the shell reads it from stdin:", 2)
        report.block(layer.text)
        _expanded_before(report, layer, places, f"by {who} before the body is sent")
        return
    note = []
    origin = places.origins(layer)
    depths = sorted({o[0] for o in origin if o is not None})
    if depths:
        shells = " and ".join(
            "the local shell" if d == 1 else f"the layer-{d - 1} shell" for d in depths
        )
        note.append(f"⟨…⟩ = substituted by {shells} first")
    if layer.continuations:
        note.append(f"{JOINED} = a backslash-newline {who} removes")
    report.add(f"the exact string {sends}" + (f" ({'; '.join(note)})" if note else "") + ":", 2)
    report.block(_marked(layer, 0, len(layer.text), origin))
    _expanded_before(report, layer, places, f"by {who} before the string is sent")
    if layer.continuations:
        where = ", ".join(places.at(layer, k) for k in layer.continuations)
        report.add("")
        report.add(
            f"backslash-newlines {who} deletes (inside double quotes): at {where}; "
            "the lines around each arrive joined",
            2,
        )


def _expanded_before(report: _Report, layer: Layer, places: _Places, when: str) -> None:
    """The layer's local expansions, each with what it stands for (and HL102's verdict)."""
    if not layer.local_expansions:
        return
    report.add("")
    report.add(f"expanded {when}, not by the shell that runs it:", 2)
    for item in layer.local_expansions:
        if item.expansion.kind == "tilde":
            continue
        source = layer.text[item.start : item.end]
        where = places.at(layer, item.start)
        report.add(f"{where:>7}  {source:<10} {_describe_expansion(layer, item)}", 4)
        key = ("HL102", layer.file_offset(item.start))
        verdict = places.verdicts.get(key)
        if verdict is not None and key not in places.shown:
            places.shown.add(key)
            report.add(f"HL102 [{verdict.severity.value}] {verdict.message}", 20)


def _explain_pkills(
    report: _Report, layer: Layer, places: _Places, commands: Sequence[Command]
) -> None:
    chosen = {id(c) for c in commands}
    path = places.path
    for verdict in _pkills(layer, places):
        call = verdict.call
        if id(call.command) not in chosen:
            continue
        report.add("")
        shown = f"`{call.tool} -f {call.pattern}`"
        if not verdict.matches:
            if verdict.severity is None:
                report.add(f"{shown}: {verdict.why} (no self-match)", 2)
            else:
                report.add(f"✗ SELF-MATCH: {shown}: its pattern is filled in before it runs", 2)
                report.add(f"HL103 [{verdict.severity.value}] {verdict.why}", 4)
            continue
        owner = (
            f"the script `{path}`"
            if layer.depth == 0 and layer.cmdline is None
            else f"the layer-{layer.depth} shell"
        )
        mark = "✗ SELF-MATCH" if verdict.reported else "self-match, not reported"
        report.add(
            f"{mark}: {shown} is an extended regex matched against full command lines, "
            f"and {owner} that runs it has this command line:",
            2,
        )
        start, end = verdict.matches[0]
        report.lines.extend(_underline(verdict.cmdline, start, end, 6))
        if verdict.severity is None:
            report.add(f"but {verdict.why}", 4)
            continue
        report.add(f"HL103 [{verdict.severity.value}] {verdict.why}", 4)
        others = verdict.matches[1:]
        if others:
            report.add(
                "the pattern also matches elsewhere in that command line, so a pattern that "
                "cannot match its own text must still not match there:",
                4,
            )
            for a, b in others[:5]:
                before = verdict.cmdline[max(0, a - 25) : a]
                after = verdict.cmdline[b : b + 25]
                snippet = f"{before}[{verdict.cmdline[a:b]}]{after}".replace("\n", "⏎")
                report.add(f"…{snippet}…", 6)


def _explain_heredocs(
    report: _Report, layer: Layer, places: _Places, commands: Sequence[Command]
) -> None:
    own = {id(r.heredoc) for c in commands for r in c.redirects if r.heredoc is not None}
    for heredoc in layer.script.heredocs:
        if layer.depth == 0 and id(heredoc) not in own:
            continue
        report.add("")
        _explain_heredoc(report, layer, heredoc, places)


def _feeds(layer: Layer, heredoc: Heredoc) -> str:
    for command in layer.script.commands:
        if any(r.heredoc == heredoc for r in command.redirects):
            words = " ".join(w.value for w in command.words) or "(no command)"
            outputs = " ".join(
                layer.text[r.start : r.end] for r in command.redirects if r.heredoc is None
            )
            return _short(f"{words} {outputs}".strip(), 60)
    return "?"


def _explain_heredoc(report: _Report, layer: Layer, heredoc: Heredoc, places: _Places) -> None:
    op = layer.text[heredoc.op_start : heredoc.op_end]
    where = places.at(layer, heredoc.op_start)
    report.add(f"heredoc `{op}` at {where}, feeding `{_feeds(layer, heredoc)}`:", 2)
    if heredoc.quoted:
        report.add("its delimiter is quoted: the shell running this layer passes the body as is", 4)
    else:
        a, b = layer.file_span(heredoc.op_start, heredoc.op_end)
        root = layer.root
        source = places.index.text[a:b] if root.offsets is not None or layer.depth else ""
        if layer.depth and any(q in source for q in "'\""):
            report.add(
                "its delimiter arrives UNQUOTED: the quotes written around it in the file belong "
                "to the outer string's quoting, so they are gone before this shell reads it, "
                "and this shell expands $, ` and \\ in the body",
                4,
            )
        else:
            report.add("its delimiter is unquoted: this shell expands $, ` and \\ in the body", 4)
        body = layer.text[heredoc.body_start : heredoc.body_end]
        if not any(c in body for c in "$`\\"):
            report.add("(this body has none of them)", 4)
    if not heredoc.terminated:
        report.add(
            f"! the terminator line `{heredoc.delimiter}` never comes: the body runs to the end "
            "and swallows the commands after it",
            4,
        )
    start, end = heredoc.body_start, heredoc.body_end
    has_local = any(start <= e.start < end for e in layer.local_expansions) or any(
        start <= k < end for k in layer.continuations
    )
    report.add("the body as it will arrive:", 4)
    origin = places.origins(layer)
    report.block(_marked(layer, start, end, origin), 6)
    if has_local:
        names = sorted(
            {
                layer.text[e.start : e.end]
                for e in layer.local_expansions
                if start <= e.start < end and e.expansion.kind != "tilde"
            }
        )
        what = f"with {', '.join(names)} empty" if names else "exactly"
        report.add(f"byte for byte, {what} (as when the local script gets no arguments):", 4)
        report.block(_marked(layer, start, end, origin, empty=True), 6)


# -- the whole report -------------------------------------------------------------------


def _descendants(layer: Layer, command: Command) -> list[Layer]:
    """The layers that `command` of `layer` starts, and all layers below them, in order."""
    found: list[Layer] = []
    for child in child_layers(layer):
        if child.command is command:
            found.extend(walk_layers(child))
    return found


def _interesting(root: Layer, command: Command, places: _Places) -> bool:
    if any(child.command is command for child in child_layers(root)):
        return True
    return any(m.call.command is command for m in _pkills(root, places))


def _select(
    roots: Sequence[Layer], places: _Places, line: int | None, kind: SourceKind, path: str | None
) -> list[tuple[Layer, list[Command]]]:
    chosen: list[tuple[Layer, list[Command]]] = []
    for root in roots:
        commands = []
        for command in root.script.commands:
            first, last = _file_lines(root, command, places)
            if line is not None:
                if first <= line <= last:
                    commands.append(command)
            elif kind == "command" or root.depth > 0 or _interesting(root, command, places):
                commands.append(command)
        if commands:
            chosen.append((root, commands))
    return chosen


def _findings_block(
    report: _Report, findings: Sequence[Finding], places: _Places, lines: tuple[int, int] | None
) -> None:
    shown = [
        f for f in findings if lines is None or lines[0] <= places.line_of(f.start) <= lines[1]
    ]
    report.add(RULE)
    report.add(f"Findings ({len(shown)})")
    report.add(RULE)
    if not shown:
        report.add("none", 2)
    for f in shown:
        line, column = places.index.position(f.start)
        fix = ""
        if f.fix is not None:
            strategy = f", {f.fix.strategy}" if f.fix.strategy else ""
            fix = f"  [fix: {f.fix.applicability.value}{strategy}]"
        report.add(f"{line}:{column} {f.code} [{f.severity.value}] {f.message}{fix}", 2)


def _fixed_block(
    report: _Report,
    text: str,
    kind: SourceKind,
    path: str | None,
    lines: tuple[int, int] | None,
    settings: Settings,
) -> None:
    report.add(RULE)
    report.add("Fixed")
    report.add(RULE)
    # What `heredoc-lint --fix` does: it fixes only the findings it reports.
    safe = fix_kind(text, kind, path, settings, threshold=Severity.WARNING)
    unsafe = fix_kind(text, kind, path, settings, unsafe=True, threshold=Severity.WARNING)
    shown = False
    for title, outcome in (("heredoc-lint --fix", safe), ("with --unsafe-fixes too", unsafe)):
        if outcome.text == text or (outcome is unsafe and unsafe.text == safe.text):
            continue
        shown = True
        scope = "" if lines is None else " in the whole file; the lines explained"
        report.add(f"{title} ({outcome.fixed} finding(s) fixed{scope}):", 2)
        if kind == "command":
            report.block(outcome.text)
        else:
            report.lines.extend(_hunks(text, outcome.text, path or "file", lines))
        report.add("")
    if not shown:
        report.add("no automatic fix applies here", 2)
    if safe.new_files:
        for new in safe.new_files:
            report.add(f"and a new file beside the script: {new.path}", 2)


def _hunks(before: str, after: str, name: str, lines: tuple[int, int] | None) -> list[str]:
    """Unified diff hunks of the change that touch the explained lines."""
    a, b = before.splitlines(), after.splitlines()
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(1):
        first, last = group[0][1] + 1, group[-1][2]
        if lines is not None and (last < lines[0] or first > lines[1] + 1):
            continue
        out.append(f"    @@ {name}: line {first} @@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(f"      {line}" for line in a[i1:i2])
                continue
            out.extend(f"    - {line}" for line in a[i1:i2])
            out.extend(f"    + {line}" for line in b[j1:j2])
    return out


def explain(
    text: str,
    kind: SourceKind = "command",
    path: str | None = None,
    line: int | None = None,
    settings: Settings | None = None,
) -> str:
    """The report for `text` read as `kind`; with `line`, only the commands on that line.

    `settings`: the project's (its `wrappers` and `python-wrappers` make layers and
    findings as in `check`; `project_settings(path)` reads them); the defaults if None."""
    settings = settings or Settings()
    report = _Report()
    name = path or ("the command" if kind == "command" else "stdin")
    try:
        found = fragments(kind, text, path, settings.python_wrappers)
        roots = [root_layer(f, settings.wrappers) for f in found]
    except SourceError as error:
        line_no, column = LineIndex(text).position(error.offset)
        return f"heredoc-lint explain: {name}:{line_no}:{column}: {error.message}\n"
    every = check_text(text, kind, path, settings)
    places = _Places(text, path, every)
    where = f"{name}, line {line}" if line is not None else name
    report.add(f"heredoc-lint explain: {where}")
    chosen = _select(roots, places, line, kind, path)
    if not chosen:
        if line is not None:
            report.add(f"no shell command on line {line}")
        else:
            report.add("no command here passes text to another shell, and no pkill -f")
        return report.text()
    span: tuple[int, int] | None = None
    for root, commands in chosen:
        lines = [_file_lines(root, c, places) for c in commands]
        first, last = min(a for a, _ in lines), max(b for _, b in lines)
        span = (min(first, span[0]), max(last, span[1])) if span else (first, last)
        report.add("")
        _explain_layer(report, root, commands, places, path)
        for command in commands:
            for layer in _descendants(root, command):
                report.add("")
                _explain_layer(report, layer, layer.script.commands, places, path)
    report.add("")
    limit = span if line is not None else None
    shown = reported(every, Severity.WARNING)
    _findings_block(report, shown, places, limit)
    report.add("")
    _fixed_block(report, text, kind, path, limit, settings)
    return report.text()


def project_settings(path: str) -> Settings:
    """The settings of the project of the file at `path`, from its nearest configuration
    file, as `check` reads them (per-file ignores included); `config.ConfigError` when
    that file is broken."""
    from pathlib import Path

    from heredoc_lint.run.config import Finder
    from heredoc_lint.run.runner import Options

    file = Path(path)
    config = Finder().for_directory(file.parent)
    return Options().resolve(config, config.ignored_for(file))[0]
