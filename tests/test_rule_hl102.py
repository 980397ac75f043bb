"""HL102 client-side-expansion: `ssh h "... $x ..."` expands `$x` on the local side.

Evidence decides the tier: an error where the inner string binds the name first or a
quoted heredoc asks for a literal body; a warning for a positional parameter of a shell that
has none; info for `$?`, `$!`, `$$` and a command that asks about the machine (both by their
first-look precision in heredoc_lint/severities.py), and for what is usually meant (a
function's `$1`, a script's `$1`, `$PWD`, `$USER`, a variable the script sets,
`eval`/`tmux send-keys` strings). Anchors are computed from the text; the unsafe
escape fix is re-checked, applied twice, and run through the real sshd, where the original
command delivers the local value and the fixed one the remote value. Bash itself shows that
a function's `$1` is the function's argument, not the script's.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.engine import Settings, check_shell, check_text
from heredoc_lint.model import Applicability, Finding, Severity
from heredoc_lint.rules.hl102_client_side_expansion import INVALID

CODE = "HL102"


def hl102(text: str, *, command: bool = False) -> list[Finding]:
    return kit.findings(text, CODE, command=command)


def at(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """The span of the nth occurrence of `needle` in `text`."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    return start, start + len(needle)


def only(found: list[Finding], text: str, needle: str, nth: int = 0) -> Finding:
    """The one finding of `found` anchored on the nth `needle`."""
    hits = [f for f in found if (f.start, f.end) == at(text, needle, nth)]
    assert len(hits) == 1, found
    return hits[0]


# Positives (errors, warnings, `special-parameter` and `machine-probe`, info by their first
# looks), the intended local expansions (info), the escape fixes and awk's fields: INVALID
# and VALID in the rule's module; what the list cannot say is checked here.
def test_every_message_opens_with_its_anchor() -> None:
    for example in INVALID:
        (f,) = hl102(example.text)
        assert f.message.startswith(f"`{example.at}`"), example


def test_a_command_that_describes_the_machine_is_a_machine_probe() -> None:
    """heredoc_lint/severities.py: first-look precision 0 TP / 6 FP; found and worded as
    before."""
    probes = [e for e in INVALID if "describes this machine" in e.says]
    assert probes
    for example in probes:
        (f,) = hl102(example.text)
        assert f.evidence == "machine-probe"


def test_every_fix_is_unsafe_but_the_heredoc_one() -> None:
    """The escape guesses that the local value was not meant: unsafe, and `--fix` alone
    leaves the text; inside a quoted heredoc HL101's fix is safe."""
    fixed = [e for e in INVALID if e.fixed is not None]
    for example in fixed:
        safe = "<< 'EOF'" in example.text
        wanted = Applicability.SAFE if safe else Applicability.UNSAFE
        for f in hl102(example.text):
            assert f.fix is not None and f.fix.applicability is wanted, example
        assert kit.fix_text(example.text, CODE) == (example.fixed if safe else example.text)
    assert any("<< 'EOF'" in e.text for e in fixed)


def test_agent_command_line_has_no_positional_parameters() -> None:
    text = 'ssh h "systemctl restart $1"'
    f = kit.assert_single(hl102(text, command=True), at(text, "$1"), Severity.WARNING)
    assert "an agent's command line has no arguments" in f.message


def test_python_shell_string_has_no_positional_parameters() -> None:
    text = "import subprocess\nsubprocess.run('ssh h \"echo $1\"', shell=True)\n"
    (f,) = [f for f in check_text(text, "python", "t.py") if f.code == CODE]
    assert (f.start, f.end) == at(text, "$1") and f.severity is Severity.WARNING
    assert "the shell of a Python string is run without arguments" in f.message


# -- intended local expansion (WILD pattern 1): info, with the scope named --------------------
# (The others are INVALID examples of the rule's module, those the fix leaves as they are.)
INTENDED = [  # (text, the expansion, found at its last occurrence, a part of the message)
    # the first `$h` is the host word, not the one in the string
    ('for h in a b; do ssh "$h" "echo $h"; done\n', "$h", "the local variable set on line 1"),
    # `$HOME` is reported too
    ('eval "echo $HOME $$"\n', "$$", "before `eval` runs the string"),
]


