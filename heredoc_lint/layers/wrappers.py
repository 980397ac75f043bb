"""The wrapper table: commands whose argument becomes text that another shell parses.

`resolve(words)` looks through transparent prefixes (`sudo`, `env`, `nohup`,
`timeout`, ...) to the real command and, when that command runs a new layer of
shell (`ssh host CMD`, `bash -c S`, `eval S`, ...), says which words form the
new layer and how that layer is run.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from heredoc_lint.layers.grammars import READERS, Form, forms_by_command
from heredoc_lint.shell.names import MULTICALL, SHELLS
from heredoc_lint.shell.words import Quoting, Word


@dataclass(frozen=True)
class ShortOptions:
    """A command's single-letter options, as its manual's SYNOPSIS lists them."""

    flags: frozenset[str]  # letters that take no value
    values: frozenset[str]  # letters that take one (`-p 22`, `-p22`)
    manual: str  # where the two sets were read

    def known(self, letter: str) -> bool:
        return letter in self.flags or letter in self.values


# The option grammars of the ssh family, from the OpenSSH 9.x manuals (ssh(1), scp(1),
# sftp(1) SYNOPSIS).  A letter in neither set is an option this table does not know: the
# command's shape is then unknown, and nothing is said about it.
OPTION_GRAMMARS: dict[str, ShortOptions] = {
    "ssh": ShortOptions(
        # `-P tag` since OpenSSH 9.4 (its release notes); before, `-P` was a flag that did
        # nothing, left from the removed UsePrivilegedPort.  A script that writes `-P`
        # means the tag: read as 9.4 and later read it (docs/wrappers.md).
        frozenset("46AaCfGgKkMNnqsTtVvXxYy"),
        frozenset("BbcDEeFIiJLlmOoPpQRSWw"),
        "OpenSSH ssh(1): ssh [-46AaCfGgKkMNnqsTtVvXxYy] [-B bind_interface] [-b bind_address] "
        "[-c cipher_spec] [-D port] [-E log_file] [-e escape_char] [-F configfile] "
        "[-I pkcs11] [-i identity_file] [-J destination] [-L address] [-l login_name] "
        "[-m mac_spec] [-O ctl_cmd] [-o option] [-P tag] [-p port] [-Q query_option] "
        "[-R address] [-S ctl_path] [-W host:port] [-w local_tun[:remote_tun]] destination "
        "[command [argument ...]]",
    ),
    "scp": ShortOptions(
        frozenset("346ABCOpqRrsTv"),
        frozenset("cDFiJloPSX"),
        "OpenSSH scp(1): scp [-346ABCOpqRrsTv] [-c cipher] [-D sftp_server_path] "
        "[-F ssh_config] [-i identity_file] [-J destination] [-l limit] [-o ssh_option] "
        "[-P port] [-S program] [-X sftp_option] source ... target",
    ),
    "sftp": ShortOptions(
        frozenset("46AaCfNpqrv"),
        frozenset("BbcDFiJloPRSsX"),
        "OpenSSH sftp(1): sftp [-46AaCfNpqrv] [-B buffer_size] [-b batchfile] [-c cipher] "
        "[-D sftp_server_command] [-F ssh_config] [-i identity_file] [-J destination] "
        "[-l limit] [-o ssh_option] [-P port] [-R num_requests] [-S program] "
        "[-s subsystem | sftp_server] [-X sftp_option] destination",
    ),
}
SSH_OPTIONS = OPTION_GRAMMARS["ssh"]

# What a static word that is a host can not hold: blanks and shell syntax.
_NOT_IN_HOSTS = frozenset(" \t\n;|&<>()`$'\"*?[]{}!\\")


def count_unknown(word: Word) -> bool:
    """Whether `word` may stand for any number of arguments, options among them: an
    unquoted `$OPTS` or `$(cmd)` alone (split by the shell), `"$@"`, `"${OPTS[@]}"`.

    A word quoted as a whole (`"$host"`) or with text around its expansion (`u@$h`) is one
    argument as written; so is an argv element (no quoting: no shell splits it)."""
    for e in word.expansions:
        if e.name in ("@", "*") or e.name.endswith(("[@]", "[*]")):
            return True
    if len(word.expansions) != 1 or Quoting.UNQUOTED not in word.quoting:
        return False
    e = word.expansions[0]
    return e.start == 0 and e.end == len(word.value) and not e.quoted and e.kind != "tilde"


def _static_prefix(word: Word) -> str:
    """The word's value up to its first expansion: what is known of it."""
    if not word.expansions:
        return word.value
    return word.value[: min(e.start for e in word.expansions)]


@dataclass(frozen=True)
class SshCall:
    """The parts of an `ssh` command line that rules and fixes need."""

    index: int  # of the `ssh` word in the command's words
    options: tuple[tuple[str, Word | None, int], ...]  # (letter, argument, index of its word)
    host_index: int | None
    command_start: int | None  # index of the first word of the remote command
    # A word of unknown count (`$OPTS`) stood among the options: they may hold any flag.
    open_options: bool = False
    # ssh stands in the body of a function the command calls (`remote() { ssh h "$@"; }`):
    # the indexes are the call's words they come from, and no fix edits ssh's own words.
    forwarded: bool = False

    def has_flag(self, letter: str) -> bool:
        return any(opt == letter for opt, _, _ in self.options)

    def option(self, letter: str) -> Word | None:
        for opt, arg, _ in self.options:
            if opt == letter:
                return arg
        return None


class Role(enum.Enum):
    """What runs a layer's text: the fact rules ask of a layer, where its name
    (`Invocation.wrapper`, "sudo bash -c") is only how messages call it."""

    SSH = "ssh"  # an ssh client sends it to the remote login shell: ssh, autossh, vagrant ssh
    SHELL = "shell"  # a new shell here parses it: `bash -c S`, `su -c S`, `bash -s <<EOF`
    EVAL = "eval"  # the caller's own shell parses it again
    TOOL = "tool"  # a tool of the wrapper table runs it its own way: pdsh, ansible -a, parallel
    MULTIPLEXER = "multiplexer"  # a terminal multiplexer's server runs it: `tmux new S`
    RERUN = "rerun"  # run again and again: `watch S`
    CHANNEL = "channel"  # a library's remote command: paramiko's exec_command, fabric's run


