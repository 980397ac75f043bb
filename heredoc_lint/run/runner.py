"""Runs the engine over files, stdin or a command string; collects reports and notes.

Each file is one `Job`, processed by the pure function `process`, so that jobs
can run in worker processes and come back in a stable order.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from heredoc_lint.kinds import SourceKind
from heredoc_lint.model import Finding, Severity, Strategy, reported
from heredoc_lint.report.output import FileReport
from heredoc_lint.run import memory
from heredoc_lint.run.config import Config, ConfigError, Finder
from heredoc_lint.run.discover import (
    MAX_BYTES,
    TOO_LARGE,
    discover,
    kind_of,
    read_text,
    refused,
)
from heredoc_lint.run.forked import Lost
from heredoc_lint.run.settings import Settings

if TYPE_CHECKING:
    from heredoc_lint.run.cache import Cache


@dataclass(frozen=True)
class Options:
    """What the command line asked for; None means "as the configuration says"."""

    select: frozenset[str] | None = None
    ignore: frozenset[str] = frozenset()  # added to the configuration's
    severity: Severity | None = None
    fix_strategy: Strategy | None = None
    exclude: tuple[str, ...] = ()
    force_exclude: bool = False  # exclude patterns apply to named paths too
    config: Path | None = None
    verbose: bool = False
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    warn_unused_suppressions: bool = False
    jobs: int = 1
    cache_dir: Path | None = None  # None: no cache

    @property
    def fixing(self) -> bool:
        return self.fix or self.diff

    def resolve(self, config: Config, ignored: frozenset[str]) -> tuple[Settings, Severity]:
        """The settings for files of `config` whose per-file ignores are `ignored`: the
        command line over the configuration.  As in ruff, `--select` replaces the file's
        `select` and `ignore` both (a repository cannot unselect what the command line
        asks for); `--ignore` adds to them; per-file ignores still apply."""
        select = self.select if self.select is not None else config.select
        ignore = self.ignore | ignored | (config.ignore if self.select is None else frozenset())
        settings = Settings(
            select=select,
            ignore=ignore,
            fix_strategy=self.fix_strategy or config.fix_strategy or "base64",
            wrappers=config.wrappers,
            python_wrappers=config.python_wrappers,
            warn_unused_suppressions=self.warn_unused_suppressions,
        )
        return settings, self.severity or config.severity or Severity.WARNING


@dataclass(frozen=True)
class Job:
    name: str  # how the file is named in output
    kind: SourceKind
    settings: Settings
    severity: Severity
    path: Path | None = None  # None: stdin or --command (the fixed text goes to stdout)
    text: str | None = None  # given for stdin and --command; read from path otherwise


@dataclass
class FileOutcome:
    report: FileReport | None = None
    notes: list[str] = field(default_factory=list)
    failed: bool = False
    fixed: int = 0
    diff: str = ""
    fixed_text: str | None = None
    checked: tuple[str, list[Finding]] | None = None  # (cache key, all findings) to store


@dataclass
class Result:
    reports: list[FileReport] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    failed: bool = False  # unreadable input or an internal error: exit 2
    fixed: int = 0
    diffs: list[str] = field(default_factory=list)
    fixed_text: str | None = None  # for stdin and --command: the fixed text to print

    @property
    def exit_code(self) -> int:
        if self.failed:
            return 2
        if self.diffs:
            return 1
        return 1 if any(r.findings for r in self.reports) else 0

    def unsafe_fixable(self) -> int:
        from heredoc_lint.fixes.fixer import applicable

        return sum(
            1
            for r in self.reports
            for f in r.findings
            if applicable(f.fix, unsafe=True) and not applicable(f.fix, unsafe=False)
        )

    def add(self, outcome: FileOutcome) -> None:
        if outcome.report is not None:
            self.reports.append(outcome.report)
        self.notes.extend(outcome.notes)
        self.failed |= outcome.failed
        self.fixed += outcome.fixed
        if outcome.diff:
            self.diffs.append(outcome.diff)
        if outcome.fixed_text is not None:
            self.fixed_text = outcome.fixed_text


def process(job: Job, options: Options, bound: memory.Bound | None = None) -> FileOutcome:
    """Check (and fix) one file. Never raises: failures become notes.  With `bound`, the
    check is held to the memory the file's size allows (heredoc_lint.run.memory)."""
    outcome = FileOutcome()
    text, encoding, original = job.text, "utf-8", None
    if text is None:
        assert job.path is not None
        text, reason, encoding, original = read_text(job.path)
        if text is None:
            outcome.notes.append(f"{job.name}: {reason}")
            outcome.failed = bool(reason) and "skipped" not in (reason or "")
            return outcome
    kind = job.kind
    if original is not None and (reason := refused(kind, original)) is not None:
        outcome.notes.append(f"{job.name}: {reason}")
        return outcome
    data = original if original is not None else text.encode("utf-8", "surrogatepass")
    arguments = (job, options, kind, text, encoding, original, outcome)
    checked: FileOutcome | Lost
    if bound is None:
        checked = _check(*arguments)
    else:
        # A fix parses the file whatever it holds (engine.parses).
        parses = None if options.fixing else lambda: _parses(job, kind, text)
        checked = bound.run(_check, arguments, data, parses)
    if isinstance(checked, Lost):  # its process died: out of memory, or a crash
        size = len(data)
        if checked.out_of_memory:
            note = f"{job.name}: {memory.refusal(size)}; the process checking it {checked.reason}"
        else:
            note = f"{job.name}: internal error: the process checking it {checked.reason}"
        return FileOutcome(notes=[note], failed=True)
    return checked


