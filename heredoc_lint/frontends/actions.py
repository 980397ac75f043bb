"""GitHub Actions workflows: the shell of every `run:` step.

Each `run:` of `jobs.<id>.steps` (and of a composite action's `runs.steps`)
whose shell is bash or sh is one layer-0 text.  The shell is the step's
`shell:`, else the job's `defaults.run.shell`, else the workflow's, else bash
(the default on Linux and macOS runners; a job on a Windows runner defaults to
pwsh and is skipped, as are `pwsh`, `python`, `cmd` and other shells).

The text is the YAML value of the scalar, exactly as the runner writes it to
its script file: block scalars (`|`, `>` folded, with chomping and indentation
indicators), plain and quoted scalars are decoded here with the offset of every
character, and the result is checked against PyYAML's own value.  An
expression `${{ ... }}` is replaced by a same-length `${____}` (an expansion
whose value is unknown: the runner pastes the expression's value in before the
shell runs) and listed in the fragment's `interpolations`.

The runner runs the text as a file, `bash -e /home/runner/work/_temp/<id>.sh`
(`bash --noprofile --norc -eo pipefail {0}` when `shell: bash` is given,
`sh -e {0}` for sh): that is the command line a `pkill -f` in the step sees.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from heredoc_lint.frontends import Fragment, SourceError
from heredoc_lint.frontends.blocks import Prefix, TextBuilder, block_encoder, is_verbatim
from heredoc_lint.shell.names import SHELLS

SCRIPT_PATH = "/home/runner/work/_temp/0f5e4d3c-2b1a-4c9d-8e7f-6a5b4c3d2e1f.sh"
BUILTIN_COMMANDS = {
    None: "bash -e {0}",
    "bash": "bash --noprofile --norc -eo pipefail {0}",
    "sh": "sh -e {0}",
}
_BREAKS = "\r\n\x85\u2028\u2029"
_ESCAPES = {
    "0": "\0",
    "a": "\x07",
    "b": "\x08",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\x0b",
    "f": "\x0c",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def _yaml() -> Any:
    """PyYAML, imported only when a workflow is read."""
    return importlib.import_module("yaml")


# -- decoding a scalar with the offset of each character --------------------------------


class _Reader:
    """A cursor over the file text with the helpers of PyYAML's scanner."""

    def __init__(self, text: str, pos: int, out: TextBuilder) -> None:
        self.text = text
        self.pos = pos
        self.out = out

    def peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.text[i] if i < len(self.text) else "\0"

    def column(self) -> int:
        return self.pos - (self.text.rfind("\n", 0, self.pos) + 1)

    def line_break(self) -> tuple[str, int] | None:
        """Read a line break: ("\\n" or the break, its offset)."""
        c = self.peek()
        if c == "\r" and self.peek(1) == "\n":
            self.pos += 2
            return "\n", self.pos - 1
        if c in _BREAKS:
            self.pos += 1
            return ("\n" if c in "\r\n\x85" else c), self.pos - 1
        return None


def _block_scalar(text: str, start: int, parent_indent: int) -> tuple[str, tuple[int, ...], int]:
    """A `|` or `>` scalar whose indicator is at `start`: (value, offsets, indentation).

    This follows PyYAML's `scan_block_scalar`, keeping where each character came from.
    """
    out = TextBuilder()
    r = _Reader(text, start + 1, out)
    folded = text[start] == ">"
    chomping, increment = _block_indicators(r)
    _block_ignored_line(r)
    min_indent = max(parent_indent + 1, 1)
    if increment is None:
        breaks, max_indent = _block_indentation(r)
        indent = max(min_indent, max_indent)
    else:
        indent = min_indent + increment - 1
        breaks = _block_breaks(r, indent)
    line_break: tuple[str, int] | None = None
    while r.column() == indent and r.peek() != "\0":
        for char, at in breaks:
            out.add_char(char, at)
        leading_non_space = r.peek() not in " \t"
        begin = r.pos
        while r.peek() not in _BREAKS + "\0":
            r.pos += 1
        out.add(text, begin, r.pos)
        line_break = r.line_break()
        breaks = _block_breaks(r, indent)
        if r.column() == indent and r.peek() != "\0" and line_break is not None:
            if folded and line_break[0] == "\n" and leading_non_space and r.peek() not in " \t":
                if not breaks:
                    out.add_char(" ", line_break[1])
            else:
                out.add_char(*line_break)
        else:
            break
    if chomping is not False and line_break is not None:
        out.add_char(*line_break)
    if chomping is True:
        for char, at in breaks:
            out.add_char(char, at)
    value, offsets = out.finish(r.pos)
    return value, offsets, indent


