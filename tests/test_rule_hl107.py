"""HL107 unquoted-heredoc-to-remote: `ssh h <<EOF` expands the body locally.

Anchors computed from the text, negatives, the unsafe fix (quote the delimiter, undo the
escapes) re-checked and applied twice, and the real sshd showing the remote file
receiving the local value, and the intended remote value after the fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.engine import Settings, check_shell, check_text
from heredoc_lint.model import Applicability, Finding
from heredoc_lint.rules.base import Invalid
from heredoc_lint.rules.hl107_unquoted_heredoc_to_remote import INVALID, VALID
from heredoc_lint.severities import severity

CODE = "HL107"


def hl107(text: str) -> list[Finding]:
    return kit.findings(text, CODE, every_rule=True)


# What the body's expansions are meant for, as the finding's evidence says: its severity
# is the table's (heredoc_lint.severities, kept by tests/test_severities.py).
REMOTE, LOCAL = "remote-meaning", "local-meaning"


def single(found: list[Finding], span: tuple[int, int], evidence: str) -> Finding:
    f = kit.assert_single(found, span, severity(CODE, evidence))
    assert f.evidence == evidence
    return f


# Positives, negatives and fixes: INVALID and VALID in the rule's module, which run them
# with HL107 alone; here with every rule on, as this file's tests are written.
# With every rule on, this heredoc in an ssh string (HL101's too) is fixed otherwise (its
# body sent as base64): only that the outcome is clean and a fixpoint is checked here.
OTHER_OUTCOME = 'ssh a "ssh b <<EOF\necho \\$USER\nEOF"\n'


@pytest.mark.parametrize("example", INVALID, ids=[e.text.split("\n")[0] for e in INVALID])
def test_invalid_example_with_every_rule(example: Invalid) -> None:
    """Remote-meaning at its `<<`; its unsafe fix (every rule on) gives the fixed text."""
    start = example.text.index(example.at)
    f = single(hl107(example.text), (start, start + len(example.at)), REMOTE)
    assert "expands" in f.message and "<<'" in f.message
    kit.single_fix(hl107(example.text), Applicability.UNSAFE)
    outcome = kit.assert_fixed_clean_and_idempotent(
        example.text, CODE, unsafe=True, every_rule=True
    )
    if example.text != OTHER_OUTCOME:
        assert outcome == example.fixed


def test_valid_examples_with_every_rule() -> None:
    for text in VALID:
        assert hl107(text) == [], text


def test_message_names_the_expansions() -> None:
    text = 'x=LOCAL\nssh h <<EOF\necho "$x $(hostname) ${y:-z} $1 $2" \\$HOME\nEOF\n'
    (f,) = hl107(text)
    # `$x` is set by the script: a value sent on purpose, not named among the suspects.
    assert "the local shell expands `$(hostname)`, `${y:-z}` in the body" in f.message
    # `$x` is set by the script, `$1` and `$2` are its own arguments (the remote shell is
    # given none): values sent on purpose, not named among the suspects.
    assert "`$x`" not in f.message and "`$1`" not in f.message
    assert "$HOME" not in f.message  # escaped: it reaches the remote shell
    assert "receives the local values" in f.message
    assert "`$(hostname)` asks about the machine it runs on" in f.message


def test_nested_layer_anchor_in_the_file() -> None:
    """`ssh a "ssh b <<EOF ... \\$USER"`: host a's shell expands $USER before ssh b sends it."""
    text = 'ssh a "ssh b <<EOF\necho \\$USER\nEOF"\n'
    (f,) = hl107(text)
    assert (f.start, f.end) == kit.heredoc_span(text)
    assert f.depth == 1
    assert "the remote shell that runs this string expands `$USER`" in f.message


def test_quoted_heredoc_script_layer() -> None:
    """A script sent with <<'X' that itself feeds ssh an unquoted heredoc."""
    text = "ssh a bash -s <<'X'\nssh b <<EOF\necho $y\nEOF\nX\n"
    found = hl107(text)
    assert [(f.start, f.end) for f in found] == [kit.heredoc_span(text)]


