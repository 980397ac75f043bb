"""HL110 local-operator-after-ssh: `ssh h cd /x && cmd` runs cmd locally, the cd is lost.

Anchors (the operator) are computed from the text. The fix (unsafe; display-only when the
moved commands hold local expansions or redirections) moves the commands after the
operator into the remote string; it is re-checked and applied twice. Against the real
sshd, `ls` after `ssh h cd DIR &&` lists the local directory, and the fixed command lists
DIR.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer

from heredoc_lint.engine import Settings, check_shell, fix_shell
from heredoc_lint.model import Applicability, Finding, Severity
from heredoc_lint.rules.hl110_local_operator_after_ssh import INVALID

CODE = "HL110"


def hl110(text: str) -> list[Finding]:
    return kit.findings(text, CODE)


# Positives, negatives and fixes: INVALID and VALID in the rule's module.
def test_an_operator_after_a_quoted_operator_is_reported() -> None:
    """The `&&` inside the quoted remote command comes first; the finding is on the next."""
    text = "ssh h 'cd /srv && export X=1' && make\n"
    f = kit.assert_single(hl110(text), kit.span_of(text, "&& make"), Severity.ERROR)
    assert "runs on this machine" in f.message
    assert "so the `cd`, `export` is lost" in f.message


def test_message_names_the_host_and_the_local_command() -> None:
    (f,) = hl110(kit.case_text("build_remote.sh"))
    assert "on builder" in f.message
    assert "`make release` runs on this machine" in f.message
    assert "the `cd` is lost" in f.message


def test_cli_json_line_and_column(tmp_path: Path) -> None:
    text = kit.case_text("build_remote.sh")
    (item,) = kit.cli_json(kit.copy_case("build_remote.sh", tmp_path), returncode=1)
    kit.assert_json_position(item, text, kit.span_of(text, "&& make"), (2, 29), (2, 31))
    assert item["severity"] == "error"
    assert item["fix"]["applicability"] == "unsafe"


@pytest.mark.parametrize("name", ["clean_ok.sh", "fanout.sh"])
def test_clean_case_files(name: str) -> None:
    assert hl110(kit.case_text(name)) == []


def test_every_fix_is_unsafe() -> None:
    """--fix alone leaves each fixable INVALID example as it is; the case file is the first."""
    assert INVALID[0].text == kit.case_text("build_remote.sh")
    for example in INVALID:
        if example.fixed is not None:
            kit.single_fix(hl110(example.text), Applicability.UNSAFE)
            outcome = kit.assert_fixed_clean_and_idempotent(example.text, CODE, unsafe=True)
            assert outcome == example.fixed


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ('ssh h cd "$dir" && make\n', '"cd $dir && make"'),
        ("ssh h cd /srv && make VERSION=$v\n", "'cd /srv && make VERSION=$v'"),
        ("ssh h cd /srv && make > build.log\n", "'cd /srv && make > build.log'"),
    ],
)
def test_fix_moving_local_expansions_or_files_is_display_only(text: str, content: str) -> None:
    kit.assert_display_only(text, CODE, content)


@pytest.mark.parametrize(
    "text",
    [
        "ssh h cd /x && { make; }\n",  # a compound: no simple command to move
        "ssh h cd /x < /dev/null && make\n",  # the ssh's own redirection
        "ssh h cd /x && make \\\n  all\n",
    ],
)
def test_no_fix_when_the_move_is_unclear(text: str) -> None:
    (f,) = hl110(text)
    assert f.fix is None


# -- runtime: the real ssh against the real sshd -------------------------------------------
def test_runtime_the_cd_is_lost_and_ls_runs_locally(sshd: SshServer, tmp_path: Path) -> None:
    remote = tmp_path / "src" / "project"
    remote.mkdir(parents=True)
    (remote / "remote-marker").write_text("")
    local = tmp_path / "here"
    local.mkdir()
    (local / "local-marker").write_text("")
    script = f"#!/bin/bash\nssh builder cd {remote} && ls && pwd\n"
    assert len(hl110(script)) == 1
    before = kit.run_ok(script, sshd, cwd=local)
    assert before.stdout.splitlines() == ["local-marker", str(local)]

    fixed = kit.fix_text(script, CODE, unsafe=True)
    assert fixed == f"#!/bin/bash\nssh builder 'cd {remote} && ls && pwd'\n"
    after = kit.run_ok(fixed, sshd, cwd=local)
    assert after.stdout.splitlines() == ["remote-marker", str(remote)]


# -- long commands cut in messages ---------------------------------------------------------


@pytest.mark.parametrize("size", [59, 60, 61])
def test_long_commands_are_cut_to_sixty_characters_in_messages(size: int) -> None:
    """A remote command quoted in a message (HL110's) is cut to 60 characters, the last
    three of them `...`; one of 60 or fewer is shown whole."""
    path = "/srv/" + "a" * (size - len("cd /srv/"))
    remote = f"cd {path}"
    assert len(remote) == size
    text = f"ssh h {remote} && make\n"
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL110"]
    shown = remote if size <= 60 else remote[:57] + "..."
    assert f"not by the remote one: `{shown}` only changes" in found.message


# -- HL110 --------------------------------------------------------------------------------


def _remote_command(script: str) -> str:
    """The command line the remote shell would get from `script`'s ssh (bash runs the
    script with an `ssh` function that prints its arguments after the host, joined)."""
    proc = subprocess.run(
        ["bash", "-c", 'ssh() { shift; printf "%s" "$*"; }\n' + script],
        capture_output=True,
        timeout=30,
        check=True,
    )
    return proc.stdout.decode()


@pytest.mark.parametrize(
    ("script", "remote"),
    [
        ('ssh h cd /srv && echo "it\'s"\n', 'cd /srv && echo "it\'s"'),
        ('ssh h cd /srv && rm "it\'s" !x\n', 'cd /srv && rm "it\'s" !x'),
        ("ssh h cd /srv && make\n", "cd /srv && make"),
        ("ssh h cd /srv; make\n", "cd /srv; make"),
    ],
)
def test_hl110_fix_sends_the_moved_command_as_written(script: str, remote: str) -> None:
    """The fix moves the command after `&&` into the ssh's one argument; quoted for the
    local shell so that ssh sends it byte for byte, single quotes inside included."""
    (one,) = kit.findings_selected(script, "HL110")
    operator = ";" if "; " in script else "&&"
    at = script.index(operator)
    assert (one.start, one.end) == (at, at + len(operator))
    fixed = fix_shell(script, "t.sh", Settings(select=frozenset({"HL110"})), unsafe=True).text
    assert fixed != script
    assert _remote_command(fixed) == remote


def test_hl110_a_compound_after_the_operator_is_not_moved() -> None:
    """`ssh h cd /srv &&(make)`: what follows the operator is a subshell, not a simple
    command a fix could move into the string: the finding names "the next command" and
    offers no fix.  After `;{ ` nothing is chained: no finding."""
    (one,) = kit.findings_selected("ssh h cd /srv &&(make)\n", "HL110")
    assert (one.start, one.end, one.fix) == (14, 16, None)
    assert "and the next command runs on this machine" in one.message
    assert kit.findings_selected("ssh h cd /srv;{ make; }\n", "HL110") == []


@pytest.mark.parametrize(("length", "shown"), [(40, 40), (41, 40)])
def test_hl110_names_the_next_command_in_40_characters(length: int, shown: int) -> None:
    """The command that runs locally is named whole up to 40 characters, else cut to 37
    and `...`."""
    following = "echo " + "abcdefghij" * 4
    following = following[:length]
    (one,) = kit.findings_selected(f"ssh h cd /srv && {following}\n", "HL110")
    named = one.message.split("the `cd` is lost and `")[1].split("` runs on")[0]
    assert len(named) == shown
    assert named == (following if length <= 40 else following[:37] + "...")


def test_hl110_display_fix_of_an_expanded_word_keeps_backslashes() -> None:
    """With `"$D"` in the ssh words the fix double-quotes the combined command (only shown,
    the value of `$D` is the local one as before); applied by hand, the remote shell gets
    the moved command's backslashes as written."""
    script = 'ssh h cd "$D" && echo a\\\\b\n'
    (one,) = kit.findings_selected(script, "HL110")
    assert one.fix is not None
    (edit,) = one.fix.edits
    fixed = script[: edit.start] + edit.content + script[edit.end :]
    assert _remote_command("D=/srv\n" + fixed) == "cd /srv && echo a\\\\b"


