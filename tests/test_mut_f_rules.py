"""Pinned behaviours of the rules (rules/__init__, base, doc, docstring, HL001, HL002,
HL101-HL112), through `engine.check_shell`/`check_text` and the functions that render
docs/rules.md.

Each test kills a mutant that survived `bench/mutation.py` (issue 20, run 6, seed 40,
bench/mutation_runs/run6-h20g.md); each was planted by hand in a scratch copy of the tree,
the test failed there, and passes without it.  Bash is the oracle of every shell claim.
No sshd here: this file runs for every rule's mutants, so a remote command is run by a
local bash, as sshd's would run it.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import uuid
from pathlib import Path

import pytest

from heredoc_lint.engine import Settings, check_shell, check_text
from heredoc_lint.model import Applicability, Edit, Finding, Severity
from heredoc_lint.rules import RULES
from heredoc_lint.rules.doc import demote, table


def _findings(text: str, code: str) -> list[Finding]:
    return check_shell(text, "t.sh", Settings(select=frozenset({code})))


def _bash(script: str, stdin: str | None, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`bash -c SCRIPT` as sshd runs a remote command: with `stdin` piped, or /dev/null."""
    if stdin is None:
        return subprocess.run(
            ["bash", "-c", script],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
            cwd=cwd,
        )
    return subprocess.run(
        ["bash", "-c", script],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
        cwd=cwd,
    )


# -- HL105: the fix's safety follows what the remote command reads -----------------------------


@pytest.mark.parametrize(
    ("remote", "reads"),
    [
        # `-f FILE` gives jq its program: the operand after it is the input, stdin unread.
        ("jq -c -f prog.jq data.json", False),
        ("jq -c -f prog.jq", True),
        # the same for awk: `-f FILE` is the program, the next operand the input.
        ("awk -f prog.awk data.json", False),
        ("awk -f prog.awk", True),
        # `node -e CODE` / `node -p CODE`: the code may read stdin (this one does).
        ("node -e 'process.stdin.pipe(process.stdout)'", True),
        ('node -p \'require("fs").readFileSync(0, "utf8")\'', True),
    ],
)
def test_hl105_fix_safety_for_program_and_code_options(
    remote: str, reads: bool, tmp_path: Path
) -> None:
    """`ssh -n` is an unsafe fix exactly when the remote command reads stdin: bash runs
    the command with a line piped in and with /dev/null, and the two differ only then
    (hl105 `_PROGRAM_OPTIONS` awk's and jq's `f` and `_CODE_OPTIONS` node `ep`, each
    cut)."""
    (tmp_path / "prog.jq").write_text(".\n")
    (tmp_path / "data.json").write_text('{"a":1}\n')
    (tmp_path / "prog.awk").write_text("{ print }\n")
    piped = _bash(remote, '{"b":2}\n', tmp_path)
    nulled = _bash(remote, None, tmp_path)
    assert piped.returncode == 0, piped.stderr
    assert (piped.stdout != nulled.stdout) == reads, (piped.stdout, nulled.stdout)
    text = f"while read h; do ssh h {remote}; done < hosts\n"
    (found,) = _findings(text, "HL105")
    assert (found.start, found.end) == (17, 20)
    assert found.fix is not None
    assert found.fix.edits == (Edit(20, 20, " -n"),)
    expected = Applicability.UNSAFE if reads else Applicability.SAFE
    assert found.fix.applicability is expected


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
    (found,) = _findings(text, "HL110")
    assert found.fix is not None
    (edit,) = found.fix.edits
    assert (edit.start, edit.end) == (6, len(text) - 1)
    assert edit.content == f"'cd /srv/app && {moved}'"
    assert found.fix.message == f"Run `{shown}` in the remote shell too: {edit.content}"
    words = _bash(f"printf '<%s>\\n' {edit.content}", None, tmp_path).stdout
    assert words == f"<cd /srv/app && {moved}>\n"


# -- HL102: a remote-natured variable is this machine's value -----------------------------------


@pytest.mark.parametrize("name", ["HOME", "PWD", "OLDPWD", "USER", "LOGNAME", "HOSTNAME", "SHLVL"])
def test_hl102_a_login_variable_is_this_machines_value(name: str, tmp_path: Path) -> None:
    """`$HOME` in a double-quoted ssh string is the local value (bash expands it before
    ssh runs): HL102 says so, at info, with the escape that passes it on (hl102
    `REMOTE_NAMES` 'HOME' -> 'OME')."""
    sent = _bash(f'{name}=/local-value; printf %s "echo ${name}"', None, tmp_path).stdout
    assert sent == "echo /local-value"
    text = f'ssh "$h" "echo ${name}"\n'
    (found,) = _findings(text, "HL102")
    assert (found.start, found.end) == (15, 16 + len(name))
    assert found.severity.value == "info"
    assert found.message.startswith(f"`${name}` is this machine's value, expanded by ")
    assert f"write `\\${name}` if the inner shell should expand it" in found.message


