"""Which files to check and what kind each one is."""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from heredoc_lint.kinds import SourceKind
from heredoc_lint.shell.names import SHELLS

MAX_BYTES = 10 * 1024 * 1024
SHELL_SUFFIXES = frozenset({".sh", ".bash", ".ksh", ".zsh"})
PYTHON_SUFFIXES = frozenset({".py", ".pyi"})
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
# The writer's temp files, `.NAME.XXXX.heredoc-lint`, outlive a fix only when the
# process was killed mid-write; they are never checked.
TEMP_SUFFIX = ".heredoc-lint"
_PYTHON_SHEBANG = re.compile(rb"^#![ \t]*\S*?(?:/|env[ \t]+(?:-\S+[ \t]+)*)python[0-9.]*\b")
_SHEBANG = re.compile(
    rb"^#![ \t]*\S*?(?:/|env[ \t]+(?:-\S+[ \t]+)*)(%s)\b" % "|".join(sorted(SHELLS)).encode()
)
_ALWAYS_SKIPPED = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".tox",
        ".heredoc_lint_cache",
    }
)


# Names and suffixes that say a file named on the command line is not a shell script,
# though it has no suffix heredoc-lint reads: other languages, data, documents, binaries.
# (What is not here is read as shell, as ShellCheck reads what it is given.)
NOT_SHELL_NAMES = frozenset(
    {"Dockerfile", "Containerfile", "Makefile", "GNUmakefile", "makefile", "Jenkinsfile"}
    | {"Vagrantfile", "Gemfile", "Rakefile", "Brewfile", "Pipfile", "CMakeLists.txt"}
)
NOT_SHELL_SUFFIXES = frozenset(
    # other languages (fish, csh and PowerShell are not sh)
    ".c .h .cc .cpp .cxx .hpp .go .rs .java .kt .scala .swift .cs .rb .pl .pm .php .lua .r "
    ".js .mjs .cjs .ts .tsx .jsx .vue .fish .csh .tcsh .ps1 .psm1 .bat .cmd .sql .tf .hcl "
    ".dockerfile .mk .cmake .nix .el .vim .awk .sed .jq "
    # data and documents
    ".json .jsonl .toml .ini .xml .html .htm .css .scss .svg .csv .tsv .lock "
    ".rst .adoc .tex .diff .patch .ipynb .yml .yaml "
    # binaries and archives
    ".png .jpg .jpeg .gif .ico .webp .pdf .zip .gz .tgz .bz2 .xz .zst .tar .jar .whl .so "
    ".o .a .dylib .dll .exe .pyc .class .wasm .bin .db .sqlite".split()
)
_HEAD = 8000  # bytes of a file named on the command line read to learn what it holds (as git)


@dataclass(frozen=True)
class Source:
    path: Path
    kind: SourceKind  # shell, python, markdown, actions


@dataclass(frozen=True)
class Skipped:
    path: Path
    reason: str


def _mode(path: Path) -> int | None:
    try:
        return os.stat(path).st_mode
    except OSError:
        return None


def has_extension(path: Path) -> bool:
    """Whether the name ends in a file-type suffix: `notes.txt`, but not the version
    in `python3.5` or `aclocal-1.16`."""
    return bool(path.suffix) and not path.suffix[1:].isdigit()


def kind_of(
    path: Path, head: bytes | None = None, mode: int | None = None, *, explicit: bool = False
) -> SourceKind | None:
    """The kind of a file from its name, or its first line when it has no suffix; None:
    not a file heredoc-lint reads.  `head` and `mode` (its stat mode) save reading them
    again where they are known.

    `explicit`: the user named the file (on the command line): read as shell unless its
    name (`not_shell_name`) or its content (another interpreter's `#!` line, a binary)
    says otherwise, as ShellCheck reads what it is given.  Otherwise (a file found in a
    directory walk) a file is read only when its name or its shebang says it is one."""
    if path.suffix in SHELL_SUFFIXES:
        return "shell"
    if path.suffix in PYTHON_SUFFIXES:
        return "python"
    if path.suffix.lower() in MARKDOWN_SUFFIXES:  # GitHub renders `README.MD`, `notes.Md`
        return "markdown"
    if path.suffix == TEMP_SUFFIX:
        return None
    if path.suffix in (".yml", ".yaml"):
        parts = path.parts
        in_workflows = len(parts) >= 3 and parts[-3:-1] == (".github", "workflows")
        return "actions" if in_workflows else None
    if explicit:
        if not_shell_name(path):
            return None
        if head is None:
            head = _head(path, mode, _HEAD)
            if head is None:  # not a regular file, or unreadable: reading it says why
                return "shell"
        return _kind_by_content(head)
    if has_extension(path):
        mode = _mode(path) if mode is None else mode
        if mode is None or not mode & 0o111:
            return None  # `notes.txt`; but an executable `policy-rc.d` is read for its shebang
    if head is None:
        head = _head(path, mode)
        if head is None:
            return None
    if _SHEBANG.match(head):
        return "shell"
    return "python" if _PYTHON_SHEBANG.match(head) else None