def test_cli_json_line_and_column(tmp_path: Path) -> None:
    text = "#!/bin/bash\nv=1\nssh ops@web-1 bash -s <<EOF\necho $v on $(hostname)\nEOF\n"
    path = tmp_path / "deploy.sh"
    path.write_text(text)
    (item,) = [f for f in kit.cli_json(path, "--severity", "info") if f["code"] == CODE]
    kit.assert_json_position(item, text, kit.heredoc_span(text), (3, 23))
    assert item["fix"]["applicability"] == "unsafe"


def test_clean_case_file() -> None:
    assert hl107(kit.case_text("clean_ok.sh")) == []


def test_fix_in_a_double_quoted_ssh_string() -> None:
    text = 'ssh a "ssh b <<EOF\necho \\$USER\nEOF"\n'
    (f,) = hl107(text)
    assert f.fix is not None
    edited = kit.apply_fix(text, f)
    assert edited == "ssh a \"ssh b <<'EOF'\necho \\$USER\nEOF\"\n"
    assert hl107(edited) == []


# -- runtime: the real sshd ---------------------------------------------------------------
def test_runtime_body_is_expanded_locally(sshd: SshServer, tmp_path: Path) -> None:
    """The remote file receives the local value of $x; with <<'EOF' the remote one."""
    out = tmp_path / "remote.txt"
    script = (
        "#!/bin/bash\n"
        "x=LOCAL_VALUE\n"
        f"ssh {sshd.user}@web-1 <<EOF\n"
        "x=REMOTE_VALUE\n"
        f'echo "x=$x" > {out}\n'
        "EOF\n"
    )
    assert len(hl107(script)) == 1
    kit.run_ok(script, sshd)
    assert out.read_text() == "x=LOCAL_VALUE\n"

    out.unlink()
    fixed = kit.fix_text(script, CODE, unsafe=True, every_rule=True)
    assert f"ssh {sshd.user}@web-1 <<'EOF'\n" in fixed
    kit.run_ok(fixed, sshd)
    assert out.read_text() == "x=REMOTE_VALUE\n"


def test_runtime_bash_s_and_escapes_kept_by_the_fix(sshd: SshServer, tmp_path: Path) -> None:
    r"""`ssh h bash -s <<EOF`: escaped `\$name` reaches the remote shell the same after the fix."""
    out = tmp_path / "remote.txt"
    script = (
        "#!/bin/bash\n"
        "name=local\n"
        f"ssh {sshd.user}@web-1 bash -s <<EOF\n"
        "name=remote\n"
        f"printf '%s|%s|%s\\n' \"$name\" \"\\$name\" 'a\\\\b' > {out}\n"
        "EOF\n"
    )
    kit.run_ok(script, sshd)
    assert out.read_text() == "local|remote|a\\b\n"
    out.unlink()
    fixed = kit.fix_text(script, CODE, unsafe=True, every_rule=True)
    kit.run_ok(fixed, sshd)
    assert out.read_text() == "remote|remote|a\\b\n"


# -- evidence: what the local script sets is sent on purpose (WILD pattern 3) ---------------
INTENDED = [
    "SERVICE=api\nssh h <<EOF\nsystemctl restart $SERVICE\nEOF\n",
    "read -r tag < VERSION\nssh h bash -s <<EOF\ndocker pull app:$tag\nEOF\n",
    "for svc in a b; do\nssh h <<EOF\nsystemctl restart ${svc}\nEOF\ndone\n",
    "deploy() {\nssh h bash -s <<EOF\ncd /srv/$1 && git pull\nEOF\n}\ndeploy app\n",
    # set by the caller (CI), and read by the script's own command line before
    'scp app.tar "$USER@$IP:$DEPLOY_PATH"\nssh "$USER@$IP" <<EOF\ncd $DEPLOY_PATH\nEOF\n',
]


@pytest.mark.parametrize("text", INTENDED)
def test_locally_set_values_are_info(text: str) -> None:
    f = single(hl107(text), kit.heredoc_span(text), LOCAL)
    assert "values of this script" in f.message
    # Quoting the delimiter would send the names, not the values meant: a suggestion only.
    assert f.fix is not None and f.fix.applicability is Applicability.DISPLAY_ONLY
    assert kit.fix_text(text, CODE, unsafe=True, every_rule=True) == text