# -- HL110: the fix's message quotes the moved commands, cut at 40 characters --------------


@pytest.mark.parametrize(
    ("moved", "shown"),
    [
        ("tar czf /tmp/backup-of-the-app.tgz ./dat", "tar czf /tmp/backup-of-the-app.tgz ./dat"),
        ("tar czf /tmp/backup-of-the-app.tgz ./data", "tar czf /tmp/backup-of-the-app.tgz ./..."),
    ],
)
def test_hl110_fix_message_shows_at_most_40_characters(
    moved: str, shown: str, tmp_path: Path
) -> None:
    """A moved command of 40 characters is shown whole, one of 41 as its first 37 and
    `...` (hl110 `_fix`'s limit 40 -> 41; base `quote_snippet`'s `...` -> `..`); the fix
    makes one word of the remote command, as bash reads it."""
    assert len(moved) in (40, 41)
    text = f"ssh h cd /srv/app && {moved}\n"
    (found,) = kit.findings_selected(text, "HL110")
    assert found.fix is not None
    (edit,) = found.fix.edits
    assert (edit.start, edit.end) == (6, len(text) - 1)
    assert edit.content == f"'cd /srv/app && {moved}'"
    assert found.fix.message == f"Run `{shown}` in the remote shell too: {edit.content}"
    words = kit.bash_as_sshd(f"printf '<%s>\\n' {edit.content}", None, tmp_path).stdout
    assert words == f"<cd /srv/app && {moved}>\n"


