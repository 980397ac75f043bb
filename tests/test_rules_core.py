"""HL001, HL101, HL102, HL103: positives, negatives and severity tiers (HL001 for strings,
files, templates and transcripts: WILD pattern 9)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_process import run_cli
from rulekit import BASH, bash_as_sshd, bash_with_path, findings, findings_selected, occurrence_span

from heredoc_lint.engine import Settings, check_shell, check_text, fix_shell
from heredoc_lint.model import Severity
from heredoc_lint.shell.bash import bash_accepts


def found(
    text: str,
    *,
    command: bool = False,
    min_severity: Severity = Severity.WARNING,
    path: str | None = None,
) -> list[tuple[str, str, str]]:
    """(code, severity, the anchored source text) at or above min_severity."""
    return [
        (f.code, f.severity.value, text[f.start : f.end])
        for f in check_shell(text, path, command=command)
        if f.severity.rank >= min_severity.rank
    ]


@pytest.mark.parametrize(
    "text",
    [
        "ssh h 'cat > f' < local",
        "ssh h bash -s <<'EOF'\necho $HOME $(hostname)\nEOF\n",
        'ssh h "echo \\$HOME"',
        "pkill -f '[s]glang'",
        "ssh h 'pkill -f \"[s]glang\"; sleep 1'",
        "cat > /etc/motd <<'EOF'\n$1 `x`\nEOF\n",
        "scp -P 22 a h:b",
        "ssh h 'pkill -f sglang'",
        "ssh h pkill -f sglang",
        "ssh h 'pkill -fx sglang; echo'",
        "ssh h 'pkill sglang; echo'",
        'ssh "$host" "$@"',
        'bash -c "echo $1"',
    ],
)
def test_spec_negatives(text: str) -> None:
    assert found(text, command=True) == []


def test_heredoc_in_single_quoted_ssh_string() -> None:
    text = "ssh h 'cat > f << \"EOF\"\nit'\\''s\nEOF\n'"  # a '\\'' chain in the body
    assert found(text) == [("HL111", "warning", "ssh"), ("HL101", "warning", "<<")]
    as_written = "ssh h 'cat > f << \"EOF\"\nx\nEOF\n'"
    assert found(as_written) == []  # info: it arrives as written


def test_heredoc_strip_tabs_anchor_covers_operator() -> None:
    text = 'ssh h "cat > f <<- EOF\n\t\\$x\n\tEOF\n"'
    assert found(text) == [("HL101", "warning", "<<-")]


@pytest.mark.parametrize(
    ("text", "severity"),
    [
        ("ssh h \"cat > f <<'E'\n$x\nE\n\"", "error"),  # quoted-delimiter heredoc
        ('ssh h "x=1; echo $x"', "error"),  # assigned in the inner string
        ('ssh h "for f in *.log; do gzip $f; done"', "error"),  # bound by the inner `for`
        ('ssh h "echo $1"', "info"),  # a script can always be given arguments
        ('f() { ssh h "echo $1"; }', "info"),  # the function's argument
        ('ssh h "echo $HOME"', "info"),
        ('ssh h "echo $(hostname)"', "info"),  # machine-probe: info since its first look
        ('ssh h "kill $$"', "info"),  # special-parameter: info since its first look
        ('ssh h "wait $!; echo $?"', "info"),
        ('ssh h "deploy $version"', "info"),
        ('ssh h "$cmd"', "info"),  # the whole command is the local value: meant
        ('bash -c "echo $HOME"', "info"),  # same host: the local value is the same
    ],
)
def test_hl102_tiers(text: str, severity: str) -> None:
    hl102 = [f for f in found(text, min_severity=Severity.INFO) if f[0] == "HL102"]
    assert {f[1] for f in hl102} == {severity}
    finding = hl102[0]
    assert finding[2].startswith(("$", "`"))


def test_hl102_machine_probe_is_info_but_still_found() -> None:
    """`$(hostname)` in an ssh string is still found as `machine-probe` evidence, now at
    info by default (heredoc_lint/severities.py: 0 TP / 6 FP on a first look)."""
    text = 'ssh h "echo $(hostname)"'
    (f,) = [f for f in check_shell(text, None) if f.code == "HL102"]
    assert (f.evidence, f.severity, text[f.start : f.end]) == (
        "machine-probe",
        Severity.INFO,
        "$(hostname)",
    )
    assert not [x for x in found(text) if x[0] == "HL102"]  # not shown at default severity


def test_hl102_backslash_newline_only_inside_quoted_heredoc() -> None:
    inside = "ssh h \"cat > f <<'EOF'\na \\\nb\nEOF\n\""
    outside = 'ssh h "echo a \\\nb"'
    assert found(inside) == [("HL101", "warning", "<<"), ("HL102", "error", "\\")]
    assert found(outside, min_severity=Severity.INFO) == []


def test_hl102_nested_reports_the_outermost_expansion_once() -> None:
    text = """ssh a "ssh b 'echo $x'" """
    hl102 = [f for f in found(text, min_severity=Severity.INFO) if f[0] == "HL102"]
    assert hl102 == [("HL102", "info", "$x")]


@pytest.mark.parametrize(
    ("text", "severity"),
    [
        ("ssh h 'pkill -f sglang; sleep 2'", "error"),
        ("ssh h 'pkill -9 -f sglang || true'", "error"),
        ("ssh h 'pkill -9f sglang && echo'", "error"),
        ("ssh h 'pgrep -af sglang; echo'", "error"),
        ("ssh h 'pkill --full sglang; echo'", "error"),
        ("ssh h 'sudo pkill -f sglang; echo'", "error"),
        ("ssh h 'pkill -f sglang 2>/dev/null'", "warning"),  # bash keeps its shell
        ("sh -c 'pkill -f sglang'", "warning"),  # dash keeps its shell even bare
        ("ssh h 'pkill -u app -f \"python.*serve\"; echo'", "error"),  # ERE
    ],
)
def test_hl103_positive(text: str, severity: str) -> None:
    assert found(text) == [("HL103", severity, "pgrep" if "pgrep" in text else "pkill")]


def test_hl103_script_name_matches_pattern() -> None:
    text = "#!/bin/bash\npkill -f deploy_app\nsleep 1\n"
    assert found(text, path="scripts/deploy_app.sh") == [("HL103", "error", "pkill")]
    assert found(text, path="scripts/other.sh") == []


def test_hl103_agent_command_is_on_its_own_command_line() -> None:
    assert found("pkill -f sglang; sleep 1", command=True) == [("HL103", "error", "pkill")]


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ('ssh h "pkill -f sglang; sleep 1"', "ssh h \"pkill -f '[s]'glang; sleep 1\""),
        ("ssh h 'pkill -f sglang; sleep 1'", "ssh h 'pkill -f \\[s]glang; sleep 1'"),
        ("ssh h 'pkill -f \"rq worker\"; sleep 1'", "ssh h 'pkill -f \"[r]q worker\"; sleep 1'"),
    ],
)
def test_hl103_bracket_fix(text: str, fixed: str) -> None:
    outcome = fix_shell(text, command=True)
    assert outcome.text == fixed
    assert [f.code for f in outcome.remaining] == []


def test_hl103_split_fix_when_the_word_appears_elsewhere() -> None:
    text = 'ssh -p 2 h "pkill -f app 2>/dev/null; ./app --serve"\n'
    assert fix_shell(text).text == text  # unsafe: not applied by --fix
    outcome = fix_shell(text, unsafe=True)
    assert outcome.text == (
        "ssh -p 2 h 'pkill -f \\[a]pp 2>/dev/null'; ssh -p 2 h \"./app --serve\"\n"
    )
    assert [f.code for f in check_shell(outcome.text)] == []


def test_hl001_real_syntax_error_in_remote_string() -> None:
    # Its severity is the table's (heredoc_lint/severities.py): measured down to info.
    found = [(f.code, f.evidence) for f in check_shell("ssh h 'if true; then echo'")]
    assert found == [("HL001", "shell-string-refused")]


def test_hl001_a_dollar_that_a_value_makes_a_name_of_is_built_at_run_time() -> None:
    """`eval echo "\\$$(echo $name)"` runs `echo $HOST`: what eval is handed parses, though
    the text as written (`echo $$(echo $name)`) does not (bench/corpus: zenny/serverconf)."""
    script = 'name=HOST; HOST=web-1; eval echo "\\$$(echo $name)"\n'
    ran = bash_with_path(script)
    assert (ran.returncode, ran.stdout) == (0, "web-1\n"), ran.stderr
    found = [(f.code, f.evidence) for f in check_shell(script) if f.code == "HL001"]
    assert found == [("HL001", "runtime-built")]
    # An error before it is refused whatever the values: still the string's error.
    broken = 'name=HOST; eval "echo ) \\$$(echo $name)"\n'
    assert bash_with_path(broken).returncode != 0
    found = [(f.code, f.evidence) for f in check_shell(broken) if f.code == "HL001"]
    assert found == [("HL001", "shell-string-refused")]


def test_hl001_tree_sitter_gap_that_bash_accepts_is_info() -> None:
    text = 'shopt -s extglob\nls !(*.txt)\nfor i do ssh "$i" uptime; done\n'
    codes = [(f.code, f.severity) for f in check_shell(text)]
    assert codes == [("HL001", Severity.INFO)]


def test_hl001_a_file_is_reported_once_as_a_syntax_error_when_it_holds_a_wrapper() -> None:
    """A script refused by the shell (evidence `script-refused`): info by default since
    heredoc_lint/severities.py measured it."""
    text = "ssh h uptime\nif then fi (\necho ) )\n"
    found = [(f.code, f.severity, f.evidence) for f in check_shell(text)]
    assert found == [("HL001", Severity.INFO, "script-refused")]


def test_hl001_a_file_with_nothing_to_check_is_info() -> None:
    """Parsed only when the prefilter is off: then nothing in it is this tool's business."""
    text = "echo start\nif then fi (\n"
    (f,) = check_shell(text, settings=Settings(prefilter=False))
    assert (f.code, f.severity) == ("HL001", Severity.INFO)
    assert check_shell(text) == []  # by default it is not even parsed