@dataclass(frozen=True)
class Invocation:
    """A command that makes a new layer."""

    wrapper: str  # what the layer is called in messages: "ssh", "bash -c", "eval", ...
    index: int  # the wrapper's word in the command's words: the HL111 anchor
    words: tuple[Word, ...]  # the words whose values, joined with spaces, are the layer
    remote: bool  # another host or container
    shell: str  # the shell that parses the layer: "bash", "sh", "login" (remote login shell)
    role: Role
    stdin_script: bool = False  # no string: the shell reads its script from stdin
    # A command before it runs it apart from the caller, with none of its descriptors: a
    # unit of the service manager (`systemd-run bash -c S`).
    apart: bool = False
    # A command before it enters another host or a container to run it (`docker exec c
    # ssh h S`): the layer's wrapper does not run in the caller's own place.
    entered: bool = False
    ssh: SshCall | None = None
    script_file: Word | None = None  # `bash <(...)`: the script is what the substitution prints


@dataclass(frozen=True)
class _Through:
    """A wrapper that runs the command at words[start:end] as an argv (`sudo CMD`,
    `find -exec CMD ;`, `docker exec c CMD`): `resolve` goes on from there."""

    start: int
    end: int | None = None  # where the command's words stop (find's `;`)
    label: str | None = None  # a row's label, put before the inner wrapper's
    remote: bool = False  # the command runs on another host or in a container
    apart: bool = False  # a unit of the service manager runs it (Invocation.apart)
    # words[a:b] stand for these words (`env -S STRING`): resolve goes on over them
    splice: tuple[int, int, tuple[Word, ...]] | None = None


# What one wrapper makes of its words: a layer, a command to look through to, or nothing.
Step = Invocation | _Through | None


def _static(word: Word) -> str | None:
    return word.value if word.static else None


def basename(value: str) -> str:
    """A command name without its directory: `/usr/bin/ssh` is `ssh`."""
    return value.rsplit("/", 1)[-1]


def command_name(word: Word, extra: Mapping[str, str] | None = None) -> str | None:
    """The name of the program bash runs for a command word, without its directory; None
    when it is not known before run time.

    The word is resolved as bash resolves it: quotes removed and `$'...'` decoded (the
    word's value), backslash-newlines removed (`ss\\<newline>h`), a brace expansion
    that makes one word expanded (`{ssh,}`), and a glob read as the one name of the
    wrapper table (or `extra`) it can match (`ss[h]`, `/usr/bin/ss?`): bash runs that
    name when a file of that name is where the pattern looks, and nothing else."""
    if not word.static:
        return None
    value = word.received()
    unquoted = word.quoting == {Quoting.UNQUOTED} and "\\" not in value
    if (word.braces or word.globbing) and (not unquoted or len(value) > _MAX_PATTERN):
        return None  # quoted parts of the word: which braces expand is not kept
    if word.braces:
        expanded = brace_expand(value)
        if expanded is None or len(expanded) != 1:
            return None  # several words: see docs/wrappers.md, static limits
        value = expanded[0]
    name = basename(value)
    if word.globbing:
        return _glob_name(name, WRAPPERS.keys() | (extra or {}).keys())
    return name


_MAX_BRACE_WORDS = 64
_MAX_PATTERN = 256  # a longer brace or glob word names no program of the table


def brace_expand(value: str) -> list[str] | None:
    """bash's brace expansion of an unquoted word (`{a,b}`, `x{1..3}`), without the words
    it leaves empty (bash drops them); None for more than a few dozen words."""
    done: list[str] = []
    todo = [value]
    while todo:
        text = todo.pop()
        parts = _first_brace(text)
        if parts is None:
            if text:
                done.append(text)
        else:
            before, choices, after = parts
            todo.extend(before + c + after for c in reversed(choices))
        if len(done) + len(todo) > _MAX_BRACE_WORDS:
            return None
    return done


def _first_brace(text: str) -> tuple[str, list[str], str] | None:
    """The first `{...}` of `text` that bash expands: its text before, its choices (a
    comma list or a `..` sequence), and its text after."""
    for open_at, c in enumerate(text):
        if c != "{" or (open_at and text[open_at - 1] == "$"):
            continue
        depth = 0
        commas: list[int] = []
        for k in range(open_at, len(text)):
            if text[k] == "{":
                depth += 1
            elif text[k] == "}":
                depth -= 1
                if depth == 0:
                    body = text[open_at + 1 : k]
                    choices = _choices(body, [a - open_at - 1 for a in commas])
                    if choices is not None:
                        return text[:open_at], choices, text[k + 1 :]
                    break
            elif text[k] == "," and depth == 1:
                commas.append(k)
    return None


def _choices(body: str, commas: list[int]) -> list[str] | None:
    if commas:
        bounds = [-1, *commas, len(body)]
        return [body[a + 1 : b] for a, b in zip(bounds, bounds[1:], strict=False)]
    ends = body.split("..")
    if len(ends) == 2 and all(e.lstrip("-").isdigit() for e in ends):
        first, last = int(ends[0]), int(ends[1])
        if abs(last - first) >= _MAX_BRACE_WORDS:
            return None
        step = 1 if last >= first else -1
        return [str(n) for n in range(first, last + step, step)]
    if len(ends) == 2 and all(len(e) == 1 and e.isalpha() for e in ends):
        first, last = ord(ends[0]), ord(ends[1])
        step = 1 if last >= first else -1
        return [chr(n) for n in range(first, last + step, step)]
    return None


