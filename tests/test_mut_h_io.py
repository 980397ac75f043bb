"""Pinned behaviours of the cache, the writer, suppressions and the fixes found by the
mutation run of issue 20 (run 7, seed 41, bench/mutation_runs/run7.md), through the CLI on
real files.

Each test kills a mutant that `bench/mutation.py` left alive: it was planted in a scratch
copy of the tree, the test failed there, and it passes without.
"""

from __future__ import annotations

from pathlib import Path

from cli_process import run_cli

_BAD = 'ssh h "pkill -f app; ./app"\n'

# -- cache.py: a key that cannot be kept is made for the run --------------------------------


def test_a_cache_key_that_cannot_be_kept_still_checks(tmp_path: Path) -> None:
    """`$XDG_CACHE_HOME` under a regular file: the per-user key cannot be written, so the
    run makes one of its own (the cache then serves only that run) and checks as usual,
    twice in a row.  (Run 7: without a key of its own the run was an internal error.)"""
    (tmp_path / "file").write_text("")
    script = tmp_path / "s.sh"
    script.write_text(_BAD)
    env = {"XDG_CACHE_HOME": str(tmp_path / "file" / "cache")}
    for _ in range(2):
        done = run_cli("--format", "concise", script, cwd=tmp_path, env=env)
        assert (done.returncode, done.stderr) == (1, "")
        assert done.stdout.startswith(f"{script}:1:8: HL103 [error]")