def test_hl001_python_shell_string_is_an_error() -> None:
    text = 'import subprocess\nsubprocess.run("ssh h uptime; if then", shell=True)\n'
    (f,) = [f for f in check_text(text, "python", "t.py") if f.code == "HL001"]
    assert f.evidence == "shell-string-refused" and f.start == text.index("ssh h")
    assert f.message.startswith("This shell command string does not parse")


# WILD pattern 9: templates and console transcripts are "not checked", not syntax errors.
NOT_SCRIPTS = [
    ('ssh root@<<<HOST>>> "systemctl restart app"\n', "the field `<<<HOST>>>`"),
    ('ssh <user>@<host> "systemctl restart <service>" &&\n', "the field `<user>`"),
    ('ssh {{ host }} "systemctl restart {{ svc }}" |\n', "the field `{{ host }}`"),
    ("ssh %HOST% uptime &&\n", "the field `%HOST%`"),
    ("bash scripts/install.sh <cu128|cu129|...>\n", "the field `<cu128|cu129|...>`"),
]


@pytest.mark.parametrize(("text", "part"), NOT_SCRIPTS)
def test_hl001_templates_are_not_checked_info(text: str, part: str) -> None:
    assert bash_accepts(text) is False  # bash itself would refuse them
    (f,) = [f for f in check_shell(text, settings=Settings(prefilter=False)) if f.code == "HL001"]
    assert f.severity is Severity.INFO
    assert "looks like a template" in f.message and part in f.message
    assert "not checked" in f.message