# -- HL112: a chain of swallowed heredocs is followed 16 levels deep -----------------------------


def _indented_terminators(count: int, mended: int) -> str:
    """`count` heredocs whose terminators are indented (so each swallows the next), the
    first `mended` of them with the terminator written right."""
    return "".join(
        f"cat <<E{k}\nbody {k}\n{'' if k <= mended else ' '}E{k}\n" for k in range(1, count + 1)
    )


def test_hl112_follows_swallowed_heredocs_sixteen_deep(tmp_path: Path) -> None:
    """Each indented terminator breaks the script again once those before it are mended
    (bash warns at the first broken one); HL112 reports the first 16 of a chain of 17 and
    stops there (hl112 `_NESTING` 16 -> 17)."""
    for mended in (0, 15):
        ran = _bash(_indented_terminators(17, mended), None, tmp_path)
        line = 3 * mended + 1
        assert f"warning: here-document at line {line} delimited by end-of-file" in ran.stderr
    text = _indented_terminators(17, 0)
    found = _findings(text, "HL112")
    assert [text[f.start : f.end] for f in found] == ["<<"] * 16
    assert [text[f.start :].split("\n", 1)[0] for f in found] == [f"<<E{k}" for k in range(1, 17)]
    assert "never terminated either (it is inside the text that `<<E15` of line 43" in (
        found[-1].message
    )


# -- HL111: eval adds no shell process, on either side of the chain -----------------------------


@pytest.mark.parametrize(
    "text",
    [
        'bash -c "eval \\"echo \\\\\\$HOME\\""\n',  # the innermost layer is eval's
        'eval "bash -c \\"echo \\\\\\$HOME\\""\n',  # the middle layer is eval's
    ],
)
def test_hl111_an_eval_in_the_chain_escapes_for_no_process(text: str, tmp_path: Path) -> None:
    """eval runs its text in the shell that called it (bash: the same `$BASHPID`), so the
    escapes written for it add no process: info, not the warning about escapes for each
    shell (hl111 `_same_shell`, each `'eval'` cut)."""
    pids = _bash('echo $BASHPID; eval "echo \\$BASHPID"', None, tmp_path).stdout.split()
    assert len(pids) == 2 and pids[0] == pids[1]
    (found,) = _findings(text, "HL111")
    assert (found.start, found.end) == (0, 4)
    assert found.severity.value == "info"
    assert "its innermost string arrives as written" in found.message


# -- docs/rules.md: what the generator does with text the present docstrings lack ---------------


def test_rules_table_escapes_a_bar_in_a_summary() -> None:
    """A `|` in a summary would end its table cell: the row keeps five cells, the bar
    escaped (doc `_cell`'s `\\|` -> `|`)."""
    rule = RULES[0]
    piped = dataclasses.replace(rule, docs=dataclasses.replace(rule.docs, summary="`a | b` read"))
    header, rule_line, row = table((piped,)).splitlines()
    assert header.count("|") == rule_line.count("|") == 6
    assert re.split(r"(?<!\\)\|", row)[1:-1] == [
        f" [{rule.code}](#{rule.code.lower()}-{rule.name}) ",
        f" {rule.name} ",
        f" {rule.severity.value} ",
        f" {'yes' if rule.fixable else 'no'} ",
        " `a \\| b` read ",
    ]


def test_rule_doc_headings_move_down_outside_fences_only() -> None:
    """Headings go one level down, but not a `#` line inside a ```bash block; a line that
    opens with a double-backtick code span is no fence (doc `demote`'s "```" -> "``")."""
    doc = (
        "## Example\n"
        "``a`b`` opens this line\n"
        "## Use instead\n"
        "```bash\n"
        "# a comment, not a heading\n"
        "```\n"
    )
    assert demote(doc) == (
        "### Example\n"
        "``a`b`` opens this line\n"
        "### Use instead\n"
        "```bash\n"
        "# a comment, not a heading\n"
        "```\n"
    )


# -- HL001: a runbook's interactive session is typed into the program, not run by bash --------

_QUERY = "select count(*) from (select 7 as id) where (id > 5);"
_RUNBOOK = (
    "Count the rows:\n\n```bash\nssh db1 'mkdir -p /srv/db' && cd /srv/db\n"
    f"sudo -u app sqlite3 app.db\n{_QUERY}\n```\n"
)