def not_shell_name(path: Path) -> bool:
    """Whether a file's name says it is something else than a shell script."""
    return path.name in NOT_SHELL_NAMES or path.suffix.lower() in NOT_SHELL_SUFFIXES


def _kind_by_content(head: bytes) -> SourceKind | None:
    """The kind of a file named on the command line by its first bytes: by its `#!` line,
    else shell, unless it is binary (a NUL byte among them: no text file holds one)."""
    if _SHEBANG.match(head):
        return "shell"
    if _PYTHON_SHEBANG.match(head):
        return "python"
    if head.startswith(b"#!") or b"\0" in head:
        return None
    return "shell"


def not_checked(path: Path, head: bytes | None = None) -> str:
    """Why a file named on the command line is not read (kind_of is None for it): one
    line."""
    if head is None and not not_shell_name(path):
        head = _head(path, None, _HEAD) or b""
    if head and head.startswith(b"#!") and not not_shell_name(path):
        line = head[2:].split(b"\n", 1)[0].decode("utf-8", "backslashreplace").strip()
        return f"its #! line names {line or 'nothing'}, not a shell or Python: skipped"
    if head and b"\0" in head and not not_shell_name(path):
        return "a binary file, not a script: skipped"
    return "not a script, runbook or workflow: skipped"


def _open_regular(path: Path, mode: int | None = None) -> int | None:
    """A read descriptor for `path` when it is a regular file, else None.

    O_NONBLOCK: opening a FIFO must never wait for a writer; the type is then
    checked on the descriptor itself, so a file swapped for a FIFO or a device
    after it was listed is still refused.  The type is checked before opening
    too (`mode`, when the caller has just read it): opening some devices has
    effects of its own (a watchdog, a tape).
    """
    if not stat.S_ISREG(os.stat(path).st_mode if mode is None else mode):
        return None
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def _head(path: Path, mode: int | None = None, size: int = 128) -> bytes | None:
    """The first bytes of a regular file (for its shebang), or None."""
    try:
        fd = _open_regular(path, mode)
        if fd is None:
            return None
        try:
            return os.read(fd, size)
        finally:
            os.close(fd)
    except OSError:
        return None


_GIT_UNREADABLE = re.compile(r"^warning: could not open directory '(.*)': (.*)$")


