"""What an open document is (its kind) and which project settings apply to it."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from heredoc_lint.kinds import SourceKind
from heredoc_lint.model import Severity
from heredoc_lint.run.settings import Settings

# An editor's language ids (VS Code's, Neovim's and Helix's filetypes) for the kinds the
# engine reads.  A workflow is known by its place (.github/workflows/), not by its id.
LANGUAGES: dict[str, SourceKind] = {
    "shellscript": "shell",
    "sh": "shell",
    "bash": "shell",
    "zsh": "shell",
    "ksh": "shell",
    "python": "python",
    "markdown": "markdown",
    "github-actions-workflow": "actions",
}
CONFIG_FILES = (".heredoc-lint.toml", "pyproject.toml")  # the names config.Finder reads
_EXECUTABLE = 0o100755  # read a name with a suffix for its shebang too: the editor says so


def kind_of_document(language_id: str | None, path: str | None, text: str) -> SourceKind | None:
    """The engine's kind for a document: by its file name first (as the CLI decides), then
    by the editor's language id, then by a shebang.  None: nothing for us to check."""
    from heredoc_lint.run.discover import kind_of

    if path is not None:
        by_name = kind_of(Path(path), head=b"", mode=0)
        if by_name is not None:
            return by_name
    by_language = LANGUAGES.get(language_id or "")
    if by_language is not None:
        return by_language
    if text.startswith("#!"):
        head = text[:256].encode("utf-8", "replace")
        return kind_of(Path(path or "untitled"), head=head, mode=_EXECUTABLE)
    return None


@dataclass(frozen=True)
class Project:
    """The settings of one document's project, or why its configuration cannot be used."""

    settings: Settings = field(default_factory=Settings)
    threshold: Severity = Severity.WARNING  # the lowest severity reported
    excluded: bool = False
    config_path: Path | None = None
    error: str | None = None  # a broken configuration file: checked with the defaults


def load_project(path: str | None) -> Project:
    """The settings for the file at `path`, from its nearest configuration.

    The one place that uses the configuration and runner modules: keep it small."""
    from heredoc_lint.run.config import ConfigError, Finder
    from heredoc_lint.run.runner import Options

    if path is None:
        return Project()
    file = Path(path)
    try:
        config = Finder().for_directory(file.parent)
    except ConfigError as error:
        return Project(error=str(error))
    settings, threshold = Options().resolve(config, config.ignored_for(file))
    return Project(settings, threshold, config.excluded(file), config.path)


_remembered: dict[str, tuple[tuple[tuple[str, int, int], ...], Project]] = {}
_lock = threading.Lock()  # checks run in several threads


def _stamp(directory: Path) -> tuple[tuple[str, int, int], ...]:
    """Every configuration file that could apply in `directory`, with its mtime and size:
    a few stat calls, where reading and parsing them again costs milliseconds."""
    found = []
    for place in (directory, *directory.parents):
        for name in CONFIG_FILES:
            candidate = os.path.join(place, name)
            try:
                status = os.stat(candidate)
            except OSError:
                continue
            found.append((candidate, status.st_mtime_ns, status.st_size))
    return tuple(found)


def project_for(path: str | None) -> Project:
    """`load_project(path)`, loaded again only when a configuration file that could apply
    was created, changed or removed since: each check sees the configuration of now."""
    if path is None:
        return Project()
    stamp = _stamp(Path(os.path.realpath(path)).parent)
    with _lock:
        known = _remembered.get(path)
    if known is not None and known[0] == stamp:
        return known[1]
    project = load_project(path)
    with _lock:
        _remembered[path] = (stamp, project)
    return project


def forget() -> None:
    """Drop what `project_for` remembers (the client says a configuration changed)."""
    with _lock:
        _remembered.clear()
