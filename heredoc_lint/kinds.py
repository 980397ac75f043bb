"""The kinds of source text the engine reads: one name per frontend.

A value set shared by the CLI, the runner, the cache, the language server and the
engine, kept here so that each of them (and the light modules the agent hook loads) can
name it without importing the frontends. The other value sets live with the concept
they describe: `layers.LayerKind`, `layers.wrappers.Role`, `shell.words.ExpansionKind`,
`model.FixStrategy`, `options.Format`...  The configuration reads `WrapperKind` without
importing the wrapper table.
"""

from __future__ import annotations

from typing import Literal

# shell: a script; command: one command line (an agent's, `explain -c`); python,
# markdown (its shell code blocks), actions (a GitHub Actions workflow's `run:` steps).
SourceKind = Literal["shell", "command", "python", "markdown", "actions"]

# What a user-configured wrapper command behaves like (`wrappers = {myssh = "ssh"}`):
# the keys of `wrappers.WRAPPER_KINDS`.
WrapperKind = Literal["ssh", "shell", "eval", "prefix"]
