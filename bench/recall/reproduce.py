#!/usr/bin/env python3
"""Run the recall set's reproducers and print what each one did.

    python3 bench/recall/reproduce.py [NAME ...]

Every reproducer in bench/recall/reproducers/ is a small program written for this
bench (no third-party code) that does at run time what one shape of the manifest's
bugs does. They run against a real OpenSSH sshd on loopback, started as the
test-suite starts it (tests/sshd.py): the server's `ssh`/`scp` wrappers come first on
PATH, so every `user@host` in a reproducer reaches that server. Each reproducer ends
by printing one `OBSERVED: ...` line; this script prints that line with the exit
status and the wall time. The manifest's `runtime` column was filled from this output.

The sudo reproducers (HL109) need a user that is not root and may run sudo without a
password: they run as the user named by RECALL_SUDO_USER (default `hlrecall`) and are
reported as skipped when there is none. Markdown reproducers are documents, not
programs: each says which script runs its commands.
"""

from __future__ import annotations

import os
import pwd
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
REPRODUCERS = HERE / "reproducers"
SUDO_USER = os.environ.get("RECALL_SUDO_USER", "hlrecall")
NEEDS_SUDO_USER = {"sudo_redirect.sh"}


def _observed(output: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith("OBSERVED:")]
    return lines[-1].removeprefix("OBSERVED:").strip() if lines else "(no OBSERVED line)"


def _run_as_sudo_user(path: Path) -> subprocess.CompletedProcess[str] | None:
    try:
        pwd.getpwnam(SUDO_USER)
    except KeyError:
        return None
    if os.geteuid() != 0:
        return None
    copy = Path(tempfile.mkdtemp(prefix="recall-sudo-")) / path.name
    copy.write_text(path.read_text())
    os.chmod(copy.parent, 0o755)
    os.chmod(copy, 0o755)
    return subprocess.run(
        ["su", "-s", "/bin/bash", SUDO_USER, "-c", f"bash {shlex.quote(str(copy))}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    from tests.sshd import missing_tools, start_sshd  # the test-suite's loopback sshd

    missing = missing_tools()
    if missing:
        print(f"reproduce: cannot start sshd, missing {', '.join(missing)}", file=sys.stderr)
        return 2
    names = set(argv)
    paths = sorted(
        p for p in REPRODUCERS.iterdir() if p.is_file() and (not names or p.name in names)
    )
    with (
        tempfile.TemporaryDirectory(prefix="recall-sshd-") as workdir,
        start_sshd(Path(workdir)) as server,
    ):
        for path in paths:
            started = time.monotonic()
            if path.suffix == ".md":
                print(f"{path.name:<40} document (its commands run in sudo_redirect.sh)")
                continue
            if path.name in NEEDS_SUDO_USER:
                done = _run_as_sudo_user(path)
                if done is None:
                    print(f"{path.name:<40} skipped: no non-root sudo user {SUDO_USER!r}")
                    continue
            else:
                interpreter = sys.executable if path.suffix == ".py" else "bash"
                done = subprocess.run(
                    [interpreter, str(path)],
                    env=server.env(),
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    text=True,
                    timeout=120,
                    check=False,
                )
            took = time.monotonic() - started
            print(
                f"{path.name:<40} exit={done.returncode:<4} {took:5.1f}s  "
                f"{_observed(done.stdout + done.stderr)}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