# -- HL110: `|| return` is a local fallback ---------------------------------------------------


def test_hl110_return_after_a_failed_ssh_is_meant_to_run_locally() -> None:
    """`ssh h cd /srv/app || return 1` in a function: the `return` is what the function
    does here when the ssh fails, as `|| exit 1` is; only `|| echo failed` is reported,
    the command the user may have meant for the remote shell.  (Run 7: `return` was not
    among the local fallbacks.)"""
    text = (
        "deploy() {\n"
        "  ssh h cd /srv/app || return 1\n"
        "  ssh h cd /srv/app || exit 1\n"
        "  ssh h cd /srv/app || echo failed\n"
        "}\n"
    )
    found = kit.findings(text, "HL110", every_rule=True)
    assert [(kit.line_of(text, f), text[f.start : f.end]) for f in found] == [(4, "||")]
    assert "`echo failed` runs on this machine" in found[0].message


# -- HL110: an assignment glued to a quoted or escaped part is still a bare assignment -------


def test_hl110_glued_assignment_alone_is_reported() -> None:
    """`ssh h 'A="x"\\x' && make`: the remote script is one assignment whose value is
    written in two pieces (a quoted part, then an escaped character).  tree-sitter-bash
    reads it as an assignment followed by an empty command; bash runs no command at all
    (with no PATH, nothing is "not found") and only sets `A`, so the remote shell exits
    with nothing but a lost variable and `make` runs here.  (Run 7: `continue` after a
    command with no words made `pass`, which dropped the finding.)"""
    for remote, value in (('A="x"\\x', "xx"), ("A=$x\\x", "x")):
        ran = kit.bash_with_path(f"x=; {remote}; declare -p A", path="/nonexistent")
        assert (ran.returncode, ran.stderr) == (0, "")
        assert ran.stdout == f'declare -- A="{value}"\n'
        text = f"ssh h '{remote}' && make\n"
        found = kit.findings(text, "HL110", every_rule=True)
        assert [(text[f.start : f.end], f.severity.value) for f in found] == [("&&", "error")]
        assert f"`{remote}` only changes the state of the remote shell on h" in found[0].message
        assert found[0].fix is not None
        assert [e.content for e in found[0].fix.edits] == [f"'{remote} && make'"]


# -- HL110 names the host without its login user ------------------------------------------------


def test_hl110_names_the_host_without_the_login_user() -> None:
    """`ssh deploy@builder cd /src && make`: the message names the remote host, `builder`,
    not `deploy@builder`.  (Run 7: `rsplit("@", 1)` made `rsplit("@", 0)` kept the user.)"""
    text = "ssh deploy@builder cd /src && make\n"
    found = kit.findings(text, "HL110", every_rule=True)
    assert [(text[f.start : f.end], f.severity.value) for f in found] == [("&&", "error")]
    assert "only changes the state of the remote shell on builder, which exits" in (
        found[0].message
    )
    assert "deploy@" not in found[0].message


# -- spans and messages --------------------------------------------------------------------


def test_hl110_fix_message_cuts_the_moved_command_to_40_characters() -> None:
    moved = "./build-the-whole-thing --with-flag-one --with-flag-two"
    text = f"ssh h cd /srv && {moved}\n"
    (f,) = kit.findings(text, "HL110", every_rule=True)
    assert (f.start, f.end) == kit.occurrence_span(text, "&&")
    assert f.fix is not None
    assert f.fix.message == f"Run `{moved[:37]}...` in the remote shell too: 'cd /srv && {moved}'"