def _glob_name(pattern: str, names: Collection[str]) -> str | None:
    """The one name of `names` that the glob `pattern` matches; None for none or several."""
    regex = _glob_regex(pattern)
    if regex is None:
        return None
    matched = [name for name in names if regex.fullmatch(name)]
    return matched[0] if len(matched) == 1 else None


def _glob_regex(pattern: str) -> re.Pattern[str] | None:
    """A bash pathname pattern (`*`, `?`, `[...]`) as a regex; None for extglob."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            if not out or out[-1] != ".*":
                out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : end]
                negate = body[:1] in ("!", "^")
                body = body[1:] if negate else body
                if "[" in body:
                    return None  # [[:alpha:]] and the like: not read here
                members = "".join("\\" + ch if ch in "\\^]" else ch for ch in body)
                out.append(f"[{'^' if negate else ''}{members}]")
                i = end
        elif c in "@+!(":
            if pattern[i + 1 : i + 2] == "(" or c == "(":
                return None
            out.append(re.escape(c))
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out))


class _Unknown(Exception):
    """An option this table does not know, or one whose letters are not all known."""


@dataclass(frozen=True)
class _Reading:
    """One way the words may be read when some word stands for an unknown number."""

    options: tuple[tuple[str, Word | None, int], ...]
    host_index: int | None
    command_start: int | None
    skipped: bool  # a word of unknown count was read as options (zero words)


_MAX_READINGS = 16
_HOST_LIKE = frozenset("@.:")  # user@host, host.example.com, 10.0.0.1, [::1]
# A word of unknown count named as options (`$SSH_OPTS`, `"${SSH_ARGS[@]}"`, `$FLAGS`) is
# read as options only, never as the host: `ssh -p "$P" $SSH_OPTS "$U@$H" "..."`.
_OPTIONS_NAME = re.compile(r"(?:\A|_)(?:OPTS|OPTIONS|ARGS|FLAGS)(?:\[[@*]\])?\Z", re.IGNORECASE)


def _named_as_options(word: Word) -> bool:
    return len(word.expansions) == 1 and _OPTIONS_NAME.search(word.expansions[0].name) is not None


def parse_ssh(
    words: Sequence[Word], index: int, grammar: ShortOptions = SSH_OPTIONS
) -> SshCall | None:
    """ssh's own grammar: options, the host, more options (ssh re-reads them), the command.

    None when the shape cannot be known: an option the manual does not list, or a word
    of unknown count (`$SSH_OPTS`, `"${OPTS[@]}"`) whose readings (as the host, or as
    options before it) put the remote command at different words."""
    try:
        readings = [
            r
            for r in _ssh_readings(words, index + 1, (), None, False, False, grammar)
            if not r.skipped or _host_like(words, r.host_index)
        ]
    except _Unknown:
        return None
    if not readings:
        return None
    # ssh with no command at all is an interactive login: a script that gives a command
    # in one reading means it.
    commanded = [r for r in readings if r.command_start is not None]
    if commanded:
        readings = commanded
    if len({r.command_start for r in readings}) > 1:
        return None
    first = readings[0]
    skipped = any(r.skipped for r in readings)
    return SshCall(index, first.options, first.host_index, first.command_start, skipped)


def _host_like(words: Sequence[Word], host_index: int | None) -> bool:
    """Whether the word a reading takes for the host after skipping a `$OPTS` can be one:
    a value known only at run time, or a static name with a user, domain or address."""
    if host_index is None:
        return False
    word = words[host_index]
    if not word.static:
        return True
    return bool(_HOST_LIKE & set(word.value)) and not _NOT_IN_HOSTS & set(word.value)


def _ssh_readings(
    words: Sequence[Word],
    i: int,
    options: tuple[tuple[str, Word | None, int], ...],
    host_index: int | None,
    terminated: bool,
    skipped: bool,
    grammar: ShortOptions,
) -> Iterator[_Reading]:
    found = 0
    while i < len(words):
        word = words[i]
        value = _static(word)
        if value == "--" and not terminated:
            terminated = True
            i += 1
            if host_index is not None:
                break
            continue
        prefix = _static_prefix(word)
        if not terminated and prefix.startswith("-") and len(word.value) > 1:
            i, options = _ssh_option_cluster(words, i, options, grammar)
            continue
        if count_unknown(word):
            # Read as nothing but options: the rest as if the word were not there.
            for reading in _ssh_readings(
                words, i + 1, options, host_index, terminated, True, grammar
            ):
                found += 1
                if found > _MAX_READINGS:
                    raise _Unknown
                yield reading
            if host_index is None and _named_as_options(word):
                return
        if host_index is not None:
            break
        host_index = i
        i += 1
    command_start = i if host_index is not None and i < len(words) else None
    yield _Reading(options, host_index, command_start, skipped)


def _ssh_option_cluster(
    words: Sequence[Word],
    i: int,
    options: tuple[tuple[str, Word | None, int], ...],
    grammar: ShortOptions,
) -> tuple[int, tuple[tuple[str, Word | None, int], ...]]:
    """Read one `-tt`, `-p 22`, `-p22`, `-p$PORT` word; return the index after it (and its
    argument) and the options with its own."""
    word = words[i]
    known = _static_prefix(word)
    found = list(options)
    for k in range(1, len(word.value)):
        if k >= len(known):
            raise _Unknown  # `-$FLAGS`, `-t$X`: letters known only at run time
        letter = known[k]
        if not grammar.known(letter):
            raise _Unknown
        if letter in grammar.values:
            if k + 1 < len(word.value):
                # An attached argument (`-p2222`): a synthetic word is enough here.
                found.append((letter, _slice_word(word, k + 1), i))
                return i + 1, tuple(found)
            arg = words[i + 1] if i + 1 < len(words) else None
            found.append((letter, arg, i))
            return i + 2, tuple(found)
        found.append((letter, None, i))
    return i + 1, tuple(found)


def _slice_word(word: Word, start: int) -> Word:
    return Word(
        word.offsets[start],
        word.end,
        word.value[start:],
        word.offsets[start:],
        tuple(
            replace(e, start=e.start - start, end=e.end - start)
            for e in word.expansions
            if e.start >= start
        ),
        (),
        word.quoting,
        word.globbing,
    )


def ifs_split(words: Sequence[Word]) -> tuple[Word, ...]:
    """The words as bash splits them at an unquoted `$IFS` or `${IFS}` in a word that has
    no other expansion: `pkill${IFS}-f${IFS}x` is `pkill -f x`.  Whatever non-empty value
    IFS holds, its expansion is all separators; a layer that assigns or unsets IFS is the
    caller's to leave out."""
    if not any(e.name == "IFS" for w in words for e in w.expansions):
        return tuple(words)
    found: list[Word] = []
    for word in words:
        cuts = word.expansions
        if not cuts or any(e.name != "IFS" or e.quoted or e.kind != "variable" for e in cuts):
            found.append(word)
            continue
        bounds = [0, *(k for e in cuts for k in (e.start, e.end)), len(word.value)]
        for a, b in zip(bounds[::2], bounds[1::2], strict=True):
            if a < b:
                found.append(cut_word(word, a, b))
    return tuple(found)


