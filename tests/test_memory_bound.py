"""The memory bound (issue 18 item 8): checking one input may cost memory.ALLOWANCE and
100 bytes per byte of it; an input that needs more is refused with one line (exit 2 in
the CLI; the hook lets the command run unchecked and says so, as on a timeout).

The inputs over the bound are real shapes, through the real CLI and the real parsers:
an f-string of many fields (Python's `ast` alone takes 581 bytes per byte of it, and
libcst aborts when it gets no memory), a dense run of expansions in an ssh string
(tree-sitter-bash crashes when it gets no memory).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_process import CLI, run_cli

from heredoc_lint.frontends import SourceError
from heredoc_lint.frontends.python.parsing import parse_partly
from heredoc_lint.run import memory, runner
from heredoc_lint.run.forked import LimitedWorker, Lost

BAD = 'ssh h "pkill -f sglang; ./restart"'
MIB = 1024 * 1024


def fstring_file(size: int) -> str:
    """A Python file of about `size` bytes: one ssh call whose command is an f-string of
    two fields every ten bytes (about 2,200 bytes of memory per byte to check)."""
    return (
        'import subprocess\nsubprocess.run(["ssh", "h", f"echo '
        + "{a} {b:d} " * (size // 10)
        + '"])\n'
    )


def peak_growth(argv: list[str], baseline: list[str], cwd: Path) -> int:
    """Bytes by which the peak resident memory of `argv` (or of a process it waited for)
    exceeds that of `baseline`, each run alone in a fresh interpreter."""
    probe = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], capture_output=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )

    def peak(args: list[str]) -> int:
        out = subprocess.run(
            [sys.executable, "-c", probe, *args], cwd=cwd, capture_output=True, text=True
        )
        return int(out.stdout) * 1024

    return peak(argv) - peak(baseline)


def in_a_fresh_process(statements: str) -> list[str]:
    """The lines `statements` print, run by a fresh interpreter that imported this
    module.  A worker forked there has little freed memory to reuse: its limit counts
    new mappings, and one forked from this test process could reuse, uncounted, what the
    tests before it freed."""
    script = "import sys\nsys.path.insert(0, sys.argv[1])\nfrom test_memory_bound import *\n"
    out = subprocess.run(
        [sys.executable, "-c", script + statements, str(Path(__file__).parent)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


# --- the CLI -------------------------------------------------------------------------


def test_a_file_over_the_bound_is_refused_with_one_line(tmp_path: Path) -> None:
    text = fstring_file(100_000)
    (tmp_path / "big.py").write_text(text)
    # As many tokens and one short f-string in an ssh call: its run forks the same worker,
    # which imports libcst for that f-string as the big file's does.  The bound is the
    # input's, not the program's: libcst alone grows the worker by 46 MiB (Python 3.13,
    # libcst 1.9), which a baseline without it would charge to the input.
    plain = 'subprocess.run(["ssh", "h", f"echo {a}"])\n' + "x = 1\n" * (len(text) // 6)
    assert memory.costly(plain.encode())
    (tmp_path / "plain.py").write_text(plain)
    size = len(text.encode())
    result = run_cli("--no-cache", "big.py", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(
        f"heredoc-lint: big.py: not checked: it needs more memory than the "
        f"{memory.allowed(size) / MIB:.0f} MiB heredoc-lint allows for it "
        f"({memory.ALLOWANCE // MIB} MiB and {memory.PER_BYTE} bytes per byte of input); "
        "the process checking it "
    ), lines[0]
    assert run_cli("--no-cache", "--format", "json", "big.py", cwd=tmp_path).stdout == "[]\n"
    # And the run kept to the bound while it found that out.
    cli = [*CLI, "--no-cache"]
    # The least of three: a loaded machine adds megabytes to one run's peak, while a
    # worker that outgrew the bound would do so in every run.
    grown = min(peak_growth([*cli, "big.py"], [*cli, "plain.py"], tmp_path) for _ in range(3))
    assert 0 < grown <= memory.allowed(size), grown


def test_a_large_file_within_the_bound_is_checked_as_in_this_process(tmp_path: Path) -> None:
    from heredoc_lint.engine import check_text

    text = "echo hello; " * 6_000 + "\n" + BAD + "\n"
    assert memory.costly(text.encode())  # checked in a process held to the bound
    (tmp_path / "s.sh").write_text(text)
    result = run_cli("--no-cache", "--format", "json", "s.sh", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    found = [(f["code"], f["line"], f["column"]) for f in json.loads(result.stdout)]
    assert found == [("HL103", 2, 8)]
    here = check_text(text, "shell", "s.sh")
    assert [(f.code, f.start) for f in here] == [("HL103", text.index("pkill"))]


def test_with_workers_only_the_file_over_the_bound_is_refused(tmp_path: Path) -> None:
    names = []
    for i in range(16):
        (tmp_path / f"f{i:02}.sh").write_text(f"# {i}\n{BAD}\n")
        names.append(f"f{i:02}.sh")
    (tmp_path / "big.py").write_text(fstring_file(100_000))
    result = run_cli(
        "--no-cache", "--jobs", "2", "--format", "json", *names, "big.py", cwd=tmp_path
    )
    assert result.returncode == 2
    notes = result.stderr.splitlines()
    assert len(notes) == 1, result.stderr
    assert notes[0].startswith("heredoc-lint: big.py: not checked: it needs more memory than ")
    found = sorted((f["path"], f["code"]) for f in json.loads(result.stdout))
    assert found == [(name, "HL103") for name in names]


def crash_instead(*args: object) -> None:
    os.kill(os.getpid(), signal.SIGSEGV)


def test_a_crash_of_the_worker_far_below_its_limit_is_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "echo hello; " * 6_000 + "\n" + BAD + "\n"
    (tmp_path / "s.sh").write_text(text)
    monkeypatch.setattr(runner, "_check", crash_instead)  # the worker starts with it
    result = runner.run(runner.Options(cache_dir=None), [tmp_path / "s.sh"])
    assert result.exit_code == 2
    assert result.notes == [
        f"{tmp_path / 's.sh'}: internal error: the process checking it was killed by "
        "signal 11 (SIGSEGV)"
    ]


def exhaust(*args: object) -> list[object]:
    return [bytearray(1 << 30)]


def test_a_memory_error_in_the_engine_is_the_bounds_not_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import heredoc_lint.engine

    text = "echo hello; " * 6_000 + "\n" + BAD + "\n"
    (tmp_path / "s.sh").write_text(text)
    monkeypatch.setattr(heredoc_lint.engine, "check_text", exhaust)  # the worker has it
    result = runner.run(runner.Options(cache_dir=None), [tmp_path / "s.sh"])
    assert result.exit_code == 2
    assert result.notes == [
        f"{tmp_path / 's.sh'}: {memory.refusal(len(text))}; the process checking it "
        "ran out of the memory it was given"
    ]


def fail_without_exception(*args: object) -> list[object]:
    # What tree-sitter 0.23 did, one run in eight, when an allocation failed under the
    # limit: it returned NULL and Python raised this in its place.
    raise SystemError("error return without exception set")


def test_a_system_error_under_the_limit_is_the_bounds_not_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import heredoc_lint.engine

    text = "echo hello; " * 6_000 + "\n" + BAD + "\n"
    (tmp_path / "s.sh").write_text(text)
    monkeypatch.setattr(heredoc_lint.engine, "check_text", fail_without_exception)
    result = runner.run(runner.Options(cache_dir=None), [tmp_path / "s.sh"])
    assert result.exit_code == 2
    assert result.notes == [
        f"{tmp_path / 's.sh'}: {memory.refusal(len(text))}; the process checking it "
        "ran out of the memory it was given"
    ]


def test_a_system_error_without_a_limit_is_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import heredoc_lint.engine

    (tmp_path / "s.sh").write_text(BAD + "\n")  # small: checked in this process
    monkeypatch.setattr(heredoc_lint.engine, "check_text", fail_without_exception)
    result = runner.run(runner.Options(cache_dir=None), [tmp_path / "s.sh"])
    assert result.exit_code == 2
    assert result.notes == [
        f"{tmp_path / 's.sh'}: internal error: SystemError: error return without "
        "exception set"
    ]


# --- the hook ------------------------------------------------------------------------


def test_the_hook_lets_a_command_over_the_bound_run_unchecked_and_says_so(
    tmp_path: Path,
) -> None:
    # Each `$a` costs tree-sitter-bash and the engine about 800 bytes per byte.
    command = 'ssh h "' + "$a" * 100_000 + '; pkill -f sglang"'
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    result = subprocess.run(
        [*CLI, "hook", "claude"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0
    assert result.stdout == ""  # no decision: Claude Code runs the command
    size = len(command.encode())
    assert result.stderr == (
        f"heredoc-lint: hook: {memory.refusal(size)}; the command was allowed unchecked\n"
    )


# --- which inputs are checked in a process held to the bound ----------------------


def test_an_input_is_costly_past_the_tokens_the_allowance_pays_for() -> None:
    most = memory.ALLOWANCE // memory.PER_TOKEN
    assert not memory.costly(b"a " * most)
    assert memory.costly(b"a " * (most + 1))
    assert not memory.costly(b" " * (10 * MIB))  # long, but nothing to parse
    assert memory.costly(b"{a}" * (most // 3 + 1))  # punctuation: a token each
    assert not memory.costly(b"{a}" * (most // 3 - 1))
    # 20 KB of ordinary shell, about 0.3 tokens a character: no fork for it.
    ordinary = 'if [ -n "$HOST" ]; then\n  ssh "$HOST" uptime\nfi\n' * 400
    assert len(ordinary) > 16_000 and not memory.costly(ordinary.encode())


def test_a_costly_input_the_check_will_not_parse_is_checked_in_this_process() -> None:
    data = b"a " * (memory.ALLOWANCE // memory.PER_TOKEN + 1)
    assert memory.costly(data)
    with memory.Bound() as bound:
        assert bound.run(pid, (), data, parses=lambda: False) == os.getpid()
        assert bound.run(pid, (), data, parses=lambda: True) != os.getpid()


def test_tokens_are_never_fewer_than_a_tokenizer_finds() -> None:
    import random
    import re

    tokenizer = re.compile(r"\w+|[^\w\s]")
    alphabet = "ab_9 \t\n{}$;'\"\\é€\x1c\xa0日"
    rng = random.Random(18)
    for _ in range(3_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        assert memory.tokens(text.encode()) >= len(tokenizer.findall(text)), repr(text)
    assert memory.tokens(b"ssh h 'a;b'") == len(tokenizer.findall("ssh h 'a;b'")) == 7


def test_in_the_hook_a_crash_far_below_the_limit_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from heredoc_lint.agents import hook

    command = 'ssh h "' + "echo a; " * 6_000 + 'pkill -f sglang"'
    assert memory.costly(command.encode())
    monkeypatch.setattr(hook, "_check", crash_instead)
    verdict = hook.decide(command, hook.parse_options(["claude"]))
    assert verdict.decision == "allow"
    assert verdict.notes == (
        "heredoc-lint: hook: internal error: the process checking it was killed by signal "
        "11 (SIGSEGV); the command was allowed unchecked",
    )


# --- the worker held to a limit ---------------------------------------------------


def repeat(n: int) -> list[int]:
    return [n] * 1000


def allocate(n: int) -> int:
    return len(bytearray(n))


def say_and_allocate(n: int) -> int:
    os.write(2, b"said\n")
    return len(bytearray(n))


def crash() -> None:
    os.kill(os.getpid(), signal.SIGSEGV)


def spin_at_the_limit() -> None:
    """What CPython does when an allocation fails where it cannot raise MemoryError: try
    it again, for ever, at its limit."""
    held = []
    with contextlib.suppress(MemoryError):
        while True:
            held.append(bytearray(64 * 1024))
    while True:
        with contextlib.suppress(MemoryError):
            held.append(bytearray(MIB))


def spin() -> None:
    while True:
        pass


def pid() -> int:
    return os.getpid()


def parse_shell(text: str) -> int:
    from heredoc_lint.shell.syntax import parse_script

    tree = parse_script(text).tree
    return 0 if tree is None else tree.root_node.end_byte


OUT_OF_MEMORY = Lost("ran out of the memory it was given", out_of_memory=True)


def test_a_result_within_the_limit_comes_back_and_the_worker_serves_again() -> None:
    with LimitedWorker() as worker:
        assert worker.call(repeat, (7,), 16 * MIB) == [7] * 1000
        first = worker.call(pid, (), 16 * MIB)
        assert first != os.getpid()
        assert worker.call(allocate, (8 * MIB,), 16 * MIB) == 8 * MIB
        assert worker.call(pid, (), 16 * MIB) == first  # one fork for all three


def test_a_memory_error_is_out_of_memory_and_the_next_call_gets_a_new_worker() -> None:
    with LimitedWorker() as worker:
        first = worker.call(pid, (), 16 * MIB)
        assert worker.call(allocate, (512 * MIB,), 32 * MIB) == OUT_OF_MEMORY
        # Each call has its own limit: the same size fits in a bigger one.
        assert worker.call(allocate, (64 * MIB,), 128 * MIB) == 64 * MIB
        assert worker.call(pid, (), 16 * MIB) != first


def test_a_system_error_under_the_limit_is_out_of_memory_too() -> None:
    # The hook calls the engine in the worker directly, not through the runner that
    # passes such an error on as MemoryError: the worker reads it the same way.
    with LimitedWorker() as worker:
        first = worker.call(pid, (), 16 * MIB)
        assert worker.call(fail_without_exception, (), 16 * MIB) == OUT_OF_MEMORY
        assert worker.call(pid, (), 16 * MIB) != first


def test_tree_sitter_without_memory_is_contained_and_called_out_of_memory() -> None:
    assert parse_shell("$a") == 2
    printed = in_a_fresh_process(
        "with LimitedWorker() as worker:\n"
        "    lost = worker.call(parse_shell, ('$a' * 200_000,), 16 * MIB)\n"  # about 300 MB
        "    print(lost.out_of_memory, lost.reason)\n"
        "    print(worker.call(parse_shell, ('$a',), 16 * MIB))\n"
    )
    assert printed[0].startswith("True was killed by signal"), printed
    assert printed[1:] == ["2"]


def test_a_crash_far_below_the_limit_is_not_out_of_memory() -> None:
    with LimitedWorker() as worker:
        assert worker.call(allocate, (200 * MIB,), 256 * MIB) == 200 * MIB  # a high peak
        lost = worker.call(crash, (), 256 * MIB)  # its peak is counted from the call
    assert lost == Lost("was killed by signal 11 (SIGSEGV)", out_of_memory=False)


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """TimeoutError in this process after `seconds`, if still inside."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_a_worker_spinning_at_its_limit_is_killed_and_out_of_memory() -> None:
    with deadline(60), LimitedWorker() as worker:
        assert worker.call(spin_at_the_limit, (), 32 * MIB) == OUT_OF_MEMORY
        assert worker.call(repeat, (7,), 16 * MIB) == [7] * 1000  # a new worker serves