def _parses(job: Job, kind: SourceKind, text: str) -> bool:
    from heredoc_lint.frontends import may_hold_fragments

    return may_hold_fragments(kind, text, job.name, job.settings.python_wrappers)


def _check(
    job: Job,
    options: Options,
    kind: SourceKind,
    text: str,
    encoding: str,
    original: bytes | None,
    outcome: FileOutcome,
) -> FileOutcome:
    """process's check (and fix) of the text it read."""
    try:
        findings: list[Finding] | None = None
        if options.fixing:
            text, findings = _fix(job, kind, options, outcome, text, encoding, original)
        if findings is None:
            from heredoc_lint.engine import check_text

            findings = check_text(text, kind, job.name, job.settings)
            if _cached(job, options) and original is not None:
                from heredoc_lint.run.cache import entry_key

                outcome.checked = (entry_key(kind, job.name, job.settings, original), findings)
    except Exception as error:  # one bad file must not stop the others
        if memory.exhausted(error):
            raise MemoryError from error  # the memory bound's: process says so
        if options.verbose:
            import traceback

            traceback.print_exc()
        from heredoc_lint.run.installation import missing

        why = missing(error) or f"internal error: {type(error).__name__}: {error}"
        outcome.notes.append(f"{job.name}: {why}")
        outcome.failed = True
        return outcome
    return _report(job, text, findings, outcome)


def _report(job: Job, text: str, findings: list[Finding], outcome: FileOutcome) -> FileOutcome:
    visible = tuple(reported(findings, job.severity))
    # The text only serves to place findings: a worker need not send back one without.
    outcome.report = FileReport(job.name, text if visible else "", visible)
    return outcome


def _cached(job: Job, options: Options) -> bool:
    """Whether this job's findings go through the cache: checks of files, not fixes."""
    return options.cache_dir is not None and job.path is not None and not options.fixing


def _entry_name(path: Path) -> str:
    return str(path.absolute())


def _from_cache(job: Job, path: Path, cache: Cache) -> FileOutcome | None:
    """The outcome of a file whose exact bytes were checked before with these settings."""
    text, _, _, original = read_text(path)
    if text is None or original is None:
        return None  # the worker reports why it cannot be read
    from heredoc_lint.run.cache import entry_key

    key = entry_key(job.kind, job.name, job.settings, original)
    findings = cache.get(_entry_name(path), key)
    return None if findings is None else _report(job, text, findings, FileOutcome())