def test_hl001_the_lines_after_sqlite3_in_a_runbook_are_its_input(tmp_path: Path) -> None:
    """bash refuses the query line, sqlite3 reads it (prints 1): in a Markdown runbook the
    line after `sqlite3 app.db` is the program's input, info, not a script that stops
    with a syntax error (hl001 `check`: the markdown session test negated)."""
    refused = subprocess.run(
        ["bash", "-n", "-c", _QUERY], capture_output=True, text=True, check=False, timeout=30
    )
    assert refused.returncode == 2 and "syntax error" in refused.stderr
    typed = subprocess.run(
        ["sqlite3", ":memory:"],
        input=_QUERY + "\n",
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    assert typed.stdout == "1\n", typed.stderr
    (found,) = [f for f in check_text(_RUNBOOK, "markdown", "db.md", Settings())]
    assert found.code == "HL001"
    assert found.severity is Severity.INFO
    assert found.start == _RUNBOOK.index(_QUERY) and found.end == found.start + 1
    assert found.message == (
        "This script looks like a session of `sqlite3` (the lines after it are typed into "
        "it), not a script to run: it does not parse near `s` and was not checked"
    )


def test_hl001_a_string_built_from_values_is_not_judged_as_written(tmp_path: Path) -> None:
    """`bash -c "$CMD )"` fails as written (CMD empty) and runs with CMD='echo $(': the
    region after a local expansion is info, named as built from run-time values (hl001
    `check`: `if dynamic` negated; its `severity = Severity.INFO` removed)."""
    script = 'bash -c "$CMD )"'
    as_written = _bash(f"CMD=''; {script}", None, tmp_path)
    assert as_written.returncode == 2 and "syntax error" in as_written.stderr
    filled = _bash(f"CMD='echo $('; {script}", None, tmp_path)
    assert filled.returncode == 0, filled.stderr
    text = script + "\n"
    (found,) = _findings(text, "HL001")
    assert (found.start, found.end) == (14, 15)  # the `)`
    assert found.severity is Severity.INFO
    assert found.message == (
        "The bash -c command string is built from values known only at run time and does "
        "not parse as written near `)`; that region was not checked"
    )


def test_hl111_an_escape_before_the_innermost_strings_first_character_counts(
    tmp_path: Path,
) -> None:
    """`ssh h "bash -c '\\$HOME'"`: the local shell hands ssh `bash -c '$HOME'` (bash
    shows it), so the innermost string `$HOME` is written `\\$HOME` for a shell outside
    it: escapes for an outer shell (info), as for an escape further in (a bug found by hl111
    `_outer_shells_change`'s `a:b` -> `a + 1:b`: the escape before the first character
    was left out of the source looked at, and the string was said to arrive as written)."""
    for text, sent in [
        ("ssh h \"bash -c '\\$HOME'\"\n", "bash -c '$HOME'"),
        ("ssh h \"bash -c 'echo \\$HOME'\"\n", "bash -c 'echo $HOME'"),
    ]:
        words = _bash(f"printf '%s\\n' {text}", None, tmp_path).stdout
        assert words == f"ssh\nh\n{sent}\n"
        (found,) = _findings(text, "HL111")
        assert (found.start, found.end) == (0, 3)
        assert found.evidence == "three-shells-escaped"
        assert found.message.startswith(
            "This command is parsed by three shells (local -> ssh -> bash -c): the innermost "
            "string is written with escapes for the shells outside it; "
        )


# -- HL106: past three words found wrong, the others are read alone, expansions and all --------


def test_hl106_words_after_the_third_wrong_one_are_still_judged(tmp_path: Path) -> None:
    """Five words with a `;` and a local `"$x"` among them: bash, as the remote shell, runs
    the joined string as separate commands, and the fix's string (x=k) as one echo.  Past
    three wrong words each word is read alone, a word with an expansion too, and the fifth
    `;` is still counted (hl106 `_alone`: its `expansions = ...` removed)."""
    words = "echo 'a;b' 'c;d' 'e;f' 'g;h' \"$x\" 'i;j'"
    text = f"ssh h {words}\n"
    joined = _bash(f'x=k; set -- {words}; bash -c "$*"', None, tmp_path)
    assert joined.stdout == "a\n"
    (found,) = _findings(text, "HL106")
    assert (found.start, found.end) == (0, 3)
    assert found.message.startswith("ssh joins the 7 words of the remote command with spaces")
    assert "the `;` in `a;b` becomes an operator" in found.message
    assert "(and 4 more such word(s))" in found.message
    assert found.fix is not None
    (edit,) = found.fix.edits
    assert (edit.start, edit.end) == (6, len(text) - 1)
    assert edit.content == "\"echo 'a;b' 'c;d' 'e;f' 'g;h' $x 'i;j'\""
    fixed = _bash(f"x=k; bash -c {edit.content}", None, tmp_path)
    assert fixed.stdout == "a;b c;d e;f g;h k i;j\n"


# -- HL104: a transient unit of the service manager is not the session's child -----------------


@pytest.mark.parametrize(
    ("wrapper", "held"),
    [
        ("bash -c", True),
        ("systemd-run --unit=srv bash -c", False),
        ("sudo systemd-run bash -c", False),
    ],
)
def test_hl104_a_systemd_run_unit_does_not_hold_the_session(wrapper: str, held: bool) -> None:
    """`bash -c` in the remote string is the session's child: its background job keeps
    the session's stdout, and ssh waits.  systemd-run hands the command to the service
    manager as a transient unit (systemd-run(1): it runs outside the caller's session, its
    output to the journal unless `--pipe`/`--pty`), so the job holds nothing of the session
    (hl104 `_passes_through`: the systemd-run `return False` removed).  No systemd runs
    here to show it; the manual is the evidence."""
    text = f"ssh h \"{wrapper} 'nohup ./srv &'\"\n"
    found = _findings(text, "HL104")
    if not held:
        assert found == []
        return
    (finding,) = found
    assert text[finding.start : finding.end] == "nohup"
    assert finding.severity is Severity.WARNING
    assert "still has the ssh session as its stdout and stderr" in finding.message


@pytest.mark.parametrize(
    "text",
    [
        "ssh h \"bash <<'EOF'\necho hi\nEOF\"\n",
        "ssh h \"bash <<'EOF'\necho \\\\$HOME\nEOF\"\n",
    ],
)
def test_hl111_a_heredoc_inside_a_remote_string_is_hl101s(text: str) -> None:
    """HL111 judges command strings; a script fed to bash by a heredoc inside the ssh
    string is HL101's (a finding at its `<<`), not a third shell's string for HL111
    (hl111 `check`: `if layer.kind != 'string': return` removed)."""
    found = check_shell(text, "t.sh", Settings(select=frozenset({"HL101", "HL111"})))
    assert [f.code for f in found] == ["HL101"]
    assert text[found[0].start : found[0].end] == "<<"


# -- HL103: a heredoc script's pkill matches the shell that feeds it ------------------------------


def test_hl103_the_shell_that_feeds_a_heredoc_script_is_killed(tmp_path: Path) -> None:
    """`bash -c 'bash <<EOF ... pkill -f NAME ... EOF'`: the outer shell holds the heredoc
    on its command line and waits for the inner bash; bash shows pkill killing it (SIGTERM,
    nothing after the heredoc runs).  HL103 reports it, naming that feeding shell (hl103
    `feeder_cmdline`: `cmdline is None` -> `is not None`)."""
    name = f"srv-{uuid.uuid4().hex}"
    script = f"bash <<EOF\npkill -f {name}\necho inner-after\nEOF\necho outer-after\n"
    ran = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
        cwd=tmp_path,
    )
    assert ran.returncode == -15, (ran.returncode, ran.stdout, ran.stderr)
    assert "outer-after" not in ran.stdout
    text = f"bash -c '{script}'\n"
    (found,) = _findings(text, "HL103")
    assert text[found.start : found.end] == "pkill"
    assert found.severity is Severity.ERROR
    assert found.message.startswith(
        f"`pkill -f {name}` matches the command line of the shell that feeds it this script "
        "(`bash -c bash <<EOF"
    )
    assert "kills that shell: its commands after this script never run" in found.message


