"""Pinned behaviours of suppressions and the remote-heredoc fixes found by the mutation run
of issue 20 (run 7, seed 41, bench/mutation_runs/run7-h20o.md), through the engine and the
CLI on real files.

Each test kills a mutant that `bench/mutation.py` left alive: it was planted in a scratch
copy of the tree, the test failed there, and it passes without.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from cli_process import CLI, run_cli

from heredoc_lint.engine import check_shell, check_text, fix_kind, fix_shell
from heredoc_lint.settings import Settings

_BAD = 'ssh h "pkill -f sglang; ./restart"'  # HL103, an error
_WORKFLOW = """\
{comment}name: w
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: |
          {bad}
"""

# -- suppress.py: YAML comments are directives in a workflow, and only there ---------------


def test_a_yaml_comment_directive_silences_a_workflow() -> None:
    """A workflow's own YAML comment (outside every `run:` step) is a directive: it
    silences the HL103 of the step below; without it the step has that HL103."""
    bare = _WORKFLOW.format(comment="", bad=_BAD)
    assert [f.code for f in check_text(bare, "actions")] == ["HL103"]
    silenced = _WORKFLOW.format(comment="# heredoc-lint: disable-file=HL103\n", bad=_BAD)
    assert check_text(silenced, "actions") == []


def test_a_yaml_comment_is_no_directive_in_a_shell_file() -> None:
    """`ssh h 'pkill -f sglang; ./restart # heredoc-lint: ...'`: for YAML the ` #` would
    start a comment (the line is a plain scalar), for bash it is inside the quotes, and bash
    is the file's language.  Bash shows it: the `#` text reaches ssh as part of its
    argument, so the directive is no comment and the HL103 stays."""
    line = "ssh h 'pkill -f sglang; ./restart # heredoc-lint: disable=HL103'\n"
    echoed = subprocess.run(
        ["bash", "-c", "ssh() { printf '%s\\n' \"$2\"; }\n" + line],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert echoed == "pkill -f sglang; ./restart # heredoc-lint: disable=HL103\n"
    findings = check_shell(line, "x.sh")
    assert [(f.code, f.severity) for f in findings] == [("HL103", "error")]


# -- fixes/remote_heredoc.py: the scp fix only for `cat > PATH` -----------------------------


@pytest.mark.parametrize(
    "command",
    ["tee /tmp/app.conf", "bash", "cat >>/tmp/app.conf"],
)
def test_scp_fix_refused_when_the_heredoc_feeds_another_command(command: str) -> None:
    """The scp strategy replaces the heredoc's command by a copy of its body, which is
    only what `cat > PATH` does: `tee` also prints the body, `bash` runs it, `>>` appends.
    Those keep their HL101 with no fix (not an internal error); `cat > PATH` gets the
    fix, so the refusal is the command's."""
    settings = Settings(fix_strategy="scp")

    def fixes(heredoc_command: str) -> list[tuple[str, str | None]]:
        text = f'#!/bin/bash\nssh h "{heredoc_command} <<EOF\nport=1\nEOF\necho done"\n'
        found = check_shell(text, "/tmp/push.sh", settings)
        return [(f.code, f.fix.strategy if f.fix else None) for f in found]

    assert fixes("cat >/tmp/app.conf") == [("HL101", "scp")]
    assert fixes(command) == [("HL101", None)]


def test_scp_fix_of_a_tee_heredoc_leaves_the_file_alone(tmp_path: Path) -> None:
    """`--fix --fix-strategy scp` on a heredoc fed to `tee`: exit 0, nothing on stderr,
    the script's bytes unchanged and no file written beside it."""
    script = tmp_path / "push.sh"
    text = '#!/bin/bash\nssh h "tee /tmp/app.conf <<EOF\nport=1\nEOF\necho done"\n'
    script.write_text(text)
    proc = run_cli("--fix", "--fix-strategy", "scp", "--no-cache", str(script))
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    assert script.read_text() == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["push.sh"]


