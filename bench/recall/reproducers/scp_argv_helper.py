"""HL108 in Python: an argv list for scp built from a helper that returns ssh's
port flag (-p PORT), the shape of a shared `ssh_flags()` method."""

import subprocess
import tempfile


def first_line(text):
    text = text.strip()
    return text.splitlines()[0] if text else ""


def ssh_flags(port):
    return ["-p", str(port)]


with tempfile.NamedTemporaryFile("w", delete=False) as handle:
    handle.write("data\n")
done = subprocess.run(
    ["scp", *ssh_flags(2222), handle.name, "node-1:/tmp/recall-scp-target"],
    capture_output=True,
    text=True,
    check=False,
)
print(f"OBSERVED: scp exit={done.returncode}; stderr: {first_line(done.stderr)}")
