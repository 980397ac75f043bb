"""Rewrites of a heredoc inside a remote string into forms that cannot break.

Every strategy delivers the *intended body*: the heredoc body as the author
wrote it, with the outer layer's escapes undone and nothing expanded, which is
the text of the inner layer (see layers.py).  A body is only rewritten when it
is literal: a quoted delimiter, or no `$`, backtick or backslash in it.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import PurePosixPath

from heredoc_lint.fixes.edits import Quote, encode, lift, quote_states
from heredoc_lint.layers.layer import Layer
from heredoc_lint.model import Applicability, Edit, Fix, NewFile, Strategy
from heredoc_lint.shell.heredoc import Heredoc
from heredoc_lint.shell.syntax import STATE_BUILTINS, Command
from heredoc_lint.shell.words import Word, to_bytes

# Linux refuses a single argument over 128 KiB (MAX_ARG_STRLEN): keep well below it.
MAX_ARGUMENT = 100_000


@dataclass(frozen=True)
class HeredocSite:
    """A heredoc of a string layer with the command it feeds."""

    layer: Layer
    heredoc: Heredoc
    command: Command

    @property
    def body(self) -> str:
        return self.heredoc.literal_value(self.layer.text)

    @property
    def literal(self) -> bool:
        return self.heredoc.quoted or not any(c in self.body for c in "$`\\")

    def removal_end(self) -> int:
        """End of the terminator line, its newline included."""
        end = self.heredoc.end
        text = self.layer.text
        return end + 1 if end < len(text) and text[end] == "\n" else end

    def uses_local_variables(self) -> bool:
        """The body expands a variable the local script assigns: maybe meant as the local value."""
        parent = self.layer.parent
        # Asked only by HL101 and HL102's fixes, of a string inside another layer (HL202's
        # fix, on a root, has its own applicability).
        assert parent is not None
        assigned = {name for name, _ in parent.script.assigned}
        return any(
            self.heredoc.body_start <= e.start < self.heredoc.body_end
            and e.expansion.kind == "variable"
            and e.expansion.name in assigned
            for e in self.layer.local_expansions
        )

    def applicability(self) -> Applicability:
        return Applicability.UNSAFE if self.uses_local_variables() else Applicability.SAFE

    def removals(self) -> list[tuple[int, int, str]]:
        """Edits that take the operator, the body and the terminator out of the layer."""
        text = self.layer.text
        line_end = text.find("\n", self.heredoc.op_end)
        rest_blank = line_end >= 0 and not text[self.heredoc.op_end : line_end].strip()
        if rest_blank and not text[self.removal_end() :].strip():
            return [(self.operator_start(), len(text), "")]
        return [
            (self.operator_start(), *self._operator_end()),
            (self.heredoc.body_start, self.removal_end(), ""),
        ]

    def _operator_end(self) -> tuple[int, str]:
        """Where the operator's removal ends, and what replaces it.

        In a CRLF file the delimiter word ends in the line's `\\r` (`<< 'EOF'\\r`).  Taken
        out with it, the line would end in a bare LF, the one LF-only line of the file;
        left as a word of its own it would become an argument (`cat > P $'\\r'`).  A
        comment keeps it as the line's end and means nothing: `cat > P #\\r`."""
        end = self.heredoc.op_end
        text = self.layer.text
        crlf = text[end - 1 : end + 1] == "\r\n" and self.heredoc.delimiter.endswith("\r")
        return (end - 1, " #") if crlf else (end, "")

    def operator_start(self) -> int:
        """Start of the `<<` with the blanks before it."""
        start = self.heredoc.op_start
        while start > self.command.start and self.layer.text[start - 1] in " \t":
            start -= 1
        return start


def find_site(layer: Layer, heredoc: Heredoc) -> HeredocSite | None:
    command = layer.heredoc_commands.get(heredoc.op_start)
    return None if command is None else HeredocSite(layer, heredoc, command)


def _lift_all(layer: Layer, edits: list[tuple[int, int, str]]) -> tuple[Edit, ...] | None:
    lifted = []
    for start, end, content in edits:
        edit = lift(layer, start, end, content)
        if edit is None:
            return None
        lifted.append(edit)
    return tuple(lifted)


