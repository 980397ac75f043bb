"""What an open document is (its kind) and which project settings apply to it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from heredoc_lint.model import Severity
from heredoc_lint.settings import Settings

# An editor's language ids (VS Code's, Neovim's and Helix's filetypes) for the kinds the
# engine reads.  A workflow is known by its place (.github/workflows/), not by its id.
LANGUAGES = {
    "shellscript": "shell",
    "sh": "shell",
    "bash": "shell",
    "zsh": "shell",
    "ksh": "shell",
    "python": "python",
    "markdown": "markdown",
    "github-actions-workflow": "actions",
}
_EXECUTABLE = 0o100755  # read a name with a suffix for its shebang too: the editor says so


def kind_of_document(language_id: str | None, path: str | None, text: str) -> str | None:
    """The engine's kind for a document: by its file name first (as the CLI decides), then
    by the editor's language id, then by a shebang.  None: nothing for us to check."""
    from heredoc_lint.discover import kind_of

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
    """The configuration nearest to `path` (a fresh lookup each time: a few stat calls and
    one small TOML file, well under a millisecond, and never stale).

    The one place that uses the configuration and runner modules: keep it small."""
    from heredoc_lint.config import ConfigError, Finder
    from heredoc_lint.runner import Options

    if path is None:
        return Project()
    file = Path(path)
    try:
        config = Finder().for_directory(file.parent)
    except ConfigError as error:
        return Project(error=str(error))
    settings, threshold = Options().resolve(config, config.ignored_for(file))
    return Project(settings, threshold, config.excluded(file), config.path)
