"""HL101 heredoc-in-remote-string: a heredoc in a string that an outer shell parses first.

Reported where an outer shell really reads the string before the shell that runs the
heredoc (a script's `ssh h "..."`, `bash -c "..."`, a Python `shell=True` string running
ssh), and not where the string reaches its shell as written: paramiko's `exec_command`,
fabric's `run` (which calls `exec_command`) and an `["ssh", host, CMD]` argument list.
Both halves are run for real: paramiko and the ssh client against the loopback sshd
deliver a quoted heredoc byte for byte, while the `shell=True` string loses its `$HOME`
and backslashes to the local shell, and its (safe) fix delivers the intended bytes.
"""

from __future__ import annotations

import re
import types
from pathlib import Path

import paramiko  # type: ignore[import-untyped]
import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.engine import check_shell, check_text, fix_kind
from heredoc_lint.model import Applicability, Finding, Severity
from heredoc_lint.rules.hl101_heredoc_in_remote_string import INVALID, RULE

CODE = "HL101"
BODY = "x=$HOME `id` \\n \"dq\" 'sq'\n"  # what the heredoc means to write, byte for byte


def hl101_py(text: str) -> list[Finding]:
    return [f for f in check_text(text, "python", "t.py") if f.code == CODE]


def _block(doc: str, section: str) -> str:
    match = re.search(rf"## {section}\n```bash\n(.*?)```", doc, re.DOTALL)
    assert match is not None, section
    return match.group(1)


def test_documented_example_is_found_and_its_use_instead_is_clean() -> None:
    example = _block(RULE.doc, "Example")
    kit.assert_single(
        kit.findings(example, CODE), kit.heredoc_span(example, "<< 'EOF'"), Severity.WARNING
    )
    assert kit.findings(_block(RULE.doc, "Use instead"), CODE) == []


# -- the shell side: as before --------------------------------------------------------------
# Positives (with their fixes) and negatives: INVALID and VALID in the rule's module.


def test_a_heredoc_that_arrives_as_written_is_in_the_file_itself() -> None:
    """Evidence before a warning (the info examples that arrive as written): no character
    of it is changed by the outer quoting (the single-quoted-remote pattern of the
    precision corpus)."""
    as_written = [e for e in INVALID if e.says == "arrives as written"]
    assert len(as_written) == 3
    for example in as_written:
        assert example.severity == "info"
        layer_text = example.text.split("'", 1)[1].rsplit("'", 1)[0]
        assert "<<" in layer_text  # what the shell receives is the file's text itself


def test_shell_message_names_what_the_local_shell_does() -> None:
    (f,) = kit.findings("ssh h \"cat > /a << 'EOF'\n$x \\\nEOF\"\n", CODE)
    assert "the local shell expands $x in its body" in f.message
    assert "deletes 1 backslash-newline(s)" in f.message


# -- Python: only where a local shell parses the string first (WILD pattern 8) ----------------

PY_HEAD = "import subprocess\n\ndef push(client, c, host):\n"
NO_OUTER_SHELL = [
    "    client.exec_command(\"cat > /a << 'EOF'\\nx=$HOME `id`\\nEOF\\n\")",
    "    c.run(\"cat > /a << 'EOF'\\nx=$HOME\\nEOF\\n\")",  # fabric: calls exec_command
    "    subprocess.run(['ssh', host, \"cat > /a << 'EOF'\\nx=$HOME\\nEOF\\n\"])",
    "    subprocess.run(['bash', '-c', \"cat > /a << 'EOF'\\nx=$HOME\\nEOF\\n\"])",
]


@pytest.mark.parametrize("line", NO_OUTER_SHELL)
def test_python_string_without_an_outer_shell_is_not_reported(line: str) -> None:
    head = "from fabric import Connection\n" + PY_HEAD if ".run(" in line else PY_HEAD
    assert hl101_py(head + line + "\n") == []


def test_python_shell_true_running_ssh_is_reported() -> None:
    text = (
        PY_HEAD
        + '    subprocess.run("ssh h \\"cat > /a << \'EOF\'\\nx=$HOME\\nEOF\\"", shell=True)\n'
    )
    (f,) = hl101_py(text)
    start = text.index("<<")
    assert (f.start, f.end, f.severity) == (start, start + 2, Severity.WARNING)
    assert "the ssh command string" in f.message
    assert "the local shell expands $HOME in its body" in f.message
    assert f.fix is not None and f.fix.applicability is Applicability.SAFE


