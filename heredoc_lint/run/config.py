"""Configuration: `[tool.heredoc-lint]` in pyproject.toml, or `.heredoc-lint.toml`.

Like ruff, the nearest configuration file above each checked file applies; a
`pyproject.toml` without a `[tool.heredoc-lint]` table is passed over. Command-line
options win over the file. Unknown keys and bad values are errors that name
the key.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from heredoc_lint.cli.options import FIX_STRATEGIES, SEVERITIES
from heredoc_lint.kinds import WrapperKind
from heredoc_lint.layers.pywrappers import PyWrapper, parse_entries
from heredoc_lint.model import Severity, Strategy

WRAPPER_KINDS: tuple[WrapperKind, ...] = ("ssh", "shell", "eval", "prefix")
KEYS = frozenset(
    {
        "select",
        "ignore",
        "severity",
        "fix-strategy",
        "exclude",
        "extend-exclude",
        "per-file-ignores",
        "wrappers",
        "python-wrappers",
        "hook-suppressions",
    }
)


class ConfigError(Exception):
    """A configuration file that cannot be used; the message names the file and key."""


@dataclass(frozen=True)
class Config:
    path: Path | None = None  # the file it came from
    select: frozenset[str] | None = None
    ignore: frozenset[str] = frozenset()
    severity: Severity | None = None
    fix_strategy: Strategy | None = None
    exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    wrappers: Mapping[str, WrapperKind] = field(default_factory=dict)
    python_wrappers: tuple[PyWrapper, ...] = ()  # the project's own Python callables
    # Whether `# heredoc-lint: disable=...` inside an agent's command silences the hook:
    # the agent writes that text, so only the user's configuration can allow it.
    hook_suppressions: bool = False
    warnings: tuple[str, ...] = ()  # one line each, for stderr

    @property
    def root(self) -> Path:
        return self.path.parent if self.path is not None else Path.cwd()

    def relative(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return path.as_posix()

    @cached_property
    def resolved_root(self) -> Path:
        return self.root.resolve()

    def excluded(self, path: Path, below: Path | None = None) -> bool:
        """Whether `path`, or a directory it is in below the configuration's own, matches
        an exclude pattern (by its path from the configuration's directory, or by its
        name).  With `below` (a directory named on the command line), only directories
        below that one count: a path someone named is checked, as in ruff."""
        if not self.exclude:
            return False
        target = path.resolve()
        stops = {self.resolved_root} | ({below.resolve()} if below is not None else set())
        candidates = [target]
        for parent in target.parents:
            if parent in stops:
                break
            candidates.append(parent)
        return any(self._matches(candidate) for candidate in candidates)

    def _matches(self, resolved: Path) -> bool:
        try:
            rel = resolved.relative_to(self.resolved_root).as_posix()
        except ValueError:
            rel = resolved.as_posix()
        return any(
            fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(resolved.name, pattern)
            for pattern in (p.rstrip("/") or p for p in self.exclude)
        )

    def ignored_for(self, path: Path) -> frozenset[str]:
        if not self.per_file_ignores:
            return frozenset()
        rel = self.relative(path)
        codes: set[str] = set()
        for pattern, ignored in self.per_file_ignores:
            if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(path.name, pattern):
                codes |= ignored
        return frozenset(codes)


def _codes(where: str, key: str, value: Any) -> frozenset[str]:
    from heredoc_lint.rules import parse_codes

    if not isinstance(value, list) or not all(isinstance(v, str) and "," not in v for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of rule codes")
    try:
        return parse_codes(",".join(value)) or frozenset()
    except ValueError as error:
        raise ConfigError(f"{where}: `{key}`: {error}") from None


def _strings(where: str, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings")
    return tuple(value)


def _wrappers(where: str, value: Any) -> tuple[dict[str, WrapperKind], tuple[str, ...]]:
    """The extra wrappers of a configuration, and a warning for each entry that would
    change how a built-in wrapper is read (`ssh = "prefix"` would hide every ssh
    string): those are dropped, the built-in reading stays."""
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and v in WRAPPER_KINDS for k, v in value.items()
    ):
        raise ConfigError(
            f"{where}: `wrappers` must map command names to one of {', '.join(WRAPPER_KINDS)}"
        )
    if not value:
        return {}, ()
    from heredoc_lint.layers import wrappers

    kept: dict[str, WrapperKind] = {}
    warnings = []
    for name, kind in value.items():
        built_in = wrappers.WRAPPERS.get(name)
        if built_in is None or built_in is wrappers.WRAPPER_KINDS[kind]:
            kept[name] = kind
        else:
            warnings.append(
                f"{where}: `wrappers.{name}`: `{name}` is a built-in wrapper and cannot be "
                f"redefined as {kind!r}; its built-in reading is kept"
            )
    return kept, tuple(warnings)


def parse(table: Mapping[str, Any], where: str, path: Path | None = None) -> Config:
    """A Config from the `[tool.heredoc-lint]` table (or a .heredoc-lint.toml document)."""
    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key `{unknown[0]}` (known: {', '.join(sorted(KEYS))})")
    severity = table.get("severity")
    if severity is not None and severity not in SEVERITIES:
        raise ConfigError(f"{where}: `severity` must be one of {', '.join(SEVERITIES)}")
    strategy = table.get("fix-strategy")
    if strategy is not None and strategy not in FIX_STRATEGIES:
        raise ConfigError(f"{where}: `fix-strategy` must be one of {', '.join(FIX_STRATEGIES)}")
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{where}: `per-file-ignores` must be a table of glob = [codes]")
    wrappers, warnings = _wrappers(where, table.get("wrappers", {}))
    try:
        python_wrappers = parse_entries(where, table.get("python-wrappers", {}))
    except ValueError as error:
        raise ConfigError(str(error)) from None
    hook_suppressions = table.get("hook-suppressions", False)
    if not isinstance(hook_suppressions, bool):
        raise ConfigError(f"{where}: `hook-suppressions` must be true or false")
    return Config(
        path=path,
        select=_codes(where, "select", table["select"]) if "select" in table else None,
        ignore=_codes(where, "ignore", table.get("ignore", [])),
        severity=Severity(severity) if severity is not None else None,
        fix_strategy=strategy,
        exclude=_strings(where, "exclude", table.get("exclude", []))
        + _strings(where, "extend-exclude", table.get("extend-exclude", [])),
        per_file_ignores=tuple(
            (pattern, _codes(where, f"per-file-ignores.{pattern}", codes))
            for pattern, codes in per_file.items()
        ),
        wrappers=wrappers,
        python_wrappers=python_wrappers,
        hook_suppressions=hook_suppressions,
        warnings=warnings,
    )


def load(path: Path) -> Config | None:
    """The configuration in `path`, or None for a pyproject.toml without our table."""
    import tomllib  # only where a configuration file exists

    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    if path.name == "pyproject.toml":
        table = document.get("tool", {}).get("heredoc-lint")
        if table is None:
            return None
        return parse(table, f"{path} [tool.heredoc-lint]", path)
    return parse(document, str(path), path)


class Finder:
    """Finds the configuration that applies to a file, remembering each directory's answer."""

    def __init__(self, explicit: Path | None = None) -> None:
        self.explicit = load(explicit) if explicit is not None else None
        if explicit is not None and self.explicit is None:
            raise ConfigError(f"{explicit}: has no [tool.heredoc-lint] table")
        self.cache: dict[Path, Config] = {}
        self.by_given: dict[Path, Config] = {}

    def for_directory(self, given: Path) -> Config:
        """The configuration of the files in the directory `given`."""
        if self.explicit is not None:
            return self.explicit
        if given not in self.by_given:  # resolving costs a system call per path part
            self.by_given[given] = self._for_directory(given.resolve())
        return self.by_given[given]

    def _for_directory(self, directory: Path) -> Config:
        if directory in self.cache:
            return self.cache[directory]
        found: Config | None = None
        for name in (".heredoc-lint.toml", "pyproject.toml"):
            candidate = directory / name
            if candidate.is_file():
                found = load(candidate)
                if found is not None:
                    break
        if found is None:
            parent = directory.parent
            found = Config() if parent == directory else self._for_directory(parent)
        self.cache[directory] = found
        return found
