r"""`sudo CMD > f`: the calling shell, not sudo, opens the file.

## What it does
Finds output redirections on a command run with `sudo` (or `doas`):
`sudo echo 1 > /proc/sys/net/ipv4/ip_forward`, `sudo cat > /etc/motd << EOF`,
`sudo echo x >> f`, `sudo sed ... > /etc/app.conf`. Also behind a variable that
the script only ever sets to sudo (or doas) or to nothing (`SUDO=""; [ "$EUID"
-ne 0 ] && SUDO=sudo`, then `$SUDO echo x >> /etc/hosts`): wherever the script
is not root, that is sudo.

## Why is this bad?
The redirection is not part of the command that sudo runs: the calling
shell opens the file, with the caller's rights, before sudo even starts. Only
the command gets root; the write does not. Where the caller may not write,
the command fails with `Permission denied` and the file is unchanged; where it
may, the file is created and owned by the caller instead of root.

`sudo echo`, `sudo printf` and `sudo cat` reading stdin need no privilege at
all, so with them any redirected file is reported, except one in the caller's
own areas (`~/`, `$HOME/`, `/home/`, `/tmp/`), where the write works and the
sudo is only redundant; so is a relative file in a remote login shell's command
before any `cd` (sshd starts that shell in the login's home), and a relative file
that the script then moves or copies into place with sudo, with no `cd` between
(`sudo echo deb ... > x.list`, then `sudo mv x.list /etc/apt/`: staged on purpose).
With other commands only a file under a system directory (`/etc`, `/proc`, `/sys`, `/usr`, `/var`,
`/root`, ...) is reported: `sudo journalctl > out.txt` is a normal way to
save root-only output to one's own file, as is a documentation's stand-in
(`/path/to/file`); and with `sudo -u USER` (dropping
privileges, often from a root script) only `echo`, `printf` and `cat`.
Nothing is reported for `/dev/null`, `/dev/stdout`, descriptor duplications
(`2>&1`), input redirections, a redirection inside the string of
`sudo sh -c '...'`, or when the caller is root already
(`ssh root@host "sudo ..."`, a transcript's `root@host:~# sudo ...`).

A field of documentation for the reader to fill in is no redirection: in
`sudo cp /tmp/app-<VERSION>/app /usr/local/bin` (a runbook's `<NAME>` glued
inside a word, `/home/<user>/x`, `<name>.conf`, `<path to file>/x.tar.bz2`) bash
would read a file `VERSION` and write `/app`, which no author means, so its `<` and `>` are not
reported. A real redirection into a path that holds such a field,
`sudo echo x > /etc/<file>`, is reported, with the whole name and no fix.

A script that has established that it runs as root, with a guard that exits
(or re-runs itself with `exec sudo`) otherwise, writes the file with root's
rights: `[ "$EUID" -ne 0 ] && { echo "run as root"; exit 1; }`,
`if [ "$(id -u)" != 0 ]; then ...; exit 1; fi`, `[[ $EUID -eq 0 ]] || exit`.
After such a guard (or anywhere in a function, which runs when called) the
finding is only info; so it is in a script that runs, without sudo, what only
root may do (`apt-get install`, `systemctl restart`, `useradd`, `rm` or
`mkdir` under /etc, /usr, /boot): run as
anyone else it fails there anyway (not when the script runs that same program
with sudo elsewhere: `sudo systemctl stop a`, then `systemctl start b`, is a sudo
left out, not a root shell); and in a script that another file of the
project runs as root (looked for in the script's directory and those above it,
up to the project's `.git`): a Vagrant shell provisioner, which runs as root
unless told `privileged: false` (`path: "files/" + name`, `inline: "bash
/vagrant/files/x.sh"`); a command run with sudo (`sudo ./install.sh` in a
README, `ssh "$NODE" sudo ./bench/server.sh` in a driver script, `curl -fsSL
https://raw.githubusercontent.com/o/r/main/x.sh | sudo bash`); a Dockerfile's
`RUN`, `CMD` or `ENTRYPOINT` with no `USER` before it. So is a Python program's
shell (`os.system`, `shell=True`) when another file runs the program with sudo
(`sudo python3 bin/x.py`, `sudo /opt/lab/x.py`). It is info too when the
script hands the same file to `chmod` or `chown` (`sudo chmod 777 f` before
the write, or `sudo chown pi f` after it): the script keeps that file writable
for its caller.
A `# shellcheck disable=SC2024` before the command
counts as a suppression of this rule.

## Example
```bash
sudo echo 1 > /proc/sys/net/ipv4/ip_forward
sudo cat > /etc/motd << EOF
Welcome
EOF
```

## Use instead
```bash
echo 1 | sudo tee /proc/sys/net/ipv4/ip_forward > /dev/null
sudo tee /etc/motd > /dev/null << EOF
Welcome
EOF
```
`tee -a` appends, like `>>`; `> /dev/null` drops tee's copy of the data on
stdout.

## Fix safety
The fix rewrites the redirection into `sudo tee [-a] FILE > /dev/null`: the
command's output is piped into tee (`sudo cat` reading stdin is replaced by
tee itself), keeping sudo's options. It is safe for `echo`, `printf` and
`cat` reading stdin into a file under a system directory: there the command
cannot fail and the write can only have been meant with root's rights. It is
unsafe otherwise: for a file the caller may write, the fixed command creates it
owned by root; and for other commands the exit status of `CMD | sudo tee` is
tee's, so a failure of the command is no longer seen by `&&`, `||` or
`set -e` (unless `set -o pipefail`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from heredoc_lint.fixes.edits import layer_fix
from heredoc_lint.layers.layer import Call, Layer, calls, calls_behind, calls_behind_variable
from heredoc_lint.layers.triggers import PRIVILEGE
from heredoc_lint.layers.wrappers import Role, SshCall, command_name
from heredoc_lint.model import Applicability, Finding, Fix
from heredoc_lint.rules.base import Context, FixAvailability, Invalid, finding, quote_snippet, rule
from heredoc_lint.shell import evidence
from heredoc_lint.shell.definitions import assigned_values
from heredoc_lint.shell.syntax import Command, Redirect
from heredoc_lint.shell.words import Word

# Commands that need no privilege: with them, sudo can only have been meant for the write.
NO_PRIVILEGE_NEEDED = frozenset({"echo", "printf", "yes"})
HARMLESS_TARGETS = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/")
USER_AREAS = ("/tmp/", "/var/tmp/", "/dev/shm/", "/home/", "/run/user/")
# Documentation's stand-in for a path the reader picks: whether they may write it is theirs.
STAND_IN_PATHS = ("/path/to/",)
# Commands that hand a file to its writer: a script that gives the target to one of them
# keeps that file writable for its caller (`sudo chmod 777 f; sudo echo x > f`).
OWNERSHIP = frozenset({"chmod", "chown"})
# Commands that change the shell's working directory (a relative path is then elsewhere).
DIRECTORY_CHANGES = frozenset({"cd", "pushd"})
# Commands that put a file staged by the caller in place, run with sudo.
STAGED_MOVES = frozenset({"mv", "cp", "install"})
# sudo options that change the target user (the write is then not root's either).
USER_OPTIONS = frozenset({"-u", "--user"})
STDOUT_WRITES = frozenset({">", ">>", ">|"})
BOTH_WRITES = frozenset({"&>", "&>>"})
# A documentation placeholder `<VERSION>`, `<your-user>`, `<path to file>` (a few words;
# not `<VERSION>>`: an append).
PLACEHOLDER = re.compile(r"<[A-Za-z_][\w-]*(?: [A-Za-z_][\w-]*){0,3}>(?!>)")
# What may follow a placeholder inside its word: `<VERSION>/app`, `<name>.conf`, `<user>@h`.
GLUED_AFTER = re.compile(r"[\w/.@:-]")
METACHARS = frozenset(" \t\n;&|()<>")
# A word that bash reads as the descriptor of a redirection: `0<in`, `{fd}<in`.
FD_WORD = re.compile(r"\d+|\{[A-Za-z_]\w*\}")


def _is_dup(redirect: Redirect) -> bool:
    """`2>&1`, `>&2`, `>&-`: a descriptor duplication, no file."""
    if redirect.op not in (">&", "<&"):
        return False
    target = redirect.target
    value = target.value if target is not None else ""
    return value == "-" or value.isdigit() or (value.endswith("-") and value[:-1].isdigit())


def _harmless(value: str) -> bool:
    return any(value == t or (t.endswith("/") and value.startswith(t)) for t in HARMLESS_TARGETS)


def _system_path(value: str) -> bool:
    """An absolute path that ordinary users cannot usually write."""
    if not value.startswith("/") or _harmless(value) or value.startswith(STAND_IN_PATHS):
        return False
    return not any(value.startswith(area) or value == area.rstrip("/") for area in USER_AREAS)


def _root_shown(
    layer: Layer, context: Context, guard: evidence.Guard | None, root_work: Command | None
) -> tuple[str, str] | None:
    """The evidence kind and words of what shows the calling shell is root: a guard that
    exits otherwise, work that only root may do, done without sudo, or another file of
    the project that runs the script as root."""
    if guard is not None:
        line = context.file_text.count("\n", 0, layer.file_offset(guard.start)) + 1
        return "root-by-guard", f"the root check on line {line} exits unless that shell is root"
    if root_work is not None:
        line = context.file_text.count("\n", 0, layer.file_offset(root_work.start)) + 1
        work = quote_snippet(layer.text[root_work.start : root_work.end], 40)
        return "root-by-action", (
            f"the script runs `{work}` without sudo on line {line}, which only root may do"
        )
    if context.root_launcher is not None and layer.depth == 0:
        return context.root_launcher.evidence, context.root_launcher.why
    return None


@dataclass(frozen=True)
class _Handed:
    """What the layer hands to chmod or chown (by source text), each with the words
    saying where: the script keeps them writable for their writer."""

    files: dict[str, str]
    trees: dict[str, str]  # directories handed with -R, each ending in "/"

    def where(self, target: str) -> str | None:
        """Where `target` is handed over: itself, or a directory above it with -R."""
        if target in self.files:
            return self.files[target]
        return next((w for tree, w in self.trees.items() if target.startswith(tree)), None)


def _recursive(words: Sequence[Word]) -> bool:
    """`chmod -R`, `chown --recursive`, `chmod -Rf`."""
    return any(
        w.value == "--recursive" or (w.value[:1] == "-" and w.value[1:2] != "-" and "R" in w.value)
        for w in words
        if w.static
    )


def _made_writable(layer: Layer, context: Context) -> _Handed:
    handed = _Handed({}, {})
    for call in calls(layer, OWNERSHIP):
        line = context.file_text.count("\n", 0, layer.file_offset(call.command.start)) + 1
        where = f"`{call.name}` on line {line}"
        recursive = _recursive(call.words[1:])
        for word in call.words[1:]:
            text = layer.text[word.start : word.end]
            handed.files.setdefault(text, where)
            if recursive and text.startswith("/"):
                above = f"`{call.name} -R` on a directory above it, on line {line}"
                handed.trees.setdefault(text.rstrip("/") + "/", above)
    return handed


def _users_own(value: str) -> bool:
    """A path in the caller's own areas (`~/x`, `$HOME/x`, `/home/pi/x`, `/tmp/x`): a
    redirection there works without root, and the sudo before `echo` is only redundant."""
    return value.startswith(("~", "$HOME", "${HOME}", *USER_AREAS))


def _in_login_home(layer: Layer, command: Command, value: str) -> bool:
    """A relative path in a remote login shell's command before any `cd`: sshd starts
    that shell in the login's home, so the file is the caller's own, as `~/x` is
    (`ssh h "sudo echo deb ... > x.list && sudo mv x.list /etc/apt/..."`, round aa)."""
    invocation = layer.invocation
    if invocation is None or invocation.role not in (Role.SSH, Role.CHANNEL):
        return False
    if value.startswith(("/", "~", "$")):
        return False
    return not any(
        c.name in DIRECTORY_CHANGES and c.start < command.start for c in layer.script.commands
    )


def _staged(layer: Layer, command: Command, value: str) -> bool:
    """A relative file that a later command of the same shell moves or copies with sudo,
    with no `cd` between (`sudo echo deb ... > x.list`, then `sudo mv x.list /etc/apt/`):
    the caller writes it on purpose, in a place of its own, and root puts it in place."""
    if value.startswith(("/", "~", "$")):
        return False
    name = value.removeprefix("./")
    for call in calls_behind(layer, PRIVILEGE):
        if call.command.start <= command.start or call.name not in STAGED_MOVES:
            continue
        if any(
            c.name in DIRECTORY_CHANGES and command.start < c.start < call.command.start
            for c in layer.script.commands
        ):
            return False
        sources = [w.value.removeprefix("./") for w in call.words[1:-1] if w.static]
        if name in sources:
            return True
    return False


def _stdin_cat(call: Call) -> bool:
    """`cat` or `cat -`: it only copies its stdin."""
    return call.name == "cat" and all(w.static and w.value == "-" for w in call.words[1:])


def _user_of_ssh(command: Command, call: SshCall) -> str | None:
    """The login user of the ssh `call` (in `command`), when it is written down."""
    login = call.option("l")
    if login is not None and login.static:
        return login.value
    if call.host_index is not None:
        host = command.words[call.host_index]
        if host.static and "@" in host.value:
            return host.value.rsplit("@", 1)[0]
    return None


def _sudo_to_root(words: tuple[Word, ...]) -> bool:
    """`sudo ...` without `-u` (or with `-u root`)."""
    return _target_user(words) in ("root", "#0")


def _target_user(words: tuple[Word, ...]) -> str:
    for k, word in enumerate(words):
        if word.static and word.value in USER_OPTIONS and k + 1 < len(words):
            return words[k + 1].value
        if word.static and word.value.startswith("--user="):
            return word.value.split("=", 1)[1]
    return "root"


def _caller_is_root(layer: Layer, at: int) -> bool:
    """Whether the shell parsing `layer` is known to run as root where it reads the
    command at `at`."""
    current: Layer | None = layer
    while current is not None:
        command, invocation = current.command, current.invocation
        prefix: tuple[Word, ...] = ()
        if current.parent is None:
            # A transcript's `root@host:~# cmd`: root's shell reads the command.
            if any(a <= at < b for a, b in current.root_spans):
                return True
            prefix = current.prefix_words  # a root from an argv: `["sudo", "sh", "-c", S]`
        elif command is not None and invocation is not None:
            if invocation.ssh is not None:
                return _user_of_ssh(command, invocation.ssh) == "root"
            prefix = command.words[: invocation.index]
        for k, word in enumerate(prefix):
            if command_name(word) in PRIVILEGE and _sudo_to_root(prefix[k + 1 :]):
                return True
        if command is not None:
            at = command.start  # the parent reads the command that starts this layer there
        current = current.parent
    return False


def _placeholders(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans of the documentation placeholders between `start` and `end` of `text`.

    `cp /tmp/app-<VERSION>/app /usr/local/bin`: a `<NAME>` glued inside a word (right
    after a character of it, or right before one) is a field for the reader to fill in.
    bash would read `<VERSION` and `>/app` as redirections (reading a file `VERSION` and
    writing `/app`), which no author means. A `<` right after a `<` is a heredoc
    (`<<EOF>f`), after a descriptor word (`0<in>out`) a redirection of that descriptor."""
    spans: list[tuple[int, int]] = []
    for match in PLACEHOLDER.finditer(text, start, end):
        a, b = match.span()
        word = a
        while word > 0 and text[word - 1] not in METACHARS and text[word - 1] not in "'\"":
            word -= 1
        before = text[a - 1] if a > 0 else "\n"
        if before == "<" or (word < a and FD_WORD.fullmatch(text, word, a)):
            continue
        glued_before = before not in METACHARS
        glued_after = b < len(text) and GLUED_AFTER.match(text, b) is not None
        if glued_before or glued_after:
            spans.append((a, b))
    return spans