def base64_fix(site: HeredocSite) -> Fix | None:
    """`cat > P << 'EOF' ... EOF` becomes `printf %s B64 | base64 -d > P`."""
    if not site.literal or not site.heredoc.terminated:
        return None
    heredocs = [r for r in site.command.redirects if r.heredoc is not None]
    if len(heredocs) != 1 or not site.command.words:
        return None
    encoded = base64.b64encode(to_bytes(site.body)).decode("ascii")
    if len(site.layer.text) + len(encoded) - len(site.body) > MAX_ARGUMENT:
        return None  # the string would no longer fit in one argument: scp or stdin then
    feed = f"printf %s {encoded} | base64 -d"
    words = site.command.words
    edits: list[tuple[int, int, str]]
    if len(words) == 1 and words[0].static and words[0].value == "cat":
        edits = [(words[0].start, words[0].end, feed)]
    else:
        edits = [(site.command.start, site.command.start, feed + " | ")]
    edits.extend(site.removals())
    lifted = _lift_all(site.layer, edits)
    if lifted is None:
        return None
    return Fix(
        lifted,
        site.applicability(),
        "Send the body as base64 (`printf %s ... | base64 -d`): it passes every layer of "
        "quoting unchanged",
        "base64",
    )


# Commands that never read stdin: safe to share the session's stdin with the body.
_NO_STDIN = frozenset(
    "cd chmod chown chgrp mkdir rm rmdir mv cp ln touch echo printf sleep true false : test [ "
    "pkill kill killall exit export umask systemctl service install date sync ls pgrep ps "
    "nohup setsid disown wait hostname whoami id uname df du".split()
)
_SAFE_PATH = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+,:@%-~")


def _outer_state(layer: Layer, index: int) -> tuple[int, Quote] | None:
    """File offset of layer.text[index] and the outer quoting state there (depth 1 only)."""
    parent = layer.parent
    if parent is None or parent.depth != 0:
        return None
    offset = layer.parent_offsets[min(index, len(layer.parent_offsets) - 1)]
    for word in layer.source_words:
        if word.start <= offset <= word.end:
            state = quote_states(parent.text, word).get(offset)
            if state is None or state is Quote.INSIDE:
                return None
            return offset, state
    return None


@dataclass(frozen=True)
class _Split:
    """The remote string cut around the heredoc's command, for scp and stdin."""

    head: str  # `ssh [opts] host` as written
    pre: tuple[int, int]  # layer-text span of the commands before the heredoc's command
    post: tuple[int, int]  # layer-text span of the commands after the terminator
    join_before: str  # `;` or `&&`
    path: str  # the file the heredoc writes


def _target(site: HeredocSite) -> str | None:
    """P of `cat > P`, when the heredoc's command is exactly that."""
    command = site.command
    if len(command.words) != 1 or not command.words[0].static or command.words[0].value != "cat":
        return None
    outputs = [r for r in command.redirects if r.heredoc is None]
    if len(outputs) != 1 or outputs[0].op != ">" or outputs[0].source_fd != 1:
        return None
    target = outputs[0].target
    if target is None or not target.static or not set(target.value) <= _SAFE_PATH:
        return None
    return target.value


def _split(site: HeredocSite) -> _Split | None:
    layer, command = site.layer, site.command
    invocation, parent, ssh_command = layer.invocation, layer.parent, layer.command
    if (
        parent is None
        or parent.depth != 0
        or ssh_command is None
        or invocation is None
        or invocation.ssh is None
        or invocation.ssh.host_index is None
        or command.loops
        or command.in_substitution
        or command.in_pipeline
        or command.background
    ):
        return None
    path = _target(site)
    if path is None:
        return None
    text = layer.text
    if text[site.heredoc.op_end : text.find("\n", site.heredoc.op_end)].strip():
        return None  # more commands on the heredoc's own line
    for other in layer.script.commands:
        if other is not command and other.name in STATE_BUILTINS:
            return None  # its state would not survive the split
    before = text[: command.start].rstrip(" \t")
    join_before = ";"
    if before.endswith("&&"):
        join_before, before = "&&", before[:-2]
    elif before.endswith((";", "\n")):
        before = before[:-1]
    elif before and before[-1] in "|&(){":
        return None
    words = ssh_command.words
    head = parent.text[words[invocation.index].start : words[invocation.ssh.host_index].end]
    return _Split(
        head, (0, len(before.rstrip())), (site.removal_end(), len(text)), join_before, path
    )


