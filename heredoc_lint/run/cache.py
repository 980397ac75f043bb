"""A cache of findings, like ruff's: keyed by content, tool and effective settings.

One pack file per cache directory (`.heredoc_lint_cache/` or `--cache-dir`) maps each
checked file's absolute path to the key of its last check and the findings it gave: a warm run
reads one file, not one per script, and the pack holds one entry per file however
often it changes.  The key hashes the file's bytes, its kind, the effective settings
and a fingerprint of the package's own files and of the parsers it runs (tree-sitter,
tree-sitter-bash, libcst, PyYAML), so an edit to the file, the config, heredoc-lint or a
parser never reuses stale findings.  The pack is written to a temp file and renamed:
concurrent runs never see a half-written pack, each merges the pack as it is when it
saves, and a pack that cannot be read is ignored and rebuilt.

A checked repository must not be able to change a result through a cache it ships (a
committed `.heredoc_lint_cache/`): every entry key is an HMAC under a per-user secret
kept outside any checked tree (`$XDG_CACHE_HOME/heredoc-lint/cache-key`, 0600), so a
pack made elsewhere matches nothing; a cache directory that is a symbolic link or owned
by another user is not used at all.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import hmac
import importlib.util
import json
import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heredoc_lint import __version__
from heredoc_lint.kinds import SourceKind
from heredoc_lint.model import Applicability, Edit, Finding, Fix, NewFile, Severity
from heredoc_lint.run.settings import Settings

if TYPE_CHECKING:
    from heredoc_lint.project.launchers import Launcher

_PACK_PREFIX = "findings-"


# The parsers whose results the findings depend on: a new version may parse differently.
_PARSERS = ("tree_sitter", "tree_sitter_bash", "libcst", "yaml")


@functools.cache
def _fingerprint() -> str:
    package = Path(__file__).parent.parent  # the whole heredoc_lint package
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(package.rglob("*.py")):
        info = path.stat()
        digest.update(f"{path.relative_to(package)}:{info.st_size}:{info.st_mtime_ns}".encode())
    for name in _PARSERS:
        digest.update(f"|{name}:{_installed_stamp(name)}".encode())
    return digest.hexdigest()[:16]


def _installed_stamp(module: str) -> str:
    """Names, sizes and mtimes of a module's top-level files, found without importing it:
    installing another version replaces them."""
    with contextlib.suppress(ImportError, ValueError, OSError):
        spec = importlib.util.find_spec(module)
        if spec is None or spec.origin is None:
            return "absent"
        origin = Path(spec.origin)
        place = origin.parent if origin.name.startswith("__init__.") else origin
        files = sorted(os.scandir(place), key=lambda e: e.name) if place.is_dir() else []
        parts = [f"{e.name}:{e.stat().st_size}:{e.stat().st_mtime_ns}" for e in files]
        info = origin.stat()
        return f"{origin.name}:{info.st_size}:{info.st_mtime_ns}:" + ",".join(parts)
    return "unknown"


def _key_file() -> Path | None:
    base = os.environ.get("XDG_CACHE_HOME") or (
        os.path.join(os.path.expanduser("~"), ".cache") if os.path.expanduser("~") != "~" else ""
    )
    return Path(base, "heredoc-lint", "cache-key") if base else None


@functools.cache
def _secret() -> bytes:
    """This user's cache secret, made once; a fresh one for this run alone when it cannot be
    kept safely (then the cache only serves this run: never a wrong answer)."""
    path = _key_file()
    if path is not None:
        with contextlib.suppress(OSError, ValueError):
            return _read_or_make_secret(path)
    return os.urandom(32)


def _read_or_make_secret(path: Path) -> bytes:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        secret = os.urandom(32)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".cache-key-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(secret)
            os.link(tmp, path)  # fails if another run made one first: then use that one
        except FileExistsError:
            return _read_or_make_secret(path)
        finally:
            os.unlink(tmp)
        return secret
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if info.st_uid != os.getuid() or info.st_mode & 0o077 or not stat.S_ISREG(info.st_mode):
            raise ValueError("cache key readable by others or not this user's")
        secret = handle.read(64)
    if len(secret) != 32:
        raise ValueError("damaged cache key")
    return secret


def entry_key(kind: SourceKind, name: str, settings: Settings, data: bytes) -> str:
    """What a cached entry must match: the file's bytes, kind, name as the findings give
    it (a fix may use it), effective settings, and what the project's other files say
    of it: how it runs (launchers.runs_as_root_by, runs_over_ssh_by), and the files it
    sources or imports, as they are now (_modules_read)."""
    from heredoc_lint.project.launchers import runs_as_root_by, runs_over_ssh_by

    digest = hmac.new(_secret(), _fingerprint().encode(), hashlib.sha256)
    text = data.decode("utf-8", "replace")
    parts = (
        kind.encode(),
        name.encode("utf-8", "surrogateescape"),
        settings.cache_key().encode(),
        _launcher_key(runs_as_root_by(kind, name, text)),
        _launcher_key(runs_over_ssh_by(kind, name, text)),
        _modules_read(kind, name, text).encode("utf-8", "surrogateescape"),
        data,
    )
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def _modules_read(kind: SourceKind, name: str, text: str) -> str:
    """The stamps of the project's files whose definitions a check of the file reads:
    the shell files a script sources, the modules a Python file imports."""
    if kind == "shell":
        from heredoc_lint.project.sourcing import imported

        sourced = imported(name, text)
        return "" if sourced is None else sourced.stamp
    if kind == "python":
        from heredoc_lint.frontends.python.modules import project_wrappers

        return project_wrappers(name, text)[1]
    return ""


def _launcher_key(launcher: Launcher | None) -> bytes:
    if launcher is None:
        return b""
    return f"{launcher.evidence}\0{launcher.why}".encode("utf-8", "surrogateescape")


def _fix_to_json(fix: Fix | None) -> dict[str, Any] | None:
    if fix is None:
        return None
    return {
        "edits": [[e.start, e.end, e.content] for e in fix.edits],
        "applicability": fix.applicability.value,
        "message": fix.message,
        "strategy": fix.strategy,
        "new_files": [
            [n.path, base64.b64encode(n.content).decode(), n.mode] for n in fix.new_files
        ],
    }


def _fix_from_json(data: dict[str, Any] | None) -> Fix | None:
    if data is None:
        return None
    return Fix(
        tuple(Edit(a, b, c) for a, b, c in data["edits"]),
        Applicability(data["applicability"]),
        data["message"],
        data["strategy"],
        tuple(NewFile(p, base64.b64decode(c), m) for p, c, m in data["new_files"]),
    )


def dump(findings: Sequence[Finding]) -> list[Any]:
    return [
        [f.code, f.severity.value, f.message, f.start, f.end, f.depth, f.wrapper]
        + [_fix_to_json(f.fix), f.evidence]
        for f in findings
    ]


def load(data: list[Any]) -> list[Finding]:
    """Findings from their JSON form; ValueError if any field has the wrong type."""
    findings = [
        Finding(
            code, Severity(severity), message, start, end, depth, wrapper, _fix_from_json(fix), kind
        )
        for code, severity, message, start, end, depth, wrapper, fix, kind in data
    ]
    if not all(map(_well_typed, findings)):
        raise ValueError("a cached finding has a field of the wrong type")
    return findings


def _well_typed(finding: Finding) -> bool:
    fix = finding.fix
    return (
        isinstance(finding.code, str)
        and isinstance(finding.message, str)
        and isinstance(finding.evidence, str)
        and all(type(n) is int for n in (finding.start, finding.end, finding.depth))
        and isinstance(finding.wrapper, str | None)
        and (
            fix is None
            or isinstance(fix.message, str)
            and isinstance(fix.strategy, str | None)
            and all(
                type(e.start) is int and type(e.end) is int and isinstance(e.content, str)
                for e in fix.edits
            )
            and all(isinstance(n.path, str) and type(n.mode) is int for n in fix.new_files)
        )
    )


class Cache:
    """The pack of one cache directory, read once per run and written once at its end."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.pack = directory / f"{_PACK_PREFIX}{_fingerprint()}.json"
        self.usable = _safe_directory(directory)
        self.entries: dict[str, list[Any]] = self._read()
        self.changed = False

    def _read(self) -> dict[str, list[Any]]:
        if not self.usable:
            return {}
        try:
            entries = json.loads(self.pack.read_bytes())
        except (OSError, ValueError, RecursionError):
            return {}  # missing or corrupt (or nested too deep to parse): check again
        return entries if isinstance(entries, dict) else {}

    def knows(self, name: str) -> bool:
        return name in self.entries

    def get(self, name: str, key: str) -> list[Finding] | None:
        entry = self.entries.get(name)
        if not (isinstance(entry, list) and len(entry) == 2 and entry[0] == key):
            return None
        try:
            return load(entry[1])
        except (ValueError, TypeError, KeyError):
            return None  # a damaged entry is recomputed

    def put(self, name: str, key: str, findings: Sequence[Finding]) -> None:
        self.entries[name] = [key, dump(findings)]
        self.changed = True

    def save(self) -> None:
        """Write the pack if this run added to it, without the entries of deleted files;
        drop the packs of other versions."""
        if not self.changed or not self.usable:
            return
        # Entries another run saved since this one read the pack are kept (pre-commit runs
        # several at once); this run's own entries win.
        entries = {**self._read(), **self.entries}
        self.entries = {name: e for name, e in entries.items() if os.path.exists(name)}
        with contextlib.suppress(OSError):
            if not self.directory.is_dir():
                self.directory.mkdir(parents=True, exist_ok=True)
                _write_atomically(self.directory / ".gitignore", "# Created by heredoc-lint\n*\n")
            if not _safe_directory(self.directory):
                return
            _write_atomically(self.pack, json.dumps(self.entries, separators=(",", ":")))
            for stale in self.directory.glob(f"{_PACK_PREFIX}*.json"):
                if stale != self.pack:
                    with contextlib.suppress(OSError):
                        stale.unlink()


def _write_atomically(path: Path, text: str) -> None:
    """`path` holds `text` whole, or is left as it was (a full disk leaves no empty file)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _safe_directory(directory: Path) -> bool:
    """A cache directory this user owns and that is not a link (a committed symbolic link
    must not lead the run to read or delete packs elsewhere); one not made yet is fine."""
    try:
        info = os.lstat(directory)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
