"""The names of the POSIX-family shells: one set, read by the wrapper table, the agent
hooks and the CI frontends.

Light on purpose (no imports from the package): the agent hook reads it before it knows
whether there is anything to check.
"""

from __future__ import annotations

# The programs that run `NAME -c SCRIPT` and `NAME -s` the way sh does; each is checked
# against the real program in tests/test_shell_names.py.
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"})

# Multi-call programs that run the applet their first argument names: `busybox sh -c S`
# is `sh -c S` (BusyBox's `ash` is its `sh`).  The resolver reads them as a prefix.
MULTICALL = frozenset({"busybox"})
