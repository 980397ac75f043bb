"""HL106 ssh-argument-rejoin: ssh joins its command words and the remote shell re-splits.

Anchors are computed from the text. The fix (unsafe; display-only when a word holds a
local expansion) passes the remote command as one string with each argument quoted for
the remote shell; it is re-checked and applied twice. Against the real sshd, the remote
`ls` receives two arguments for `"my dir"`, and one after the fix.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.model import Applicability, Finding, Severity
from heredoc_lint.rules.hl106_ssh_argument_rejoin import Token, remote_tokens

CODE = "HL106"


def hl106(text: str) -> list[Finding]:
    return kit.findings(text, CODE)


# -- positives: (script, the text starting at the `ssh` word, what the message says) --------
POSITIVES = [
    ('ssh h ls "my dir"\n', "ssh h", "`my dir` arrives as 2 separate arguments (`my`, `dir`)"),
    ("ssh h ls my\\ dir\n", "ssh h", "arrives as 2 separate arguments"),
    ('ssh h git commit -m "fix the build"\n', "ssh h", "arrives as 3 separate arguments"),
    ("ssh h find . -name '*.pyc' -exec rm {} \\;\n", "ssh h", "missing argument to -exec"),
    ("ssh h find . -exec rm {} ';' -print\n", "ssh h", "find's `-exec`"),
    ('ssh h echo "it\'s"\n', "ssh h", "opens a quote that never closes"),
    ("ssh h echo '#x'\n", "ssh h", "becomes a comment"),
    ('ssh h bash -c "echo a; echo b"\n', "ssh h", "the `;` in `echo a; echo b`"),
    ('ssh h sh -c "cd /srv && make"\n', "ssh h", "the `&&`"),
    ("ssh h echo 'a>b'\n", "ssh h", "the `>` in `a>b` becomes a redirection"),
    ("ssh h printf '<%s>\\n' x\n", "ssh h", "the `<` in `<%s>\\n` becomes a redirection"),
    ('ssh h echo "it\'s" \\; ls\n', "ssh h", "opens a quote"),
    ('ssh h grep "$pat x" file\n', "ssh h", "arrives as 2 separate arguments"),
    ('ssh -p 2222 -o BatchMode=yes ops@h ls "my dir" other\n', "ssh -p", "`my dir`"),
    ('sudo ssh h ls "my dir"\n', "ssh h", "`my dir`"),
    ('for h in a b; do ssh "$h" touch "/srv/new file"; done\n', 'ssh "$h"', "`/srv/new file`"),
    # nested: the inner ssh's words, inside the outer ssh string
    ("ssh gw \"ssh inner ls 'my dir'\"\n", "ssh inner", "`my dir`"),
    ("bash -c 'ssh h ls \"my dir\"'\n", "ssh h", "`my dir`"),
]


@pytest.mark.parametrize(("text", "needle", "says"), POSITIVES)
def test_positive_anchor(text: str, needle: str, says: str) -> None:
    f = kit.assert_single(hl106(text), kit.span_of(text, needle), Severity.WARNING)
    assert "ssh joins the" in f.message and "splits the string again" in f.message
    assert says in f.message


def test_cli_json_line_and_column(tmp_path: Path) -> None:
    text = '#!/bin/bash\nset -e\nfor d in a b; do\n  ssh web-1 ls -l "/srv/my dir"\ndone\n'
    path = tmp_path / "list.sh"
    path.write_text(text)
    (item,) = kit.cli_json(path, "--select", CODE, returncode=1)
    kit.assert_json_position(item, text, kit.span_of(text, "ssh web-1"), (4, 3))
    assert item["fix"]["applicability"] == "unsafe"


NEGATIVES = [
    'ssh h "systemctl restart agent"\n',  # one word
    "ssh h sudo systemctl restart x\n",  # no word with whitespace or metacharacters
    'ssh h grep "$pat" file\n',  # a pure expansion: unknown
    'ssh h "$@"\n',
    'ssh h cmd "$1" "${2}" "$(date +%s)"\n',
    "ssh h ls '*.log' '$HOME' '~/x'\n",  # meant for the remote shell to expand
    "ssh h cat /etc/hosts '|' grep x\n",  # an operator passed on purpose
    "ssh h cat log '| grep x'\n",
    "ssh h ./run '2>&1' '>/dev/null'\n",  # redirections passed on purpose
    "ssh h ./run '> \"my log\"'\n",
    "ssh h nohup ./run '>' /dev/null '2>&1' '&'\n",
    "ssh h bash -c \"'echo a; echo b'\"\n",  # pre-quoted for the remote shell
    "ssh h echo \"'a b'\"\n",
    'ssh h "cd /tmp;" "ls -l"\n',  # shell text across words
    'ssh h "ls -l" /tmp\n',  # the first word is the command string
    'ssh h echo ""\n',
    "ssh h printf '%s\\n' x\n",
    "ssh h echo a=b --x=y,z\n",
    "ssh -p 2222 h\n",
    'scp "my file" h:/tmp/\n',
    "ssh gw \"ssh inner 'ls my dir'\"\n",
    kit.case_text("fanout.sh"),
    kit.case_text("clean_ok.sh"),
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_negative(text: str) -> None:
    assert hl106(text) == []


def test_remote_tokens() -> None:
    def words(text: str) -> list[str] | None:
        tokens = remote_tokens(text)
        return None if tokens is None else [t.text for t in tokens]

    assert words("my dir") == ["my", "dir"]
    assert words("'a b'") == ["a b"]
    assert words('"a b" c\\ d') == ["a b", "c d"]
    assert words("a;b") == ["a", ";", "b"]
    assert words("it's") is None
    assert words("#x") == []
    assert words("a#b") == ["a#b"]
    assert words("$(echo a b)x") == ["$(echo a b)x"]
    assert remote_tokens("2>&1") == [Token("redirect", "2>&"), Token("word", "1")]
    assert remote_tokens("a>b") == [Token("word", "a"), Token("redirect", ">"), Token("word", "b")]


# -- fixes ------------------------------------------------------------------------------
FIXES = [
    ('ssh h ls "my dir"\n', "ssh h \"ls 'my dir'\"\n"),
    ('ssh h ls -l "/srv/my dir" /tmp\n', "ssh h \"ls -l '/srv/my dir' /tmp\"\n"),
    ('ssh h git commit -m "fix the build"\n', "ssh h \"git commit -m 'fix the build'\"\n"),
    (
        "ssh h find . -name '*.pyc' -exec rm {} \\;\n",
        "ssh h \"find . -name '*.pyc' -exec rm '{}' ';'\"\n",
    ),
    ('ssh h echo "it\'s"\n', 'ssh h "echo \\"it\'s\\""\n'),
    ('ssh -p 2222 h bash -c "echo a; echo b"\n', "ssh -p 2222 h \"bash -c 'echo a; echo b'\"\n"),
    ("ssh gw \"ssh inner ls 'my dir'\"\n", 'ssh gw "ssh inner \\"ls \'my dir\'\\""\n'),
    ("bash -c 'ssh h ls \"my dir\"'\n", "bash -c 'ssh h \"ls '\\''my dir'\\''\"'\n"),
]


@pytest.mark.parametrize(("text", "fixed"), FIXES)
def test_fix_is_unsafe_clean_and_idempotent(text: str, fixed: str) -> None:
    kit.single_fix(hl106(text), Applicability.UNSAFE)
    outcome = kit.assert_fixed_clean_and_idempotent(text, CODE, unsafe=True)
    assert outcome == fixed


def test_fix_with_a_local_expansion_is_display_only() -> None:
    kit.assert_display_only('ssh h grep "$pat x" file\n', CODE, "\"grep '$pat x' file\"")


def test_fixed_words_reach_bash_as_written() -> None:
    """What the fixed command string makes of its words, in a real bash."""
    text = "ssh h printf '<%s>' \"my dir\" \"it's\" 'a;b' '$HOME' '|' cat\n"
    fixed = kit.fix_text(text, CODE, unsafe=True)
    assert fixed != text
    # The remote shell runs `bash -c STRING`; the local shell gives ssh the STRING.
    argv = subprocess.run(
        ["bash", "-c", "printf '%s\\0' " + fixed.removeprefix("ssh h ").strip()],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")[:-1]
    assert len(argv) == 1
    remote = subprocess.run(["bash", "-c", argv[0]], capture_output=True, text=True, check=True)
    # `<%s>` and `a;b` are quoted now; `$HOME` and `|` stay remote shell syntax.
    assert remote.stdout == f"<my dir><it's><a;b><{Path.home()}>"


# -- runtime: the real ssh against the real sshd -------------------------------------------
def test_runtime_remote_ls_receives_two_arguments(sshd: SshServer, tmp_path: Path) -> None:
    target = tmp_path / "my dir"
    target.mkdir()
    script = f'#!/bin/bash\nssh web-1 ls -d "{target}"\n'
    assert len(hl106(script)) == 1
    before = run_local(script, sshd)
    assert before.returncode != 0
    assert f"cannot access '{tmp_path}/my'" in before.stderr
    assert "cannot access 'dir'" in before.stderr

    fixed = kit.fix_text(script, CODE, unsafe=True)
    assert fixed == f"#!/bin/bash\nssh web-1 \"ls -d '{target}'\"\n"
    after = kit.run_ok(fixed, sshd)
    assert after.stdout == f"{target}\n"