def _glued_end(text: str, pos: int, spans: list[tuple[int, int]]) -> int:
    """The end of the word at `pos` when a placeholder continues it there (`/etc/<file>`)."""
    starts = dict(spans)
    end = pos
    while end in starts:
        end = starts[end]
        while end < len(text) and text[end] not in METACHARS:
            end += 1
    return end


def _command_end(text: str, command: Command) -> int:
    """The end of `command` with its redirections, and the `>` of a placeholder that ends
    it (`> /etc/<file>`), which the parser leaves out."""
    end = max([command.end, *(r.end for r in command.redirects)])
    while end < len(text) and text[end] not in METACHARS - {">"}:
        end += 1
    return end


def _offending(redirect: Redirect) -> str | None:
    """The written file's name when this redirection writes a file, else None."""
    if not redirect.writes or redirect.heredoc is not None or _is_dup(redirect):
        return None
    if redirect.op == "<>":
        return None
    target = redirect.target
    if target is None:
        return None
    if _harmless(target.value):
        return None
    return target.value


def _anchor_end(layer: Layer, redirect: Redirect) -> int:
    """End of the operator: `>`, `>>`, `2>`, `&>`."""
    text = layer.text
    i = redirect.start
    while i < redirect.end and (text[i].isdigit() or text[i] in "&<>|"):
        i += 1
    return max(i, redirect.start + 1)