def cut_word(word: Word, start: int, end: int) -> Word:
    """value[start:end] of a word as a word of its own, with no expansion in it."""
    return Word(
        word.offsets[start],
        word.offsets[end - 1] + 1,
        word.value[start:end],
        (*word.offsets[start:end], word.offsets[end - 1] + 1),
        (),
        tuple(k - start for k in word.continuations if start <= k < end),
        word.quoting,
        word.globbing,
        word.braces,
    )


def _ssh(words: Sequence[Word], i: int, wrappers: Mapping[str, str]) -> Invocation | None:
    call = parse_ssh(words, i)
    if call is None:
        return None  # where the remote command starts is not known: say nothing
    if call.has_flag("N") or call.has_flag("s") or call.has_flag("G") or call.has_flag("V"):
        return None
    # -n and -f: ssh reads /dev/null, and a shell there gets no script on its stdin
    reads_stdin = not (call.has_flag("n") or call.has_flag("f"))
    if call.command_start is None:
        return Invocation("ssh", i, (), True, "login", Role.SSH, stdin_script=reads_stdin, ssh=call)
    remote = tuple(words[call.command_start :])
    # Whether the remote shell reads its script from ssh's stdin (`ssh h bash -s <<'EOF'`)
    # depends on the remote command: `resolve` looks at it, one level down.
    return Invocation("ssh", i, remote, True, "login", Role.SSH, stdin_script=reads_stdin, ssh=call)


def _shell(words: Sequence[Word], i: int, wrappers: Mapping[str, str]) -> Step:
    name = command_name(words[i]) or basename(words[i].value)
    letters = ""
    j = i + 1
    while j < len(words):
        value = _static(words[j])
        if value is None:
            break
        if value in ("-o", "+o", "--rcfile", "--init-file", "-O", "+O"):
            j += 2
            continue
        if value == "--":
            j += 1
            break
        if value[:1] in "-+" and len(value) > 1:
            letters += "c" if value == "--command" else value[1:] if value[1] != "-" else ""
            j += 1
            continue
        break
    if "c" in letters:
        if j >= len(words):
            return None
        return Invocation(f"{name} -c", i, (words[j],), False, name, Role.SHELL)
    if "s" in letters or j >= len(words):
        return Invocation(name, i, (), False, name, Role.SHELL, stdin_script=True)
    if _process_substitution(words[j]):
        return Invocation(name, i, (), False, name, Role.SHELL, script_file=words[j])
    return None  # `bash script.sh`: the layer is another file


def _process_substitution(word: Word) -> bool:
    """`<(...)` as a whole word: a file whose content is what the commands in it print."""
    return (
        len(word.expansions) == 1
        and word.expansions[0].kind == "process"
        and word.value.startswith("<(")
        and word.expansions[0].end == len(word.value)
    )


def _eval(words: Sequence[Word], i: int, wrappers: Mapping[str, str]) -> Step:
    if i + 1 >= len(words):
        return None
    return Invocation("eval", i, tuple(words[i + 1 :]), False, "bash", Role.EVAL)


def _option_value(words: Sequence[Word], start: int, names: tuple[str, ...]) -> int | None:
    """Index of the word that is the argument of one of `names` (`-c S`, `--command=S`)."""
    for j in range(start, len(words)):
        value = _static(words[j])
        if value is None:
            continue
        if value in names and j + 1 < len(words):
            return j + 1
    return None


def _named_string(
    label: str, names: tuple[str, ...], remote: bool, shell: str, role: Role
) -> Callable[[Sequence[Word], int, Mapping[str, str]], Step]:
    def resolve_named(words: Sequence[Word], i: int, wrappers: Mapping[str, str]) -> Step:
        j = _option_value(words, i + 1, names)
        if j is not None:
            return Invocation(label, i, (words[j],), remote, shell, role)
        for j in range(i + 1, len(words)):
            value = _static(words[j]) or ""
            for name in names:
                if name.startswith("--") and value.startswith(name + "="):
                    return Invocation(
                        label, i, (_slice_word(words[j], len(name) + 1),), remote, shell, role
                    )
        return None

    return resolve_named


def _gcloud(words: Sequence[Word], i: int, wrappers: Mapping[str, str]) -> Step:
    rest = [_static(w) for w in words[i + 1 : i + 3]]
    if rest != ["compute", "ssh"]:
        return None
    return _named_string("gcloud compute ssh", ("--command",), True, "login", Role.SSH)(
        words, i, wrappers
    )


def _vagrant(words: Sequence[Word], i: int, wrappers: Mapping[str, str]) -> Step:
    if i + 1 >= len(words) or _static(words[i + 1]) != "ssh":
        return None
    return _named_string("vagrant ssh", ("-c", "--command"), True, "login", Role.SSH)(
        words, i, wrappers
    )


_TMUX_ARG_OPTIONS = frozenset({"-s", "-n", "-t", "-c", "-e", "-x", "-y", "-F", "-l", "-f"})


