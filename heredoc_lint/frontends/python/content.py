"""What a run-time value holds, as its name says: a path or free text, or an identifier that
the program or a service restricts (a branch, a package, a port, a version).

The name is the value's own (`branch`, `args.sync_dir`, `conf["bucket"]`, the key of a
`.get("port")`); a value made by `os.path`, `pathlib` or `glob` is a path. HL201 reads it
to tell the values that really carry a blank or a shell character into a command (paths,
file names, URLs, messages, passwords) from those whose every real value is one plain
word: on first looks at real code, the second made most of its debatable findings.
"""

from __future__ import annotations

import ast
import re
from typing import Literal

from heredoc_lint.frontends.python.parsing import quiet

Content = Literal["path", "text", "url", "host", "identifier"]

# Words of a name, each a fact of what such a value holds. A name with a word of the first
# two tables holds what a person chose: a file name, a sentence, a secret.
_PATH = frozenset(
    "path paths filepath file files filename filenames fname dir dirs directory folder "
    "dest dst destination src location archive tar tarball wordlist".split()
)
# One word that ends as a path's name does: `basedir`, `fpath`, `outfile`, `logfiles`
# (not `profile`, a setting's name).
_PATH_WORD = re.compile(r"\A(?!profiles?\Z)[a-z]+(?:dir|path|file|files|folder)\Z")
_TEXT = frozenset(
    "msg message text title comment description desc payload body content password "
    "passwd passphrase secret token query reply answer caption label".split()
)
_URL = frozenset("url urls uri link".split())
# A machine's name: what ssh, scp and curl are given. Its own class: the shared case
# remote_py.py holds `ssh {host} uptime` of a public function's parameter as a warning.
_HOST = frozenset("host hosts hostname hostnames server servers".split())
# Identifiers whose every value is one word: what git, the package manager, the kernel,
# the init system, DNS or a cloud service accepts as a name, and numbers.
_IDENTIFIER = frozenset(
    "port ports lport rport user username login uid gid id ids pid version ver tag branch "
    "ref sha commit rev revision package packages pkg pkgs service services unit units "
    "iface interface device dev region zone bucket cluster namespace ns image container "
    "node rank distro arch module modules lang locale env environment account "
    "ip ips addr domain fqdn".split()
)
# Calls whose result is a path.
_PATH_CALLS = re.compile(
    r"(?:\A|\.)(?:os\.path\.\w+|Path|PurePath|abspath|realpath|expanduser|glob)\Z"
)


def content(source: str) -> Content | None:
    """What the value written `source` holds by its name; None where the name says nothing."""
    try:
        with quiet():
            node = ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Call) and _PATH_CALLS.search(ast.unparse(node.func)):
        return "path"
    words = _words(_name(node))
    if not words:
        return None
    if any(word in _PATH or _PATH_WORD.match(word) for word in words):
        return "path"
    # `key` is a secret (`api_key`, `ssh_key`) beside another word; alone, a mapping's key.
    if any(word in _TEXT for word in words) or (len(words) > 1 and "key" in words):
        return "text"
    if any(word in _URL for word in words):
        return "url"
    # The last word names the thing (`server_addr`, `package_name` is a package's name).
    last = words[-1] if words[-1] != "name" or len(words) == 1 else words[-2]
    if last in _IDENTIFIER:
        return "identifier"
    if last in _HOST:
        return "host"
    return None


def _name(node: ast.expr) -> str:
    """The value's own name: `x`, `a.x`, `a["x"]`, `a.get("x")`, `str(x)`, `x.strip()`."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
        return _name(node.value)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "get" and node.args:
            return _name(ast.Subscript(func.value, node.args[0]))
        if isinstance(func, ast.Attribute) and not node.args:
            return _name(func.value)  # `x.strip()`, `x.lower()`
        if isinstance(func, ast.Name) and func.id == "str" and len(node.args) == 1:
            return _name(node.args[0])
    return ""


def _words(name: str) -> list[str]:
    """`remoteConfigDir`, `remote_config_dir` -> remote, config, dir."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return [word for word in spaced.lower().split("_") if word]
