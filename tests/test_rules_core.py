"""HL001, HL101, HL102, HL103: positives, negatives and severity tiers (HL001 for strings,
files, templates and transcripts: WILD pattern 9)."""

from __future__ import annotations

import pytest

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
    assert found("ssh h 'if true; then echo'") == [("HL001", "error", "i")]


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
    assert f.severity is Severity.ERROR and f.start == text.index("ssh h")
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
    found = [(f.code, f.severity) for f in check_shell(text) if f.code == "HL001"]
    assert found == [("HL001", Severity.ERROR)]


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