def _fix(
    job: Job,
    kind: SourceKind,
    options: Options,
    outcome: FileOutcome,
    text: str,
    encoding: str,
    original: bytes | None,
) -> tuple[str, list[Finding] | None]:
    """Fix `text`; write it (or its diff); return the text to report on, and its findings."""
    import difflib

    from heredoc_lint.engine import fix_kind, parses
    from heredoc_lint.run.writer import WriteError, create_beside, encode, replace_atomically

    if "\0" in text:  # bash drops each NUL as it reads: the parse is not bash's
        outcome.notes.append(f"{job.name}: not fixed: the file holds a NUL byte")
        return text, None
    if not parses(text, kind):
        outcome.notes.append(f"{job.name}: not fixed: the file does not parse")
        return text, None
    fixed = fix_kind(
        text, kind, job.name, job.settings, unsafe=options.unsafe_fixes, threshold=job.severity
    )
    if fixed.error:
        outcome.notes.append(f"{job.name}: {fixed.error}")
    if fixed.text == text:
        return text, list(fixed.remaining)
    if options.diff:
        diffs = [
            difflib.unified_diff(
                text.splitlines(keepends=True),
                fixed.text.splitlines(keepends=True),
                fromfile=f"a/{job.name}",
                tofile=f"b/{job.name}",
            )
        ]
        directory = Path(job.name).parent
        for new in fixed.new_files:  # the scp strategy's body files, as new files
            name = (directory / new.path).as_posix()
            content = new.content.decode("utf-8", "surrogateescape")
            diffs.append(
                difflib.unified_diff(
                    [],
                    content.splitlines(keepends=True),
                    fromfile="/dev/null",
                    tofile=f"b/{name}",
                )
            )
        outcome.diff = "".join(line for diff in diffs for line in diff)
        return text, None
    if job.path is None:
        outcome.fixed_text = fixed.text
    else:
        try:
            for new in fixed.new_files:
                create_beside(job.path, new)
            replace_atomically(job.path, encode(fixed.text, encoding), original)
        except WriteError as error:
            outcome.notes.append(str(error))
            outcome.failed = True
            return text, None
    outcome.fixed = fixed.fixed
    return fixed.text, list(fixed.remaining)


def jobs(
    options: Options,
    paths: list[Path],
    command: str | None,
    stdin_filename: str | None,
    result: Result,
) -> list[Job]:
    try:
        finder = Finder(options.config)
    except ConfigError as error:
        result.notes.append(f"error: {error}")
        result.failed = True
        return []

    resolved: dict[tuple[int, frozenset[str]], tuple[Settings, Severity]] = {}
    warned: set[int] = set()

    def job(name: str, kind: SourceKind, path: Path | None, text: str | None = None) -> Job:
        config = finder.for_directory(path.parent if path is not None else Path.cwd())
        if config.warnings and id(config) not in warned:
            warned.add(id(config))
            result.notes.extend(f"warning: {warning}" for warning in config.warnings)
        ignored = config.ignored_for(path) if path is not None else frozenset()
        key = (id(config), ignored)  # the finder keeps each config: ids are not reused
        if key not in resolved:
            resolved[key] = options.resolve(config, ignored)
        return Job(name, kind, *resolved[key], path, text)

    try:
        if command is not None:
            return [job("<command>", "command", None, command)]
        if paths == [Path("-")] and not os.path.lexists("-"):  # a file named `-` is a file
            data = sys.stdin.buffer.read(MAX_BYTES + 1)
            name = stdin_filename or "-"
            if len(data) > MAX_BYTES:  # read no further: the input may never end
                result.notes.append(f"{name}: standard input {TOO_LARGE}")
                result.failed = True
                return []
            text = data.decode("utf-8", "surrogateescape")  # every byte kept
            kind = kind_of(Path(name), data[:128]) if stdin_filename else None
            return [job(name, kind or "shell", None, text)]

        def excluded(path: Path, named: Path) -> bool:
            """Whether a file found below the named directory `named` is excluded: as in
            ruff, what was named is checked (only the parts below it are matched against
            the patterns), unless --force-exclude."""
            below = None if options.force_exclude else named
            if cli_config.excluded(path, below):
                return True
            return finder.for_directory(path.parent).excluded(path, below)

        cli_config = Config(exclude=options.exclude)  # --exclude: from this directory
        named = paths or [Path(".")]
        if options.force_exclude:
            named = [p for p in named if not excluded(p, p)]
        sources, missing = discover(named, excluded)
        for skipped in missing:
            result.notes.append(f"{skipped.path}: {skipped.reason}")
            result.failed |= not skipped.reason.endswith("skipped")
        if not sources and not missing:
            # As ruff does: a run that checked nothing says so, rather than look clean.
            result.notes.append(
                "warning: no file to check under the given paths (in a directory, a file "
                "without a suffix is checked when its shebang names a shell or Python; "
                "name it on the command line to check it as shell)"
            )
        return [job(str(s.path), s.kind, s.path) for s in sources]
    except ConfigError as error:
        result.notes.append(f"error: {error}")
        result.failed = True
        return []