def test_a_worker_spinning_below_its_limit_is_left_to_run() -> None:
    # Only the clock of the one that called it stops it (the hook's --timeout), here
    # after more than forked._SPINNING seconds of the worker's CPU.
    with pytest.raises(TimeoutError), deadline(3), LimitedWorker() as worker:
        worker.call(spin, (), 32 * MIB)


def test_a_tighter_limit_of_the_users_own_holds_in_the_worker() -> None:
    # As under `ulimit -d`: the worker's limit is never above the one it was given.
    printed = in_a_fresh_process(
        "from heredoc_lint.run.forked import _limit_data\n"
        "_limit_data(256 * MIB)\n"
        "with LimitedWorker() as worker:\n"
        "    print(worker.call(allocate, (512 * MIB,), 2048 * MIB))\n"
        "    print(worker.call(allocate, (64 * MIB,), 2048 * MIB))\n"
    )
    assert printed == [repr(OUT_OF_MEMORY), str(64 * MIB)]


def test_the_workers_stderr_is_passed_on_unless_it_ran_out_of_memory(
    capfd: pytest.CaptureFixture[str],
) -> None:
    with LimitedWorker() as worker:
        assert worker.call(say_and_allocate, (10,), 16 * MIB) == 10
        assert capfd.readouterr().err == "said\n"
        assert worker.call(say_and_allocate, (512 * MIB,), 16 * MIB) == OUT_OF_MEMORY
        assert capfd.readouterr().err == ""