def _in_double_quotes(text: str) -> str:
    """`text` escaped for the inside of a double-quoted bash word (no `$` or backtick in it)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _bash(script: str, home: Path) -> subprocess.CompletedProcess[str]:
    """`bash -c SCRIPT` run from `home`, which is also its $HOME."""
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        ["bash", "-c", script], cwd=home, env=env, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("spelling", ["'~/app.conf'", '"~/app.conf"', "\\~/app.conf"])
def test_scp_fix_refused_for_a_quoted_tilde(tmp_path: Path, spelling: str) -> None:
    """`cat > '~/app.conf'` (the tilde quoted or escaped: the static spellings) writes into
    a directory named `~` under the remote working directory, not into the home, where
    scp's `host:~/app.conf` would put it (scp expands `~/`; checked by hand through the
    loopback sshd: the file lands in $HOME).  Bash shows the first half: run from $HOME,
    the remote command fails for want of `./~` and $HOME/app.conf is not written.  So no
    scp fix; the same heredoc to `/tmp/app.conf` gets one."""
    remote = f"cat >{spelling} <<EOF\nport=1\nEOF\necho done"
    quoted = _in_double_quotes(remote)
    # The ssh string, as bash reads it, is `remote`.
    assert _bash(f'printf %s "{quoted}"', tmp_path).stdout == remote
    done = _bash(remote, tmp_path)
    assert "~/app.conf: No such file or directory" in done.stderr
    assert done.stdout == "done\n"
    assert list(tmp_path.iterdir()) == []
    settings = Settings(fix_strategy="scp")
    found = check_shell(f'#!/bin/bash\nssh h "{quoted}"\n', "/tmp/push.sh", settings)
    assert [(f.code, f.fix) for f in found] == [("HL101", None)]
    absolute = _in_double_quotes(remote.replace(spelling, "/tmp/app.conf"))
    (fixed,) = check_shell(f'#!/bin/bash\nssh h "{absolute}"\n', "/tmp/push.sh", settings)
    assert fixed.fix is not None and fixed.fix.strategy == "scp"


@pytest.mark.parametrize("path", ["app.conf", "./app.conf", "conf/app.conf"])
def test_scp_fix_refused_for_a_relative_path(path: str) -> None:
    """A relative target is not carried over to scp (whose start directory, an SFTP
    server's, need not be the login shell's): HL101 stays, without a fix."""
    text = f'#!/bin/bash\nssh h "cat >{path} <<EOF\nport=1\nEOF\necho done"\n'
    found = check_shell(text, "/tmp/push.sh", Settings(fix_strategy="scp"))
    assert [(f.code, f.fix) for f in found] == [("HL101", None)]


# -- fixes/remote_heredoc.py: the stdin fix is whole or nothing ------------------------------

# A Markdown runbook whose heredoc body holds a `~~~` line: harmless inside a backtick
# fence, but a line of the fence's file text starting with a fence marker is one the
# block's edits refuse to insert (an inserted line must not close the fence).
_RUNBOOK = '# Deploy\n\n```bash\nssh h "cat >/tmp/app.conf <<EOF\nport=1\n~~~\nEOF"\n```\n'


def test_stdin_fix_refused_when_the_body_cannot_be_written_back() -> None:
    """The stdin fix moves the body below the ssh line; in this fence that edit is
    refused, so there is no stdin fix at all (the operator alone would leave ssh
    reading a heredoc that has no body).  The base64 fix, which writes no new line,
    is still offered for the same finding."""
    stdin = check_text(_RUNBOOK, "markdown", "/tmp/x.md", Settings(fix_strategy="stdin"))
    assert [(f.code, f.fix) for f in stdin] == [("HL101", None)]
    (base64,) = check_text(_RUNBOOK, "markdown", "/tmp/x.md", Settings(fix_strategy="base64"))
    assert base64.fix is not None and base64.fix.strategy == "base64"


def test_stdin_fix_of_a_runbook_it_cannot_write_leaves_it_alone(tmp_path: Path) -> None:
    """`--fix --fix-strategy stdin` on that runbook: exit 0, nothing on stderr, the
    file's bytes unchanged."""
    runbook = tmp_path / "deploy.md"
    runbook.write_text(_RUNBOOK)
    proc = run_cli("--fix", "--fix-strategy", "stdin", "--no-cache", str(runbook))
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    assert runbook.read_text() == _RUNBOOK