def test_shellcheck_sc2087_directive_suppresses() -> None:
    text = "# shellcheck disable=SC2087\nssh h <<EOF\necho $(hostname)\nEOF\n"
    assert hl107(text) == []
    # The directive is another tool's: never reported as an unused suppression of ours.
    settings = Settings(warn_unused_suppressions=True)
    quiet = "# shellcheck disable=SC2087\nssh h uptime\n"
    assert [f.code for f in check_shell(quiet, "t.sh", settings)] == []
    # A directive for other ShellCheck codes silences nothing here.
    assert len(hl107("# shellcheck disable=SC2086\nssh h <<EOF\necho $(hostname)\nEOF\n")) == 1


# (script, the expansions named as remote-only, with the evidence)
REMOTE_ONLY = [
    ('ssh h <<EOF\nmake; echo "exit $?"\nEOF\n', "`$?` only has a meaning in the shell"),
    ("ssh h <<EOF\nnvcc=$(command -v nvcc)\nEOF\n", "`$(command -v nvcc)` asks about the machine"),
    ("x=local\nssh h <<EOF\nx=remote\necho $x\nEOF\n", "`$x` is set by the body itself"),
    ("ssh h <<EOF\necho `hostname -f`\nEOF\n", "hostname -f`` asks about the machine"),
]


@pytest.mark.parametrize(("text", "part"), REMOTE_ONLY)
def test_remote_only_expansions_are_named_with_their_evidence(text: str, part: str) -> None:
    f = single(hl107(text), kit.heredoc_span(text), REMOTE)
    assert part in f.message


def test_markdown_blocks_are_one_session() -> None:
    """A variable set in an earlier block of the page is the reader's local value."""
    text = (
        "Gather:\n\n```bash\nNODE_IP=$(grep node machines.txt | cut -d ' ' -f 1)\n```\n\n"
        "```bash\nssh root@server <<EOF\n  ip route add 10.0.0.0/24 via ${NODE_IP}\nEOF\n```\n"
    )
    (f,) = [f for f in check_text(text, "markdown", "r.md") if f.code == CODE]
    assert f.evidence == LOCAL and (f.start, f.end) == kit.heredoc_span(text)
    alone = text[text.index("```bash\nssh") :]
    (f,) = [f for f in check_text(alone, "markdown", "r.md") if f.code == CODE]
    assert f.evidence == LOCAL  # nothing sets it: no evidence either way
    probe = alone.replace("${NODE_IP}", "$(hostname -i)")
    (f,) = [f for f in check_text(probe, "markdown", "r.md") if f.code == CODE]
    assert f.evidence == REMOTE


def test_a_local_read_of_home_shows_nothing() -> None:
    """`$HOME` differs between the machines: reading it locally too is no evidence."""
    text = 'cd "$HOME"\nssh h <<EOF\ncd $HOME/app\nEOF\n'
    single(hl107(text), kit.heredoc_span(text), REMOTE)


def test_a_variable_nothing_sets_or_reads_is_no_evidence() -> None:
    """`$DEPLOY_DIR` set by the CI job (the precision corpus's FP): info, named."""
    text = "ssh apps@$IP -p $PORT <<EOF\n  cd $DEPLOY_DIR\n  git pull\nEOF\n"
    f = single(hl107(text), kit.heredoc_span(text), LOCAL)
    assert "`$DEPLOY_DIR`" in f.message and "usually meant to be sent" in f.message


def test_local_values_beside_a_remote_only_one_are_not_named() -> None:
    text = "SERVICE=api\nssh h <<EOF\nsystemctl restart $SERVICE; echo $?\nEOF\n"
    f = single(hl107(text), kit.heredoc_span(text), REMOTE)
    assert "expands `$?` in the body" in f.message and "$SERVICE" not in f.message


def test_runtime_a_locally_set_value_arrives_as_meant(sshd: SshServer, tmp_path: Path) -> None:
    """The info case: the remote shell receives the value the script set."""
    out = tmp_path / "remote.txt"
    script = f"#!/bin/bash\nSERVICE=api\nssh {sshd.user}@web-1 <<EOF\necho $SERVICE > {out}\nEOF\n"
    assert [f.evidence for f in hl107(script)] == [LOCAL]
    kit.run_ok(script, sshd)
    assert out.read_text() == "api\n"


