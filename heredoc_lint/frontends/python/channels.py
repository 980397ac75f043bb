"""The Python calls that hand a command to a shell or to ssh: one table of their names.

The finder (calls.py) reads a call by these names; the cheap tests before any parsing
(prefilter.py: may the file hold such a call? parsing.py: on which lines?) are derived from
them, so a channel added here is never left out by a filter.  No imports: the prefilter
reads this on every file.
"""

from __future__ import annotations

# The standard library's functions, by qualified name.  Each function hands its argument:
POPEN = frozenset(  # ... to a shell with `shell=True`, else as an argv
    f"subprocess.{name}" for name in ("run", "call", "check_call", "check_output", "Popen")
)
SHELL_STRING = {  # ... to `/bin/sh -c`, under the name a finding shows
    "os.system": "os.system",
    "os.popen": "os.popen",
    "subprocess.getoutput": "subprocess.getoutput",
    "subprocess.getstatusoutput": "subprocess.getstatusoutput",
    "asyncio.create_subprocess_shell": "create_subprocess_shell",
    "asyncio.subprocess.create_subprocess_shell": "create_subprocess_shell",
}
EXEC_ARGV = frozenset(  # ... as an argv
    {"asyncio.create_subprocess_exec", "asyncio.subprocess.create_subprocess_exec"}
)

# Libraries' functions, read only in a file that imports the library.
INVOKE = frozenset({"invoke.run", "invoke.sudo"})  # `/bin/bash -c` (sudo: `sudo CMD`)
FABRIC1 = {  # fabric 1's operations: `run`/`sudo` remote, `local` local
    f"fabric.{module}.{name}": name
    for module in ("api", "operations")
    for name in ("run", "sudo", "local")
}
# pexpect's functions that start a program from a command line it splits itself (no
# shell: "Pexpect does NOT interpret shell meta characters"), and whether the call waits
# for the program to exit (`run` reads its output to the end; `spawn` returns at once).
PEXPECT = {
    f"pexpect{module}.{name}": name in ("run", "runu")
    for module in ("", ".pty_spawn", ".run")
    for name in ("spawn", "spawnu", "run", "runu")
}

# Methods, by name: paramiko's `exec_command` on any receiver; asyncssh's on a client
# connection the file shows; fabric's (a Connection: remote) and invoke's (a Context: local).
EXEC_COMMAND = "exec_command"
ASYNCSSH_METHODS = frozenset({"run", "create_process"})
SESSION_METHODS = frozenset({"run", "sudo", "local"})

# The libraries above, which a file must import for their calls to be read.
LIBRARIES = ("fabric", "invoke", "asyncssh", "pexpect")

FUNCTIONS = frozenset({*POPEN, *SHELL_STRING, *EXEC_ARGV, *INVOKE, *FABRIC1, *PEXPECT})


def _by_owner(names: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """The standard library's functions by the name written before them (`subprocess` for
    `asyncio.subprocess.create_subprocess_shell` too)."""
    found: dict[str, set[str]] = {}
    for name in names:
        owner, function = name.split(".")[-2:]
        found.setdefault(owner, set()).add(function)
    return {owner: tuple(sorted(functions)) for owner, functions in sorted(found.items())}


STANDARD_FUNCTIONS = _by_owner(frozenset({*POPEN, *SHELL_STRING, *EXEC_ARGV}))
# The last name of every call the finder reads: a line without one of them holds none.
CALL_NAMES = frozenset(
    {
        *(name.rsplit(".", 1)[-1] for name in FUNCTIONS),
        EXEC_COMMAND,
        *ASYNCSSH_METHODS,
        *SESSION_METHODS,
    }
)