def _tmux(words: Sequence[Word], i: int, wrappers: Mapping[str, str]) -> Step:
    j = i + 1
    while j < len(words) and (_static(words[j]) or "").startswith("-"):
        j += 1
    if j >= len(words) or _static(words[j]) not in (
        "new-session",
        "new",
        "new-window",
        "neww",
        "split-window",
        "splitw",
        "respawn-pane",
        "respawn-window",
    ):
        return None
    j += 1
    while j < len(words):
        value = _static(words[j]) or ""
        if value in _TMUX_ARG_OPTIONS:
            j += 2
        elif value.startswith("-"):
            j += 1
        else:
            break
    if j >= len(words):
        return None
    if len(words) - j == 1:
        return Invocation("tmux", i, (words[j],), False, "sh", Role.MULTIPLEXER)
    return _Through(j)


def _find(words: Sequence[Word], i: int, wrappers: Mapping[str, str]) -> Step:
    for j in range(i + 1, len(words)):
        if _static(words[j]) in ("-exec", "-execdir", "-ok", "-okdir"):
            end = j + 1
            while end < len(words) and _static(words[end]) not in (";", "+"):
                end += 1
            return _Through(j + 1, end)
    return None


def _watch(words: Sequence[Word], i: int, wrappers: Mapping[str, str]) -> Step:
    j = i + 1
    exec_mode = False
    while j < len(words):
        value = _static(words[j]) or ""
        if value in ("-n", "--interval", "-q", "--equexit"):
            j += 2
        elif value in ("-x", "--exec"):
            exec_mode = True
            j += 1
        elif value.startswith("-"):
            j += 1
        else:
            break
    if j >= len(words):
        return None
    if exec_mode:
        return _Through(j)
    return Invocation("watch", i, tuple(words[j:]), False, "sh", Role.RERUN)


def _flock(words: Sequence[Word], i: int, wrappers: Mapping[str, str]) -> Step:
    j = _option_value(words, i + 1, ("-c", "--command"))
    if j is not None:
        return Invocation("flock -c", i, (words[j],), False, "sh", Role.SHELL)
    k = i + 1
    while k < len(words) and (_static(words[k]) or "").startswith("-"):
        k += 2 if _static(words[k]) in ("-w", "--timeout", "-E", "--conflict-exit-code") else 1
    return _Through(k + 1) if k < len(words) else None


def _form_option(
    words: Sequence[Word], j: int, form: Form, seen: dict[str, Word | None]
) -> int | None:
    """Read the option at words[j] by `form`'s table into `seen`; the index after it (and
    its value), or None for an option the table does not know."""
    word = words[j]
    known = _static_prefix(word)
    after = words[j + 1] if j + 1 < len(words) else None
    if known.startswith("--"):
        name, equals, _ = known.partition("=")
        if equals:
            if name in form.values or name in form.optional or name in form.flags:
                seen[name] = _slice_word(word, len(name) + 1)
                return j + 1
            return None
        if len(known) < len(word.value):
            return None  # `--$X`: the name is known only at run time
        if name in form.values:
            seen[name] = after
            return j + 2
        if name in form.flags or name in form.optional:
            seen[name] = None
            return j + 1
        return None
    for pos in range(1, len(word.value)):
        if pos >= len(known):
            return None  # `-$X`
        name = "-" + known[pos]
        rest = _slice_word(word, pos + 1) if pos + 1 < len(word.value) else None
        if name in form.values:
            seen[name] = rest if rest is not None else after
            return j + 1 if rest is not None else j + 2
        if name in form.optional:
            seen[name] = rest
            return j + 1
        if name not in form.flags:
            return None
        seen[name] = None
    return j + 1


def _one_operand(words: Sequence[Word], j: int, form: Form, matched: int, operands: int) -> bool:
    """Whether words[j], a word of unknown count, is taken for one operand: `docker exec
    $C sh -c S`, `kubectl exec $POD -- ...`, `ansible $HOSTS -m shell -a S`. Read as
    options alone it would make the next word the operand: a static `sh` is none (as
    `ssh $h uptime` keeps `$h` the host), a run-time `"$c"` may be."""
    if form.dashdash or form.takes == "option":
        return matched == len(form.path)  # the command's place does not depend on it
    after = words[j + 1] if j + 1 < len(words) else None
    return matched == len(form.path) and operands > 0 and after is not None and after.static


def read_form(words: Sequence[Word], i: int, form: Form, wrappers: Mapping[str, str]) -> Step:
    """The layer words[i] starts by the table row `form`, if the words are that form and
    its shape is known: the options, the subcommand words, the operands, the command."""
    j = i + 1
    matched = 0  # subcommand words read
    operands = form.operands
    seen: dict[str, Word | None] = {}
    dashdash = False
    while j < len(words):
        word = words[j]
        if _static(word) == "--":
            dashdash = True
            j += 1
            break
        before_command = matched < len(form.path) or operands > 0 or form.takes == "option"
        if not before_command and form.operands and not form.interspersed:
            break  # `docker exec c -x`: after the container, the command's own words
        if _static_prefix(word).startswith("-") and len(word.value) > 1:
            step = _form_option(words, j, form, seen)
            if step is None:
                return None
            j = step
            continue
        if count_unknown(word) and not _one_operand(words, j, form, matched, operands):
            return None  # `$OPTS`: options, operands or both
        if matched < len(form.path):
            if _static(word) != form.path[matched]:
                return None
            matched += 1
        elif form.takes == "option" or operands > 0:
            operands = max(0, operands - 1)  # the container, pod, image; ansible's pattern
        elif form.dashdash:
            return None  # the command follows `--` only: these words are something else
        else:
            break
        j += 1
    if not _form_holds(words, j, form, seen, matched, operands, dashdash):
        return None
    return _form_layer(words, i, j, form, seen, wrappers)


