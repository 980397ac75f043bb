"""HL105 ssh-swallows-loop-stdin: ssh in a `while read` loop eats the loop's input.

Anchors are computed from the text. The fix (`-n` after `ssh`, safe) is re-checked and
applied twice. Against the real sshd, the original loop handles one line of three and the
fixed loop handles all three.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.engine import Settings, check_shell, fix_shell
from heredoc_lint.model import Applicability, Edit, Finding, Severity
from heredoc_lint.rules.hl105_ssh_swallows_loop_stdin import INVALID

CODE = "HL105"


def hl105(text: str) -> list[Finding]:
    return kit.findings(text, CODE)


# Positives, negatives and fixes: INVALID and VALID in the rule's module.
# The loop inside a remote layer: the inner ssh eats the remote loop's input (the first
# `ssh` of the text is the outer one, so this case stays here).
NESTED = "ssh gw 'while read h; do ssh $h uptime; done < hosts'\n"


def test_positive_anchor_in_a_remote_loop() -> None:
    f = kit.assert_single(hl105(NESTED), kit.span_of(NESTED, "ssh $h"), Severity.WARNING)
    assert "the loop ends after the first line" in f.message
    assert "-n" in f.message


def test_cli_json_line_and_column(tmp_path: Path) -> None:
    text = kit.case_text("fanout.sh")
    items = kit.cli_json(kit.copy_case("fanout.sh", tmp_path), returncode=1)
    assert [i["code"] for i in items] == [CODE]  # fanout.sh: HL105 only (no HL106)
    (item,) = items
    kit.assert_json_position(item, text, kit.span_of(text, 'ssh "$node"'), (3, 3))
    assert item["fix"]["applicability"] == "safe"


def test_negative_case() -> None:
    assert hl105(kit.case_text("clean_ok.sh")) == []


@pytest.mark.parametrize(
    ("shell", "script", "lines_read"),
    [
        # The body's command reads the loop's stdin: the next line.
        ("bash", 'while read h; do read x; echo "$h:$x"; done < hosts', ["a:b", "c:d"]),
        # A background job (waited for at once, so the order is fixed) in a loop fed by a
        # redirection or a pipe: bash gives it that input, not /dev/null.
        ("bash", 'while read h; do { read x; echo "$h:$x"; } & wait; done < hosts', ["a:b", "c:d"]),
        (
            "bash",
            'cat hosts | while read h; do (read x; echo "$h:$x") & wait; done',
            ["a:b", "c:d"],
        ),
        # With no loop feeding it, a job reads /dev/null; dash gives every job /dev/null.
        ("bash", 'exec < hosts; read h; { read x; echo "$h:$x"; } & wait', ["a:"]),
        (
            "dash",
            'while read h; do { read x; echo "$h:$x"; } & wait; done < hosts',
            ["a:", "b:", "c:", "d:"],
        ),
        # A job inside $( ), waited for by the substitution: the loop's stdin.
        ("bash", "while read h; do x=$(cat &); echo $h; done < hosts", ["a"]),
    ],
)
def test_what_a_job_in_a_read_loop_reads(
    tmp_path: Path, shell: str, script: str, lines_read: list[str]
) -> None:
    """The oracle for HL105's background cases (round z: a backgrounded ssh in a `done <
    file` loop was taken for one that reads /dev/null)."""
    (tmp_path / "hosts").write_text("a\nb\nc\nd\n")
    ran = subprocess.run([shell, "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert ran.stdout.split() == lines_read, ran.stderr


# -- fixes: the rest are INVALID examples in the rule's module ---------------------------
FIXES = [
    (
        kit.case_text("fanout.sh"),
        kit.case_text("fanout.sh").replace('ssh "$node"', 'ssh -n "$node"'),
    ),
    (NESTED, "ssh gw 'while read h; do ssh -n $h uptime; done < hosts'\n"),
    (
        'ssh gw "while read h; do ssh \\$h uptime; done < hosts"\n',
        'ssh gw "while read h; do ssh -n \\$h uptime; done < hosts"\n',
    ),
    (  # two findings in one loop
        "while read h; do ssh $h a; ssh $h b; done < hosts\n",
        "while read h; do ssh -n $h a; ssh -n $h b; done < hosts\n",
    ),
]


@pytest.mark.parametrize(("text", "fixed"), FIXES)
def test_fix_is_safe_clean_and_idempotent(text: str, fixed: str) -> None:
    for f in hl105(text):
        assert f.fix is not None and f.fix.applicability is Applicability.SAFE
    outcome = kit.assert_fixed_clean_and_idempotent(text, CODE, unsafe=False)
    assert outcome == fixed


def test_every_example_fix_is_safe() -> None:
    """Each INVALID example's fix is safe: `--fix` alone writes its fixed text."""
    for example in INVALID:
        found = hl105(example.text)
        assert found
        for f in found:
            assert f.fix is not None and f.fix.applicability is Applicability.SAFE
        assert kit.fix_text(example.text, CODE) == example.fixed


@pytest.mark.parametrize(
    "text",
    [
        "while read h; do ssh $h; done < hosts\n",  # a login shell reads what arrives
        "while read h; do ssh $h bash -s; done < hosts\n",
        "while read h; do ssh $h 'cat > /tmp/x'; done < hosts\n",
        "while read h; do ssh $h tee /tmp/x; done < hosts\n",
    ],
)
def test_fix_is_unsafe_when_the_remote_side_reads_stdin(text: str) -> None:
    kit.single_fix(hl105(text), Applicability.UNSAFE)
    assert kit.fix_text(text, CODE) == text
    assert kit.fix_text(text, CODE, unsafe=True) == text.replace("ssh $h", "ssh -n $h")


def test_cli_fix_on_the_case_file(tmp_path: Path) -> None:
    path = kit.copy_case("fanout.sh", tmp_path)
    assert 'ssh -n "$node" "systemctl restart agent"' in kit.cli_fix(path)


# -- runtime: the real ssh against the real sshd -------------------------------------------
def test_runtime_loop_handles_one_line_and_three_after_the_fix(
    sshd: SshServer, tmp_path: Path
) -> None:
    (tmp_path / "nodes.txt").write_text("node-a\nnode-b\nnode-c\n")
    script = (
        "#!/bin/bash\n"
        "while read -r node; do\n"
        '  ssh "$node" "echo restarted agent on $node"\n'
        "done < nodes.txt\n"
    )
    assert len(hl105(script)) == 1
    before = kit.run_ok(script, sshd, cwd=tmp_path)
    assert before.stdout.splitlines() == ["restarted agent on node-a"]

    fixed = kit.fix_text(script, CODE)
    assert fixed == script.replace('ssh "$node"', 'ssh -n "$node"')
    after = kit.run_ok(fixed, sshd, cwd=tmp_path)
    assert after.stdout.splitlines() == [
        "restarted agent on node-a",
        "restarted agent on node-b",
        "restarted agent on node-c",
    ]


# -- `until` loops: tree-sitter-bash parses them as `while_statement` ----------------------
UNTIL_READ = 'until read -r node; do\n  ssh "$node" "echo ran on $node"\ndone < nodes.txt\n'
UNTIL_NOT_READ = UNTIL_READ.replace("until read", "until ! read")


def test_until_loop_is_named_as_written() -> None:
    (until,) = hl105(UNTIL_NOT_READ)
    assert "inside this `until ! read` loop" in until.message
    (while_,) = hl105(UNTIL_NOT_READ.replace("until ! read", "while read"))
    assert "inside this `while read` loop" in while_.message


def test_until_read_runs_no_ssh_while_lines_are_left(sshd: SshServer, tmp_path: Path) -> None:
    """`until read` stops at the first line it reads: the body, and its ssh, never run
    while the input has lines, so there is nothing for ssh to swallow."""
    assert hl105(UNTIL_READ) == []
    (tmp_path / "nodes.txt").write_text("node-a\nnode-b\n")
    assert kit.run_ok("#!/bin/bash\n" + UNTIL_READ, sshd, cwd=tmp_path).stdout == ""
    negated = kit.run_ok("#!/bin/bash\n" + UNTIL_NOT_READ, sshd, cwd=tmp_path)
    assert negated.stdout.splitlines() == ["ran on node-a"]  # node-b swallowed


# -- psql and mysql read their statements from stdin unless an option gives them -----------


def _unavailable(message: str) -> None:
    message = f"a real PostgreSQL server is needed: {message} (apt-get install postgresql)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def pg_socket() -> Iterator[str]:
    """The directory of a fresh server's Unix socket (trust auth, user `postgres`)."""
    bins = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    if not bins or shutil.which("psql") is None or shutil.which("runuser") is None:
        _unavailable("no pg_ctl or psql")
    if os.geteuid() != 0:
        _unavailable("the server runs as user postgres: the tests must run as root")
    pg_ctl = bins[-1]
    base = Path(tempfile.mkdtemp(prefix="hl-pg-"))
    try:
        shutil.chown(base, "postgres")
        as_postgres = ["runuser", "-u", "postgres", "--"]
        subprocess.run(
            [*as_postgres, str(pg_ctl.parent / "initdb"), "-D", f"{base}/data", "-A", "trust"]
            + ["-U", "postgres"],
            check=True,
            capture_output=True,
        )
        start = [*as_postgres, str(pg_ctl), "-D", f"{base}/data", "-l", f"{base}/log", "-w"]
        subprocess.run(
            [*start, "-o", f"-k {base} -c listen_addresses=''", "start"],
            check=True,
            capture_output=True,
        )
        try:
            yield str(base)
        finally:
            subprocess.run(
                [*as_postgres, str(pg_ctl), "-D", f"{base}/data", "-m", "immediate", "-w", "stop"],
                capture_output=True,
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _fix_applicability(remote: str) -> Applicability:
    quoted = shlex.quote(remote)
    text = f"while read h; do ssh h {quoted}; done < hosts\n"
    (found,) = check_shell(text, "t.sh", Settings(select=frozenset({"HL105"})))
    assert (found.start, found.end) == (17, 20)
    assert found.fix is not None
    assert found.fix.edits == (Edit(20, 20, " -n"),)
    return found.fix.applicability


def _reads_stdin(remote: str, sshd: SshServer) -> bool:
    """Whether the output through the real sshd changes between `-n` and two statements
    on stdin."""
    quoted = shlex.quote(remote)
    piped = run_local(f"printf \"select 'l1';\\nselect 'l2';\\n\" | ssh h {quoted}", sshd)
    nulled = run_local(f"ssh -n h {quoted}", sshd)
    assert piped.returncode == 0, piped.stderr
    assert nulled.returncode == 0, nulled.stderr
    return (piped.stdout, piped.stderr) != (nulled.stdout, nulled.stderr)


@pytest.mark.parametrize(
    ("options", "reads"),
    [
        ("", True),
        ("-c 'select 7'", False),
        ("--command 'select 7'", False),
        ("-f -", True),
    ],
)
def test_psql_reads_stdin_unless_given_a_command(
    options: str, reads: bool, pg_socket: str, sshd: SshServer
) -> None:
    remote = f"psql -h {pg_socket} -U postgres -At {options}".strip()
    assert _reads_stdin(remote, sshd) is reads
    expected = Applicability.UNSAFE if reads else Applicability.SAFE
    assert _fix_applicability(remote) is expected


@pytest.mark.parametrize(
    ("remote", "stand_in"),
    [
        ("mysql -h db1 shop", "psql -h db1 shop"),
        ("mysql -e 'select 1' shop", "psql -c 'select 1' shop"),
        ("mysql --execute 'select 1' shop", "psql --command 'select 1' shop"),
    ],
)
def test_mysql_is_judged_like_psql(remote: str, stand_in: str) -> None:
    """mysql(1) reads statements from stdin unless `-e`/`--execute` gives them, as psql
    does with `-c`/`--command` (shown against a real server above)."""
    assert _fix_applicability(remote) is _fix_applicability(stand_in)
    reads = not any(o in remote for o in ("-e ", "--execute "))
    assert _fix_applicability(remote) is (Applicability.UNSAFE if reads else Applicability.SAFE)


# -- HL105: the fix's safety follows what the remote command reads -----------------------------


def _assert_n_fix(remote: str, reads: bool) -> None:
    """HL105 on `ssh h REMOTE` in a `while read` loop: `-n` added, unsafe where the remote
    command reads its stdin."""
    text = f"while read h; do ssh h {remote}; done < hosts\n"
    (found,) = kit.findings_selected(text, "HL105")
    assert (found.start, found.end) == (17, 20)
    assert found.fix is not None
    assert found.fix.edits == (Edit(20, 20, " -n"),)
    expected = Applicability.UNSAFE if reads else Applicability.SAFE
    assert found.fix.applicability is expected


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
    piped = kit.bash_as_sshd(remote, '{"b":2}\n', tmp_path)
    nulled = kit.bash_as_sshd(remote, None, tmp_path)
    assert piped.returncode == 0, piped.stderr
    assert (piped.stdout != nulled.stdout) == reads, (piped.stdout, nulled.stdout)
    _assert_n_fix(remote, reads)


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
        ran = kit.bash_as_sshd(loop.format(reader=reader, ssh=ssh), None, tmp_path)
        assert (ran.returncode, ran.stdout) == (0, "x\nx\n"), ran.stderr
    text = f'while sleep 5; do {reader}; ssh h "$cmd"; done\n'
    assert kit.findings_selected(text, "HL105") == []


# -- HL105 behind a function: no fix, the cure named for the function ------------------------


_FORWARDED = (
    "#!/bin/bash\n"
    'remote() { ssh "$1" "$2"; }\n'
    "while read -r node; do\n"
    '  remote "$node" "echo ran on $node"\n'
    "done < nodes.txt\n"
)


def test_hl105_through_a_function_names_the_cure_and_offers_no_fix(
    sshd: SshServer, tmp_path: Path
) -> None:
    """`remote() { ssh "$1" "$2"; }` called in a `while read` loop: the ssh in the body reads
    the loop's input (checked through the real sshd: one line of three is handled).  The
    finding is at the call's name, tells to put `-n` in the function or to redirect the
    call, and has no fix (`-n` after the call's name would be an argument of `remote`);
    the redirect it names handles all three lines.  (Run 7: `fix = None` made `pass` left
    `fix` unbound there, and the check crashed.)"""
    (tmp_path / "nodes.txt").write_text("node-a\nnode-b\nnode-c\n")
    before = kit.run_ok(_FORWARDED, sshd, cwd=tmp_path)
    assert before.stdout.splitlines() == ["ran on node-a"]
    found = kit.findings(_FORWARDED, "HL105", every_rule=True)
    assert [(_FORWARDED[f.start : f.end], f.severity.value, f.fix) for f in found] == [
        ("remote", "warning", None)
    ]
    assert found[0].message.endswith(
        "use `ssh -n` in the function `remote` (or `remote ... < /dev/null`)"
    )
    cured = _FORWARDED.replace('"echo ran on $node"\n', '"echo ran on $node" < /dev/null\n')
    after = kit.run_ok(cured, sshd, cwd=tmp_path)
    assert after.stdout.splitlines() == ["ran on node-a", "ran on node-b", "ran on node-c"]
    assert kit.findings(cured, "HL105", every_rule=True) == []


# -- HL105's fix is safe when the remote command reads a file named after long options ----


def test_hl105_fix_is_safe_when_the_remote_command_reads_its_file_operand(
    tmp_path: Path,
) -> None:
    """`ssh $h 'tail --lines=1 FILE'` in a `while read` loop: `--lines=1` holds its value,
    and `--number` (cat) takes none, so FILE is an operand and the remote command reads it,
    not stdin (checked in bash: a line piped in is not printed), so `ssh -n` changes
    nothing it reads: a safe fix.  (Run 7: `"=" not in value and name in
    _ARGUMENT_OPTIONS` made `or` took FILE for the option's argument: unsafe.)"""
    (tmp_path / "f").write_text("file-line\n")
    for remote in ("tail --lines=1 f", "sort --key=1 f", "cat --number f"):
        ran = subprocess.run(
            [kit.BASH, "--norc", "-c", f"echo from-stdin | {remote}"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            check=False,
        )
        assert "file-line" in ran.stdout and "from-stdin" not in ran.stdout
        text = f"while read -r h; do ssh $h '{remote}'; done < hosts\n"
        found = kit.findings(text, "HL105", every_rule=True)
        assert [(text[f.start : f.end], f.severity.value) for f in found] == [("ssh", "warning")]
        fix = found[0].fix
        assert fix is not None and fix.applicability.value == "safe"
        assert fix_shell(text, "t.sh").text == text.replace("ssh $h", "ssh -n $h")


# -- HL105: the fix's safety follows what the remote command reads -------------------------


# Remote commands, and whether they read the standard input ssh forwards.
_REMOTES = [
    ("cat", True),
    ("cat /etc/hostname", False),
    ("cat -", True),
    ("base64", True),
    ("gzip -c | wc -c", True),
    ("xz -c | wc -c", True),
    ("bzip2 -c | wc -c", True),
    ("sort", True),
    ("sort /etc/hostname", False),
    ("uniq", True),
    ("wc -l", True),
    ("head", True),
    ("tail", True),
    ("md5sum", True),
    ("sha256sum", True),
    ("tac", True),
    ("tee /dev/null", True),
    ("read x; echo got $x", True),
    ("xargs echo", True),
    ("xargs", True),
    ("grep l", True),
    ("grep l /etc/hostname; true", False),
    ("sed -n p", True),
    ("awk 1", True),
    ("jq -R .", True),
    ("python3", True),
    ("python3 -", True),
    ("perl", True),
    ("node", True),
    ("dd status=none", True),
    ("dd if=/etc/hostname status=none", False),
    ("bash", True),
    ("bash -s", True),
    ("bash -c 'echo hi'", False),
    ("sh -s x", True),
    ("sqlite3", True),
    ("echo hi", False),
    ("uptime > /dev/null; echo up", False),
    # An option's argument is no file (`head -n 1` reads stdin; bug 3 of run 3).
    ("head -n 1", True),
    ("head -n1", True),
    ("tail -n 1", True),
    ("head -n 1 /etc/hostname", False),
    ("sort -k 1", True),
    ("sort -k 1 /etc/hostname", False),
    ("cut -d : -f 1", True),
    ("cut -d : -f 1 /etc/hostname", False),
    ("tr a-z A-Z", True),
    ("fold -w 3", True),
    ("grep -e l", True),
    ("grep -e l /etc/hostname; true", False),
    ("awk -F : 1", True),
    ("perl -ne print", True),
    ("python3 -c 'import sys; print(sys.stdin.read())'", True),
    # Behind a prefix command the program still reads the stdin ssh forwards.
    ("sudo cat", True),
    ("sudo cat /etc/hostname", False),
    ("nice sort", True),
    ("env A=1 head -n 1", True),
    ("nohup echo hi 2>/dev/null", False),
]


@pytest.mark.parametrize(("remote", "reads"), _REMOTES)
def test_hl105_fix_is_safe_only_when_the_remote_reads_nothing(
    remote: str, reads: bool, sshd: SshServer
) -> None:
    """The remote command reads its stdin exactly when its output through the real sshd
    changes between `ssh -n` and two lines on stdin; only then is `-n` an unsafe fix."""
    quoted = shlex.quote(remote)
    piped = run_local(f"printf 'echo l1\\necho l2\\n' | ssh h {quoted}", sshd)
    nulled = run_local(f"ssh -n h {quoted}", sshd)
    outcome = (piped.returncode, piped.stdout, piped.stderr)
    assert (outcome != (nulled.returncode, nulled.stdout, nulled.stderr)) == reads, outcome
    _assert_n_fix(quoted, reads)


@pytest.mark.parametrize(
    "option",
    [
        "-o StdinNull=yes",
        "-o StdinNull=true",
        "-o stdinnull=TRUE",
        "-o 'StdinNull yes'",
        "-o StdinNull=no",
        "-o StdinNull=false",
        "-n",
        "-f",
    ],
)
def test_hl105_stdin_null_option_agrees_with_ssh(option: str, sshd: SshServer) -> None:
    """`-o StdinNull=yes` (or `true`, any case) makes ssh read /dev/null like `-n`: the
    remote `cat` then gets nothing through the real sshd, and HL105 says nothing."""
    if option == "-f":  # backgrounded: its output arrives after ssh returned
        reads = False
    else:
        proc = run_local(f"printf 'l1\\n' | ssh {option} h cat", sshd)
        assert proc.returncode == 0, proc.stderr
        reads = proc.stdout == "l1\n"
    assert reads == option.lower().endswith(("=no", "=false"))
    text = f"while read h; do ssh {option} h uptime; done < hosts\n"
    assert bool(kit.findings_selected(text, "HL105")) == reads


# -- spans and messages --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reported"),
    [
        ("while sleep 1; do ssh h uptime; done\n", False),  # the condition reads nothing
        ("while true; do ssh h uptime; done < hosts\n", False),
        ("while read -r h; do ssh h uptime; done < hosts\n", True),
        ("while read x < file; do ssh h uptime; done\n", False),  # read has its own stdin
        ("while read x 2>/dev/null; do ssh h uptime; done < hosts\n", True),
    ],
)
def test_hl105_only_loops_whose_condition_reads_stdin(text: str, reported: bool) -> None:
    found = kit.findings(text, "HL105", every_rule=True)
    assert [(f.start, f.end) for f in found] == (
        [kit.occurrence_span(text, "ssh")] if reported else []
    )
