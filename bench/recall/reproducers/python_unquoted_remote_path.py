"""HL201: a path from a caller interpolated unquoted into a remote shell string."""

import subprocess


def first_line(text):
    text = text.strip()
    return text.splitlines()[0] if text else ""


def remote_list(path):
    return subprocess.run(
        ["ssh", "node-1", "ls -d %s" % path],  # noqa: UP031 (the bug: no quote())
        capture_output=True,
        text=True,
        check=False,
    )


subprocess.run(["ssh", "node-1", "mkdir -p '/tmp/recall backup'"], check=True)
done = remote_list("/tmp/recall backup")
print(f"OBSERVED: exit={done.returncode}; stderr: {first_line(done.stderr)}")