def _form_holds(
    words: Sequence[Word],
    j: int,
    form: Form,
    seen: Mapping[str, Word | None],
    matched: int,
    operands: int,
    dashdash: bool,
) -> bool:
    """The checks a form makes once its command's place is found: every subcommand word
    and operand read (`matched`, `operands` left), the `--` it needs, no option of the
    tool after it, no forbidden option, every needed option with an allowed value."""
    if matched < len(form.path) or (form.dashdash and not dashdash) or operands > 0:
        return False
    if (
        form.interspersed
        and not dashdash
        and any(_static_prefix(w).startswith("-") for w in words[j + 1 :])
    ):
        return False  # the tool reads these as its own options
    if any(name in seen for name in form.forbids):
        return False
    for names, allowed in form.needs:
        given = [seen[name] for name in names if name in seen]
        if not given:
            return False
        value = given[-1]
        if allowed and (value is None or _static(value) not in allowed):
            return False
    return True


def _form_layer(
    words: Sequence[Word],
    i: int,
    j: int,
    form: Form,
    seen: Mapping[str, Word | None],
    wrappers: Mapping[str, str],
) -> Step:
    """The layer of a form whose command starts at words[j]."""
    if form.takes == "option":
        strings = [seen[name] for name in sorted(form.option) if seen.get(name) is not None]
        if not strings:
            return None
        string = strings[-1]
        assert string is not None
        return Invocation(form.label, i, (string,), form.remote, form.shell, Role.TOOL)
    if form.takes == "words":
        end = j
        while end < len(words) and _static(words[end]) not in form.stops:
            end += 1
        if end == j:
            return None
        return Invocation(form.label, i, tuple(words[j:end]), form.remote, form.shell, Role.TOOL)
    if j >= len(words):
        return None
    return _Through(j, label=form.label, remote=form.remote, apart=form.apart)


def _by_forms(forms: tuple[Form, ...]) -> Resolver:
    def resolve_forms(words: Sequence[Word], i: int, wrappers: Mapping[str, str]) -> Step:
        for form in forms:
            found = read_form(words, i, form, wrappers)
            if found is not None:
                return found
        return None

    return resolve_forms


# autossh(1): `autossh [-V] [-M port[:echo_port]] [-f] [SSH_OPTIONS]`: the rest is ssh's.
def _autossh(words: Sequence[Word], i: int, wrappers: Mapping[str, str]) -> Step:
    j = i + 1
    own: list[tuple[str, Word | None, int]] = []
    while j < len(words) and _static(words[j]) in ("-M", "-f", "-V"):
        if _static(words[j]) == "-f":
            own.append(("f", None, j))  # ssh's -f: in the background, the caller not waiting
        j += 2 if _static(words[j]) == "-M" else 1
    # ssh's grammar from here on, as if words[j - 1] were the `ssh` word
    found = _ssh(words, j - 1, wrappers) if j <= len(words) else None
    if found is None:
        return None
    ssh = found.ssh
    if ssh is not None:
        ssh = replace(ssh, index=i, options=(*own, *ssh.options))
    return replace(found, wrapper="autossh", index=i, ssh=ssh)


# Prefix commands: the number of option words that take an argument, per command.
_PREFIX_ARG_OPTIONS: dict[str, frozenset[str]] = {
    "sudo": frozenset(
        {
            "-u",
            "-g",
            "-C",
            "-D",
            "-h",
            "-p",
            "-r",
            "-t",
            "-T",
            "-U",
            "--user",
            "--group",
            "--chdir",
            "--host",
            "--prompt",
            "--role",
            "--type",
            "--other-user",
            "--close-from",
            "--command-timeout",
        }
    ),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "nohup": frozenset(),
    # `busybox sh -c S` runs the applet its first word names, here `sh -c S`.
    **{name: frozenset() for name in MULTICALL},
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "--class", "-n", "--classdata", "-p", "-P", "-u"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "setsid": frozenset(),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "command": frozenset(),
    "exec": frozenset({"-a"}),
    "xargs": frozenset(
        {
            "-I",
            "-n",
            "-P",
            "-d",
            "-L",
            "-s",
            "-a",
            "-E",
            "--max-args",
            "--max-procs",
            "--delimiter",
            "--max-lines",
            "--arg-file",
        }
    ),
    "sshpass": frozenset({"-p", "-f", "-d", "-P"}),
    "chroot": frozenset(),
    "screen": frozenset({"-S", "-t", "-c", "-e", "-p", "-T", "-h", "-L", "-Logfile"}),
    # bash(1): `builtin NAME ARGS` runs the builtin NAME (`builtin command ssh ...`), and
    # `coproc CMD` runs a simple command as a coprocess (a NAME only before a compound one).
    "builtin": frozenset(),
    "coproc": frozenset(),
    # chrt(1), taskset(1), util-linux: `chrt [options] [priority] command [arg...]`,
    # `taskset [options] mask command [arg...]`.
    "chrt": frozenset({"-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"}),
    "taskset": frozenset(),
}
# Prefixes whose first non-option word is not the command (it is a duration, a directory...).
_PREFIX_OPERANDS = {"timeout": 1, "chroot": 1, "taskset": 1}
# Options after which a prefix runs no command: it looks a name up, or works on a pid.
_PREFIX_NO_COMMAND: dict[str, frozenset[str]] = {
    "command": frozenset({"-v", "-V"}),
    "chrt": frozenset({"-p", "--pid", "-m", "--max"}),
    "taskset": frozenset({"-p", "--pid"}),
}


def _runs_no_command(value: str, options: frozenset[str]) -> bool:
    """Whether the option word `value` (`-p`, `--pid`, a cluster `-ap`) is one of `options`."""
    if value in options:
        return True
    return not value.startswith("--") and any("-" + c in options for c in value[1:])


def _cluster_ends_with_value(value: str, arg_options: frozenset[str]) -> bool:
    """`screen -dmS NAME`: a cluster of flags whose last letter takes the next word (getopt:
    a letter that takes a value and is not last has the rest of the word as its value)."""
    if not value.startswith("-") or value.startswith("--") or len(value) < 3:
        return False
    for k in range(1, len(value)):
        if "-" + value[k] in arg_options:
            return k == len(value) - 1
    return False


