"""Which files to check and what kind each one is."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

MAX_BYTES = 10 * 1024 * 1024
SHELL_SUFFIXES = frozenset({".sh", ".bash", ".ksh", ".zsh"})
PYTHON_SUFFIXES = frozenset({".py", ".pyi"})
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
_PYTHON_SHEBANG = re.compile(rb"^#![ \t]*\S*?(?:/|env[ \t]+(?:-\S+[ \t]+)*)python[0-9.]*\b")
_SHEBANG = re.compile(
    rb"^#![ \t]*\S*?(?:/|env[ \t]+(?:-\S+[ \t]+)*)(sh|bash|dash|ksh|zsh|mksh|ash)\b"
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


@dataclass(frozen=True)
class Source:
    path: Path
    kind: str  # shell, python, markdown, actions


@dataclass(frozen=True)
class Skipped:
    path: Path
    reason: str


def kind_of(path: Path, head: bytes | None = None) -> str | None:
    """The kind of a file from its name, or its first line when it has no suffix."""
    if path.suffix in SHELL_SUFFIXES:
        return "shell"
    if path.suffix in PYTHON_SUFFIXES:
        return "python"
    if path.suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    if path.suffix in (".yml", ".yaml"):
        parts = path.parts
        in_workflows = len(parts) >= 3 and parts[-3:-1] == (".github", "workflows")
        return "actions" if in_workflows else None
    if path.suffix:
        return None
    if head is None:
        try:
            with path.open("rb") as handle:
                head = handle.read(128)
        except OSError:
            return None
    if _SHEBANG.match(head):
        return "shell"
    return "python" if _PYTHON_SHEBANG.match(head) else None


def _git_files(directory: Path) -> list[Path] | None:
    """Files git would not ignore below `directory`, or None outside a work tree."""
    try:
        out = subprocess.run(
            [
                "git",
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
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return [directory / os.fsdecode(p) for p in out.split(b"\0") if p]


def _walk(directory: Path) -> Iterator[Path]:
    root = directory.resolve()
    for current, dirs, files in os.walk(directory, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in _ALWAYS_SKIPPED)
        for name in sorted(files):
            path = Path(current) / name
            if path.is_symlink():
                try:
                    path.resolve().relative_to(root)
                except (ValueError, OSError, RuntimeError):
                    continue  # never follow a link out of the tree
            yield path


def discover(
    paths: Sequence[Path], excluded: Callable[[Path], bool] = lambda path: False
) -> tuple[list[Source], list[Skipped]]:
    """The files to check below `paths`; `excluded` applies inside walked directories.

    A file named on the command line is always checked, as in ruff.
    """
    sources: list[Source] = []
    skipped: list[Skipped] = []
    seen: set[Path] = set()
    for given in paths:
        if given.is_dir():
            listed = _git_files(given)
            candidates = sorted(listed) if listed is not None else list(_walk(given))
            for path in candidates:
                if path in seen or excluded(path) or not path.is_file():
                    continue
                kind = kind_of(path)
                if kind is not None:
                    seen.add(path)
                    sources.append(Source(path, kind))
        elif given.exists() or given.is_symlink():
            if given not in seen:
                seen.add(given)
                sources.append(Source(given, kind_of(given) or "shell"))
        else:
            skipped.append(Skipped(given, "no such file or directory"))
    return sources, skipped


def read_text(path: Path) -> tuple[str | None, str | None, str, bytes | None]:
    """(text, reason it was not read, encoding, raw bytes) for a file to check."""
    try:
        if not path.is_file():
            return None, "not a regular file", "", None
        size = path.stat().st_size
        if size > MAX_BYTES:
            return None, f"larger than {MAX_BYTES // (1024 * 1024)} MB, skipped", "", None
        data = path.read_bytes()
    except OSError as error:
        return None, f"cannot read: {error.strerror or error}", "", None
    if b"\0" in data[:8192]:
        return None, "binary file, skipped", "", None
    try:
        if data.startswith(b"\xef\xbb\xbf"):
            return data[3:].decode("utf-8"), None, "utf-8-sig", data
        return data.decode("utf-8"), None, "utf-8", data
    except UnicodeDecodeError:
        # Not UTF-8 (Latin-1...): every byte that is not valid UTF-8 becomes one surrogate
        # character, so columns count bytes there and writing back restores each byte.
        return data.decode("utf-8", "surrogateescape"), None, "utf-8", data
