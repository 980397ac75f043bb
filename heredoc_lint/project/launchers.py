"""How the project's other files run a script: as root, over ssh, or not known.

A script that is run as root writes with root's rights, so HL109's `sudo echo x >
/etc/f` there works and is only redundant. Three kinds of file say a script is run as
root, each an evidence kind of HL109:

- `root-by-provisioner`: a Vagrant shell provisioner runs it (provisioning.py);
- `root-by-caller`: a command in a file of the script's directory, or of a directory
  above it up to the project's top, runs it with sudo or doas, or a variable named for
  one (`$SUDO`, `$suCommand`): `sudo ./install.sh` in a README, `ssh "$NODE" sudo
  ./bench/server.sh` in a driver script, `curl -fsSL
  https://raw.githubusercontent.com/o/r/main/setup.sh | sudo bash` in a notes file, `sudo
  bash scripts/x.sh` in a Makefile;
- `root-by-container`: a Dockerfile there runs it (`RUN`, `CMD`, `ENTRYPOINT`) before any
  `USER` line that names another user: a container's processes run as root by default.

The files read are what a person documents or drives a script from (READMEs, notes,
Markdown, shell, Python, YAML, Makefiles, Dockerfiles) and not larger than a page of
text can be; the project's top is the first directory above that holds `.git`, or the
directory a relative path starts from (the tool is run from the project's top). A command
names a script by a path whose last parts are the script's (`./x.sh`, `$DIR/bin/x.sh`,
`./checkout/bin/x.sh` run in a copy of the project elsewhere; an absolute path, a copy put
on the machine that runs it, by its last part), or by its name without `.sh` (`sudo
scripts/x` for `scripts/x.sh`); a URL only when it is a repository's raw
file (rclone.org/install.sh is not the project's install.sh). These are read with
patterns, not parsed: a path built at run time is not followed. The answer enters the
cache key of the script's findings (cache.entry_key): editing the file that says it
rechecks the script. It is looked for only in text that could hold an HL109 finding.

The same files say a script is **run over ssh** (HL104): its path is the command that an
`ssh HOST` line sends (`ssh -T -p 9022 ops@manager for_production.sh 1 3`, `ssh node
"bash $DIR/start.sh"`, `ssh h 'cd /srv && ./deploy.sh'`), without `-t` or `-f` (a tty
hangs a job up; `-f` does not wait), without a redirection after it and not run in the
background (`ssh h ./x.sh &`: no one waits for that ssh). The script's stdout and stderr
are then the session, as an ssh command's are.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from heredoc_lint.layers.triggers import PRIVILEGE  # HL109's: text without them needs no answer
from heredoc_lint.project.directories import directories_up
from heredoc_lint.project.provisioning import provisioned_by

if TYPE_CHECKING:
    from collections.abc import Iterator

    from heredoc_lint.kinds import SourceKind

_DOCUMENT_SUFFIXES = frozenset(
    {".md", ".markdown", ".txt", ".rst", ".adoc", ".sh", ".bash", ".py", ".yml", ".yaml", ".mk"}
)
_DOCUMENT_NAMES = re.compile(
    r"(?:README|INSTALL|USAGE|NOTES|Makefile|GNUmakefile|Dockerfile|Containerfile)\b[\w.-]*"
    r"|[\w.-]+\.(?:dockerfile|containerfile)",
    re.IGNORECASE,
)
_DOCKERFILE = re.compile(r"(?:Dockerfile|Containerfile)\b[\w.-]*|[\w.-]+\.(?:docker|container)file")
_LARGEST = 256 * 1024  # a README or a driver script is a few pages; larger files are data
_MOST_FILES = 400  # a directory with more documents than this is a data directory
_SCRIPT_SUFFIXES = (".sh", ".bash", ".py")
# A word of a command line: what separators, quotes and operators leave (`"sudo",` too).
_WORD = re.compile(r"""[^\s;&|()<>`'",\[\]{}]+""")
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh"})
# Interpreters given a script's path: `sudo python3 x.py` runs x.py as root.
_INTERPRETERS = _SHELLS | {"python", "python2", "python3"}
_USER_OPTIONS = frozenset({"-u", "--user"})
_VALUE_OPTIONS = frozenset({"-g", "--group", "-C", "--close-from", "-p", "--prompt", "-h", "-D"})
_ROOT = frozenset({"root", "0", "#0"})
# A cluster of short flags ending in `-u`, with the user attached or not: `-Eu`, `-uwww`.
_SHORT_USER = re.compile(r"-[A-Za-tv-z]*u(.*)")
_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=")
# `$(CURDIR)`, `${DIR}`: make's and the shell's expansions read as one variable word.
_EXPANSION = re.compile(r"\$(?:\([^()]*\)|\{([^{}]*)\})")
# A variable named for the privilege command it holds (`SUDO=sudo; $SUDO ./x.sh`,
# `$suCommand bash x.sh`, `${SUDO_CMD}`): what it runs, it runs as sudo would.
_PRIVILEGE_VARIABLE = re.compile(
    r"\$\{?(?:sudo|doas|su|as_?root)(?:_?(?:cmd|command|bin|prefix))?\}?", re.IGNORECASE
)
_RAW_FILE = re.compile(r"https?://(?:raw\.githubusercontent\.com|gist\.githubusercontent\.com)/")
_DOCKER_RUNS = re.compile(r"\s*(RUN|CMD|ENTRYPOINT)\b", re.IGNORECASE)
_DOCKER_USER = re.compile(r"\s*USER\s+(\S+)", re.IGNORECASE)


SUDO, CONTAINER, SSH = "sudo", "container", "ssh"  # how a _Run runs the script


class _Run(NamedTuple):
    """A command of a document that runs a script as root, or over ssh."""

    line: int
    parts: tuple[str, ...]  # the script's path as the command gives it (_parts)
    shown: str  # the command's words, for the message
    how: str  # SUDO, CONTAINER (a Dockerfile's instruction, as root) or SSH


@dataclass(frozen=True)
class Launcher:
    """What runs a script as root (HL109's evidence kind) or over ssh, and the words
    for the message."""

    evidence: str
    why: str


def runs_as_root_by(kind: SourceKind, path: str | None, text: str) -> Launcher | None:
    """What another file of the project says runs the script or Python program at `path`
    as root; None for other kinds, text without a path, and text that names neither sudo
    nor doas."""
    if kind not in ("shell", "python") or path is None:
        return None
    if not any(name in text for name in PRIVILEGE):
        return None
    # A Python program run as root runs its shells (`os.system`, `shell=True`) as root.
    vagrantfile = provisioned_by(path) if kind == "shell" else None
    if vagrantfile is not None:
        why = f"{vagrantfile} runs it with a shell provisioner, as root by default"
        return Launcher("root-by-provisioner", why)
    return _caller(path, (SUDO, CONTAINER))


# A `&` that starts a background job (not `&&`, `>&`, `&>`, `|&`): without one, no HL104.
# The `&` first, the character before it looked at after: a pattern that starts with a
# literal lets the regex engine skip to each `&` (one that starts with a lookbehind tries
# it at every character of the file).
_BACKGROUND = re.compile(r"&(?<![&>|<]&)(?![&>])")


def runs_over_ssh_by(kind: SourceKind, path: str | None, text: str) -> Launcher | None:
    """What another file of the project (or the script's own comment) says runs the
    script at `path` as the command of an ssh session; None for other kinds, text
    without a path, and text that starts no background job."""
    if kind != "shell" or path is None or _BACKGROUND.search(text) is None:
        return None
    return _caller(path, (SSH,))


def _caller(path: str, hows: tuple[str, ...]) -> Launcher | None:
    ups = list(directories_up(path))
    whole = ups[-1][1]  # the script's path from the project's top
    for directory, below in ups:
        for document in _documents(directory or "."):
            for run in _runs(document):
                if run.how in hows and _names(run.parts, below, whole):
                    name = os.path.join(directory, os.path.basename(document))
                    where = f"{name} line {run.line}"
                    if run.how == CONTAINER:
                        why = f"{where} runs it in a container as root (`{run.shown}`)"
                        return Launcher("root-by-container", why + ", no USER before")
                    if run.how == SSH:
                        return Launcher("run-by-ssh", f"{where} runs it over ssh: `{run.shown}`")
                    return Launcher("root-by-caller", f"{where} runs it as `{run.shown}`")
    return None


def _names(parts: tuple[str, ...], below: list[str], whole: list[str]) -> bool:
    """Whether a command's path (`parts`) names the script whose path from the command's
    directory is `below` reversed, and from the project's top `whole` reversed: the
    shorter one ends the longer one.  A path longer than `below` goes on above the
    command's directory, as the script's own path does up to the top (`./checkout/bin/
    x.sh` in bin/README); past the top it says where a copy of the project is."""
    if not parts:
        return False
    if len(parts) > len(below):
        below = whole  # `sh case03/start.sh` in case04/notes.txt is not case04/start.sh
    last, name = parts[-1], below[0]
    if last != name and not (name.endswith(_SCRIPT_SUFFIXES) and last == name.rsplit(".", 1)[0]):
        return False
    shared = min(len(parts), len(below))
    return list(parts[-shared:-1]) == below[1:shared][::-1]


def _documents(directory: str) -> tuple[str, ...]:
    try:
        stat = os.stat(directory)
    except OSError:
        return ()
    return _listed(directory, stat.st_mtime_ns)


@functools.lru_cache(maxsize=256)
def _listed(directory: str, mtime_ns: int) -> tuple[str, ...]:
    """The documents of `directory`, by name (read again when an entry is added)."""
    try:
        with os.scandir(directory) as entries:
            names = sorted(
                e.name
                for e in entries
                if (
                    os.path.splitext(e.name)[1].lower() in _DOCUMENT_SUFFIXES
                    or _DOCUMENT_NAMES.fullmatch(e.name)
                )
                and e.is_file()
            )
    except OSError:
        return ()
    if len(names) > _MOST_FILES:
        return ()
    return tuple(os.path.join(directory, name) for name in names)


def _runs(document: str) -> tuple[_Run, ...]:
    try:
        stat = os.stat(document)
    except OSError:
        return ()
    if stat.st_size > _LARGEST:
        return ()
    return _read_runs(document, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=1024)
def _read_runs(document: str, mtime_ns: int, size: int) -> tuple[_Run, ...]:
    """The commands of `document` that run a script as root or over ssh (read again when
    it changes)."""
    try:
        with open(document, "rb") as handle:
            text = handle.read(_LARGEST).decode("utf-8", "replace")
    except OSError:
        return ()
    if _DOCKERFILE.fullmatch(os.path.basename(document)):
        return tuple(_container_runs(text))
    runs = _sudo_runs(text) if _names_privilege(text) else ()
    return (*runs, *(_ssh_runs(text) if "ssh" in text else ()))


def _names_privilege(text: str) -> bool:
    return any(name in text for name in PRIVILEGE) or _PRIVILEGE_VARIABLE.search(text) is not None


def _sudo_runs(text: str) -> Iterator[_Run]:
    for number, line in enumerate(text.splitlines(), 1):
        if not _names_privilege(line):
            continue
        words = _WORD.findall(_EXPANSION.sub(_variable_word, line))
        for k, word in enumerate(words):
            if word in PRIVILEGE or _PRIVILEGE_VARIABLE.fullmatch(word):
                for target, shown in _run_by(words, k):
                    yield _Run(number, _parts(target), shown, SUDO)


def _variable_word(expansion: re.Match[str]) -> str:
    """`${NAME}` as `$NAME`; any other expansion as the one word `$V`."""
    name = expansion.group(1)
    return f"${name}" if name is not None and name.isidentifier() else "$V"


def _run_by(words: list[str], k: int) -> Iterator[tuple[str, str]]:
    """The scripts that `words[k]` (sudo or doas) runs as root, each with the words that
    say so: the path it is given, or with a shell and no path, a repository's raw file
    piped or given to that shell (`curl -fsSL URL | sudo bash`)."""
    j = _command_start(words, k + 1)
    if j is None:
        return  # `sudo -u www-data ./x.sh`: not root
    interpreter = j < len(words) and os.path.basename(words[j]) in _INTERPRETERS
    shell = interpreter and os.path.basename(words[j]) in _SHELLS
    if interpreter:
        j += 1
        while j < len(words) and words[j].startswith("-") and words[j] != "-c":
            j += 1
    if j < len(words) and words[j] != "-c" and (interpreter or _looks_like_script(words[j])):
        yield words[j], " ".join(words[k : j + 1])
    elif shell:
        for url in (w for w in words if _RAW_FILE.match(w) or "://" in w and "/raw/" in w):
            yield url, f"{' '.join(words[k:j])} {url}"


def _command_start(words: list[str], j: int) -> int | None:
    """Where the command that sudo or doas runs starts, its options starting at
    `words[j]`: past them, an `env` and assignments.  None when an option names a user
    other than root."""
    while j < len(words) and words[j].startswith("-"):
        option, _, value = words[j].partition("=")
        cluster = _SHORT_USER.fullmatch(words[j])
        if cluster:  # `-uwww-data`, `-Eu www-data`: the user attached, or the next word
            option, value = "-u", cluster.group(1)
        if option in _USER_OPTIONS:
            user = value or (words[j + 1] if not value and j + 1 < len(words) else "")
            if user not in _ROOT:
                return None
            j += 0 if value else 1
        elif option in _VALUE_OPTIONS and not value:
            j += 1
        j += 1
    while j < len(words) and (words[j] == "env" or _ASSIGNMENT.match(words[j])):
        j += 1
    return j


def _looks_like_script(word: str) -> bool:
    return "/" in word or word.endswith(_SCRIPT_SUFFIXES)


def _container_runs(text: str) -> Iterator[_Run]:
    """The paths that a Dockerfile's RUN, CMD and ENTRYPOINT run while its user is root
    (an instruction goes on over lines that end in a backslash)."""
    root = True
    lines = text.splitlines()
    number = 0
    while number < len(lines):
        first = number
        instruction = lines[number]
        while instruction.endswith("\\") and number + 1 < len(lines):
            number += 1
            instruction = instruction[:-1] + " " + lines[number]
        number += 1
        user = _DOCKER_USER.match(instruction)
        if user is not None:
            root = user.group(1).split(":")[0] in _ROOT
        elif root and _DOCKER_RUNS.match(instruction):
            for word in _WORD.findall(_EXPANSION.sub("$V", instruction))[1:]:
                if _looks_like_script(word) and "://" not in word:
                    shown = " ".join(instruction.split())[:80]
                    yield _Run(first + 1, _parts(word), shown, CONTAINER)


# A word or an operator of an ssh line: the operators start the remote commands.
_TOKEN = re.compile(r"""&&|\|\||[;|&]|[^\s;&|()<>`'",\[\]{}]+""")
_OPERATORS = frozenset({"&&", "||", ";", "|", "&"})
_SSH_VALUE_LETTERS = frozenset("BbcDEeFIiJLlmOoPpQRSWw")  # ssh(1)'s options with a value
_PREFIXES = frozenset({"sudo", "doas", "nohup", "exec", "time", "env", "setsid"})
_LOCAL_BACKGROUND = re.compile(r"(?<!&)&\s*(?:#.*)?$")


def _ssh_runs(text: str) -> Iterator[_Run]:
    """The scripts that an `ssh HOST` line runs as its remote command, with no tty
    (`-t`), no `-f`, no redirection of their output after them, and not in the
    background of the line's own shell."""
    for number, line in enumerate(text.splitlines(), 1):
        if "ssh" not in line:
            continue
        # each expansion one word, of the same length: the words shown are the line's
        tokens = list(_TOKEN.finditer(_EXPANSION.sub(lambda m: "$" * len(m.group()), line)))
        for k, token in enumerate(tokens):
            if token.group() != "ssh" or k and tokens[k - 1].group() in ("-e", "--rsh"):
                continue  # `rsync -e ssh`: ssh is rsync's transport
            end = _ssh_command(tokens, k + 1)
            if end is None:
                continue
            found = tokens[end]
            after = line[found.end() :]
            # `ssh h ./x.sh > log`: its output is not the caller's; `ssh h ./x.sh &`: the
            # caller does not wait for ssh to return (`ssh h "./x.sh &"` does: the remote
            # shell runs it in the background, with the session as its output).
            if ">" not in after and not _LOCAL_BACKGROUND.search(after):
                # its words, without the quotes and commas of a string or a Python list
                shown = " ".join(line[t.start() : t.end()] for t in tokens[k : end + 1])
                yield _Run(number, _parts(found.group()), shown, SSH)


def _ssh_command(tokens: list[re.Match[str]], j: int) -> int | None:
    """The token of the script that the ssh whose options start at `tokens[j]` runs, if
    any."""
    while j < len(tokens) and tokens[j].group().startswith("-"):
        letters = tokens[j].group()[1:]
        if "t" in letters or "f" in letters:
            return None
        valued = next((i for i, c in enumerate(letters) if c in _SSH_VALUE_LETTERS), None)
        j += 2 if valued == len(letters) - 1 else 1
    j += 1  # the host
    command_start = True
    while j < len(tokens):
        word = tokens[j].group()
        if word in _OPERATORS:
            command_start = True
        elif command_start:
            prefix = word in _PREFIXES or _ASSIGNMENT.match(word) or word.startswith("-")
            if not (prefix or os.path.basename(word) in _SHELLS):
                if _looks_like_script(word):
                    return j
                command_start = False
        j += 1
    return None


def _parts(path: str) -> tuple[str, ...]:
    """The parts of a path that can name a file of the project: what follows a variable,
    `~` or a URL's host (`$DIR/bin/x.sh`, `~/app/x.sh`: `bin/x.sh`, `app/x.sh`)."""
    if "://" in path:
        path = path.split("://", 1)[1].split("?", 1)[0].split("#", 1)[0]
        path = path.split("/", 1)[1] if "/" in path else ""
    parts = [p for p in path.split("/") if p and p != "."]
    if path.startswith("/"):
        # A place on the machine that runs it (`/opt/vpn/shell/install.sh`), where a copy
        # of the script was put: its directories need not be the project's.
        return tuple(parts[-1:])
    for k in range(len(parts) - 1, -1, -1):
        if parts[k].startswith(("$", "~")) or parts[k] == "..":
            parts = parts[k + 1 :]
            break
    return tuple(parts)