def _after_prefix(words: Sequence[Word], i: int) -> int | None:
    """Index of the command that the prefix command words[i] runs, if any."""
    name = command_name(words[i]) or basename(words[i].value)
    arg_options = _PREFIX_ARG_OPTIONS.get(name, frozenset())
    j = i + 1
    while j < len(words):
        value = _static(words[j])
        if value is None:
            break
        if value == "--":
            j += 1
            break
        if name == "env" and "=" in value and not value.startswith("-"):
            j += 1
            continue
        if value.startswith("-") and _runs_no_command(
            value, _PREFIX_NO_COMMAND.get(name, frozenset())
        ):
            return None
        if value in arg_options or _cluster_ends_with_value(value, arg_options):
            j += 2
            continue
        if value.startswith("-") and len(value) > 1:
            j += 1
            continue
        break
    j += _PREFIX_OPERANDS.get(name, 0)
    if name == "chrt" and j < len(words) and (_static(words[j]) or "").isdigit():
        j += 1  # the priority, which newer versions let the policies without one leave out
    return j if j < len(words) else None


def _prefix(words: Sequence[Word], i: int, wrappers: Mapping[str, str]) -> Step:
    if command_name(words[i]) == "env":
        given, split = _env_split(words, i)
        if given:
            return split
    j = _after_prefix(words, i)
    if j is None and _shell_without_command(words, i):
        name = command_name(words[i])
        return Invocation(f"{name} -s", i, (), False, "login", Role.SHELL, stdin_script=True)
    return None if j is None else _Through(j)


# `sudo -s`, `sudo -i`, `doas -s`: with no command, a shell that reads its script from stdin.
_SHELL_OPTIONS = {
    "sudo": re.compile(r"-[A-Za-z]*[si][A-Za-z]*|--shell|--login"),
    "doas": re.compile(r"-s"),
}


def _shell_without_command(words: Sequence[Word], i: int) -> bool:
    """`ssh h sudo -i <<'EOF'`: every word after sudo is an option, one of them -s or -i."""
    options = _SHELL_OPTIONS.get(command_name(words[i]) or "")
    if options is None:
        return False
    arg_options = _PREFIX_ARG_OPTIONS[command_name(words[i]) or ""]
    values = [_static(w) for w in words[i + 1 :]]
    shell = False
    k = 0
    while k < len(values):
        value = values[k]
        if value is None or not value.startswith("-"):
            return False
        shell = shell or options.fullmatch(value) is not None
        k += 2 if value in arg_options else 1
    return shell


_ENV_S = re.compile(r"-([0iv]*)S(.*)", re.DOTALL)  # `-S STR`, `-iS STR`, `-SSTR`


def _env_split(words: Sequence[Word], i: int) -> tuple[bool, Step]:
    """`env -S STRING`, `--split-string=STRING`: env splits the string into arguments
    and reads them in its place, options first (coreutils env(1)).  Whether a -S is
    given, and the step: None when the string holds what is not read here (`$X`,
    `${VAR}`): the command env runs is then not known."""
    j = i + 1
    while j < len(words):
        value = _static(words[j])
        if value is None or value == "--" or not value.startswith("-") or len(value) < 2:
            return False, None
        short = _ENV_S.fullmatch(value)
        if value == "--split-string" or short is not None and not short[2]:
            end, string = j + 2, words[j + 1] if j + 1 < len(words) else None
        elif short is not None:
            end, string = j + 1, _slice_word(words[j], 2 + len(short[1]))
        elif value.startswith("--split-string="):
            end, string = j + 1, _slice_word(words[j], len("--split-string="))
        else:
            arg_options = _PREFIX_ARG_OPTIONS["env"]
            j += 2 if value in arg_options or _cluster_ends_with_value(value, arg_options) else 1
            continue
        split = split_string(string) if string is not None and string.static else None
        return True, None if split is None else _Through(i, splice=(j, end, split))
    return False, None