@pytest.mark.parametrize(("text", "needle", "part"), INTENDED)
def test_intended_local_expansion_is_info(text: str, needle: str, part: str) -> None:
    f = only(hl102(text), text, needle, text.count(needle) - 1)  # the last: in the string
    assert f.severity is Severity.INFO
    assert part in f.message
    assert "the local script's argument" not in f.message
    assert f.fix is None  # nothing shows that the local value was not meant


def test_an_intended_example_has_no_fix() -> None:
    """The INVALID examples that the fix leaves as they are: nothing shows that the local
    value was not meant, so no fix at all, not even one to show."""
    intended = [e for e in INVALID if e.fixed is None]
    assert intended
    for example in intended:
        (f,) = hl102(example.text)
        assert "the local script's argument" not in f.message
        assert f.fix is None


def test_a_function_argument_is_not_called_the_script_argument() -> None:
    text = '#!/bin/bash\nrestart() {\n  ssh web-1 "systemctl restart $1"\n}\nrestart nginx\n'
    (f,) = hl102(text)
    assert "function `restart`" in f.message and "script" not in f.message


def test_bash_gives_a_function_its_own_positional_parameters(tmp_path: Path) -> None:
    """The claim behind the info tier: inside a function `$1` is the call's argument."""
    script = tmp_path / "s.sh"
    script.write_text('f() { echo "[$1]"; }\nf from-the-call\necho "<$1>"\n')
    proc = subprocess.run(
        ["bash", str(script), "from-the-command-line"], capture_output=True, text=True, check=True
    )
    assert proc.stdout == "[from-the-call]\n<from-the-command-line>\n"


def test_no_finding_in_the_default_output_for_intended_expansions() -> None:
    for text, _, _ in INTENDED:
        assert [f for f in hl102(text) if f.severity is not Severity.INFO] == [], text


# -- spans and messages (WILD pattern 11) ---------------------------------------------------
def test_no_leading_blank_in_a_span() -> None:
    text = 'ssh h "echo $a $b"\n'
    found = hl102(text)
    assert [(f.start, f.end) for f in found] == [at(text, "$a"), at(text, "$b")]
    assert [f.message[:4] for f in found] == ["`$a`", "`$b`"]


def test_advice_names_the_escape_of_the_expansion_itself() -> None:
    text = 'ssh h "x=1; y=2; echo $x $y `hostname`"\n'
    found = hl102(text)
    assert [text[f.start : f.end] for f in found] == ["$x", "$y", "`hostname`"]
    assert "write `\\$y`" in found[1].message
    assert "write `\\`hostname\\``" in found[2].message
    assert all("`\\ " not in f.message for f in found)


# -- the unsafe escape fix (documented, and now offered) ------------------------------------
# (With one finding each: INVALID examples of the rule's module.)
FIXES = [  # two findings, both fixed
    ('ssh h "false; echo $? $!"\n', 'ssh h "false; echo \\$? \\$!"\n'),
    ('ssh h "echo $(hostname) `whoami`"\n', 'ssh h "echo \\$(hostname) \\`whoami\\`"\n'),
]


@pytest.mark.parametrize(("text", "fixed"), FIXES)
def test_escape_fix_is_unsafe_clean_and_idempotent(text: str, fixed: str) -> None:
    found = hl102(text)
    assert found and all(
        f.fix is not None and f.fix.applicability is Applicability.UNSAFE for f in found
    )
    assert kit.assert_fixed_clean_and_idempotent(text, CODE, unsafe=True) == fixed


def test_no_escape_fix_where_the_text_would_change_meaning() -> None:
    """Once `$` is escaped, `\\"` inside `$(...)` becomes a plain `"`: no fix is sure."""
    text = 'ssh h "kill $(cat \\"/run/app.pid\\")"\n'
    f = kit.assert_single(hl102(text), at(text, '$(cat \\"/run/app.pid\\")'), Severity.INFO)
    assert f.evidence == "machine-probe"
    assert f.fix is None