def test_a_body_filled_in_at_run_time_is_still_parsed_by_the_outer_shell() -> None:
    # HL202 speaks for the value; the `$1` beside it is still expanded by the local shell,
    # which is this rule's. No static fix can carry the value: none is offered.
    text = (
        "import subprocess\nimport sys\n\nname = sys.argv[1]\n"
        'subprocess.run(f"""ssh h "cat > /tmp/run.sh << \'EOF\'\n'
        "echo {name} $1\n"
        'EOF" """, shell=True)\n'
    )
    (f,) = hl101_py(text)
    start = text.index("<<")
    assert (f.start, f.end, f.severity) == (start, start + 2, Severity.WARNING)
    assert f.message.endswith("the local shell expands $1 in its body")
    assert f.fix is None
    codes = {g.code for g in check_text(text, "python", "t.py")}
    assert {"HL101", "HL102", "HL202"} <= codes


def test_a_run_time_body_with_nothing_the_outer_shell_changes_is_info() -> None:
    text = (
        "import subprocess\nimport sys\n\nname = sys.argv[1]\n"
        "subprocess.run(f\"ssh h 'cat > /tmp/f << EOF\\n{name}\\nEOF'\", shell=True)\n"
    )
    (f,) = hl101_py(text)
    assert f.severity == Severity.INFO and f.fix is None


# -- runtime: what each channel delivers -------------------------------------------------------

CHANNELS = '''import subprocess


def by_exec_command(client, path):
    _, out, _ = client.exec_command(f"""cat > {path} << 'EOF'
x=$HOME `id` \\\\n "dq" 'sq'
EOF
""")
    out.channel.recv_exit_status()


def by_ssh_argv(config, path):
    subprocess.run(["ssh", "-F", config, "h", f"""cat > {path} << 'EOF'
x=$HOME `id` \\\\n "dq" 'sq'
EOF
"""], check=True)


def by_shell_and_ssh(path):
    subprocess.run("ssh h \\"cat > " + path + """ << 'EOF'
x=$HOME `id` \\\\n 'sq'
EOF\\"""", shell=True, check=True)
'''


def _load(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(source, name, "exec"), module.__dict__)
    return module


def test_exec_command_and_ssh_argv_deliver_the_heredoc_byte_for_byte(
    tmp_path: Path, client: paramiko.SSHClient, sshd: SshServer
) -> None:
    found = hl101_py(CHANNELS)
    assert [CHANNELS[f.start : f.end] for f in found] == ["<<"]  # the shell=True one only
    assert found[0].start > CHANNELS.index("def by_shell_and_ssh")
    module = _load(CHANNELS, "channels")
    module.by_exec_command(client, str(tmp_path / "a"))
    module.by_ssh_argv(str(sshd.config), str(tmp_path / "b"))
    assert (tmp_path / "a").read_text() == BODY
    assert (tmp_path / "b").read_text() == BODY


def test_shell_true_string_is_mangled_and_its_fix_delivers_the_body(
    tmp_path: Path, sshd: SshServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", sshd.env()["PATH"])  # `ssh h` reaches the loopback sshd
    meant = "x=$HOME `id` \\n 'sq'\n"
    original = _load(CHANNELS, "original")
    original.by_shell_and_ssh(str(tmp_path / "before"))
    got = (tmp_path / "before").read_text()
    assert got != meant and "$HOME" not in got  # expanded by the local shell
    outcome = fix_kind(CHANNELS, "python", "channels.py", unsafe=False)  # a safe fix
    assert outcome.error is None and hl101_py(outcome.text) == []
    assert "base64 -d" in outcome.text
    _load(outcome.text, "fixed").by_shell_and_ssh(str(tmp_path / "after"))
    assert (tmp_path / "after").read_text() == meant


def test_shell_script_the_same_through_the_real_ssh(tmp_path: Path, sshd: SshServer) -> None:
    """The shell half, run: the fix of a script's double-quoted ssh heredoc is exact."""
    script = f"#!/bin/bash\nssh h \"cat > {tmp_path}/s << 'EOF'\nx=$HOME \\\\n\nEOF\"\n"
    assert len(kit.findings(script, CODE)) == 1
    proc = run_local(script, sshd)
    assert proc.returncode == 0, proc.stderr
    assert "$HOME" not in (tmp_path / "s").read_text()
    fixed = kit.fix_text(script, CODE)
    assert kit.findings(fixed, CODE) == []
    proc = run_local(fixed, sshd)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "s").read_text() == "x=$HOME \\n\n"


# -- spans and messages --------------------------------------------------------------------


@pytest.mark.parametrize(("op", "body"), [("<<-", "\tx\n\tEOF"), ("<<", "x\nEOF")])
def test_hl101_spans_the_whole_operator(op: str, body: str) -> None:
    text = f'ssh h "cat {op}EOF\n{body}"\n'
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL101"]
    assert text[found.start : found.end] == op


# -- spans and messages --------------------------------------------------------------------


def test_hl101_names_the_expansions_of_the_body() -> None:
    text = 'ssh h "cat > f << EOF\n$x and \\$y\nEOF"\n'
    (f,) = kit.findings(text, "HL101", every_rule=True)
    assert (f.start, f.end) == kit.occurrence_span(text, "<<")
    assert f.message.startswith("Heredoc inside the ssh command string: ")
    assert "the local shell expands $x in its body" in f.message
    (g,) = kit.findings(text.replace("$x and ", ""), "HL101", every_rule=True)
    assert "the local shell expands" not in g.message