# env(1)'s escapes in a split string, outside single quotes.
_ENV_ESCAPES = {"f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "#": "#"}
_ENV_ESCAPES.update({c: c for c in "\\'\"$"})


def split_string(word: Word) -> tuple[Word, ...] | None:
    """The arguments coreutils env makes of `-S STRING`: split at blanks outside quotes,
    quotes removed, `\\` escapes read, a `#` at a word's start ends it.  None for a
    `${VAR}`, `\\c` or `\\_` (not read here): the words are then not known."""
    value, offsets = word.value, word.offsets
    found: list[Word] = []
    chars: list[str] = []
    where: list[int] = []
    start: int | None = None
    quote = ""
    k = 0

    def close(at: int) -> None:
        nonlocal start
        if start is not None:
            found.append(Word(start, at, "".join(chars), (*where, at)))
            chars.clear()
            where.clear()
            start = None

    while k < len(value):
        c = value[k]
        if quote != "'" and c == "$":
            return None
        if not quote and c in " \t\n\v\f\r":
            close(offsets[k])
            k += 1
            continue
        if not quote and c == "#" and start is None:
            break
        if start is None:
            start = offsets[k]
        if c in "'\"" and quote in ("", c):
            quote = "" if quote else c
            k += 1
            continue
        if c == "\\" and k + 1 < len(value):
            nxt = value[k + 1]
            if quote == "'" and nxt not in "\\'":
                chars.append(c)
                where.append(offsets[k])
                k += 1
                continue
            if nxt not in _ENV_ESCAPES:
                return None
            chars.append(_ENV_ESCAPES[nxt])
            where.append(offsets[k])
            k += 2
            continue
        chars.append(c)
        where.append(offsets[k])
        k += 1
    if quote:
        return None  # env refuses an unterminated quote
    close(offsets[len(value)])
    return tuple(found)


def unwrap_prefixes(words: Sequence[Word]) -> int | None:
    """Index of the real command behind `sudo`, `env`, `nohup`, `timeout`...; None if none."""
    i = 0
    while i < len(words) and words[i].static:
        if command_name(words[i]) not in _PREFIX_ARG_OPTIONS:
            return i
        j = _after_prefix(words, i)
        if j is None:
            return None
        i = j
    return None


def _su(words: Sequence[Word], i: int, wrappers: Mapping[str, str]) -> Step:
    name = command_name(words[i]) or basename(words[i].value)
    values = [_static(w) for w in words]
    if "--" in values[i + 1 :]:
        dash = values.index("--", i + 1)
        if "-c" not in values[i + 1 : dash] and "--command" not in values[i + 1 : dash]:
            return _Through(dash + 1)  # runuser -u u -- cmd
    found = _named_string(f"{name} -c", ("-c", "--command"), False, "sh", Role.SHELL)(
        words, i, wrappers
    )
    if found is None and _options_and_a_user(values[i + 1 :]):
        # `ssh h sudo su <<EOF`: no command, so the user's login shell reads stdin.
        return Invocation(name, i, (), False, "login", Role.SHELL, stdin_script=True)
    return found


def _options_and_a_user(values: Sequence[str | None]) -> bool:
    """`su`, `su -`, `su - root`, `su -l deploy`: options and at most one user name."""
    operands = [v for v in values if v is None or not v.startswith("-")]
    return len(operands) <= 1 and None not in operands and "-s" not in values


Resolver = Callable[[Sequence[Word], int, Mapping[str, str]], Step]

# The readers that grammars.READERS names, for the tools no row can hold.
_READERS: dict[str, Resolver] = {
    "ssh": _ssh,
    "autossh": _autossh,
    "gcloud": _gcloud,
    "vagrant": _vagrant,
    "eval": _eval,
    "su": _su,
    "flock": _flock,
    "find": _find,
    "tmux": _tmux,
    "watch": _watch,
}

WRAPPERS: dict[str, Resolver] = {
    **{name: _READERS[reader] for name, reader in READERS.items()},
    **{name: _by_forms(forms) for name, forms in forms_by_command().items()},
    **{name: _shell for name in SHELLS},
    **{name: _prefix for name in _PREFIX_ARG_OPTIONS},
}
PREFIXES = frozenset(_PREFIX_ARG_OPTIONS)  # sudo, env, nohup, timeout...: run the next word

# What a user-configured wrapper may behave like (`wrappers = {myssh = "ssh"}`).
WRAPPER_KINDS = {"ssh": _ssh, "shell": _shell, "eval": _eval, "prefix": _prefix}


def resolve(words: Sequence[Word], wrappers: Mapping[str, str] | None = None) -> Invocation | None:
    """The layer that the command `words` starts, if any.

    `wrappers` maps extra command names to a kind of WRAPPER_KINDS.  The chain of
    prefixes and wrappers (`sudo env nice docker exec c sudo ssh h CMD`) is followed in a
    loop, not by recursion: any depth is resolved, and nothing here can run out of stack.
    """
    return _resolve(words, wrappers or {}, deep=True)


_MAX_SPLICES = 8


def _resolve(words: Sequence[Word], extra: Mapping[str, str], deep: bool) -> Invocation | None:
    start = 0
    labels: list[str] = []
    anchor: int | None = None  # the outermost row's word: the layer's anchor
    remote = apart = False
    origin: list[int] | None = None  # each word's index in `words` as given, once spliced
    splices = 0
    while start < len(words):  # every step moves `start` on, or splices (a few times)
        name = command_name(words[start], extra)
        if name is None:
            return None
        resolver = WRAPPER_KINDS.get(extra[name]) if name in extra else WRAPPERS.get(name)
        if resolver is None:
            return None
        step = resolver(words, start, extra)
        if step is None:
            return None
        if isinstance(step, Invocation):
            found = _reads_script(step, extra) if deep else step
            return _chained(found, labels, anchor, remote, apart, origin)
        if step.label is not None:
            labels.append(step.label)
            anchor = start if anchor is None else anchor
            remote = remote or step.remote
            apart = apart or step.apart
        if step.splice is not None:
            splices += 1
            a, b, new = step.splice
            if splices > _MAX_SPLICES or not a < b:
                return None
            where = origin if origin is not None else list(range(len(words)))
            origin = [*where[:a], *[where[a]] * len(new), *where[b:]]
            words = (*words[:a], *new, *words[b:])
            continue
        if step.end is not None:
            words = words[: step.end]
        if step.start <= start:
            return None  # a resolver that does not move on would loop
        start = step.start
    return None


def _chained(
    found: Invocation,
    labels: list[str],
    anchor: int | None,
    remote: bool,
    apart: bool,
    origin: list[int] | None,
) -> Invocation:
    """The invocation that ends a chain of rows, as the whole command's: the labels of
    the rows before it joined to its wrapper, the outermost row's word its anchor, remote
    and apart as those rows make it; its indexes those of the words as given when a row
    spliced words in."""
    if labels:
        found = replace(
            found,
            wrapper=" ".join((*labels, found.wrapper)),
            index=found.index if anchor is None else anchor,
            remote=remote or found.remote,
            apart=apart,
            entered=remote,
        )
    if origin is not None:
        # Indexes into words that are not the command's own: the anchor is the
        # word they came from, and ssh's option places are not known.
        found = replace(found, index=origin[found.index], ssh=None)
    return found


def _reads_script(found: Invocation, extra: Mapping[str, str]) -> Invocation:
    """`ssh h bash -s <<'EOF'`: whether the remote shell reads its script from ssh's stdin.
    One level down is enough: an inner ssh with a command has words of its own."""
    if found.ssh is None or not found.words or not found.stdin_script:
        return found
    inner = _resolve(found.words, extra, deep=False)
    reads = inner is not None and inner.stdin_script and not inner.words
    return replace(found, stdin_script=reads)