Progress = Callable[[int, int], None]  # (files done, files in all)


def run(
    options: Options,
    paths: list[Path],
    command: str | None = None,
    stdin_filename: str | None = None,
    progress: Progress | None = None,
) -> Result:
    result = Result()
    todo = jobs(options, paths, command, stdin_filename, result)
    cache = None
    if options.cache_dir is not None and not options.fixing and any(j.path for j in todo):
        from heredoc_lint.run.cache import Cache

        cache = Cache(options.cache_dir)
    outcomes: list[FileOutcome | None] = [None] * len(todo)
    if cache is not None:
        # Only a file the pack has an entry for can be a hit: a cold run reads nothing here.
        for i, job in enumerate(todo):
            if job.path is not None and cache.knows(_entry_name(job.path)):
                outcomes[i] = _from_cache(job, job.path, cache)
    missed = [i for i, outcome in enumerate(outcomes) if outcome is None]
    done = len(todo) - len(missed)
    for i, checked in _process_all(todo, missed, options):
        outcomes[i] = checked
        path = todo[i].path
        if cache is not None and path is not None and checked.checked is not None:
            cache.put(_entry_name(path), *checked.checked)
        done += 1
        if progress is not None:
            progress(done, len(todo))
    for outcome in outcomes:
        if outcome is not None:
            result.add(outcome)
    if cache is not None:
        cache.save()
    return result


def _process_all(
    todo: list[Job], indexes: list[int], options: Options
) -> Iterator[tuple[int, FileOutcome]]:
    """(index, outcome) of the jobs at `indexes`, in the order they are done; in forked
    worker processes when there are enough files, the largest first, so that no worker
    is left with a big one at the end."""
    from functools import partial

    from heredoc_lint.run import forked

    # Each process that checks files starts its own, for the files that need it.
    kinds = frozenset(todo[i].kind for i in indexes)
    with memory.Bound(prepare=partial(_import_all, kinds, options.fixing)) as bound:
        workers = min(options.jobs, len(indexes) // MIN_FILES_PER_WORKER)
        if workers < 2 or not forked.can_fork():
            yield from ((i, process(todo[i], options, bound)) for i in indexes)
            return
        import heredoc_lint.engine  # noqa: F401  (the forked workers start with it imported)

        order = sorted(indexes, key=lambda i: -_size(todo[i]))
        work = partial(process, options=options, bound=bound)
        for position, outcome in forked.map_forked(work, [todo[i] for i in order], workers):
            i = order[position]
            if isinstance(outcome, forked.Lost):
                note = f"{todo[i].name}: internal error: the process checking it {outcome.reason}"
                outcome = FileOutcome(notes=[note], failed=True)
            yield i, outcome


def _import_all(kinds: frozenset[SourceKind], fixing: bool) -> None:
    from heredoc_lint.engine import import_all  # only when a file needs the bound's worker

    import_all(kinds, fixing=fixing)


def _size(job: Job) -> int:
    if job.text is not None:
        return len(job.text)
    try:
        return os.stat(job.path).st_size if job.path is not None else 0
    except OSError:
        return 0  # process() reports it


MIN_FILES_PER_WORKER = 8  # below this, starting workers costs more than it saves