# -- fixes/python_fixes.py: a value spelled over several lines -------------------------------

# f-string values written over two lines: alone, such a line break does not parse as an
# expression, so the fix puts the value in parentheses.  The last heredoc glues its
# delimiter to the value (a value without a final newline): bash never sees its end.
_MULTILINE = '''def push(client, id_, name):
    client.exec_command(f"""cat > out-a << 'EOF'
{'id-'
  + id_}
EOF
cat > out-b << 'EOF'
{name
  .strip()}
EOF
cat > out-c << 'EOF'
{'id-'
  + id_}EOF""")
'''


class _Recorder:
    """A stand-in ssh client: keeps the command it is given."""

    def __init__(self) -> None:
        self.commands: list[str] = []

    def exec_command(self, command: str) -> None:
        self.commands.append(command)


def _remote_files(source: str, tmp_path: Path, label: str) -> dict[str, bytes]:
    """Run `push` of `source`, its command through bash in a directory of its own (bash
    stands for the remote shell): the files it writes."""
    namespace: dict[str, object] = {}
    exec(compile(source, label, "exec"), namespace)
    client = _Recorder()
    namespace["push"](client, "7", "  bob ")  # type: ignore[operator]
    (command,) = client.commands
    where = tmp_path / label
    where.mkdir()
    subprocess.run(["bash", "-c", command], cwd=where, check=True)
    return {p.name: p.read_bytes() for p in sorted(where.iterdir())}


def test_runtime_base64_fix_of_a_value_over_two_lines(tmp_path: Path) -> None:
    """HL202's fix on values that span lines: the fixed file compiles, has no HL202 left,
    and its command writes the values' bytes (through bash): the same as the original's
    for the two whole heredocs, and the value alone (`.encode()` of the whole value, not
    of its last operand) for the glued one, which the original wrote with its `EOF`."""
    found = [f for f in check_text(_MULTILINE, "python", "push.py") if f.code == "HL202"]
    assert len(found) == 3 and all(f.fix is not None for f in found)
    outcome = fix_kind(_MULTILINE, "python", "push.py", unsafe=True)
    assert outcome.error is None
    assert [f.code for f in check_text(outcome.text, "python", "push.py")] == []
    original = _remote_files(_MULTILINE, tmp_path, "original")
    assert original == {"out-a": b"id-7\n", "out-b": b"bob\n", "out-c": b"id-7EOF\n"}
    fixed = _remote_files(outcome.text, tmp_path, "fixed")
    assert fixed == {"out-a": b"id-7\n", "out-b": b"bob\n", "out-c": b"id-7"}


# -- writer.py: a hard-linked file whose new bytes cannot be written ------------------------