def _span_with_space(layer: Layer, redirect: Redirect) -> tuple[int, int]:
    start = redirect.start
    while start > 0 and layer.text[start - 1] in " \t":
        start -= 1
    return start, redirect.end


def _tee_can_take(command: Command, redirect: Redirect) -> bool | None:
    """Whether a pipe to tee can take over the redirection: None if not; else whether it
    wrote stderr too (`&>`, `>&f`), which then needs a `2>&1` before the pipe."""
    fd_ok = redirect.fd in (None, 1) and redirect.op in STDOUT_WRITES
    both = redirect.fd is None and (
        redirect.op in BOTH_WRITES or (redirect.op == ">&" and not _is_dup(redirect))
    )
    if not (fd_ok or both):
        return None
    for other in command.redirects:
        if other is redirect or not other.writes or other.heredoc is not None:
            continue
        if other.source_fd == 1 or other.op in BOTH_WRITES:
            return None  # stdout redirected twice
        if _is_dup(other) and other.start < redirect.start:
            return None  # `2>&1 > f`: stderr keeps the old stdout, a pipe would change that
    return both


def _fix(
    layer: Layer,
    call: Call,
    redirect: Redirect,
    sudo: int,
    target_path: str,
) -> Fix | None:
    command, words, real = call.command, call.argv, call.index
    text = layer.text
    if sudo != 0 or redirect.target is None or command.next_op in ("|", "|&"):
        return None
    if text[redirect.target.end : redirect.end].strip():
        # `sudo echo > F hello`: bash gives `hello` to echo, but the parser keeps it in the
        # redirection, so a rewrite that moves the redirection would drop it.
        return None
    both = _tee_can_take(command, redirect)
    if both is None:
        return None
    append = redirect.op in (">>", "&>>")
    target_src = text[redirect.target.start : redirect.target.end]
    separator = "-- " if redirect.target.value.startswith("-") else ""
    prefix_src = text[words[0].start : words[real].start].rstrip()
    tee = f"{prefix_src} tee{' -a' if append else ''} {separator}{target_src} > /dev/null"
    real_words = call.words
    spans: list[tuple[int, int, str]]
    pointless = call.name in NO_PRIVILEGE_NEEDED
    if _stdin_cat(call):
        spans = [
            (
                real_words[0].start,
                real_words[-1].end,
                f"tee{' -a' if append else ''} {separator}{target_src}",
            ),
            (redirect.start, redirect.end, "> /dev/null"),
        ]
        pointless = True
    else:
        a, b = _span_with_space(layer, redirect)
        keep = " 2>&1" if both else ""
        end = max([command.end, *(r.end for r in command.redirects)])
        # When the redirection ends the statement, one edit: it stays inside the word of an
        # outer layer (`ssh h "... > f"`), so it keeps that word's quoting.
        spans = [(a, b, keep), (end, end, f" | {tee}")]
        if b == end:
            spans = [(a, b, f"{keep} | {tee}")]
        if pointless:
            spans.append((words[0].start, words[real].start, ""))
    safe = pointless and _system_path(target_path)
    return layer_fix(
        layer,
        spans,
        Applicability.SAFE if safe else Applicability.UNSAFE,
        f"Write the file with `{prefix_src} tee{' -a' if append else ''}`",
    )


