"""A cache of findings, like ruff's: keyed by content, tool and effective settings.

One small JSON file per key under `.heredoc_lint_cache/` (or `--cache-dir`).
Entries are written to a temp file and renamed, so concurrent runs never see a
half-written entry; an entry that cannot be read is ignored and recomputed.
The key holds a fingerprint of the package's own files, so an edited checkout
never reuses findings computed by older code.
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

DEFAULT_DIR = Path(".heredoc_lint_cache")


@functools.cache
def _fingerprint() -> str:
    package = Path(__file__).parent
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(package.rglob("*.py")):
        info = path.stat()
        digest.update(f"{path.relative_to(package)}:{info.st_size}:{info.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


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


def dump(findings: Sequence[Finding]) -> str:
    return json.dumps(
        [
            [
                f.code,
                f.severity.value,
                f.message,
                f.start,
                f.end,
                f.depth,
                f.wrapper,
                _fix_to_json(f.fix),
            ]
            for f in findings
        ]
    )


def load(text: str) -> list[Finding]:
    return [
        Finding(code, Severity(severity), message, start, end, depth, wrapper, _fix_from_json(fix))
        for code, severity, message, start, end, depth, wrapper, fix in json.loads(text)
    ]


class Cache:
    def __init__(self, directory: Path = DEFAULT_DIR) -> None:
        self.directory = directory
        self.salt = _fingerprint()

    def key(self, *parts: str) -> str:
        digest = hashlib.sha256(self.salt.encode())
        for part in parts:
            digest.update(len(part).to_bytes(8, "little"))
            digest.update(part.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key[2:]}.json"

    def get(self, key: str) -> list[Finding] | None:
        try:
            return load(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError, TypeError, KeyError):
            return None  # missing or corrupt: recompute

    def put(self, key: str, findings: Sequence[Finding]) -> None:
        path = self._path(key)
        with contextlib.suppress(OSError):
            if not self.directory.is_dir():
                self.directory.mkdir(parents=True, exist_ok=True)
                (self.directory / ".gitignore").write_text("# Created by heredoc-lint\n*\n")
            path.parent.mkdir(exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(dump(findings))
                os.replace(tmp, path)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