def test_hl001_console_transcript_in_a_sh_fence_is_read_as_a_transcript() -> None:
    """A transcript in an `sh` fence: the Markdown frontend strips the prompts and skips the
    output lines, so nothing is a syntax error and the commands themselves are checked."""
    text = (
        "Restart it:\n\n```sh\n[root@web01 ~]# ssh db 'pkill -f app; ./app'\n"
        " 10:00:01 up 3 days,  load average: 0.10, 0.20\n"
        "[root@web01 ~]# systemctl status nginx | head -3\n"
        "* nginx.service - web server (running)\n```\n"
    )
    found = check_text(text, "markdown", "r.md")
    assert [f.code for f in found if f.code == "HL001"] == []
    (hl103,) = [f for f in found if f.code == "HL103"]
    assert hl103.start == text.index("pkill")


def test_hl001_real_errors_beside_a_heredoc_of_html_stay_errors() -> None:
    """Placeholders are looked for outside heredoc bodies: `<b>` in data is no template."""
    text = "ssh h \"cat > i.html <<'E'\n<b>hi</b>\nE\nif true; then echo\""
    found = [(f.code, f.evidence) for f in check_shell(text) if f.code == "HL001"]
    assert found == [("HL001", "shell-string-refused")]


def test_select_prefix() -> None:
    text = "ssh h 'pkill -f sglang; cat > f <<E\nx\nE\n'"
    assert {f.code for f in check_shell(text, settings=Settings(select=frozenset({"HL10"})))} == {
        "HL101",
        "HL103",
    }