def _block_indicators(r: _Reader) -> tuple[bool | None, int | None]:
    """The chomping (True keep, False strip, None clip) and the indentation increment
    of a block scalar's header, in either order (`|+2`, `>-`, `|1-`)."""
    chomping: bool | None = None
    increment: int | None = None
    for _ in range(2):
        c = r.peek()
        if c in "+-" and chomping is None:
            chomping = c == "+"
            r.pos += 1
        elif c.isdigit() and increment is None:
            increment = int(c)
            r.pos += 1
    return chomping, increment


def _block_ignored_line(r: _Reader) -> None:
    """The rest of the header's line: blanks, a comment and the line break."""
    while r.peek() in " \t":
        r.pos += 1
    if r.peek() == "#":
        while r.peek() not in _BREAKS + "\0":
            r.pos += 1
    r.line_break()


def _block_indentation(r: _Reader) -> tuple[list[tuple[str, int]], int]:
    """The line breaks before a block scalar's first line of text, and the widest
    indentation of those lines, when no indicator gives the indentation."""
    breaks: list[tuple[str, int]] = []
    max_indent = 0
    while r.peek() in " " + _BREAKS:
        if r.peek() == " ":
            r.pos += 1
            max_indent = max(max_indent, r.column())
        else:
            found = r.line_break()
            assert found is not None
            breaks.append(found)
    return breaks, max_indent


def _block_breaks(r: _Reader, indent: int) -> list[tuple[str, int]]:
    found: list[tuple[str, int]] = []
    while r.column() < indent and r.peek() == " ":
        r.pos += 1
    while r.peek() in _BREAKS and r.peek() != "\0":
        brk = r.line_break()
        assert brk is not None
        found.append(brk)
        while r.column() < indent and r.peek() == " ":
            r.pos += 1
    return found


def _fold_spaces(r: _Reader, stop: Callable[[], bool]) -> None:
    """Blanks and line breaks inside a flow or plain scalar, folded as YAML does."""
    begin = r.pos
    while r.peek() in " \t":
        r.pos += 1
    blanks_end = r.pos
    first = r.line_break()
    if first is None:
        r.out.add(r.text, begin, blanks_end)
        return
    breaks: list[tuple[str, int]] = []
    while True:
        while r.peek() in " \t":
            r.pos += 1
        if stop():
            break
        found = r.line_break()
        if found is None:
            break
        breaks.append(found)
    if first[0] != "\n":
        r.out.add_char(*first)
    elif not breaks:
        r.out.add_char(" ", first[1])
    for char, at in breaks:
        r.out.add_char(char, at)


def _quoted_scalar(text: str, start: int, end: int) -> tuple[str, tuple[int, ...]]:
    """A '...' or "..." scalar spanning text[start:end]."""
    out = TextBuilder()
    double = text[start] == '"'
    r = _Reader(text, start + 1, out)
    close = end - 1
    while r.pos < close:
        c = r.peek()
        if not double and c == "'" and r.peek(1) == "'":
            out.add_char("'", r.pos)  # the pair's first quote: no edit may split it
            r.pos += 2
        elif double and c == "\\":
            esc = r.peek(1)
            if esc in _ESCAPES:
                out.add_char(_ESCAPES[esc], r.pos)
                r.pos += 2
            elif esc in _HEX_ESCAPES:
                digits = text[r.pos + 2 : r.pos + 2 + _HEX_ESCAPES[esc]]
                out.add_char(chr(int(digits, 16)), r.pos)
                r.pos += 2 + len(digits)
            elif esc in _BREAKS:
                r.pos += 1
                r.line_break()
                while True:  # an escaped line break: the lines join with no space
                    while r.peek() in " \t":
                        r.pos += 1
                    found = r.line_break() if r.pos < close else None
                    if found is None:
                        break
                    out.add_char(*found)
            else:
                raise ValueError(f"unknown escape \\{esc}")
        elif c in " \t" + _BREAKS:
            _fold_spaces(r, lambda: r.pos >= close)
        else:
            out.add_char(c, r.pos)
            r.pos += 1
    return out.finish(close)


