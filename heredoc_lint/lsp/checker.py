"""Checking open documents as they change, off the event loop.

The engine is synchronous: each check runs in a worker thread, so the server goes on
answering (hover, code actions, other documents) while one runs.  Per document:

- at most one check runs at a time; edits that arrive meanwhile are checked together,
  at the version current when that check ends (older versions are never checked);
- checks start at most once per `interval` (a burst of keystrokes costs one check per
  interval, and a single edit is checked at once, not after a fixed delay);
- a result is published only if the document is still at the version it was computed
  for (a stale result is dropped: a newer check is on its way);
- a check that takes longer than `budget` seconds is reported as such; it cannot be
  stopped (it is Python code in a thread), but nothing waits for it, and the next check
  of that document starts when it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from heredoc_lint.engine import check_text
from heredoc_lint.kinds import SourceKind
from heredoc_lint.lsp.project import Project, project_for
from heredoc_lint.model import Finding, reported


@dataclass(frozen=True)
class Snapshot:
    """One version of an open document."""

    uri: str
    version: int | None
    text: str
    kind: SourceKind
    path: str | None  # the file's path, for the configuration and the frontends


@dataclass(frozen=True)
class Checked:
    snapshot: Snapshot
    project: Project
    findings: tuple[Finding, ...]  # every finding (the actions re-check against these)
    reported: tuple[Finding, ...]  # those at or above the project's threshold
    seconds: float
    error: str | None = None  # an internal error of the engine


def run_check(snapshot: Snapshot) -> Checked:
    """Check one snapshot (in a worker thread).  Never raises."""
    started = time.perf_counter()
    project = project_for(snapshot.path)
    if project.excluded:
        return Checked(snapshot, project, (), (), time.perf_counter() - started)
    try:
        findings = check_text(snapshot.text, snapshot.kind, snapshot.path, project.settings)
    except Exception as error:  # a bug in a rule must not take the server down
        message = f"{type(error).__name__}: {error}"
        return Checked(snapshot, project, (), (), time.perf_counter() - started, message)
    shown = tuple(reported(findings, project.threshold))
    return Checked(snapshot, project, tuple(findings), shown, time.perf_counter() - started)


@dataclass
class _State:
    running: asyncio.Future[Checked] | None = None
    timer: asyncio.TimerHandle | None = None
    dirty: bool = False
    last_start: float = -1e9
    result: Checked | None = None


class Checker:
    def __init__(
        self,
        current: Callable[[str], Snapshot | None],
        publish: Callable[[Checked], None],
        overran: Callable[[Snapshot, float], None],
        *,
        interval: float = 0.05,
        budget: float = 5.0,
        workers: int = 4,
    ) -> None:
        self.current = current  # the document's snapshot now, None once closed
        self.publish = publish
        self.overran = overran  # told when a check has taken `budget` seconds
        self.interval = interval
        self.budget = budget
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="check")
        self.states: dict[str, _State] = {}

    def changed(self, uri: str) -> None:
        state = self.states.setdefault(uri, _State())
        state.dirty = True
        self._kick(uri, state)

    def closed(self, uri: str) -> None:
        state = self.states.pop(uri, None)
        if state is not None and state.timer is not None:
            state.timer.cancel()

    def result(self, uri: str) -> Checked | None:
        """The last published result, if it is for the document's current version."""
        state = self.states.get(uri)
        snapshot = self.current(uri)
        if state is None or state.result is None or snapshot is None:
            return None
        return state.result if state.result.snapshot.version == snapshot.version else None

    async def fresh(self, uri: str) -> Checked | None:
        """A result for the current version, checked now if need be (within the budget);
        None if the document changed meanwhile or the check ran out of time."""
        found = self.result(uri)
        if found is not None:
            return found
        snapshot = self.current(uri)
        if snapshot is None:
            return None
        work = asyncio.get_running_loop().run_in_executor(self.pool, run_check, snapshot)
        try:
            checked = await asyncio.wait_for(work, self.budget)
        except TimeoutError:
            return None
        now = self.current(uri)
        return checked if now is not None and now.version == snapshot.version else None

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)

    # -- scheduling ------------------------------------------------------------------------

    def _kick(self, uri: str, state: _State) -> None:
        if state.running is not None or state.timer is not None or not state.dirty:
            return
        loop = asyncio.get_running_loop()
        wait = state.last_start + self.interval - loop.time()
        if wait > 0:
            state.timer = loop.call_later(wait, self._start, uri)
        else:
            self._start(uri)

    def _start(self, uri: str) -> None:
        state = self.states.get(uri)
        snapshot = self.current(uri)
        if state is None or snapshot is None:
            return
        loop = asyncio.get_running_loop()
        state.timer = None
        state.dirty = False
        state.last_start = loop.time()
        work: Future[Checked] = self.pool.submit(run_check, snapshot)
        state.running = asyncio.wrap_future(work)
        watch = loop.create_task(self._watch(uri, state, snapshot, state.running))
        watch.add_done_callback(_log_crash)

    async def _watch(
        self, uri: str, state: _State, snapshot: Snapshot, running: asyncio.Future[Checked]
    ) -> None:
        try:
            checked = await asyncio.wait_for(asyncio.shield(running), self.budget)
        except TimeoutError:
            self.overran(snapshot, self.budget)
            checked = await running
        state.running = None
        if self.states.get(uri) is not state:
            return  # closed meanwhile
        now = self.current(uri)
        if now is not None and now.version == snapshot.version:
            state.result = checked
            self.publish(checked)
        else:
            state.dirty = True  # stale: check the version the editor has now
        self._kick(uri, state)


def _log_crash(task: asyncio.Task[None]) -> None:
    with contextlib.suppress(asyncio.CancelledError):
        error = task.exception()
        if error is not None:
            import logging

            logging.getLogger(__name__).error("a check's watcher failed: %r", error)