def test_runtime_a_shell_variable_in_single_quotes_of_the_body(
    sshd: SshServer, tmp_path: Path
) -> None:
    """`echo 'export PATH=${PATH}:/opt/x' >> ~/.bashrc` in an unquoted heredoc: the single
    quotes were written for the remote shell, to keep `${PATH}` as written, but the local
    shell expands it first and the remote file gets this machine's PATH (remote-meaning, the
    quotes named as evidence). Another name in single quotes may be a local value the
    quotes protect (`'$PASSWORD'`): no evidence either way."""
    out = tmp_path / "bashrc"
    script = (
        "#!/bin/bash\n"
        "PATH=/local/bin:$PATH\n"
        f"ssh {sshd.user}@web-1 <<EOF\n"
        f"echo 'export PATH=${{PATH}}:/opt/x' >> {out}\n"
        "EOF\n"
    )
    (f,) = hl107(script)
    assert f.evidence == REMOTE
    assert "`${PATH}` stands inside single quotes in the body" in f.message
    kit.run_ok(script, sshd)
    assert out.read_text().startswith("export PATH=/local/bin:")

    out.unlink()
    kit.run_ok(kit.fix_text(script, CODE, unsafe=True, every_rule=True), sshd)
    assert out.read_text() == "export PATH=${PATH}:/opt/x\n"

    protected = "#!/bin/bash\nssh web-1 <<EOF\necho '$PASSWORD' | passwd --stdin app\nEOF\n"
    assert [g.evidence for g in hl107(protected)] == ["local-meaning"]


def test_runtime_a_positional_of_the_body_is_the_scripts_own(
    sshd: SshServer, tmp_path: Path
) -> None:
    """`ssh h sh <<EOF` with `do_$1` in the body: the remote shell is given no arguments,
    so its `$1` would be empty; the script's own argument is meant (info), and it is what
    arrives (through sshd). With arguments for the remote shell (`bash -s -- "$v"`), `$1`
    may be meant there (remote-meaning)."""
    out = tmp_path / "remote.txt"
    script = f"#!/bin/bash\nssh {sshd.user}@web-1 sh <<EOF\necho do_$1 > {out}\nEOF\n"
    assert [f.evidence for f in hl107(script)] == [LOCAL]
    path = tmp_path / "run.sh"
    path.write_text(script)
    run_local(path, sshd, args=["start"])
    assert out.read_text() == "do_start\n"
    given = 'ssh web-1 bash -s -- "$v" <<EOF\necho $1\nEOF\n'
    assert [f.evidence for f in hl107(given)] == [REMOTE]


# -- HL107 --------------------------------------------------------------------------------


def test_hl107_names_each_expansion_once() -> None:
    """The message names the body's expansions once each, in order, the first three and
    a count of the rest (`$HOME` twice is one name)."""
    (one,) = kit.findings_selected("ssh h bash <<EOF\necho $HOME $HOME $(date)\nEOF\n", "HL107")
    assert (one.start, one.end) == (11, 13)
    assert "expands `$HOME`, `$(date)` in the body" in one.message
    text = "ssh h bash <<EOF\necho $HOME $(a) $(b) $(c) $(d) $HOME\nEOF\n"
    (many,) = kit.findings_selected(text, "HL107")
    assert "expands `$HOME`, `$(a)`, `$(b)` and 2 more in the body" in many.message


def test_hl107_body_ending_in_a_backslash_at_the_end_of_the_file() -> None:
    """An unterminated body whose last character is a backslash (the file ends there):
    the findings are made, nothing reads past the end of the text (an IndexError)."""
    text = "ssh h bash <<EOF\necho $HOME \\"
    found = [(f.code, f.start, f.end) for f in check_shell(text, "t.sh", Settings())]
    assert found == [("HL107", 11, 13), ("HL112", 11, 13)]  # and HL112: never terminated


def test_hl107_backquoted_probe_of_the_machine_is_named() -> None:
    """`` `hostname` `` asks about the machine it runs on, as `$(hostname)` does: the
    message says so for both spellings, and not for `` `date` ``."""
    for body, probes in (("`hostname`", True), ("$(hostname)", True), ("`date`", False)):
        (one,) = kit.findings_selected(f"ssh h bash <<EOF\necho {body}\nEOF\n", "HL107")
        assert (one.start, one.end) == (11, 13)
        assert (f"`{body}` asks about the machine it runs on" in one.message) is probes