def test_an_interrupted_call_ends_the_worker() -> None:
    def expire(signum: int, frame: object) -> None:
        raise TimeoutError

    started = time.monotonic()
    old = signal.signal(signal.SIGALRM, expire)
    try:
        with pytest.raises(TimeoutError), LimitedWorker() as worker:
            child = worker.call(pid, (), 16 * MIB)
            signal.setitimer(signal.ITIMER_REAL, 0.3)
            worker.call(time.sleep, (30,), 16 * MIB)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert time.monotonic() - started < 10
    with pytest.raises(ProcessLookupError):  # killed and waited for: gone
        os.kill(child, 0)


# --- a MemoryError under the limit is the limit's, not the input's ------------------


def test_the_sources_own_memory_error_is_still_a_source_error() -> None:
    # Python's parser raises MemoryError for a source nested too deeply to parse.
    with pytest.raises(SourceError, match="Python source cannot be read"):
        parse_partly("-" * 100_000 + "1")


def parse_or_say(text: str) -> str:
    try:
        parse_partly(text)
    except SourceError as error:
        return f"SourceError: {error}"
    return "parsed"


def numbers_of(module: str, version: tuple[int, int, int]) -> dict[str, int | float]:
    from heredoc_lint.frontends.python.imported import _numbers

    return _numbers(module, version)