def _privilege_variables(layer: Layer) -> frozenset[str]:
    """The names the layer only ever assigns sudo (or doas) or nothing, and sudo at least
    once: `SUDO=""; [ "$EUID" -ne 0 ] && SUDO=sudo`. `$SUDO CMD` is then `sudo CMD`
    wherever the script is not root."""
    found = set()
    for name, values in assigned_values(layer.script).items():
        words = [v.split() for v in values if v is not None]
        if len(words) != len(values) or not any(words):
            continue
        if all(not w or (w[0] in PRIVILEGE and not USER_OPTIONS & set(w)) for w in words):
            found.add(name)
    return frozenset(found)


def _behind_variable(layer: Layer) -> Iterator[Call]:
    """The commands run behind such a variable: `$SUDO echo x >> /etc/hosts` (the
    variable is the call's word 0)."""
    names = _privilege_variables(layer)
    return calls_behind_variable(layer, names) if names else iter(())


def _reported_writes(
    layer: Layer, command: Command, pointless: bool
) -> Iterator[tuple[Redirect, Word, int, str, int]]:
    """The redirections of `command` that write a file HL109 reports, each with its target
    word, the end of its operator, the file's name and the end of its target: past a
    placeholder that continues the name (`> /etc/<file>`), which the parser leaves out."""
    fields = _placeholders(layer.text, command.start, _command_end(layer.text, command))
    for redirect in command.redirects:
        op_end = _anchor_end(layer, redirect)
        if any(redirect.start <= p < op_end for span in fields for p in (span[0], span[1] - 1)):
            continue  # the `<` or `>` of a placeholder: `cp /tmp/app-<VERSION>/app ...`
        path, target = _offending(redirect), redirect.target
        if path is None or target is None:
            continue
        target_end = _glued_end(layer.text, target.end, fields)
        if target_end > target.end:
            path = layer.text[target.start : target_end]
        if _system_path(path) or (
            pointless
            and not _users_own(path)
            and not _in_login_home(layer, command, path)
            and not _staged(layer, command, path)
        ):
            yield redirect, target, op_end, path, target_end