def test_quoted_heredoc_keeps_the_safe_heredoc_fix() -> None:
    text = "ssh h \"cat > run.sh << 'EOF'\nexec srv --port $1\nEOF\"\n"
    (f,) = hl102(text)
    assert f.fix is not None and f.fix.applicability is Applicability.SAFE
    assert "base64" in kit.fix_text(text, CODE)


def test_shellcheck_sc2029_directive_suppresses() -> None:
    assert hl102('# shellcheck disable=SC2029\nssh h "kill $$"\n') == []
    assert len(hl102('# shellcheck disable=SC2086\nssh h "kill $$"\n')) == 1


# -- runtime: the real sshd ------------------------------------------------------------------
REPORTED = {Severity.ERROR, Severity.WARNING}
RUNTIME = [
    # (body of the remote string writing {out}, local prelude, before, after the fix,
    #  the severities it is reported at)
    ('x=REMOTE; echo "$x" > {out}', "x=LOCAL\n", "LOCAL\n", "REMOTE\n", REPORTED),
    ("for f in a b; do echo $f; done > {out}", "", "\n\n", "a\nb\n", REPORTED),
    # `special-parameter`: info by its first look, the same finding and fix
    ("false; echo $? > {out}", "true\n", "0\n", "1\n", {Severity.INFO}),
]


@pytest.mark.parametrize(("remote", "prelude", "before", "after", "severities"), RUNTIME)
def test_runtime_local_value_then_remote_value_after_the_fix(
    remote: str,
    prelude: str,
    before: str,
    after: str,
    severities: set[Severity],
    sshd: SshServer,
    tmp_path: Path,
) -> None:
    out = tmp_path / "out.txt"
    script = f'#!/bin/bash\n{prelude}ssh {sshd.user}@web-1 "{remote.format(out=out)}"\n'
    found = hl102(script)
    assert found and {f.severity for f in found} <= severities
    kit.run_ok(script, sshd)
    assert out.read_text() == before
    out.unlink()
    fixed = kit.fix_text(script, CODE, unsafe=True)
    assert hl102(fixed) == []
    kit.run_ok(fixed, sshd)
    assert out.read_text() == after


def test_runtime_function_argument_is_the_value_meant(sshd: SshServer, tmp_path: Path) -> None:
    """The info case delivers what it reads as: the function's argument reaches the remote."""
    out = tmp_path / "svc.txt"
    script = (
        "#!/bin/bash\n"
        f'restart() {{ ssh {sshd.user}@web-1 "echo restarting $1 > {out}"; }}\n'
        "restart api\n"
    )
    (f,) = hl102(script)
    assert f.severity is Severity.INFO
    kit.run_ok(script, sshd)
    assert out.read_text() == "restarting api\n"


AWK_FIELDS = [  # two fields: the others are INVALID examples of the rule's module
    ("ssh h \"gawk -F: '$3 > 999 {print $1}' /etc/passwd\"\n", "$3"),
]


@pytest.mark.parametrize(("text", "field"), AWK_FIELDS)
def test_awk_field_in_single_quotes_is_an_error(text: str, field: str) -> None:
    """The single quotes were written for awk: the author meant awk's field."""
    found = [f for f in kit.findings(text, "HL102") if f.severity is Severity.ERROR]
    start = text.index(field)
    assert (found[0].start, found[0].end) == (start, start + len(field))
    assert "a field of the" in found[0].message


def test_local_value_in_single_quotes_for_the_remote_shell_stays_info() -> None:
    """`mkdir '$dir'` passes a local value, quoted for the remote shell: meant."""
    (f,) = kit.findings("ssh h \"mkdir '$dir'\"\n", "HL102")
    assert f.severity is Severity.INFO
    assert kit.findings("ssh h \"awk -v x=$1 '{print x}' f\"\n", "HL102")[0].severity is (
        Severity.INFO
    )