# -- HL105: a `read` in the body that takes its lines from elsewhere ----------------------------


@pytest.mark.parametrize(
    "reader",
    [
        '{ read -r cmd; echo "$cmd" >> seen; } < ctl',
        '(read -r cmd; echo "$cmd" >> seen) < ctl',
    ],
)
def test_hl105_a_body_read_redirected_elsewhere_loses_nothing_to_ssh(
    reader: str, tmp_path: Path
) -> None:
    """The loop's only `read` stands in its body and reads `ctl` (its group's or subshell's
    redirection), not the loop's input: bash gives it the same lines whether the command in
    ssh's place swallows the loop's input (`cat > /dev/null`) or not (`true`), so HL105 says
    nothing (hl105 `in_body`: its first `return True` -> `False`, which took the body's
    read for the loop's condition)."""
    (tmp_path / "ctl").write_text("x\ny\n")
    loop = (
        "rm -f seen; i=0; while [ $i -lt 2 ]; do {reader}; {ssh}; i=$((i+1)); "
        "done < <(seq 5); cat seen"
    )
    for ssh in ("cat > /dev/null", "true"):
        ran = _bash(loop.format(reader=reader, ssh=ssh), None, tmp_path)
        assert (ran.returncode, ran.stdout) == (0, "x\nx\n"), ran.stderr
    text = f'while sleep 5; do {reader}; ssh h "$cmd"; done\n'
    assert _findings(text, "HL105") == []