def _why_it_works(
    root: tuple[str, str] | None, writable: str | None, target_src: str
) -> tuple[str, str] | None:
    """The evidence kind and words of why the calling shell's write works all the same:
    that shell is root, or the script hands it the file (`writable`: where)."""
    if root is not None:
        kind, why = root
        return kind, f"{why}, so that shell is root and the write works"
    if writable is not None:
        why = f"the script hands `{target_src}` to {writable}, so that shell may write it"
        return "target-made-writable", why
    return None


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    # sudo is a prefix (behind env, nohup... too): only a command named as one can hold it.
    found = [(c, c.behind(PRIVILEGE)) for c in calls_behind(layer, PRIVILEGE)]
    found += [(c, 0) for c in _behind_variable(layer) if c.command.redirects]
    if not any(r.writes for c, _ in found for r in c.command.redirects):
        return
    # What the file's shell does without sudo, read once for all its calls.
    with_sudo = frozenset(c.name for c, _ in found)
    root_work = evidence.root_by_action(layer.script, with_sudo) if layer.depth == 0 else None
    made_writable = _made_writable(layer, context)
    for call, sudo in found:
        command, real_words = call.command, call.words
        if sudo is None or _caller_is_root(layer, command.start):
            continue
        guard = evidence.root_guard_before(layer.script, command.start)
        runs_as = _target_user(call.argv[sudo + 1 : call.index])
        pointless = call.name in NO_PRIVILEGE_NEEDED or _stdin_cat(call)
        if runs_as not in ("root", "#0") and not pointless:
            # `sudo -u postgres pg_dump > /var/backups/db.sql`: dropping privileges, often
            # from a root script whose own shell is meant to write the file.
            continue
        for redirect, target, op_end, path, target_end in _reported_writes(
            layer, command, pointless
        ):
            tool = command.words[sudo].value
            name = real_words[0].value
            shown = layer.text[redirect.start : max(redirect.end, target_end)]
            target_src = layer.text[target.start : target_end]
            append = " -a" if redirect.op in (">>", "&>>") else ""
            root = _root_shown(layer, context, guard, root_work)
            works = _why_it_works(root, made_writable.where(target_src), target_src)
            if works is not None:
                kind, why = works
                message = (
                    f"`{shown}` is opened by the calling shell, not by {tool}; {why}. "
                    f"`{tool} tee{append} {target_src} > /dev/null` would not depend on it"
                )
            else:
                kind = "unprivileged-redirect"
                message = (
                    f"`{shown}` is opened by the calling shell, with the caller's rights, "
                    f"before {tool} starts: only `{name}` runs as {runs_as}. Where the caller "
                    f'may not write `{path}` the command fails with "Permission denied" and '
                    f"the file is unchanged; elsewhere the file is written as the caller. Use "
                    f"`{tool} tee{append} {target_src} > /dev/null`"
                )
            glued = target_end > target.end  # `> /etc/<file>`: no fix
            yield finding(
                layer,
                "HL109",
                kind,
                message,
                redirect.start,
                op_end,
                None if glued else _fix(layer, call, redirect, sudo, path),
            )