def _string_part(layer: Layer, span: tuple[int, int]) -> str | None:
    """The layer-0 source of layer.text[span], re-quoted as one complete word."""
    start, end = span
    if not layer.text[start:end].strip():
        return ""
    begin = _outer_state(layer, start)
    finish = _outer_state(layer, end)
    if begin is None or finish is None:
        return None
    parent = layer.parent
    assert parent is not None
    (a, state_a), (b, state_b) = begin, finish
    opener = {Quote.SINGLE: "'", Quote.DOUBLE: '"', Quote.ANSI: "$'", Quote.UNQUOTED: ""}
    closer = {Quote.SINGLE: "'", Quote.DOUBLE: '"', Quote.ANSI: "'", Quote.UNQUOTED: ""}
    return opener[state_a] + parent.text[a:b] + closer[state_b]


def _ssh_to_scp_options(site: HeredocSite) -> tuple[list[str], str] | None:
    """scp options carried over from the ssh options, and a `user@` prefix from `-l`."""
    invocation, parent = site.layer.invocation, site.layer.parent
    assert invocation is not None and invocation.ssh is not None and parent is not None
    options: list[str] = []
    user = ""
    for letter, arg, _ in invocation.ssh.options:
        if arg is not None and _runs_something(arg):
            return None  # copied into scp it would run again
        source = parent.text[arg.start : arg.end] if arg is not None else ""
        if letter == "p":
            options += ["-P", source]
        elif letter in "ioFJc":
            options += [f"-{letter}", source]
        elif letter in "46Cqv":
            options.append(f"-{letter}")
        elif letter == "l":
            if arg is None or not arg.static:
                return None
            user = encode(arg.value, Quote.UNQUOTED) + "@"
    return options, user


def _runs_something(word: Word) -> bool:
    """A `$(...)`, backtick or `$((...))`: evaluating the word twice would run it twice."""
    return any(e.kind in ("command", "backtick", "process", "arithmetic") for e in word.expansions)


_SSH_URI = "ssh://"  # ssh's destination as a URI: ssh://[user@]host[:port]


def _scp_target(host: str, host_word: Word, user: str, path: str) -> str | None:
    """scp's name for the absolute `path` on the host that ssh reached as `host` (the
    word's text): `[user@]host:path`; for an ssh URI, `ssh://[user@]host[:port]`, the scp
    URI, where the path after the host's `/` is relative to the home (so an absolute one
    is `//path`) and percent-decoded (so `%` is `%25`)."""
    if not host_word.value.startswith(_SSH_URI):
        return f"{user}{host}:{path}"
    if user or not host_word.static or "/" in host_word.value[len(_SSH_URI) :]:
        return None  # `-l` beside a URI, or a URI known only at run time or with a path
    authority = host_word.value[len(_SSH_URI) :]
    return encode(f"scp://{authority}/{path.replace('%', '%25')}", Quote.UNQUOTED)


def scp_fix(site: HeredocSite, script_path: str | None) -> Fix | None:
    """Write the body beside the script and copy it with scp between the ssh halves."""
    if not site.literal or not site.heredoc.terminated or script_path is None:
        return None
    split = _split(site)
    # Only an absolute path: a static `~/P` is a quoted or escaped tilde, which the remote
    # shell reads as a directory named `~`, where scp's `host:~/P` is P in the home.
    if split is None or not split.path.startswith("/"):
        return None
    carried = _ssh_to_scp_options(site)
    pre = _string_part(site.layer, split.pre)
    post = _string_part(site.layer, split.post)
    if carried is None or pre is None or post is None:
        return None
    options, user = carried
    layer, parent, ssh_command = site.layer, site.layer.parent, site.layer.command
    assert parent is not None and ssh_command is not None and layer.invocation is not None
    script = PurePosixPath(script_path).name
    local = f"{script}.d/{PurePosixPath(split.path).name}"
    ssh = layer.invocation.ssh
    assert ssh is not None and ssh.host_index is not None  # checked by _split
    host_word = ssh_command.words[ssh.host_index]
    if _runs_something(host_word):
        return None
    target = _scp_target(parent.text[host_word.start : host_word.end], host_word, user, split.path)
    if target is None:
        return None
    quoted_local = encode(local, Quote.DOUBLE)
    scp = " ".join(["scp", *options, f'"$(dirname "$0")/{quoted_local}"', target])
    pieces = []
    if pre:
        pieces += [f"{split.head} {pre}", "; " if split.join_before == ";" else " && "]
    pieces.append(scp)
    if post:
        # What follows the terminator line follows a newline: it runs whatever came before.
        pieces += ["; ", f"{split.head} {post}"]
    line_start = parent.text.rfind("\n", 0, ssh_command.start) + 1
    last = ssh_command.words[-1]
    line_end = parent.text.find("\n", last.end)
    line_end = len(parent.text) if line_end < 0 else line_end
    if (
        parent.text[line_start : ssh_command.start].strip()
        or parent.text[last.end : line_end].strip()
    ):
        return None  # not a statement of its own: `;` would regroup what is around it
    edit = lift(parent, ssh_command.start, last.end, "".join(pieces))
    if edit is None:
        return None
    new_file = NewFile(local, to_bytes(site.body))
    return Fix(
        (edit,),
        site.applicability(),
        f"Write the body to `{local}` beside the script and copy it with scp",
        "scp",
        (new_file,),
    )