def test_under_a_limit_parse_partly_passes_a_memory_error_on() -> None:
    # Under a limit, even the source's own MemoryError is taken for the limit's: the
    # input is refused (exit 2), never read as parsed or as empty.
    printed = in_a_fresh_process(
        "with LimitedWorker() as worker:\n"
        "    print(worker.call(parse_or_say, (fstring_file(100_000),), 16 * MIB))\n"
        "    print(worker.call(parse_or_say, ('-' * 100_000 + '1',), 16 * MIB))\n"
    )
    assert printed == [repr(OUT_OF_MEMORY)] * 2


def test_under_a_limit_an_imported_module_too_costly_is_not_read_as_empty(
    tmp_path: Path,
) -> None:
    module = tmp_path / "m.py"
    module.write_text("N = 5\n" + fstring_file(100_000))
    version = (1, 2, module.stat().st_size)
    assert numbers_of(str(module), version) == {"N": 5}
    printed = in_a_fresh_process(
        "with LimitedWorker() as worker:\n"
        f"    print(worker.call(numbers_of, ({str(module)!r}, {version}), 16 * MIB))\n"
    )
    assert printed == [repr(OUT_OF_MEMORY)]


def test_a_memory_error_in_libcst_is_not_an_unread_f_string(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import libcst

    from heredoc_lint.engine import check_text

    def no_memory(source: str) -> object:
        raise MemoryError

    monkeypatch.setattr(libcst, "parse_expression", no_memory)
    with pytest.raises(MemoryError):
        check_text('import os\nos.system(f"ssh h {x}")\n', "python", "s.py")


def test_under_a_limit_any_other_error_of_libcst_is_the_limits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As an import under the limit failed: "ImportError: ... failed to map segment".
    import libcst

    from heredoc_lint.engine import check_text

    def failed(source: str) -> object:
        raise ImportError("failed to map segment from shared object")

    monkeypatch.setattr(libcst, "parse_expression", failed)
    text = 'import os\nos.system(f"ssh h {x}")\n'
    assert check_text(text, "python", "s.py") == []  # not limited: an f-string unread
    monkeypatch.setattr(memory, "limited", lambda: True)
    with pytest.raises(MemoryError):
        check_text(text, "python", "s.py")


# --- what the worker imports before its limit ------------------------------------------

# Runs the CLI in this process with every check and fix done as in the bound's worker,
# and prints the modules imported after the worker would have been forked.
IMPORTED_UNDER_THE_LIMIT = """
import contextlib, sys
from heredoc_lint.run import memory
imported = set()
lifted = set()  # what memory.imported_outside_the_limit loads with the limit lifted
outside = memory._lifted

@contextlib.contextmanager
def recorded():
    before = set(sys.modules)
    with outside():
        yield
    lifted.update(set(sys.modules) - before)

memory._lifted = recorded

def run(self, function, args, data):
    if not hasattr(self, "before"):
        self._prepare()  # as when the worker is forked
        self.before = set(sys.modules)
    try:
        return function(*args)
    finally:
        imported.update(set(sys.modules) - self.before)

memory.Bound.run = run
from heredoc_lint.cli.entry import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout = sys.__stdout__
print("imported:", sorted(imported - lifted))
"""


def _sources_by_kind() -> dict[str, list[str]]:
    """The files of the project's fixtures, test data and recall bench, by kind."""
    from heredoc_lint.run.discover import discover

    root = Path(__file__).parent.parent
    sources, _ = discover([root / "fixtures", root / "tests" / "data", root / "bench" / "recall"])
    by_kind: dict[str, list[str]] = {}
    for source in sources:
        by_kind.setdefault(source.kind, []).append(str(source.path))
    return by_kind


@pytest.mark.parametrize("mode", ["--diff", "--format=json", "--cache-dir"])
@pytest.mark.parametrize("kind", ["shell", "command", "python", "markdown", "actions"])
def test_the_worker_is_forked_with_all_a_check_imports(
    kind: str, mode: str, tmp_path: Path
) -> None:
    # An import under the limit may fail for want of memory (a library's mapping did),
    # and its memory is the program's, not the input's: engine.import_all does them all
    # first, for the kinds of text the run has (and what a fix needs, in a fixing run;
    # a run with a cache has imported the cache's module before).  One kind per run:
    # what a run of another kind imports must not hide a missing import.
    by_kind = _sources_by_kind()
    if kind == "command":  # the scripts' text as one command line, as an agent sends
        scripts = (Path(path).read_text(errors="replace") for path in by_kind["shell"])
        text = "\n".join([script for script in scripts if "\0" not in script][:20])
        inputs = ["--command", text]
    else:
        inputs = by_kind[kind]
    cache = ["--cache-dir", str(tmp_path / "cache")] if mode == "--cache-dir" else ["--no-cache"]
    options = [*([mode] if mode != "--cache-dir" else []), *cache, "-j1", "--severity", "info"]
    out = subprocess.run(
        [sys.executable, "-c", IMPORTED_UNDER_THE_LIMIT, *options, *inputs],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.stdout.splitlines()[-1] == "imported: []", out.stderr[-2000:]


@pytest.mark.parametrize(
    ("kinds", "expected"), [(["shell"], [False, False, False]), (None, [False, True, True])]
)
def test_the_worker_imports_the_readers_of_the_kinds_a_run_has(
    kinds: list[str] | None, expected: list[bool]
) -> None:
    # A run of shell scripts forks its worker without the readers of other kinds; libcst
    # (170 ms) is imported only by a check that needs it.
    code = (
        "import sys; from heredoc_lint.engine import import_all; import_all(%r); "
        "print([name in sys.modules for name in ('libcst', 'markdown_it', 'yaml')])"
    )
    out = subprocess.run([sys.executable, "-c", code % (kinds,)], capture_output=True, text=True)
    assert out.stdout.strip() == str(expected), out.stderr


# Imports libcst as a check does, under a data limit that leaves no room for it.
IMPORT_UNDER_A_TIGHT_LIMIT = """
import resource, sys
from heredoc_lint.run import memory
from heredoc_lint.run.forked import data_held
from heredoc_lint.frontends.python.reading import _parse_one

hard = resource.getrlimit(resource.RLIMIT_DATA)[1]
soft = data_held() + 2 * 1024 * 1024
resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))
try:
    if sys.argv[1] == "plain":
        import libcst
        libcst.parse_expression('f"{a}"')
    else:
        memory.imported_outside_the_limit("libcst", _parse_one)
except (MemoryError, ImportError) as error:
    print("failed", type(error).__name__)
else:
    after = resource.getrlimit(resource.RLIMIT_DATA)
    print("loaded", after[1] == hard, after[0] - soft > 2 * 1024 * 1024)
"""


def test_a_library_a_check_needs_now_and_then_is_loaded_outside_the_limit() -> None:
    # libcst is imported by the check that needs it (an f-string in a call), in the
    # bound's worker: the import lifts the limit, then puts it back higher by what the
    # library holds, so the input keeps its whole allowance.  Plainly, under the same
    # limit, the import fails.
    runs = {
        way: subprocess.run(
            [sys.executable, "-c", IMPORT_UNDER_A_TIGHT_LIMIT, way],
            capture_output=True,
            text=True,
            timeout=120,
        )
        for way in ("plain", "lifted")
    }
    assert runs["plain"].stdout.split()[:1] == ["failed"], runs["plain"].stderr[-2000:]
    assert runs["lifted"].stdout.split() == ["loaded", "True", "True"], runs["lifted"].stderr