# -- examples (tests/test_rule_lists.py) ---------------------------------------------------
_SAYS = "is opened by the calling shell"
INVALID = (
    Invalid(
        "#!/bin/bash\nsudo echo 1 > /proc/sys/net/ipv4/ip_forward\n",
        ">",
        "#!/bin/bash\necho 1 | sudo tee /proc/sys/net/ipv4/ip_forward > /dev/null\n",
        "error",
        _SAYS,
    ),
    Invalid(
        "sudo cat > /etc/motd << EOF\nWelcome\nEOF\n",
        ">",
        "sudo tee /etc/motd > /dev/null << EOF\nWelcome\nEOF\n",
        "error",
        _SAYS,
    ),
    Invalid(
        "sudo cat << EOF > /etc/motd\nWelcome\nEOF\n",
        ">",
        "sudo tee /etc/motd << EOF > /dev/null\nWelcome\nEOF\n",
        "error",
        _SAYS,
    ),
    Invalid("sudo echo x >> f\n", ">>", "echo x | sudo tee -a f > /dev/null\n", "error", _SAYS),
    Invalid(
        "sudo printf '%s\\n' x >> /srv/notes\n",
        ">>",
        "printf '%s\\n' x | sudo tee -a /srv/notes > /dev/null\n",
        "error",
        _SAYS,
    ),
    Invalid(
        "sudo grep -v old /etc/hosts > /etc/hosts.new\n",
        ">",
        "sudo grep -v old /etc/hosts | sudo tee /etc/hosts.new > /dev/null\n",
        "error",
        _SAYS,
    ),
    Invalid(
        "sudo -u www printf '%s\\n' a >> \"/etc/a b\" && echo ok\n",
        ">>",
        "printf '%s\\n' a | sudo -u www tee -a \"/etc/a b\" > /dev/null && echo ok\n",
        "error",
        _SAYS,
    ),
    Invalid(
        "sudo systemctl status nginx &> /var/log/status.log\n",
        "&>",
        "sudo systemctl status nginx 2>&1 | sudo tee /var/log/status.log > /dev/null\n",
        "error",
        _SAYS,
    ),
    Invalid("sudo apt-get install -y x 2> /var/log/apt-errors\n", "2>", None, "error", _SAYS),
    Invalid(
        "sudo -E env FOO=1 sed s/a/b/ /etc/a > /etc/b\n",
        ">",
        "sudo -E env FOO=1 sed s/a/b/ /etc/a | sudo -E env FOO=1 tee /etc/b > /dev/null\n",
        "error",
        _SAYS,
    ),
    Invalid(
        "x | sudo cat >> /etc/hosts\n",
        ">>",
        "x | sudo tee -a /etc/hosts > /dev/null\n",
        "error",
        _SAYS,
    ),
    Invalid(
        "doas echo 1 > /sys/class/leds/x/brightness\n",
        ">",
        "echo 1 | doas tee /sys/class/leds/x/brightness > /dev/null\n",
        "error",
        _SAYS,
    ),
    Invalid(
        'ssh web-1 "sudo echo 1 > /proc/sys/vm/drop_caches"\n',
        ">",
        'ssh web-1 "echo 1 | sudo tee /proc/sys/vm/drop_caches > /dev/null"\n',
        "error",
        _SAYS,
    ),
    Invalid(
        "ssh ops@web-1 'sudo cat > /etc/app.conf' < app.conf\n",
        ">",
        "ssh ops@web-1 'sudo tee /etc/app.conf > /dev/null' < app.conf\n",
        "error",
        _SAYS,
    ),
    Invalid(
        "sudo echo 1 > /proc/sys/net/ipv4/ip_forward\n",
        ">",
        "echo 1 | sudo tee /proc/sys/net/ipv4/ip_forward > /dev/null\n",
    ),
    Invalid(
        "sudo cat >> /etc/motd << 'EOF'\n$x\nEOF\n",
        ">>",
        "sudo tee -a /etc/motd > /dev/null << 'EOF'\n$x\nEOF\n",
    ),
    Invalid(
        "sudo grep -v old /etc/hosts > /etc/hosts.new 2>/dev/null; echo next\n",
        ">",
        "sudo grep -v old /etc/hosts 2>/dev/null"
        " | sudo tee /etc/hosts.new > /dev/null; echo next\n",
    ),
    Invalid(  # moved only after a `cd`: another file than the one written
        "sudo echo deb x > x.list\ncd /etc/apt\nsudo mv x.list sources.list.d/\n",
        ">",
        "echo deb x | sudo tee x.list > /dev/null\ncd /etc/apt\nsudo mv x.list sources.list.d/\n",
        "error",
        _SAYS,
    ),
    Invalid(  # after a `cd`, the relative file is no longer in the login's home
        'ssh h "cd /etc/apt && sudo echo deb x > x.list"\n',
        ">",
        'ssh h "cd /etc/apt && echo deb x | sudo tee x.list > /dev/null"\n',
        "error",
        _SAYS,
    ),
    Invalid(  # `systemctl start` without sudo, but `sudo systemctl` above: no root shell
        "sudo systemctl stop a\nsudo cat > /etc/b.conf << EOF\nx\nEOF\nsystemctl start b\n",
        ">",
        "sudo systemctl stop a\nsudo tee /etc/b.conf > /dev/null << EOF\nx\nEOF\n"
        "systemctl start b\n",
        "error",
        _SAYS,
    ),
)
VALID = (
    # a redundant sudo before echo into the caller's own files: the redirection works
    "sudo printf '%s\\n' x >> ~/notes\n",
    "sudo echo a > /home/pi/app/.mode\n",
    "sudo echo a > $HOME/.mode\n",
    "echo 1 | sudo tee /proc/sys/net/ipv4/ip_forward > /dev/null\n",
    "sudo tee /etc/motd > /dev/null << EOF\nhi\nEOF\n",
    "sudo apt-get update > /dev/null 2>&1\n",
    "sudo systemctl restart app 2>&1\n",
    "sudo make install >&2\n",
    "sudo cmd > /dev/stderr\n",
    "sudo grep root < /etc/shadow\n",
    "sudo sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'\n",
    "sudo bash -c \"cat > /etc/motd\" <<'EOF'\nhi\nEOF\n",
    "sudo journalctl -u app > app.log\n",  # root-only output saved to one's own file
    "sudo cat /root/report.txt > /tmp/report.txt\n",
    "sudo tar czf - /etc > /home/ops/etc.tgz\n",
    "echo 1 > /proc/sys/net/ipv4/ip_forward\n",  # no sudo: another problem
    'ssh root@web-1 "sudo echo 1 > /proc/sys/vm/drop_caches"\n',  # the caller is root
    'ssh -l root web-1 "sudo echo 1 > /proc/sys/vm/drop_caches"\n',
    "sudo bash -c 'sudo echo 1 > /proc/sys/vm/drop_caches'\n",
    "{ sudo echo x; } > out.txt\n",
    "sudo -u postgres pg_dump app > /var/backups/app.sql\n",  # dropping privileges
    # a relative file of a remote login shell is in the login's home (staged, then moved)
    'ssh h "sudo echo deb x > x.list && sudo mv x.list /etc/apt/sources.list.d/"\n',
    # a relative file staged by the caller, then put in place by root
    "sudo echo deb x > sources.list\nsudo mv ./sources.list /etc/apt/\n",
    # a documentation field of a few words glued to a path: no redirection meant
    "sudo tar -xjf <path to file>/toolchain.tar.bz2\n",
)


RULE = rule(
    "HL109",
    "sudo-redirect",
    check,
    fix=FixAvailability.SOMETIMES,
)