def test_awk_field_in_bash_and_its_escape_fix(tmp_path: Path) -> None:
    """bash -c stands in for the remote shell: the local `$2` (no arguments: empty) makes
    awk print whole lines; the escaped `\\$2` reaches awk as its field."""
    text = "printf 'a b\\n' | bash -c \"awk '{print $2}'\"\n"
    (f,) = [f for f in kit.findings(text, "HL102") if f.severity is Severity.ERROR]
    script = tmp_path / "t.sh"
    script.write_text(text)
    assert subprocess.run(["bash", str(script)], capture_output=True, text=True).stdout == "a b\n"
    fixed = kit.fix_text(text, "HL102", unsafe=True)
    assert "\\$2" in fixed
    script.write_text(fixed)
    assert subprocess.run(["bash", str(script)], capture_output=True, text=True).stdout == "b\n"


@pytest.mark.parametrize("name", ["#", "!", "?", "$", "@", "*", "1"])
def test_braced_special_parameters_are_read_as_their_bare_forms(name: str) -> None:
    # `${!}` is `$!` (bash: `echo ${!} $!` prints the same twice). The braced form was read
    # from the node's text with tree-sitter's blank before it, and `${#}` became `$$`.
    bare = kit.findings(f'ssh h "echo ${name}"\n', CODE)
    braced = kit.findings(f'ssh h "echo ${{{name}}}"\n', CODE)
    assert len(bare) == len(braced) == 1
    assert braced[0].severity == bare[0].severity
    assert braced[0].message == bare[0].message.replace(f"${name}", f"${{{name}}}")


@pytest.mark.parametrize("prefix", ["", "sudo ", "busybox ", "env LC_ALL=C "])
def test_an_awk_field_is_named_behind_a_prefix_command(prefix: str) -> None:
    """`sudo awk '{print $1}'` runs awk as plainly as `awk` does: the quotes written for
    awk are the evidence, whatever prefix runs it."""
    text = f"ssh h \"{prefix}awk '{{print $1}}' /etc/hostname\"\n"
    (found,) = [f for f in kit.findings(text, "HL102", every_rule=True)]
    assert found.message.startswith("`$1` is a field of the awk program")
    assert found.severity is Severity.ERROR


# -- shell/evidence.py: the commands that ask about the machine --------------------------


@pytest.mark.parametrize(
    ("command", "probes"),
    [
        ("hostname", True),
        ("hostname -f", True),
        ("/bin/hostname", True),
        ("whoami", True),
        ("uname -r", True),
        ("nproc", True),
        ("readlink /proc/self/exe", True),
        ("readlink -f /etc/alternatives/java", True),
        ("cat /etc/hostname", True),
        ("readlink ./current", False),
        ("cat ./VERSION", False),
        ("date +%s", False),
    ],
)
def test_hl102_a_substitution_that_asks_about_the_machine(command: str, probes: bool) -> None:
    """`$(hostname)` in an ssh string runs here and describes this machine: evidence
    `machine-probe` (info by default since its first look, 0 TP / 6 FP); a substitution
    that asks nothing about the machine is a `local-expansion`, also info."""
    text = f'ssh h "echo $({command}) done"\n'
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL102"]
    assert text[found.start : found.end] == f"$({command})"
    assert found.evidence == ("machine-probe" if probes else "local-expansion")
    assert found.severity is Severity.INFO
    assert ("describes this machine" in found.message) is probes


# -- shell/evidence.py: root guards, `read` bindings, function names -----------------------


@pytest.mark.parametrize(
    ("read", "shown"),
    [
        ("read -r name", "$name"),
        ("read -r -a hosts", "${hosts[0]}"),
        ("read -p x: -r name", "$name"),
    ],
)
def test_hl102_names_the_variable_that_read_set(read: str, shown: str) -> None:
    text = f'{read}\nssh h "echo {shown}"\n'
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL102"]
    assert text[found.start : found.end] == shown
    assert found.message.startswith(f"`{shown}` is the local variable set on line 1, ")


@pytest.mark.parametrize("head", ["deploy() {", "function deploy {", "function deploy() {"])
def test_hl102_names_the_function_around_a_positional(head: str) -> None:
    text = f'{head}\n  ssh h "echo $1"\n}}\n'
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL102"]
    assert text[found.start : found.end] == "$1"
    assert found.message.endswith("from the arguments of the function `deploy` around it")


# -- HL102: a remote-natured variable is this machine's value -----------------------------------


