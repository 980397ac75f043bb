"""The real-world corpus: bash-completion files and the shell scripts installed in /usr.

`corpus_files()` lists every bash-completion file plus every regular file under /usr/bin
and /usr/sbin whose shebang names sh, bash or dash, minus the files that bash itself
refuses to parse (`bash -n`).  Nothing from the corpus is ever executed: `bash -n` only
parses.  The list is computed once per test session.

bash-completion comes from Debian's package (`apt-get install bash-completion`).  When
it is missing the corpus tests skip locally; with CI=true they fail, so a CI machine
without the package cannot pass while testing nothing.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

COMPLETIONS_DIR = Path("/usr/share/bash-completion/completions")
COMPLETION_MAIN = Path("/usr/share/bash-completion/bash_completion")
SCRIPT_DIRS = (Path("/usr/bin"), Path("/usr/sbin"))
# bash-completion files are sourced by a shell that has extglob on; parse them the same way.
BASH_PARSE = ("bash", "--norc", "--noprofile", "-O", "extglob", "-n")

# `#!/bin/sh`, `#! /bin/bash -e`, `#!/usr/bin/env bash`, `#!/usr/bin/dash`, ...
_SHEBANG = re.compile(rb"#!\s*(?:\S*/)?(?:env\s+(?:-\S+\s+)*)?(?:sh|bash|dash)(?:\s|$)")
# Files this large are data with a shell stub in front (self-extracting archives).
_MAX_BYTES = 2_000_000


@dataclass(frozen=True)
class CorpusFile:
    path: Path
    text: str  # decoded with surrogateescape: encode the same way to get the bytes back

    @property
    def name(self) -> str:
        return str(self.path)


def decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _is_shell_script(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            first = handle.readline(200)
    except OSError:
        return False
    return _SHEBANG.match(first) is not None


def _candidates() -> list[Path]:
    paths: list[Path] = []
    if COMPLETIONS_DIR.is_dir():
        paths.extend(sorted(COMPLETIONS_DIR.iterdir()))
    if COMPLETION_MAIN.is_file():
        paths.append(COMPLETION_MAIN)
    for folder in SCRIPT_DIRS:
        if folder.is_dir():
            paths.extend(p for p in sorted(folder.iterdir()) if _is_shell_script(p))
    seen: set[Path] = set()
    unique: list[Path] = []
    for path in paths:
        real = path.resolve()  # completions are often symlinks to one another
        if real in seen or not real.is_file() or real.stat().st_size > _MAX_BYTES:
            continue
        seen.add(real)
        unique.append(path)
    return unique


def _bash_parses(path: Path) -> bool:
    result = subprocess.run(
        [*BASH_PARSE, str(path)], stdin=subprocess.DEVNULL, capture_output=True, check=False
    )
    return result.returncode == 0


@functools.cache
def corpus_files() -> tuple[CorpusFile, ...]:
    """The corpus, or a skip (locally) / failure (CI=true) when bash-completion is absent."""
    if not COMPLETIONS_DIR.is_dir():
        message = f"the real corpus needs {COMPLETIONS_DIR} (apt-get install bash-completion)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    paths = _candidates()
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        parses = list(pool.map(_bash_parses, paths))
    return tuple(
        CorpusFile(path, decode(path.read_bytes()))
        for path, ok in zip(paths, parses, strict=True)
        if ok
    )
