"""HL201: paths interpolated unquoted into a local shell string run by a project's own
wrapper (shell=True)."""

import os
import subprocess
import tempfile


def first_line(text):
    text = text.strip()
    return text.splitlines()[0] if text else ""


def run(command):
    return subprocess.run(command, shell=True, capture_output=True, text=True, check=False)


base = tempfile.mkdtemp()
source = os.path.join(base, "my tree")
target = os.path.join(base, "work tree")
os.makedirs(source)
open(os.path.join(source, "a.txt"), "w").close()
done = run(f"cp -r {source}/. {target}")
copied = os.path.exists(os.path.join(target, "a.txt"))
print(f"OBSERVED: exit={done.returncode}; copied={copied}; stderr: {first_line(done.stderr)}")
