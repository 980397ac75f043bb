"""The project a file belongs to, as far as another file of it can say how the file runs
or what it defines: the file's directory and those above it, up to the project's top.

The top is the first directory that holds `.git`; for a relative path, the directory it
starts from at the latest (the tool is run from the project's top, as pre-commit and the
bench run it). `directories_up` is the one walk that launchers.py (who runs a script as
root), provisioning.py (Vagrant) and sourcing.py (what a script sources) take.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator

_PROJECT_TOP = ".git"


def directories_up(path: str) -> Iterator[tuple[str, list[str]]]:
    """Each directory from `path`'s own up to the project's top (as `path` gives it:
    relative stays relative, "" for the working directory), with `path`'s parts below
    it, last part first."""
    directory, name = os.path.split(os.path.normpath(path))
    below = [name]
    while True:
        yield directory, below
        if is_project_top(directory or "."):
            return
        parent, part = os.path.split(directory)
        if not part or part in (".", "..") or parent == directory:
            return
        below = [*below, part]
        directory = parent


@functools.lru_cache(maxsize=256)
def is_project_top(directory: str) -> bool:
    return os.path.exists(os.path.join(directory, _PROJECT_TOP))
