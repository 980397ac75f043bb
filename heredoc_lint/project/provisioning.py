"""Scripts that Vagrant runs as root: what another file of the project says of a script.

Vagrant's shell provisioner uploads a script into the guest and runs it there with
`privileged: true` by default, that is as root (developer.hashicorp.com/vagrant/docs/
provisioning/shell). A `sudo echo x > /etc/f` in such a script works: HL109 reads that as
it reads a root guard in the script itself.

`provisioned_by(path)` looks for a `Vagrantfile` in the script's directory and above it
(up to the first directory that holds `.git`), and answers the Vagrantfile's path when it
has a shell provisioner, never says `privileged: false` (which provisioner it meant is
not known then), and names the script or a directory above it in a path: `path:
"scripts/setup.sh"`, `s.path = "files/" + opts[:boot]` (every script under `files/`:
what a provisioner runs, and what those scripts source), `inline: "bash
/vagrant/scripts/x.sh"` (`/vagrant` is the Vagrantfile's directory in the guest). The
Vagrantfile is Ruby: read with patterns, not parsed; a path built any other way is not
followed. launchers.py gives the answer to HL109 and to the cache key.
"""

from __future__ import annotations

import functools
import os
import re

from heredoc_lint.project.directories import directories_up

_VAGRANTFILE = "Vagrantfile"
# `config.vm.provision "shell", ...`, `.provision :shell do |s|`, `provision('shell', ...)`.
_SHELL_PROVISIONER = re.compile(r"""\.provision\s*\(?\s*(?:["']shell["']|:shell\b)""")
_UNPRIVILEGED = re.compile(r"""\bprivileged\s*(?::|=>|=)\s*false\b""")
# A path the Vagrantfile gives a provisioner, relative to its directory: the literal
# start of a `path` value, or what follows `/vagrant/` in a command.
_PATH = re.compile(r"""(?:\bpath\s*(?::|=>|=)\s*["']|/vagrant/)(?:\./)?([\w.@+-][\w./@+-]*)""")
_LARGEST = 1 << 20  # a Vagrantfile is a page of Ruby: a larger file is no Vagrantfile


def provisioned_by(path: str) -> str | None:
    """The Vagrantfile whose privileged shell provisioner runs the script at `path`, as a
    path beside `path`'s own form (relative stays relative); None if none shows it."""
    for directory, below in directories_up(path):
        named = _provisioned_paths(directory or ".")
        if named is not None:
            script = "/".join(below[::-1])
            if any(script == p or script.startswith(p.rstrip("/") + "/") for p in named):
                return os.path.join(directory, _VAGRANTFILE)
    return None


def _provisioned_paths(directory: str) -> tuple[str, ...] | None:
    """The paths (files or directories) that the privileged shell provisioners of
    `directory`'s Vagrantfile name; None without such a Vagrantfile.  Read again when
    the file changes (the editor's server runs for hours)."""
    vagrantfile = os.path.join(directory, _VAGRANTFILE)
    try:
        stat = os.stat(vagrantfile)
    except OSError:
        return None
    return _named(vagrantfile, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _named(vagrantfile: str, mtime_ns: int, size: int) -> tuple[str, ...] | None:
    if size > _LARGEST:
        return None
    try:
        with open(vagrantfile, "rb") as handle:
            text = handle.read(_LARGEST).decode("utf-8", "replace")
    except OSError:
        return None
    if not _SHELL_PROVISIONER.search(text) or _UNPRIVILEGED.search(text):
        return None
    named = tuple(m.group(1) for m in _PATH.finditer(text) if ".." not in m.group(1).split("/"))
    return named or None
