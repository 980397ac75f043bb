"""The forked workers behind `--jobs N`: every item done once, by more than one process;
a worker that dies costs only the item it was on; nothing outlives the run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from heredoc_lint.run import forked, runner
from heredoc_lint.run.forked import Lost, map_forked

pytestmark = pytest.mark.skipif(not forked.can_fork(), reason="needs os.fork")


def wait_for(done: Callable[[], bool]) -> None:
    """Until `done()`, or 30 s: what a process waits for, when the code is broken, may
    never come; the test's assertions then say what went wrong."""
    deadline = time.monotonic() + 30
    while not done() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_every_item_once_and_the_work_shared(tmp_path: Path) -> None:
    parent = os.getpid()
    parent_started = tmp_path / "parent-started"
    worker_started = tmp_path / "worker-started"
    waited: set[int] = set()  # the processes on their first item (each has its own copy)

    def slow_square(x: int) -> tuple[int, int]:
        # Each process holds its first item until another one holds one too: on a loaded
        # machine the workers could take every item before this process is scheduled, or
        # this process do them all before a worker is.
        if os.getpid() not in waited:
            waited.add(os.getpid())
            if os.getpid() == parent:
                parent_started.touch()
                wait_for(worker_started.exists)
            else:
                worker_started.touch()
                wait_for(parent_started.exists)
        time.sleep(0.001)
        return x * x, os.getpid()

    items = list(range(300))
    got = list(map_forked(slow_square, items, 3))
    positions = [position for position, _ in got]
    assert sorted(positions) == items  # each once
    results = dict(got)
    assert all(results[i] == (i * i, results[i][1]) for i in items)  # type: ignore[index]
    pids = {pid for _, pid in results.values()}  # type: ignore[misc]
    assert os.getpid() in pids, "this process works through items too"
    assert len(pids) >= 2, "the forked workers took none"


def test_more_items_than_tokens() -> None:
    items = list(range(forked.MAX_TOKENS * 5 + 3))
    got = dict(map_forked(lambda x: -x, items, 2))
    assert got == {i: -i for i in items}


def test_a_worker_that_dies_loses_only_its_item(tmp_path: Path) -> None:
    parent = os.getpid()
    worker_started = tmp_path / "worker-started"
    waited: list[int] = []

    def work(x: int) -> int:
        if os.getpid() != parent:
            worker_started.touch()
            os.kill(os.getpid(), signal.SIGKILL)  # the worker dies on its first item
        if not waited:  # the first item is not done before the worker starts on one
            waited.append(x)
            wait_for(worker_started.exists)
        return x

    got = dict(map_forked(work, list(range(100)), 2))
    assert sorted(got) == list(range(100))
    lost = {i: r for i, r in got.items() if isinstance(r, Lost)}
    assert len(lost) == 1, lost
    assert list(lost.values())[0].reason == "was killed by signal 9 (SIGKILL)"
    assert all(got[i] == i for i in got if i not in lost)


def test_a_worker_that_dies_in_a_share_of_many_items_loses_only_its_item() -> None:
    """Past MAX_TOKENS a token stands for many items: the rest of the dead worker's
    share is still done, by this process."""
    parent = os.getpid()
    count = forked.MAX_TOKENS * 3

    def work(x: int) -> int:
        if os.getpid() != parent and x >= forked.MAX_TOKENS:
            os.kill(os.getpid(), signal.SIGKILL)
        return -x

    got = dict(map_forked(work, list(range(count)), 2))
    assert sorted(got) == list(range(count))
    lost = [i for i, r in got.items() if isinstance(r, Lost)]
    assert len(lost) <= 1, lost  # none when this process took every such share itself
    assert all(got[i] == -i for i in got if i not in lost)


def test_big_results_do_not_stall_a_worker(tmp_path: Path) -> None:
    """While this process is on its first item, the worker does all the others although
    each result (200 KB) is more than a pipe holds by default."""
    parent = os.getpid()
    log = tmp_path / "started"
    parent_started = tmp_path / "parent-started"
    count = 6

    def work(x: int) -> bytes:
        if os.getpid() != parent:
            # Until this process holds an item, a worker quick off the mark (or this
            # process slow to start, on a loaded machine) could take every item.
            wait_for(parent_started.exists)
            with log.open("a") as handle:
                handle.write(f"{x}\n")
        else:
            parent_started.touch()
            # A stalled worker never starts the others: 30 s, and the assertions fail.
            wait_for(lambda: log.exists() and len(log.read_text().split()) == count - 1)
        return b"x" * 200_000

    got = dict(map_forked(work, list(range(count)), 2))
    assert sorted(got) == list(range(count))
    assert all(r == b"x" * 200_000 for r in got.values())
    assert len(log.read_text().split()) == count - 1, "the worker waited on its pipe"


def test_stopping_early_ends_the_workers(tmp_path: Path) -> None:
    parent = os.getpid()
    log = tmp_path / "pids"
    worker_started = tmp_path / "worker-started"
    waited: list[int] = []

    def work(x: int) -> int:
        with log.open("a") as handle:
            handle.write(f"{os.getpid()}\n")
        if os.getpid() != parent:
            worker_started.touch()
        elif not waited:  # the 20 results are not all this process's before a worker starts
            waited.append(x)
            wait_for(worker_started.exists)
        time.sleep(0.01)
        return x

    results = map_forked(work, list(range(200)), 3)
    for _ in range(20):
        next(results)
    results.close()
    workers = {int(line) for line in log.read_text().split()} - {os.getpid()}
    assert workers, "no worker had started"
    for pid in workers:
        with pytest.raises(ProcessLookupError):  # ended and waited for: gone
            os.kill(pid, 0)


def test_buffered_output_is_written_once(tmp_path: Path) -> None:
    """A worker starts with a copy of this process's unwritten output buffers."""
    script = textwrap.dedent(
        """
        import sys
        from heredoc_lint.run.forked import map_forked
        sys.stdout.write("before\\n")  # buffered: stdout is a pipe
        results = dict(map_forked(lambda x: x, list(range(64)), 2))
        assert results == {i: i for i in range(64)}
        sys.stdout.write("after\\n")
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env["PYTHONPATH"] = str(Path(runner.__file__).parent.parent)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "before\nafter\n"


PKILL = 'ssh h "pkill -f sglang; ./restart {i}"\n'


def test_a_file_whose_worker_died_is_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = []
    for i in range(20):
        path = tmp_path / f"f{i:02}.sh"
        path.write_text(PKILL.format(i=i))
        paths.append(path)
    parent = os.getpid()
    real = runner.process
    worker_started = tmp_path / "worker-started"
    waited: list[runner.Job] = []

    def process(
        job: runner.Job, options: runner.Options, bound: object = None
    ) -> runner.FileOutcome:
        if os.getpid() != parent:
            worker_started.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        if not waited:  # the first file is not done before the worker starts on one
            waited.append(job)
            wait_for(worker_started.exists)
        return real(job, options)

    monkeypatch.setattr(runner, "process", process)
    result = runner.run(runner.Options(jobs=2), paths)
    assert result.exit_code == 2
    assert len(result.notes) == 1, result.notes
    lost_name = result.notes[0].split(":")[0]
    assert result.notes[0] == (
        f"{lost_name}: internal error: the process checking it was killed by signal 9 (SIGKILL)"
    )
    reported = sorted(r.path for r in result.reports)
    assert reported == sorted(str(p) for p in paths if str(p) != lost_name)
    assert all([f.code for f in r.findings] == ["HL103"] for r in result.reports)