def _reads_stdin(layer: Layer, command: Command) -> bool:
    return command.reads_stdin and command.name not in _NO_STDIN


def _statement_line_end(layer: Layer, offset: int) -> int | None:
    """The first newline after `offset` that ends a line of commands (not one inside a
    string of a later command on the same line): where a new heredoc body can start."""
    position = layer.text.find("\n", offset)
    while position >= 0:
        if not any(c.start < position < c.end for c in layer.script.commands):
            return position
        position = layer.text.find("\n", position + 1)
    return None


def stdin_fix(site: HeredocSite) -> Fix | None:
    """Feed the body to the ssh command from the local side: `ssh h 'cat > P' <<'EOF'`."""
    if not site.literal or not site.heredoc.terminated or not _stdin_free(site):
        return None
    layer, parent, ssh_command = site.layer, site.layer.parent, site.layer.command
    assert parent is not None and ssh_command is not None  # checked by _stdin_free
    last = ssh_command.words[-1]
    line_end = _statement_line_end(parent, last.end)
    line_start = parent.text.rfind("\n", 0, ssh_command.start) + 1
    if line_end is None or any(line_start <= h.op_start < line_end for h in parent.script.heredocs):
        return None  # another heredoc on the line: its body comes first
    body = site.body
    delimiter = _free_delimiter(body)
    removal = _lift_all(layer, site.removals())
    if removal is None:
        return None
    if not body.endswith("\n"):
        return None
    # In a CRLF line the `\r` ends the delimiter word too: the terminator line needs it.
    ending = "\r\n" if parent.text[line_end - 1 : line_end] == "\r" else "\n"
    operator = lift(parent, last.end, last.end, f" <<'{delimiter}'")
    body_edit = lift(parent, line_end + 1, line_end + 1, f"{body}{delimiter}{ending}")
    if operator is None or body_edit is None:
        return None
    return Fix(
        (*removal, operator, body_edit),
        site.applicability(),
        "Feed the body to ssh from the local side (`ssh host 'cat > P' <<'EOF'`)",
        "stdin",
    )


def _stdin_free(site: HeredocSite) -> bool:
    """Whether the stdin of the site's ssh command can carry the body: an ssh that the
    file's own shell runs (not in a substitution), whose stdin nothing else takes: no
    `-n` or `-tt`, no input redirection, no other heredoc or reader in the remote string."""
    layer, parent, ssh_command = site.layer, site.layer.parent, site.layer.command
    invocation = layer.invocation
    return not (
        parent is None
        or parent.depth != 0
        or ssh_command is None
        or invocation is None
        or invocation.ssh is None
        or invocation.ssh.has_flag("n")
        # `-tt` forces a terminal: the body would go through it and cat never sees its end.
        or sum(1 for letter, _, _ in invocation.ssh.options if letter == "t") > 1
        or ssh_command.in_substitution
        or any(r.source_fd == 0 and not r.writes for r in ssh_command.redirects)
        or len(layer.script.heredocs) != 1
        or any(_reads_stdin(layer, c) for c in layer.script.commands if c is not site.command)
    )


def _free_delimiter(body: str) -> str:
    """`EOF`, or `EOF_1`, `EOF_2`...: the first that no line of the body is."""
    delimiter = "EOF"
    lines = set(body.split("\n"))
    n = 0
    while delimiter in lines:
        n += 1
        delimiter = f"EOF_{n}"
    return delimiter


def heredoc_fix(
    layer: Layer, heredoc: Heredoc, strategy: Strategy, script_path: str | None = None
) -> Fix | None:
    site = find_site(layer, heredoc)
    if site is None:
        return None
    if strategy == "scp":
        return scp_fix(site, script_path)
    if strategy == "stdin":
        return stdin_fix(site)
    return base64_fix(site)
