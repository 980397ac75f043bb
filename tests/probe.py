"""Run the CLI in a fresh interpreter and see which modules it loaded on the way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# main(ARGS) as the console script calls main(), except that it raises SystemExit where
# the program would end the process itself (entry._exit_now), so the probe can answer.
_PROBE = """
import json, sys
watched, args = json.loads(sys.argv[1]), json.loads(sys.argv[2])
code = 0
try:
    from heredoc_lint.cli.entry import main
    main(args)
except SystemExit as exit:
    code = exit.code
print(json.dumps([sorted(m for m in watched if m in sys.modules), code]))
"""


def loaded_modules(
    args: list[str], watched: tuple[str, ...], cwd: Path | None = None, stdin: str = ""
) -> tuple[list[str], int]:
    """(the `watched` modules that `heredoc-lint ARGS` imported, its exit code)."""
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(watched), json.dumps(args)],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
    )
    loaded, code = json.loads(result.stdout.splitlines()[-1])
    return loaded, code