def _git_files(directory: Path, skipped: list[Skipped]) -> list[Path] | None:
    """Files git would not ignore below `directory`, or None outside a work tree.

    The repository is not trusted: its own config may name a command for git to
    run (`core.fsmonitor`), which is switched off here, so that linting a
    checkout never runs code from it.
    """
    import subprocess  # only for a directory

    try:
        done = subprocess.run(
            [
                "git",
                "-c",
                "core.fsmonitor=false",
                "-C",
                str(directory),
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
                "--",
                ".",
            ],
            capture_output=True,
            check=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    for line in done.stderr.decode("utf-8", "replace").splitlines():
        match = _GIT_UNREADABLE.match(line)
        if match:
            skipped.append(Skipped(directory / match[1], f"cannot read: {match[2]}"))
    return [directory / os.fsdecode(p) for p in done.stdout.split(b"\0") if p]


def _inside(path: Path, root: Path) -> bool:
    """Whether a symbolic link stays inside the tree (a loop or a dangling link does not)."""
    try:
        path.resolve(strict=True).relative_to(root)
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def _walk(directory: Path, skipped: list[Skipped]) -> Iterator[Path]:
    def unreadable(error: OSError) -> None:
        where = Path(error.filename) if error.filename else directory
        skipped.append(Skipped(where, f"cannot read: {error.strerror or error}"))

    for current, dirs, files in os.walk(directory, onerror=unreadable, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in _ALWAYS_SKIPPED)
        for name in sorted(files):
            yield Path(current) / name


def discover(
    paths: Sequence[Path], excluded: Callable[[Path, Path], bool] = lambda path, named: False
) -> tuple[list[Source], list[Skipped]]:
    """The files to check below `paths`; `excluded(file, named directory)` applies
    inside walked directories.

    A file named on the command line is read as shell unless its name or its content
    says otherwise (`kind_of`, explicit), as ShellCheck does.
    """
    sources: list[Source] = []
    skipped: list[Skipped] = []
    seen: set[Path] = set()
    for given in paths:
        try:
            mode = os.stat(given).st_mode  # one system call for each named path
        except OSError as error:
            skipped.append(Skipped(given, _not_found(given, error)))
            continue
        if stat.S_ISDIR(mode):
            root = given.resolve()
            listed = _git_files(given, skipped)
            candidates = sorted(listed) if listed is not None else list(_walk(given, skipped))
            for path in candidates:
                if path in seen:
                    continue
                mode_in_tree = _regular_in_tree(path, root, skipped)
                if mode_in_tree is None or excluded(path, given):
                    continue
                kind = kind_of(path, mode=mode_in_tree)
                if kind is not None:
                    seen.add(path)
                    sources.append(Source(path, kind))
        elif given not in seen:
            seen.add(given)
            if kind := kind_of(given, mode=mode, explicit=True):
                sources.append(Source(given, kind))
            else:  # `config.yml` handed over by pre-commit, a binary, a Perl script
                skipped.append(Skipped(given, not_checked(given)))
    return sources, skipped


def _regular_in_tree(path: Path, root: Path, skipped: list[Skipped]) -> int | None:
    """The stat mode of a regular file found in the tree at `root`, or None for anything
    else: a FIFO, a symbolic link loop, a link out of the tree (never followed), a file
    gone since it was listed, one that cannot be looked at (said in `skipped`)."""
    try:
        mode = os.lstat(path).st_mode
        if stat.S_ISLNK(mode):
            if not _inside(path, root):
                return None
            mode = os.stat(path).st_mode
    except OSError as error:
        if error.errno not in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
            skipped.append(Skipped(path, f"cannot read: {error.strerror or error}"))
        return None
    return mode if stat.S_ISREG(mode) else None


def _not_found(path: Path, error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "symbolic link loop"
    if error.errno not in (errno.ENOENT, errno.ENOTDIR):
        return f"cannot read: {error.strerror or error}"
    if os.path.islink(path):
        return f"broken symbolic link (to {os.readlink(path)})"
    return "no such file or directory"


MAX_MIB = MAX_BYTES // (1024 * 1024)
TOO_LARGE = f"larger than {MAX_MIB} MiB, the most heredoc-lint reads of one input: not checked"


def read_text(path: Path) -> tuple[str | None, str | None, str, bytes | None]:
    """(text, reason it was not read, encoding, raw bytes) for a file to check.

    A reason holding "skipped" is a note, any other one a failure (exit 2): see
    runner.process.  Only regular files are read, never more than MAX_BYTES, and
    opening never blocks (a FIFO or a device is refused, not waited on).  A larger
    file is a failure, not a note: bash would run what was not checked.  A NUL byte
    does not make a file unreadable here (bash `source`s such a file, and runs it
    from stdin, dropping each NUL): `refused` says which kinds refuse one.
    """
    try:
        fd = _open_regular(path)
        if fd is None:
            return None, "not a regular file", "", None
        with os.fdopen(fd, "rb") as handle:
            if os.fstat(handle.fileno()).st_size > MAX_BYTES:
                return None, TOO_LARGE, "", None
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        # Listed, then deleted before it was read: there is nothing left to check.
        return None, "deleted while heredoc-lint ran, skipped", "", None
    except OSError as error:
        if error.errno == errno.ELOOP:
            return None, "symbolic link loop", "", None
        return None, f"cannot read: {error.strerror or error}", "", None
    if len(data) > MAX_BYTES:  # it grew after fstat
        return None, TOO_LARGE, "", None
    return decode(data), None, "utf-8-sig" if data.startswith(BOM) else "utf-8", data


BOM = b"\xef\xbb\xbf"


def decode(data: bytes) -> str:
    """The text of a file's bytes, without a UTF-8 BOM.  Not UTF-8 (Latin-1...): every
    byte that is not valid UTF-8 becomes one surrogate character, so columns count bytes
    there and writing back restores each byte."""
    if data.startswith(BOM):
        data = data[len(BOM) :]
    return data.decode("utf-8", "surrogateescape")


def refused(kind: SourceKind, data: bytes) -> str | None:
    """Why a file of `kind` that was read is still not checked (a note), or None.

    Only what the program that runs the file refuses: python3 refuses source code with
    a NUL byte anywhere (and so do exec() and compile()).  A shell script is always
    checked: bash refuses to run a file with a NUL byte in its first line (the first
    two after `#!`) as a script, but `source` and `bash < FILE` run it all the same,
    and Markdown and workflow files are read by people and by GitHub's own parser.
    """
    if kind == "python" and b"\0" in data:
        return "python3 refuses source code with a NUL byte, skipped"
    return None
