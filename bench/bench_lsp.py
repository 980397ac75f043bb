#!/usr/bin/env python3
"""How long from `didChange` to `publishDiagnostics` in `heredoc-lint lsp`?

    python3 bench/bench_lsp.py [--runs 30]

Starts the real server over stdio (pygls' client, as an editor would), opens a document,
and then, `runs` times: sends one keystroke as an incremental change and waits for the
diagnostics of that version, with a pause between keystrokes longer than the server's
interval between two checks (so each one is checked at once; the interval only merges
faster bursts).  Prints the median, 90th percentile and worst latency, in milliseconds,
for the seed file (tests/cases/seed000.sh) and for a 1,000-line script made of the
test cases' scripts one after the other, and beside them the engine's own time on the
same text (the rest is the server's and the client's JSON and the pipe).  Not a test:
it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "cases"


def thousand_lines() -> str:
    """The test cases' scripts one after the other, but motd.sh: its heredoc is never
    closed (HL112), so everything after it would be one heredoc body."""
    bodies = [
        p.read_text().split("\n", 1)[1] for p in sorted(CASES.glob("*.sh")) if p.name != "motd.sh"
    ]
    lines = ["#!/bin/bash"]
    while len(lines) < 1000:
        for body in bodies:
            lines.extend(body.rstrip("\n").split("\n"))
    return "\n".join(lines[:1000]) + "\n"


async def latencies(text: str, runs: int, directory: Path) -> list[float]:
    client = LanguageClient("bench", "1")
    arrived: dict[int, float] = {}
    event = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(ls: object, params: types.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            arrived.setdefault(params.version, time.perf_counter())
            event.set()

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    logged = os.environ.get("BENCH_LSP_LOG")  # a file for the server's debug log
    log = ["--verbose", "--log-file", logged] if logged else []
    await client.start_io(
        sys.executable, "-m", "heredoc_lint", "lsp", *log, cwd=directory, env=env
    )
    await client.initialize_async(
        types.InitializeParams(capabilities=types.ClientCapabilities(), process_id=os.getpid())
    )
    client.initialized(types.InitializedParams())
    uri = (directory / "bench.sh").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "shellscript", 1, text))
    )

    async def wait(version: int) -> float:
        while version not in arrived:
            event.clear()
            await asyncio.wait_for(event.wait(), 60)
        return arrived[version]

    await wait(1)
    found: list[float] = []
    for version in range(2, runs + 2):
        await asyncio.sleep(0.1)
        change = types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(0, 11), types.Position(0, 11)), text=" "
        )
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version, uri), [change]
            )
        )
        found.append((await wait(version) - sent) * 1000)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return found


def engine_ms(text: str) -> float:
    """The engine alone on `text`, in this process: the best of 5 runs."""
    from heredoc_lint.engine import check_text

    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        check_text(text, "shell", "bench.sh")
        best = min(best, time.perf_counter() - started)
    return best * 1000


def report(name: str, times: list[float], engine: float) -> None:
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    print(
        f"{name:<24} median {statistics.median(times):6.1f} ms   p90 {p90:6.1f} ms   "
        f"worst {max(times):6.1f} ms   ({len(times)} changes; engine alone {engine:.1f} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    seed = (CASES / "seed000.sh").read_text()
    with tempfile.TemporaryDirectory() as directory:
        for name, text in (
            ("seed000.sh (11 lines)", seed),
            ("1,000-line script", thousand_lines()),
        ):
            times = asyncio.run(latencies(text, args.runs, Path(directory)))
            report(name, times, engine_ms(text))


if __name__ == "__main__":
    main()