@pytest.mark.parametrize("name", ["HOME", "PWD", "OLDPWD", "USER", "LOGNAME", "HOSTNAME", "SHLVL"])
def test_hl102_a_login_variable_is_this_machines_value(name: str, tmp_path: Path) -> None:
    """`$HOME` in a double-quoted ssh string is the local value (bash expands it before
    ssh runs): HL102 says so, at info, with the escape that passes it on (hl102
    `REMOTE_NAMES` 'HOME' -> 'OME')."""
    sent = kit.bash_as_sshd(f'{name}=/local-value; printf %s "echo ${name}"', None, tmp_path).stdout
    assert sent == "echo /local-value"
    text = f'ssh "$h" "echo ${name}"\n'
    (found,) = kit.findings_selected(text, "HL102")
    assert (found.start, found.end) == (15, 16 + len(name))
    assert found.severity.value == "info"
    assert found.message.startswith(f"`${name}` is this machine's value, expanded by ")
    assert f"write `\\${name}` if the inner shell should expand it" in found.message


# -- shell/evidence.py: the readers of a system file ask about the machine ------------------


@pytest.mark.parametrize(
    ("command", "probes"),
    [
        ("tail -n1 /etc/hostname", True),
        ("head -c8 /proc/cpuinfo", True),
        ("realpath /etc/localtime", True),
        ("tail -n1 ./VERSION", False),
        ("head -n1 VERSION", False),
        ("realpath ./current", False),
    ],
)
def test_hl102_a_reader_of_a_system_file_describes_this_machine(
    command: str, probes: bool, tmp_path: Path
) -> None:
    """`ssh h "echo $(tail -n1 /etc/hostname) done"`: `tail`, `head` and `realpath` of a
    path under /etc/, /proc/... read this machine, so the value ssh sends describes it:
    `machine-probe` evidence (info by default since its first look, 0 TP / 6 FP), with a
    message that says so; the same readers of a relative path are a `local-expansion`,
    also info.  bash, with `ssh` a function that prints the string it is given, shows that
    the substitution ran here: the string holds its local value, and no `$(` is left for
    the remote shell.
    (Run 7: `tail` cut to `ail` was no longer a reader.)"""
    (tmp_path / "VERSION").write_text("1.2.3\n")
    (tmp_path / "current").mkdir()
    text = f'ssh h "echo $({command}) done"\n'
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL102"]
    assert text[found.start : found.end] == f"$({command})"
    assert found.evidence == ("machine-probe" if probes else "local-expansion")
    assert found.severity is Severity.INFO
    assert ("describes this machine" in found.message) is probes
    local = subprocess.run(
        ["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.rstrip("\n")
    stand_in = 'ssh() { printf "%s\\n" "$2"; }\n'
    sent = subprocess.run(
        ["bash", "-c", stand_in + text], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    assert local and sent == f"echo {local} done\n"


# -- shell/evidence.py: the array mapfile and readarray fill --------------------------------


@pytest.mark.parametrize(
    ("binder", "name"),
    [
        ("mapfile -t lines", "lines"),
        ("readarray -t hosts", "hosts"),
        ("mapfile", "MAPFILE"),
        ("readarray -t", "MAPFILE"),
    ],
)
def test_hl102_names_the_array_mapfile_filled(binder: str, name: str) -> None:
    """`mapfile -t lines < f` fills `lines`; without a name, `MAPFILE` (bash, asked with
    `declare -p`, says so).  `${NAME[0]}` in an ssh string afterwards is that local
    variable, set on line 1: the HL102 info says where.  (Run 7: the test of the name
    inverted gave the named array as MAPFILE and the default as no name.)"""
    declared = subprocess.run(
        ["bash", "-c", f"{binder} <<< one\ndeclare -p {name}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    assert declared.startswith(f"declare -a {name}=([0]=")
    shown = f"${{{name}[0]}}"
    text = f'{binder} < list.txt\nssh h "echo {shown}"\n'
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL102"]
    assert text[found.start : found.end] == shown
    assert found.severity is Severity.INFO
    assert found.message.startswith(f"`{shown}` is the local variable set on line 1, ")


# -- HL102: the message says who expands and when -------------------------------------------


@pytest.mark.parametrize(
    ("text", "start", "when"),
    [
        ('ssh h "x=1; echo $x"\n', 17, "before ssh sends the command"),
        ('bash -c "x=1; echo $x"\n', 19, "before `bash -c` runs the string"),
        ('sudo sh -c "x=1; echo $x"\n', 22, "before `sh -c` runs the string"),
    ],
)
def test_hl102_message_names_the_wrapper(text: str, start: int, when: str) -> None:
    """`$x` bound in the same string: expanded by the local shell first, which the
    message says with the wrapper that then runs the string; bash agrees that the local
    value (unset here) is what the inner shell gets."""
    (finding,) = kit.findings_selected(text, "HL102")
    assert (finding.severity, finding.start, finding.end) == (Severity.ERROR, start, start + 2)
    assert finding.message.startswith(f"`$x` is expanded by the local shell {when}, ")
    local = text.replace("ssh h ", "bash -c ").replace("sudo ", "")
    proc = subprocess.run(
        ["bash", "-c", local], capture_output=True, text=True, timeout=30, check=False
    )
    assert proc.stdout == "\n"  # the local, empty value; the inner `x=1` came too late


# -- lift: an edit that starts at the first character of an ssh word -----------------------


HL102 = Settings(select=frozenset({"HL102"}))


def test_hl102_fix_of_a_whole_ssh_word(sshd: SshServer) -> None:
    """`$x` is a word of its own among the ssh words: the fix quotes exactly that word,
    and the remote shell then prints the value the same string assigned."""
    text = "ssh h echo go\\; x=1\\; echo $x\n"
    fixed = kit.fixed_without_error(text, HL102, unsafe=True)
    assert fixed == "ssh h echo go\\; x=1\\; echo '$x'\n"
    before = run_local(text, sshd)
    after = run_local(fixed, sshd)
    assert before.returncode == after.returncode == 0, (before.stderr, after.stderr)
    assert before.stdout == "go\n\n"
    assert after.stdout == "go\n1\n"


# -- parse_script: a redirection after `a && b` belongs to `b` -----------------------------


def test_hl102_names_the_array_of_a_subscript(sshd: SshServer) -> None:
    """`${ids[1]}` reads the array `ids` that the same string assigns: the finding names
    `ids`, and its fix makes the remote shell print the element."""
    text = 'ssh h "ids=(v w); echo ${ids[1]}"\n'
    (finding,) = check_shell(text, "t.sh", HL102)
    assert (finding.start, finding.end) == (23, 32)
    assert "binding of `ids` in the same string" in finding.message
    fixed = kit.fixed_without_error(text, HL102, unsafe=True)
    assert fixed == 'ssh h "ids=(v w); echo \\${ids[1]}"\n'
    assert run_local(text, sshd).stdout == "\n"
    assert run_local(fixed, sshd).stdout == "w\n"


# -- HL102: an expansion is reported once, by the shell that performs it ------------------


@pytest.mark.parametrize(
    "text",
    [
        'ssh h "bash -c \\"echo $x\\""\n',
        'bash -c "ssh h \\"echo $x\\""\n',
        'ssh h "ssh g \\"cat > f << \'EOF\'\n$x\nEOF\\""\n',
    ],
)
def test_hl102_nested_expansion_reported_once_at_depth_1(text: str) -> None:
    """The local shell expands `$x` before any inner shell sees it: the inner layers
    receive its value, not `$x`, and must not report it again."""
    found = kit.findings(text, "HL102", every_rule=True)
    assert [(f.start, f.end, f.depth) for f in found] == [(*kit.occurrence_span(text, "$x"), 1)]
    assert "local shell" in found[0].message


def test_hl102_in_quoted_heredoc_of_ssh_string_is_error() -> None:
    text = "ssh h \"cat > f << 'EOF'\nport $1\nEOF\"\n"
    (f,) = kit.findings(text, "HL102", every_rule=True)
    assert (f.start, f.end, f.severity) == (*kit.occurrence_span(text, "$1"), Severity.ERROR)