def test_a_failed_in_place_rewrite_puts_the_old_bytes_back(tmp_path: Path) -> None:
    """A file with two links is rewritten in place.  Under a file size limit (bash's
    `ulimit -f 2`: 2048 bytes) that its 1,816 bytes fit and the base64 fix's bytes do
    not, the write stops half-way (EFBIG; Python ignores SIGXFSZ): the tool says so (exit
    2), and the file, under both names, holds its old bytes again, from the backup, which
    is then removed."""
    body = "".join(f"line {i} of the config, some text to make it long\n" for i in range(36))
    old = f"#!/bin/bash\nssh h \"cat > /etc/app.conf <<'EOF'\n{body}EOF\necho done\"\n"
    script = tmp_path / "deploy.sh"
    script.write_text(old)
    os.link(script, tmp_path / "link.sh")
    assert len(old) == 1816
    limited = ["bash", "-c", 'ulimit -f 2 && exec "$@"', "bash", *CLI]
    proc = subprocess.run(
        [*limited, "--no-cache", "--fix", "--severity", "info", str(script)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr == f"heredoc-lint: {script}: cannot write: File too large; left as it was\n"
    assert script.read_text() == (tmp_path / "link.sh").read_text() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deploy.sh", "link.sh"]
    # Without the limit the same fix is written: the limit was the only obstacle.
    assert run_cli("--no-cache", "--fix", "--severity", "info", str(script)).returncode == 0
    assert "base64 -d" in (tmp_path / "link.sh").read_text()


# -- fixes/remote_heredoc.py: a heredoc across two ssh arguments -----------------------------

_SPLIT_ARGS = 'ssh h "cat > out <<\'EOF\'" "\nport=1\nEOF"\n'


def test_no_heredoc_fix_across_the_arguments_ssh_joins(tmp_path: Path) -> None:
    """`ssh h "cat > out <<'EOF'" "<newline>port=1<newline>EOF"`: ssh joins its arguments
    with a blank, so the remote shell reads one heredoc whose operator is in the first
    argument and whose body and terminator are in the second (bash shows it: run as ssh
    runs it, the joined command writes `port=1`).  Taking the heredoc out would have to
    edit both words at once: neither the base64 nor the stdin fix is offered, rather
    than a fix with that edit missing."""
    joined = _bash(f'ssh() {{ shift; printf %s "$*"; }}\n{_SPLIT_ARGS}', tmp_path).stdout
    assert joined == "cat > out <<'EOF' \nport=1\nEOF"
    assert _bash(joined, tmp_path).returncode == 0
    assert (tmp_path / "out").read_text() == "port=1\n"
    for strategy in ("base64", "stdin"):
        found = check_shell(_SPLIT_ARGS, "/tmp/push.sh", Settings(fix_strategy=strategy))
        assert [(f.code, f.fix) for f in found] == [("HL101", None)], strategy


# -- suppress.py: Markdown's own comment, file-wide or not ----------------------------------


def _runbook(comment: str) -> str:
    return f"{comment}\n\n# Restart\n\nThen:\n\n```bash\n{_BAD}\n```\n"


def test_an_html_comment_directive_keeps_its_scope() -> None:
    """`<!-- heredoc-lint: disable-file=HL103 -->` silences the HL103 of a fence further
    down; `disable=HL103` in the same place covers only its own line and the next (a
    blank one), so the HL103 stays, at the same place as with no comment at all."""
    bare = check_text(_runbook("Intro."), "markdown")
    assert [(f.code, f.severity) for f in bare] == [("HL103", "error")]
    whole = _runbook("<!-- heredoc-lint: disable-file=HL103 -->")
    assert check_text(whole, "markdown") == []
    line = _runbook("<!-- heredoc-lint: disable=HL103 -->")
    (kept,) = check_text(line, "markdown")
    assert (kept.code, line[kept.start : kept.end]) == ("HL103", "pkill")


# -- suppress.py: directives after characters wider than a byte -----------------------------


@pytest.mark.parametrize("wide", ["é", "😀", "é€😀"])
def test_directives_after_wide_characters(wide: str) -> None:
    """tree-sitter counts bytes: after characters of 2-4 bytes (on an earlier line, and
    on the directive's own line) a directive comment still silences its line's HL103,
    and the same text in a string after them still does not."""
    comment = f"echo '{wide}'\necho '{wide}'; {_BAD}  # heredoc-lint: disable=HL103 {wide}\n"
    assert check_shell(comment, "x.sh") == []
    string = f"echo '{wide}'\necho '{wide} # heredoc-lint: disable=HL103'; {_BAD}\n"
    assert [f.code for f in check_shell(string, "x.sh")] == ["HL103"]


def test_a_directive_on_the_next_step_does_not_cover_a_run_block() -> None:
    """A `run: |` block ends with its last line's newline; the next step's line, and the
    directive at its end, belong to that step only: the HL103 of the block above stays
    (a directive at the end of the block's own line silences it)."""
    steps = f"      - run: |\n          {_BAD}{{here}}\n      - run: echo hi{{next}}\n"
    head = "name: w\non: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
    directive = "  # heredoc-lint: disable=HL103"
    on_next = head + steps.format(here="", next=directive)
    (kept,) = check_text(on_next, "actions")
    assert (kept.code, on_next[kept.start : kept.end]) == ("HL103", "pkill")
    assert check_text(head + steps.format(here=directive, next=""), "actions") == []


# -- fixes/remote_heredoc.py: a CRLF file keeps CRLF on the operator's line ----------------

_CRLF = "#!/bin/bash\r\nssh h \"cat > out <<'EOF'\r\nport=1\r\nEOF\r\necho done\"\r\n"
# A stand-in ssh: the remote command run by bash here, its stdin passed on.
_LOCAL_SSH = 'ssh() { shift; bash -c "$*"; }\n'


@pytest.mark.parametrize(
    ("strategy", "fixed"),
    [
        (
            "base64",
            '#!/bin/bash\r\nssh h "printf %s cG9ydD0xDQo= | base64 -d > out #\r\necho done"\r\n',
        ),
        (
            "stdin",
            "#!/bin/bash\r\nssh h \"cat > out #\r\necho done\" <<'EOF'\r\nport=1\r\nEOF\r\n",
        ),
    ],
)
def test_heredoc_fix_in_a_crlf_file_keeps_crlf(tmp_path: Path, strategy: str, fixed: str) -> None:
    """In a CRLF file the delimiter word ends in the line's `\\r`; the operator is taken
    out with a ` #` left before that `\\r`, so every line of the fixed file still ends in
    CRLF (no bare LF), and, run through bash, it writes the same `out` as the original
    (the body's lines with their `\\r`) and prints the same."""
    outcome = fix_shell(_CRLF, "/tmp/push.sh", Settings(fix_strategy=strategy))
    assert outcome.error is None and outcome.text == fixed
    assert outcome.text.count("\n") == outcome.text.count("\r\n")
    runs = []
    for label, script in (("original", _CRLF), ("fixed", outcome.text)):
        where = tmp_path / label
        where.mkdir()
        done = _bash(_LOCAL_SSH + script, where)
        runs.append((done.stdout, (where / "out").read_bytes()))
    # (`done` and the `\r` the last line's word ends in: text mode reads `\r\n` as `\n`.)
    assert runs[0] == runs[1] == ("done\n", b"port=1\r\n")


# -- edits.py: an escaped quote in an unquoted word ------------------------------------------


def test_bracket_fix_after_an_escaped_quote_in_an_unquoted_word(tmp_path: Path) -> None:
    """`ssh h pkill -f \\'sglang\\'\\; ./restart`: the parent word is unquoted, `\\'` is an
    escaped quote, not an opening one, so the `[s]` the fix writes there is quoted for an
    unquoted word (`'[s]'`).  Bash shows why: in a directory holding a file named
    `'sglang';`, a bare `[s]` makes the word a glob that turns back into `'sglang';`, the
    self-matching pattern; the fixed line still sends `'[s]glang'`."""
    text = "ssh h pkill -f \\'sglang\\'\\; ./restart\n"
    outcome = fix_shell(text, "t.sh", Settings(), unsafe=True)
    assert outcome.text == "ssh h pkill -f \\''[s]'glang\\'\\; ./restart\n"
    (tmp_path / "'sglang';").write_text("")
    show = "ssh() { shift; printf '%s\\n' \"$*\"; }\n"
    assert _bash(show + text, tmp_path).stdout == "pkill -f 'sglang'; ./restart\n"
    assert _bash(show + outcome.text, tmp_path).stdout == "pkill -f '[s]glang'; ./restart\n"
    bare = outcome.text.replace("'[s]'", "[s]")
    assert _bash(show + bare, tmp_path).stdout == "pkill -f 'sglang'; ./restart\n"
