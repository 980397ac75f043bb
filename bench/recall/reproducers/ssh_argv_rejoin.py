"""HL106 in Python: an argv list ending in ssh's remote command words; a path with a
space is split again by the remote shell."""

import subprocess


def first_line(text):
    text = text.strip()
    return text.splitlines()[0] if text else ""


subprocess.run(["ssh", "node-1", "mkdir -p '/tmp/recall dir'"], check=True)
done = subprocess.run(
    ["ssh", "node-1", "--", "ls", "-d", "/tmp/recall dir"],
    capture_output=True,
    text=True,
    check=False,
)
print(f"OBSERVED: exit={done.returncode}; stderr: {first_line(done.stderr)}")
