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
from heredoc_lint.severities import severity


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
        ("str(target_url)", "url"),
        ("link", "url"),
        ("basedir", "path"),  # one word that ends as a path's name does
        ("logfile", "path"),
        ("fpath", "path"),
        ("tar", "path"),
        ("urls", "url"),  # a URL, no longer a path
        ("profile", None),  # a setting's name, not a file
        ("profiles", None),
        ("projectdir", "path"),  # only `profile` itself is left out
        ("procfile", "path"),
        ("api_key", "text"),  # `key` beside another word is a secret
        ("ssh_key", "text"),
        ("key", None),  # alone, a mapping's key
        ("token", "text"),
        ("message.strip()", "text"),
        ("args.password", "text"),
        ("branch", "identifier"),
        ("args.port", "identifier"),
        ("package_name", "identifier"),  # the last word but `name` names the thing
        ('cfg["region"]', "identifier"),
        ("node_id", "identifier"),
        ("self.version", "identifier"),
        ("host", "host"),  # its own class: the shared case remote_py.py holds it a warning
        ("hostname", "host"),
        ("server", "host"),
        ("server_addr", "identifier"),  # the last word names the thing: an address
        ("ip", "identifier"),
        ("domain", "identifier"),
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


def test_a_parameter_is_judged_by_what_its_name_says_it_holds() -> None:
    """Only a host parameter is a warning (the shared case remote_py.py); a path, a URL,
    a name that says nothing and an identifier are info, each with its own evidence."""
    (branch,) = hl201(_function("branch"))
    assert (branch.severity.value, branch.evidence) == ("info", "restricted-name")
    assert (
        "it comes from a parameter of the public function `checkout`, but its name says it is an"
        in branch.message
    )
    (path,) = hl201(_function("worktree_dir"))
    assert (path.severity.value, path.evidence) == ("info", "parameter")
    assert "and its name says it is a path, which may hold a blank" in path.message
    (url,) = hl201(_function("target_url"))
    assert (url.severity.value, url.evidence) == ("info", "parameter-url")
    assert "and its name says it is a URL, which may hold `&` or `?`" in url.message
    (host,) = hl201(_function("host"))
    assert (host.severity.value, host.evidence) == ("warning", "parameter-host")
    assert "of the public function `checkout`, and its name says it is a host" in host.message
    # A name that says nothing is its own evidence and says nothing of content.
    (other,) = hl201(_function("what"))
    assert (other.severity.value, other.evidence) == ("info", "parameter-unknown")
    assert "its name says" not in other.message


def test_the_host_part_of_a_destination_or_url_is_an_identifier() -> None:
    """`user@{h}` and `https://{h}` hold a DNS name or an address: one word in practice."""
    text = (
        "import subprocess\n\n\n"
        "def restart(host, target):\n"
        '    subprocess.run(f"ssh {host} systemctl restart app", shell=True)\n'
        '    subprocess.run(f"ssh root@{host} uptime", shell=True)\n'
        '    subprocess.run(f"curl https://{target}/health", shell=True)\n'
    )
    found = hl201(text)
    assert [(f.severity.value, f.evidence) for f in found] == [
        ("warning", "parameter-host"),
        ("info", "restricted-name"),
        ("info", "restricted-name"),
    ]
    # The message says the place decided, not the name.
    for f in found[1:]:
        assert "it stands as the host part of `user@HOST` or a URL" in f.message
        assert "its name says" not in f.message


def test_a_host_part_is_read_by_its_place_whatever_its_name() -> None:
    """`h` says nothing of what it holds: unquoted alone it is `parameter-unknown`; right
    after `user@` it is a destination's host part, an identifier."""
    text = (
        "import subprocess\n\n\n"
        "def uptime(h):\n"
        '    subprocess.run(f"ping -c 1 {h}", shell=True)\n'
        '    subprocess.run(f"ssh deploy@{h} uptime", shell=True)\n'
    )
    found = hl201(text)
    assert [(text[f.start : f.end], f.severity.value, f.evidence) for f in found] == [
        ("{h}", "info", "parameter-unknown"),
        ("{h}", "info", "restricted-name"),
    ]
    assert [text.count("\n", 0, f.start) + 1 for f in found] == [5, 6]  # ping, ssh


def test_an_identifier_a_stranger_sent_keeps_its_origin() -> None:
    """The network's `port` is what the sender chose: no name promises its content."""
    text = (
        "import os\nimport socket\n\n"
        "sock = socket.create_connection(('h', 1))\n"
        "port = sock.recv(64).decode()\n"
        'os.system(f"nc -l {port}")\n'
    )
    (f,) = hl201(text)
    assert (f.severity, f.evidence) == (severity("HL201", "network"), "network")
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
