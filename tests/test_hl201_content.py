"""HL201 by what the value holds, as its name says (frontends/python/content.py).

Paths, file names, URLs and free text really carry blanks and shell characters into a
command; identifiers that git, a package manager or a service restricts (a branch, a
package, a port, an id, a version) hold one word in practice: on real code read on first
look, most of HL201's debatable findings were those. An identifier is info (evidence
`restricted-name`) whatever its origin, except text a stranger sent (the network, an
HTTP request). A value that reaches several shell-running calls is one finding.
"""

from __future__ import annotations

import pytest

from heredoc_lint.engine import check_text
from heredoc_lint.frontends.python.content import content
from heredoc_lint.model import Finding


def hl201(text: str) -> list[Finding]:
    return [f for f in check_text(text, "python", "t.py") if f.code == "HL201"]


@pytest.mark.parametrize(
    ("source", "held"),
    [
        ("data_dir", "path"),
        ("args.sync_dst_dir", "path"),
        ("self.remoteConfigDir", "path"),
        ('conf["log_path"]', "path"),
        ('conf.get("wordlist")', "path"),
        ("os.path.join(base, name)", "path"),
        ("folder_name", "path"),  # a folder's name is a file name, not an identifier
        ("ssh_key_file", "path"),  # `key` says nothing; `file` says a path
        ("str(target_url)", "path"),
        ("message.strip()", "text"),
        ("args.password", "text"),
        ("branch", "identifier"),
        ("args.port", "identifier"),
        ("package_name", "identifier"),  # the last word but `name` names the thing
        ('cfg["region"]', "identifier"),
        ("node_id", "identifier"),
        ("self.version", "identifier"),
        ("host", None),  # hosts keep their origin's severity (the shared case remote_py.py)
        ("server_addr", None),
        ("name", None),
        ("app_name", None),
        ("idle", None),  # a word, not a prefix: `id` is not in `idle`
        ("a + b", None),
        ("f(", None),  # not an expression
    ],
)
def test_the_name_says_what_the_value_holds(source: str, held: str | None) -> None:
    assert content(source) == held


def _function(parameter: str) -> str:
    return (
        "import subprocess\n\n\n"
        f"def checkout({parameter}):\n"
        f'    subprocess.run(f"git -C /srv/app checkout {{{parameter}}}", shell=True)\n'
    )


def test_an_identifier_parameter_is_info_and_a_path_one_a_warning() -> None:
    (branch,) = hl201(_function("branch"))
    assert (branch.severity.value, branch.evidence) == ("info", "restricted-name")
    assert "it is a parameter of the public function `checkout`, but its name says it is an" in (
        branch.message
    )
    (path,) = hl201(_function("worktree_dir"))
    assert (path.severity.value, path.evidence) == ("warning", "parameter")
    assert "and its name says it is a path, which may hold a blank" in path.message
    # A name that says nothing keeps the origin's severity and says nothing of content.
    (other,) = hl201(_function("what"))
    assert (other.severity.value, other.evidence) == ("warning", "parameter")
    assert "its name says" not in other.message


def test_an_identifier_a_stranger_sent_keeps_its_origin() -> None:
    """The network's `port` is what the sender chose: no name promises its content."""
    text = (
        "import os\nimport socket\n\n"
        "sock = socket.create_connection(('h', 1))\n"
        "port = sock.recv(64).decode()\n"
        'os.system(f"nc -l {port}")\n'
    )
    (f,) = hl201(text)
    assert (f.severity.value, f.evidence) == ("warning", "network")
    assert "it is read from the network" in f.message
    assert "its name says" not in f.message


def test_free_text_is_named_in_the_message() -> None:
    text = (
        "import argparse, os\n"
        "p = argparse.ArgumentParser()\n"
        'p.add_argument("--message")\n'
        "args = p.parse_args()\n"
        'os.system(f"git commit -m {args.message}")\n'
    )
    (f,) = hl201(text)
    assert f.evidence == "cli-option"
    assert "and its name says it is free text, which may hold anything" in f.message


def test_a_value_sent_to_two_calls_is_one_finding() -> None:
    """`run(cmd)` or `sudo(cmd)`: one value at one place, one finding (the first call's)."""
    text = (
        "from fabric.api import run, sudo\n\n\n"
        "def clean(tmp_dir, use_sudo=False):\n"
        "    cmd = 'rm -rf %s' % tmp_dir\n"
        "    if use_sudo:\n"
        "        sudo(cmd)\n"
        "    else:\n"
        "        run(cmd)\n"
    )
    found = hl201(text)
    assert [text[f.start : f.end] for f in found] == ["%s"]
    assert "`fabric sudo`" in found[0].message