def test_hl001_a_trigger_word_in_prose_is_not_a_command() -> None:
    """Program output in a `shell` fence that says `data parallel size`: `parallel` is a
    wrapper's name, but not where a command stands, so the block is not something this
    tool checks (`script-without-checked`); the same name at a command's place makes it a
    script this tool checks (`script-refused`). Both are info by default."""
    prose = "```shell\nNotations:\ndata parallel size (dp_size), model parallel size,\n```\n"
    (f,) = [f for f in check_text(prose, "markdown", "r.md") if f.code == "HL001"]
    assert f.severity is Severity.INFO and f.evidence == "script-without-checked"
    command = "```shell\nparallel ssh {} uptime ::: a b\necho $((\n```\n"
    (g,) = [f for f in check_text(command, "markdown", "r.md") if f.code == "HL001"]
    assert g.severity is Severity.INFO and g.evidence == "script-refused"


# -- HL001: the layer that does not parse, transcripts and template fields -----------------


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("ssh h bash <<'EOF'\necho (\nEOF\n", "The script fed to ssh"),
        ("echo 'echo (' | bash\n", "The script fed to bash"),
        ("ssh h 'echo ('\n", "The ssh command string"),
        ("bash -c 'echo ('\n", "The bash -c command string"),
    ],
)
def test_hl001_names_the_layer_that_does_not_parse(text: str, place: str) -> None:
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL001"]
    assert found.message.startswith(f"{place} does not parse near `(`: ")
    assert "the shell that runs it refuses it with a syntax error" in found.message
    assert found.evidence == "shell-string-refused"
    assert text[found.start : found.end] == "("


def test_hl001_at_the_end_of_the_text_points_at_its_last_character() -> None:
    text = "ssh h 'echo a |'\n"
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL001"]
    assert "does not parse near `end of text`" in found.message
    assert (found.start, found.end) == (14, 15)  # the `|`


def test_hl001_a_console_transcript_is_not_a_script() -> None:
    text = "root@web1:~# ssh h 'echo ('\n"
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL001"]
    assert found.severity is Severity.INFO
    assert "looks like a console transcript (the prompt `root@web1:~#`)" in found.message