def _plain_scalar(text: str, start: int, end: int) -> tuple[str, tuple[int, ...]]:
    out = TextBuilder()
    r = _Reader(text, start, out)
    while r.pos < end:
        c = r.peek()
        if c in " \t" + _BREAKS:
            _fold_spaces(r, lambda: r.pos >= end)
        else:
            out.add_char(c, r.pos)
            r.pos += 1
    return out.finish(end)


# -- `${{ ... }}` ------------------------------------------------------------------------


def _expression_end(value: str, start: int) -> int | None:
    """End of the `${{ ... }}` at start (string literals in it may hold `}}`)."""
    i = start + 3
    while i < len(value):
        if value[i] == "'":
            close = value.find("'", i + 1)
            while close >= 0 and value.startswith("''", close):
                close = value.find("'", close + 2)
            if close < 0:
                return None
            i = close + 1
        elif value.startswith("}}", i):
            return i + 2
        else:
            i += 1
    return None


def placeholders(value: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    """`value` with each `${{ expr }}` as a same-length `${__expr__}`, and their spans."""
    chars = list(value)
    spans: list[tuple[int, int]] = []
    start = value.find("${{")
    while start >= 0:
        end = _expression_end(value, start)
        if end is None:
            break
        inner = "".join(c if c.isalnum() or c == "_" else "_" for c in value[start + 2 : end - 1])
        chars[start:end] = ["$", "{", *inner, "}"]
        spans.append((start, end))
        start = value.find("${{", end)
    return "".join(chars), tuple(spans)


# -- the workflow ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Step:
    run: Any  # the ScalarNode of `run:`
    key_column: int  # column of the `run` key: the parent indentation of a block scalar
    shell: str | None  # the configured shell, None when unset
    windows: bool


def _mapping(node: Any) -> dict[str, tuple[Any, Any]]:
    """A MappingNode's entries by key text: key -> (key node, value node)."""
    yaml = _yaml()
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {k.value: (k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value}


def _scalar(node: Any) -> str | None:
    yaml = _yaml()
    return node.value if isinstance(node, yaml.ScalarNode) else None


def _get(node: Any, *keys: str) -> Any:
    for key in keys:
        entry = _mapping(node).get(key)
        if entry is None:
            return None
        node = entry[1]
    return node


def _default_shell(node: Any) -> str | None:
    return _scalar(_get(node, "defaults", "run", "shell"))


def _on_windows(job: Any) -> bool:
    yaml = _yaml()
    runs_on = _get(job, "runs-on")
    labels: list[str] = []
    if isinstance(runs_on, yaml.ScalarNode):
        labels = [runs_on.value]
    elif isinstance(runs_on, yaml.SequenceNode):
        labels = [v.value for v in runs_on.value if isinstance(v, yaml.ScalarNode)]
    elif isinstance(runs_on, yaml.MappingNode):
        inner = _get(runs_on, "labels")
        if isinstance(inner, yaml.ScalarNode):
            labels = [inner.value]
        elif isinstance(inner, yaml.SequenceNode):
            labels = [v.value for v in inner.value if isinstance(v, yaml.ScalarNode)]
    return any("windows" in label.lower() and "${{" not in label for label in labels)


def _steps(root: Any) -> Iterator[_Step]:
    yaml = _yaml()
    workflow_shell = _default_shell(root)
    jobs: list[tuple[Any, str | None, bool]] = []
    for _, job in _mapping(_get(root, "jobs")).values():
        jobs.append((job, _default_shell(job) or workflow_shell, _on_windows(job)))
    runs = _get(root, "runs")
    if runs is not None:  # a composite action: every step names its shell
        jobs.append((runs, None, False))
    for job, default, windows in jobs:
        steps = _get(job, "steps")
        if not isinstance(steps, yaml.SequenceNode):
            continue
        for step in steps.value:
            entries = _mapping(step)
            if "run" not in entries:
                continue
            key, run = entries["run"]
            if not isinstance(run, yaml.ScalarNode):
                continue
            shell = _scalar(_get(step, "shell")) or default
            yield _Step(run, key.start_mark.column, shell, windows or _only_on_windows(step))


_WINDOWS_ONLY = re.compile(
    r"runner\.os\s*==\s*'windows'|contains\([^)]*'windows[^']*'\)|startsWith\([^)]*'windows",
    re.IGNORECASE,
)


def _only_on_windows(step: Any) -> bool:
    """A step whose `if:` runs it only on a Windows runner, where the default shell is
    pwsh (`if: runner.os == 'Windows'`, `contains(matrix.os, 'windows')`); a negated or
    combined condition is not read."""
    condition = _scalar(_get(step, "if")) or ""
    plain = not re.search(r"!|\|\||&&|\bnot\b", condition)
    return plain and _WINDOWS_ONLY.search(condition) is not None


def _command_line(shell: str | None, windows: bool) -> tuple[str, str] | None:
    """(shell name, the runner's command line) for a bash or sh step; None for others."""
    if shell is None:
        return None if windows else ("bash", BUILTIN_COMMANDS[None].replace("{0}", SCRIPT_PATH))
    shell = shell.strip()
    if "${{" in shell or not shell:
        return None
    name = shell.split()[0].rsplit("/", 1)[-1]
    if name not in SHELLS:
        return None
    template = BUILTIN_COMMANDS.get(shell) or (shell if "{0}" in shell else f"{shell} {{0}}")
    return name, template.replace("{0}", SCRIPT_PATH)


def _after_properties(text: str, start: int) -> int:
    """Where the scalar itself starts: after an anchor (`&a`) or a tag (`!!str`)."""
    pos = start
    while pos < len(text) and text[pos] in "&!":
        while pos < len(text) and text[pos] not in " \t\r\n":
            pos += 1
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
    return pos


def _decode(text: str, step: _Step) -> tuple[str, tuple[int, ...], Prefix | None, str]:
    """The run text with offsets, the line prefix for edits, and the scalar's style."""
    node = step.run
    start, end = _after_properties(text, node.start_mark.index), node.end_mark.index
    style = node.style or ""
    if style in ("|", ">"):
        value, offsets, indent = _block_scalar(text, start, step.key_column)
        prefix = Prefix(" " * indent) if style == "|" else None
    elif style in ("'", '"'):
        value, offsets = _quoted_scalar(text, start, end)
        prefix = None
    else:
        value, offsets = _plain_scalar(text, start, end)
        prefix = None
    if value != node.value:
        # Not decoded as PyYAML did: every character at the scalar's start, no edits.
        value = node.value
        offsets = tuple([start] * (len(value) + 1))
        style = "?"
    return value, offsets, prefix, style


_PLAIN_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")


def _content_ok(text: str, style: str, scalar_start: int) -> Callable[[str, int, int], bool]:
    """Whether content can stand in the scalar at the file span [a, b) as it is."""

    def ok(content: str, a: int, b: int) -> bool:
        if any(c in content for c in "\0\ufeff") or style == "?":
            return False
        if style == "|":
            return True
        if "\n" in content:
            return False
        if style == "":
            around = text[a - 1 : a] + content + text[b : b + 1]
            if ": " in around or " #" in around or "\t" in content or around.endswith(":"):
                return False
            return not (a == scalar_start and content[:1] in _PLAIN_INDICATORS)
        if style == '"':
            return content.isprintable()
        return True

    return ok


def _transform(style: str) -> Callable[[str], str]:
    if style == "'":
        return lambda content: content.replace("'", "''")
    if style == '"':
        return lambda content: content.replace("\\", "\\\\").replace('"', '\\"')
    return lambda content: content


def fragments(text: str, path: str | None = None) -> list[Fragment]:
    yaml = _yaml()
    try:
        roots = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
        offset = mark.index if mark is not None else 0
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise SourceError(f"not a valid YAML workflow: {problem}", offset) from None
    found: list[Fragment] = []
    seen: set[int] = set()
    steps = [step for root in roots if root is not None for step in _steps(root)]
    for step in steps:
        if id(step.run) in seen:
            continue  # an alias (`run: *script`) of a scalar already read
        seen.add(id(step.run))
        shell = _command_line(step.shell, step.windows)
        if shell is None:
            continue
        value, offsets, prefix, style = _decode(text, step)
        if not value.strip():
            continue
        script, spans = placeholders(value)
        protected = tuple(script[a:b] for a, b in spans)
        name, cmdline = shell
        found.append(
            Fragment(
                script,
                offsets,
                shell=name,
                cmdline=cmdline,
                interpolations=spans,
                verbatim=is_verbatim(text, script, offsets[:-1]),
                encode_edit=block_encoder(
                    text,
                    script,
                    offsets,
                    prefix,
                    _content_ok(text, style, step.run.start_mark.index),
                    protected,
                    _transform(style),
                ),
            )
        )
    return found