def test_hl101_counts_the_deleted_backslash_newlines() -> None:
    text = 'ssh h "cat > f << EOF\na \\\nb\nEOF"\n'
    (f,) = kit.findings(text, "HL101", every_rule=True)
    assert f.message.endswith("; deletes 1 backslash-newline(s)")


def test_a_body_filled_with_a_variable_set_to_literal_text_is_info(tmp_path: Path) -> None:
    """`replica_user=replica_user` above `sudo bash -c "cat << EOF >> pg_hba.conf ...
    $replica_user ..."` (round w: scgnutthkon/allpay-deployment): the layer holds the value
    itself (with_literal_text), and the body is still the script's own values, as meant."""
    target = tmp_path / "pg_hba.conf"
    text = f'user=replica\nbash -c "cat << EOF >> {target}\nhost replication $user md5\nEOF"\n'
    ran = kit.bash_with_path(text)
    assert ran.returncode == 0, ran.stderr
    assert target.read_text() == "host replication replica md5\n"
    (f,) = kit.findings(text, CODE, every_rule=True)
    assert (f.evidence, f.severity) == ("local-values", Severity.INFO)
    assert "fills in $user in its body" in f.message


def test_an_unquoted_body_filled_with_the_scripts_own_variables_is_info(tmp_path: Path) -> None:
    """`HOSTNAME=$(hostname -s)` above `sudo bash -c "cat > torrc <<EOL ... $HOSTNAME ..."`:
    the outer shell fills in what the script set, as its author meant (bench/corpus:
    tfukui95/tor-experiment); bash writes the local value into the file."""
    target = tmp_path / "torrc"
    text = f'NAME=$(echo relay-1)\nbash -c "cat > {target} <<EOL\nNickname $NAME\nEOL"\n'
    ran = kit.bash_with_path(text)
    assert ran.returncode == 0, ran.stderr
    assert target.read_text() == "Nickname relay-1\n"
    (f,) = kit.findings(text, CODE, every_rule=True)
    assert (f.evidence, f.severity) == ("local-values", Severity.INFO)
    assert "fills in $NAME in its body, variables set before it" in f.message
    # Not when the delimiter says the body is literal, nor for a value the script does not
    # set, nor when a backslash-newline is deleted too.
    for changed in (
        text.replace("<<EOL", "<<'EOL'"),
        text.replace("$NAME", "$NAME $OTHER"),
        text.replace("$NAME", "$NAME \\\n"),
    ):
        (g,) = kit.findings(changed, CODE, every_rule=True)
        assert g.evidence == "body-parsed-by-outer-shell", changed


def test_a_shells_quoted_script_filled_with_the_scripts_own_variables_is_info(
    tmp_path: Path,
) -> None:
    """`ssh h "sudo su <<\\EOF ... cd $base_dir ... EOF"` (round y, a blockchain testnet's
    scripts): the heredoc is the script of a shell that runs it at once, and the author
    fills it with the local script's values; the quoted delimiter only keeps the remote
    shell from expanding them again.  bash runs the body in the local directory."""
    text = f'base_dir={tmp_path}\nbash -c "bash <<\\EOF\ncd $base_dir && pwd\nEOF"\n'
    ran = kit.bash_with_path(text)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == f"{tmp_path}\n"
    (f,) = kit.findings(text, CODE, every_rule=True)
    assert (f.evidence, f.severity) == ("local-values", Severity.INFO)
    # Not when the heredoc writes a file (its `$x` is for later), nor when the shell runs
    # a `-c` string and not its stdin.
    for changed in (
        text.replace("bash <<", "cat > f <<"),
        text.replace("bash <<", "bash -c 'cd /' <<"),
    ):
        (g,) = kit.findings(changed, CODE, every_rule=True)
        assert g.evidence == "body-parsed-by-outer-shell", changed


def test_a_runbook_block_filled_with_what_an_earlier_block_sets_is_info() -> None:
    """A runbook's blocks run in one terminal, in order (tfukui95/tor-experiment's
    ToyExperiment.md): a variable an earlier block sets is the one meant."""
    block = 'sudo bash -c "cat > /etc/tor/torrc <<EOL\nNickname $NAME\nEOL"\n'
    earlier = "Name it:\n\n```bash\nNAME=$(hostname -s)\n```\n\nThen:\n\n```bash\n"
    for text, evidence in (
        (earlier + block + "```\n", "local-values"),
        (
            "Then:\n\n```bash\n" + block + "```\n\n```bash\nNAME=x\n```\n",
            "body-parsed-by-outer-shell",
        ),
    ):
        (f,) = [f for f in check_text(text, "markdown", "r.md") if f.code == CODE]
        assert f.evidence == evidence, text