@pytest.mark.parametrize("quote", ["'EOF'", "EOF"])
def test_hl001_a_template_field_in_a_heredoc_body_is_data(quote: str) -> None:
    """`{{ name }}` in a heredoc body is the body's text, not a template of the script:
    the string that does not parse is still refused by its shell; outside a body it is a
    template."""
    text = f'ssh h "cat > f <<{quote}\n{{{{ name }}}}\nEOF\necho ("\n'
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL001"]
    assert found.evidence == "shell-string-refused"
    assert text[found.start : found.end] == "("
    outside = "ssh h 'echo {{ name }} ('\n"
    (found,) = [f for f in check_shell(outside, "t.sh") if f.code == "HL001"]
    assert found.severity is Severity.INFO
    assert "looks like a template (the field `{{ name }}`)" in found.message


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
    as_written = bash_as_sshd(f"CMD=''; {script}", None, tmp_path)
    assert as_written.returncode == 2 and "syntax error" in as_written.stderr
    filled = bash_as_sshd(f"CMD='echo $('; {script}", None, tmp_path)
    assert filled.returncode == 0, filled.stderr
    text = script + "\n"
    (found,) = findings_selected(text, "HL001")
    assert (found.start, found.end) == (14, 15)  # the `)`
    assert found.severity is Severity.INFO
    assert found.message == (
        "The bash -c command string is built from values known only at run time and does "
        "not parse as written near `)`; that region was not checked"
    )


# -- shell/bash.py: asking bash whether it parses what tree-sitter cannot ------------------


