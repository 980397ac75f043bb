"""A cache of findings, like ruff's: keyed by content, tool and effective settings.

One pack file per cache directory (`.heredoc_lint_cache/` or `--cache-dir`) maps each
checked file's absolute path to the key of its last check and the findings it gave: a warm run
reads one file, not one per script, and the pack holds one entry per file however
often it changes.  The key hashes the file's bytes, its kind, the effective settings
and a fingerprint of the package's own files, so an edit to the file, the config or
heredoc-lint itself never reuses stale findings.  The pack is written to a temp file
and renamed: concurrent runs never see a half-written pack, each merges the pack as it
is when it saves, and a pack that cannot be read is ignored and rebuilt.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from heredoc_lint import __version__
from heredoc_lint.model import Applicability, Edit, Finding, Fix, NewFile, Severity
from heredoc_lint.settings import Settings

_PACK_PREFIX = "findings-"


@functools.cache
def _fingerprint() -> str:
    package = Path(__file__).parent
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(package.rglob("*.py")):
        info = path.stat()
        digest.update(f"{path.relative_to(package)}:{info.st_size}:{info.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def has_pack(directory: Path) -> bool:
    """Whether `directory` holds a pack of any version: a run there may be warm."""
    return any(directory.glob(f"{_PACK_PREFIX}*.json"))


def entry_key(kind: str, name: str, settings: Settings, data: bytes) -> str:
    """What a cached entry must match: the file's bytes, kind, name as the findings give
    it (a fix may use it) and effective settings."""
    digest = hashlib.sha256(_fingerprint().encode())
    parts = (
        kind.encode(),
        name.encode("utf-8", "surrogateescape"),
        _settings_key(settings).encode(),
        data,
    )
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def _settings_key(settings: Settings) -> str:
    return json.dumps(
        [
            sorted(settings.select) if settings.select is not None else None,
            sorted(settings.ignore),
            settings.fix_strategy,
            sorted(settings.wrappers.items()),
            settings.warn_unused_suppressions,
        ]
    )


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
        + [_fix_to_json(f.fix)]
        for f in findings
    ]


def load(data: list[Any]) -> list[Finding]:
    """Findings from their JSON form; ValueError if any field has the wrong type."""
    findings = [
        Finding(code, Severity(severity), message, start, end, depth, wrapper, _fix_from_json(fix))
        for code, severity, message, start, end, depth, wrapper, fix in data
    ]
    if not all(map(_well_typed, findings)):
        raise ValueError("a cached finding has a field of the wrong type")
    return findings


def _well_typed(finding: Finding) -> bool:
    fix = finding.fix
    return (
        isinstance(finding.code, str)
        and isinstance(finding.message, str)
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
        self.entries: dict[str, list[Any]] = self._read()
        self.changed = False

    def _read(self) -> dict[str, list[Any]]:
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
        if not self.changed:
            return
        # Entries another run saved since this one read the pack are kept (pre-commit runs
        # several at once); this run's own entries win.
        entries = {**self._read(), **self.entries}
        self.entries = {name: e for name, e in entries.items() if os.path.exists(name)}
        with contextlib.suppress(OSError):
            if not self.directory.is_dir():
                self.directory.mkdir(parents=True, exist_ok=True)
                (self.directory / ".gitignore").write_text("# Created by heredoc-lint\n*\n")
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(self.entries, handle, separators=(",", ":"))
                os.replace(tmp, self.pack)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
            for stale in self.directory.glob(f"{_PACK_PREFIX}*.json"):
                if stale != self.pack:
                    with contextlib.suppress(OSError):
                        stale.unlink()