def test_bash_own_error_text_stays_out_of_the_cli_output(tmp_path: Path) -> None:
    """A script neither tree-sitter nor bash parses: HL001 asks `bash -n` whether bash
    can, and bash's own complaint must not reach the user's terminal: the finding is the
    one line of output about it, stderr stays empty (bash.py's `capture_output`).  A
    script that does not parse is `script-refused`, info by default since its first look
    on real code: `--severity info` shows it."""
    text = 'ssh h "echo $(( 1 + "\n'
    script = tmp_path / "bad.sh"
    script.write_text(text)
    said = subprocess.run(
        ["bash", "-n", str(script)], capture_output=True, text=True, check=False, timeout=30
    )
    assert said.returncode != 0 and "unexpected EOF" in said.stderr  # bash refuses it
    done = run_cli("check", "--no-cache", "--severity", "info", "bad.sh", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == ""
    (line,) = [x for x in done.stdout.splitlines() if "HL001" in x]
    assert line.startswith("bad.sh:1:7: HL001 [info] ")
    assert "unexpected EOF" not in done.stdout
    args = ("check", "--no-cache", "--severity", "info", "--format", "json", "bad.sh")
    done = run_cli(*args, cwd=tmp_path)
    assert done.stderr == ""
    (found,) = json.loads(done.stdout)
    assert (found["code"], found["line"], found["column"], found["evidence"]) == (
        "HL001",
        1,
        7,
        "script-refused",
    )


# -- how messages name a layer: the string of a Python call is not "this script" -------------


_EXTGLOB = "shopt -s extglob\nls !(*.txt)\nssh h uptime\n"


def test_hl001_names_a_python_shell_string_and_a_remote_string_by_what_they_are(
    tmp_path: Path,
) -> None:
    """tree-sitter-bash cannot parse `!(*.txt)`; bash can, once `shopt -s extglob` has run
    on an earlier line (checked: it lists the one file that is not .txt).  HL001 says so at
    info, naming the place: `this script` in a shell file, `this shell command string` for
    the string of `subprocess.run(S, shell=True)` in a Python file (the Python file is the
    script there), `the bash -c command string` for an argv's `bash -c`.  (Run 7:
    `where`'s `depth == 0 or wrapper is None` made `and` named the Python string `the
    subprocess.run command string`.)"""
    (tmp_path / "a.txt").write_text("")
    (tmp_path / "b.sh").write_text("")
    listing = _EXTGLOB.split("ssh")[0]
    ran = subprocess.run(
        [BASH, "--norc", "-c", listing], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "b.sh\n", "")
    python = (
        "import subprocess\n"
        f"subprocess.run({_EXTGLOB!r}, shell=True)\n"
        f'subprocess.run(["bash", "-c", {_EXTGLOB!r}])\n'
    )
    cases = (
        (_EXTGLOB, "shell", ["this script"]),
        (python, "python", ["this shell command string", "the bash -c command string"]),
    )
    for text, kind, places in cases:
        found = [f for f in check_text(text, kind, "t") if f.code == "HL001"]
        assert [(text[f.start : f.end], f.severity.value) for f in found] == [("!", "info")] * len(
            places
        )
        assert [f.message for f in found] == [
            f"tree-sitter-bash cannot parse {place} near `!` (bash can); that region was "
            "not checked"
            for place in places
        ]


# -- HL202: run-time values of a workflow are not a Python fragment's ------------------------


def test_hl001_syntax_errors_name_the_python_string_and_the_argv_string() -> None:
    """`if then` is a syntax error for bash too: an error in a string a shell is handed
    (the Python string and the argv's `bash -c` one), each named as what it is.  (Run 7:
    HL001's own `depth == 0 and kind == "python"` test made `depth != 0` named the argv's
    `bash -c` string `This shell command string`.)"""
    ran = bash_with_path("ssh h uptime; if then")
    assert ran.returncode == 2 and "syntax error" in ran.stderr
    text = (
        "import subprocess\n"
        'subprocess.run("ssh h uptime; if then", shell=True)\n'
        'subprocess.run(["bash", "-c", "ssh h uptime; if then"])\n'
    )
    found = [f for f in check_text(text, "python", "t.py") if f.code == "HL001"]
    assert [(f.evidence, f.message.split(" does not parse")[0]) for f in found] == [
        ("shell-string-refused", "This shell command string"),
        ("shell-string-refused", "The bash -c command string"),
    ]


# -- rule codes, and where HL001 says a string stops parsing -------------------------------


@pytest.mark.parametrize(
    ("code", "text"),
    [
        ("HL002", "x=1  # heredoc-lint: disable=HL103\n"),
        ("HL101", "ssh h \"cat > f << 'EOF'\nhi \\$USER\nEOF\"\n"),
        ("HL103", 'ssh h "pkill -f x; y"\n'),
        ("HL107", "ssh h bash << EOF\ncd /srv && x=1 && echo $x\nEOF\n"),
        ("HL112", "cat <<EOF\nhi\n"),
    ],
)
def test_a_finding_code_is_a_listed_selectable_rule(tmp_path: Path, code: str, text: str) -> None:
    """The code a finding carries is the code of a rule: listed by `rules`, and
    `--select CODE` gives exactly that finding."""
    listed = run_cli("rules")
    assert code in [line.split()[0] for line in listed.stdout.splitlines()[1:]]
    script = tmp_path / "s.sh"
    script.write_text(text)
    argv = ("--format", "json", "--no-cache", "--warn-unused-suppressions", "--select", code)
    argv += ("--severity", "info")  # each code, whatever its evidence's default severity
    proc = run_cli(*argv, str(script))
    assert proc.returncode == 1, proc.stderr
    assert [item["code"] for item in json.loads(proc.stdout)] == [code]


@pytest.mark.parametrize(
    ("text", "span_of", "near"),
    [('ssh h "echo )"\n', ")", ")"), ('ssh h "echo (x"\n', "x", "end of text")],
)
def test_hl001_shows_where_the_inner_string_stops_parsing(
    text: str, span_of: str, near: str
) -> None:
    (f,) = findings(text, "HL001", every_rule=True)
    assert (f.start, f.end) == occurrence_span(text, span_of)
    assert f.message.startswith(f"The ssh command string does not parse near `{near}`")
