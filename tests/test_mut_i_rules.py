"""Pinned behaviours of the rules found by the mutation run of issue 20 (run 7, seed 41,
bench/mutation_runs/run7-h20r.md).

Each test kills a mutant that `bench/mutation.py` left alive: it was planted in a scratch
copy of the tree, the test failed there, and it passes without.  Claims about what a
shell does are checked against real bash.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import rulekit as kit
from sshd import SshServer

from heredoc_lint.engine import check_shell, check_text, fix_shell
from heredoc_lint.model import Finding
from heredoc_lint.settings import Settings

BASH = shutil.which("bash") or "/bin/bash"


def _found(text: str, code: str) -> list[Finding]:
    return [f for f in check_shell(text, "t.sh") if f.code == code]


def _bash(script: str, path: str = "/usr/bin:/bin") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", script],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": path, "LC_ALL": "C"},
        check=False,
    )


# -- HL110: an assignment glued to a quoted or escaped part is still a bare assignment -------


def test_hl110_glued_assignment_alone_is_reported() -> None:
    """`ssh h 'A="x"\\x' && make`: the remote script is one assignment whose value is
    written in two pieces (a quoted part, then an escaped character).  tree-sitter-bash
    reads it as an assignment followed by an empty command; bash runs no command at all
    (with no PATH, nothing is "not found") and only sets `A`, so the remote shell exits
    with nothing but a lost variable and `make` runs here.  (Run 7: `continue` after a
    command with no words made `pass`, which dropped the finding.)"""
    for remote, value in (('A="x"\\x', "xx"), ("A=$x\\x", "x")):
        ran = _bash(f"x=; {remote}; declare -p A", path="/nonexistent")
        assert (ran.returncode, ran.stderr) == (0, "")
        assert ran.stdout == f'declare -- A="{value}"\n'
        text = f"ssh h '{remote}' && make\n"
        found = _found(text, "HL110")
        assert [(text[f.start : f.end], f.severity.value) for f in found] == [("&&", "error")]
        assert f"`{remote}` only changes the state of the remote shell on h" in found[0].message
        assert found[0].fix is not None
        assert [e.content for e in found[0].fix.edits] == [f"'{remote} && make'"]


# -- HL112: the line of a broken terminator is the line in the file --------------------------


def test_hl112_terminator_line_is_counted_in_the_file_not_in_the_ssh_string() -> None:
    """An ssh string that starts on line 2 of the file holds `cat <<EOF` and a terminator
    indented by two blanks.  The message names the terminator's line in the FILE (4,
    where the user finds it), while bash's own warning, quoted in the message, counts
    lines of the remote script (1: checked by running the string's text in bash, whose
    `echo next` then never runs).  (Run 7: the file's count and the string's count
    swapped in `_line_number`.)"""
    script = "cat <<EOF\nhi\n  EOF\necho next\n"
    ran = _bash(script)
    assert "here-document at line 1 delimited by end-of-file" in ran.stderr
    assert ran.stdout == "hi\n  EOF\necho next\n"
    text = f"echo start\nssh h '{script}'\n"
    assert text.split("\n")[3] == "  EOF"
    found = _found(text, "HL112")
    assert [(text[f.start : f.end], f.severity.value) for f in found] == [("<<", "error")]
    assert "line 4 `  EOF` is indented; without <<- the terminator must start" in (found[0].message)
    assert '"warning: here-document at line 1 delimited by end-of-file"' in found[0].message


def test_hl112_swallowed_heredoc_names_the_file_line_of_the_outer_one() -> None:
    """Two heredocs in an ssh string on line 2: `<<A`'s terminator has `)` after it, so
    bash reads `cat <<B` and its body as `<<A`'s text; `<<B`'s own terminator is indented
    too.  The second finding names `<<A` by its line in the file (2) and its own
    terminator by the file's line 7, and quotes bash's warning for `<<B` with the line bash
    gives once `<<A` is mended (4, a line of the string).  (Run 7: hl112:246, the count of
    that line from `-1`, was in the sample too.)"""
    script = "cat <<A\nx\nA)\n cat <<B\ny\n B\n"
    ran = _bash(script)
    assert "here-document at line 1 delimited by end-of-file" in ran.stderr
    assert ran.stdout == "x\nA)\n cat <<B\ny\n B\n"
    text = f"echo start\nssh h '{script}'\n"
    lines = text.split("\n")
    assert (lines[1][7:], lines[6]) == ("cat <<A", " B")
    found = _found(text, "HL112")
    assert [text[f.start : f.end] for f in found] == ["<<", "<<"]
    assert "line 4 `A)` has `)` after the delimiter" in found[0].message
    assert "inside the text that `<<A` of line 2 swallows" in found[1].message
    assert "line 7 ` B` is indented" in found[1].message
    # bash's own warning for `<<B` once `A)` is mended counts the string's lines: 4.
    mended = _bash(script.replace("A)", "A"))
    assert "here-document at line 4 delimited by end-of-file (wanted `B')" in mended.stderr
    assert '"warning: here-document at line 4 delimited by end-of-file"' in found[1].message


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

_WORKFLOW = """\
on: push
jobs:
  notes:
    runs-on: ubuntu-latest
    steps:
      - run: |
          cat > notes.txt <<EOF
          ${{ github.event.head_commit.message }}
          EOF
          ssh h cd /srv && make
"""


def test_hl202_leaves_a_workflow_expression_in_a_heredoc_body_to_others() -> None:
    """A GitHub Actions `run:` block whose heredoc body holds `${{ ... }}`: the frontend
    marks the expression as a value known only at run time, as the Python frontend marks
    an f-string's `{...}`, but HL202 names and fixes Python values only, so with every rule
    run on every layer (no prefilter) it says nothing there and the block's other finding
    (HL110 on `&&`) is still made.  (Run 7: `return` when the layer has no Python fragment
    made `pass`: HL202 unpacked None and the check crashed.)"""
    for settings in (Settings(prefilter=False), Settings()):
        found = check_text(_WORKFLOW, "actions", ".github/workflows/notes.yml", settings)
        assert [(f.code, _WORKFLOW[f.start : f.end], f.severity.value) for f in found] == [
            ("HL110", "&&", "error")
        ]
        assert "`cd /srv` only changes the state of the remote shell on h" in found[0].message


def test_hl001_syntax_errors_name_the_python_string_and_the_argv_string() -> None:
    """`if then` is a syntax error for bash too: an error in a string a shell is handed
    (the Python string and the argv's `bash -c` one), each named as what it is.  (Run 7:
    HL001's own `depth == 0 and kind == "python"` test made `depth != 0` named the argv's
    `bash -c` string `This shell command string`.)"""
    ran = _bash("ssh h uptime; if then")
    assert ran.returncode == 2 and "syntax error" in ran.stderr
    text = (
        "import subprocess\n"
        'subprocess.run("ssh h uptime; if then", shell=True)\n'
        'subprocess.run(["bash", "-c", "ssh h uptime; if then"])\n'
    )
    found = [f for f in check_text(text, "python", "t.py") if f.code == "HL001"]
    assert [(f.severity.value, f.message.split(" does not parse")[0]) for f in found] == [
        ("error", "This shell command string"),
        ("error", "The bash -c command string"),
    ]


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
    found = _found(_FORWARDED, "HL105")
    assert [(_FORWARDED[f.start : f.end], f.severity.value, f.fix) for f in found] == [
        ("remote", "warning", None)
    ]
    assert found[0].message.endswith(
        "use `ssh -n` in the function `remote` (or `remote ... < /dev/null`)"
    )
    cured = _FORWARDED.replace('"echo ran on $node"\n', '"echo ran on $node" < /dev/null\n')
    after = kit.run_ok(cured, sshd, cwd=tmp_path)
    assert after.stdout.splitlines() == ["ran on node-a", "ran on node-b", "ran on node-c"]
    assert _found(cured, "HL105") == []


# -- HL108: `-p2022` and `-p 2022` fail in two different ways --------------------------------


def test_hl108_attached_digits_are_an_unknown_option_not_a_source_file(tmp_path: Path) -> None:
    """`scp -p2022 f h:/b`: scp reads the digits as more flags and stops with `unknown
    option` before it connects (checked with the real scp: exit 1, nothing copied).  HL108
    says that, not the story of `-p 2022`, where `2022` becomes a source file.  (Run 7:
    the attached message's `return` made `pass` gave both the detached one.)"""
    (tmp_path / "f").write_text("x\n")
    ran = subprocess.run(
        ["scp", "-p2022", "f", "nohost.invalid:/tmp/b"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=30,
        check=False,
    )
    assert ran.returncode == 1 and "unknown option" in ran.stderr
    text = "scp -p2022 f h:/b\nscp -p 2022 f h:/b\n"
    found = _found(text, "HL108")
    assert [text[f.start : f.end] for f in found] == ["-p", "-p"]
    assert found[0].message == (
        "`scp -p2022`: scp's `-p` preserves times and takes no port, so it reads the digits "
        "as more single-letter flags and exits with `unknown option`; the port flag of scp "
        "is `-P` (`-P2022`)"
    )
    assert found[1].message.startswith(
        "`scp -p 2022`: scp's `-p` preserves times and takes no port, so `2022` becomes a "
        'source file (`stat local "2022": No such file or directory`)'
    )


# -- HL109: `yes` needs no privilege, so `sudo -u USER yes > F` was meant for the write -------


def test_hl109_sudo_before_a_command_that_needs_no_privilege_is_for_the_write() -> None:
    """`sudo -u deploy yes n > /srv/app/answers`: `yes`, like `echo` and `printf`, needs no
    privilege, so `sudo -u deploy` can only have been meant for the file, which the
    calling shell opens: reported, and the safe fix moves the write into `sudo -u deploy
    tee`.  `sudo -u deploy cat a > F` is a command run as another user, whose output the
    caller keeps: not reported.  (Run 7: `'yes'` cut to `'es'` in the set of commands
    that need no privilege.)"""
    for name in ("yes n", "echo n", "printf n"):
        line = f"sudo -u deploy {name} > /srv/app/answers\n"
        text = line + "sudo -u deploy cat a > /srv/app/x\n"
        found = _found(text, "HL109")
        assert [(text[f.start : f.end], f.severity.value) for f in found] == [(">", "error")]
        assert f"only `{name.split()[0]}` runs as deploy" in found[0].message
        fixed = fix_shell(text, "t.sh")
        assert fixed.text == (
            f"{name} | sudo -u deploy tee /srv/app/answers > /dev/null\n"
            "sudo -u deploy cat a > /srv/app/x\n"
        )
        assert _bash(f"set -n\n{fixed.text}").returncode == 0


# -- HL106: "(and N more)" only when there are more --------------------------------------------


def test_hl106_counts_the_other_split_words_only_when_there_are_some(
    sshd: SshServer, tmp_path: Path
) -> None:
    """`ssh h grep "a b" FILE`: the remote shell splits `a b` again (checked through the
    real sshd with `printf %s.`: two arguments arrive).  One such word: the message names
    it and says nothing of others; two: it adds `(and 1 more such word(s))`.  (Run 7:
    `len(problems) > 1` made `>= 1` added `(and 0 more such word(s))` to every finding.)"""
    ran = kit.run_ok('#!/bin/bash\nssh h printf %s. "a b"\n', sshd, cwd=tmp_path)
    assert ran.stdout == "a.b."
    one = 'ssh h grep "a b" /var/log/x\n'
    two = 'ssh h grep "a b" "/var/log/my file"\n'
    found = [_found(one, "HL106"), _found(two, "HL106")]
    assert [
        [(t[f.start : f.end], f.severity.value) for f in fs]
        for t, fs in zip((one, two), found, strict=True)
    ] == [
        [("ssh", "info")],
        [("ssh", "info")],
    ]
    said = "`a b` arrives as 2 separate arguments (`a`, `b`)"
    assert found[0][0].message == (
        "ssh joins the 3 words of the remote command with spaces and the remote shell splits "
        f"the string again: {said}; pass the remote command as one quoted string with each "
        "argument quoted for the remote shell"
    )
    assert f"{said} (and 1 more such word(s)); pass" in found[1][0].message


# -- HL112: a template's field is reported on its `<<` ------------------------------------------


def test_hl112_template_field_is_reported_on_its_two_angle_brackets() -> None:
    """`ssh <<HOST>> uptime` (a runbook's placeholder): bash reads `<<HOST` as a heredoc
    that is never terminated (checked: bash warns, wanting `HOST`).  HL112 says so at info,
    on the two characters of the `<<` of each field.  (Run 7: the span's `+ 2` made `+ 1`
    pointed at one `<`.)"""
    ran = _bash("set -n\nssh <<HOST>> uptime\n")
    assert "here-document at line 2 delimited by end-of-file (wanted `HOST')" in ran.stderr
    text = "ssh <<HOST>> uptime\nscp app.tar <<USER>>@<<HOST>>:/srv/\n"
    found = _found(text, "HL112")
    assert [(f.start, f.end, f.severity.value) for f in found] == [
        (4, 6, "info"),
        (32, 34, "info"),
        (41, 43, "info"),
    ]
    assert {text[f.start : f.end] for f in found} == {"<<"}
    assert [f.message.split("`")[1] for f in found] == ["<<HOST>>", "<<USER>>", "<<HOST>>"]


# -- HL110 names the host without its login user ------------------------------------------------


def test_hl110_names_the_host_without_the_login_user() -> None:
    """`ssh deploy@builder cd /src && make`: the message names the remote host, `builder`,
    not `deploy@builder`.  (Run 7: `rsplit("@", 1)` made `rsplit("@", 0)` kept the user.)"""
    text = "ssh deploy@builder cd /src && make\n"
    found = _found(text, "HL110")
    assert [(text[f.start : f.end], f.severity.value) for f in found] == [("&&", "error")]
    assert "only changes the state of the remote shell on builder, which exits" in (
        found[0].message
    )
    assert "deploy@" not in found[0].message


# -- HL103: a pattern that matches only a literal heredoc body gets no fix ------------------


def test_hl103_no_fix_when_only_the_literal_heredoc_body_matches() -> None:
    """`pkill -f "myjob|E[[:space:]]{9}"` in an ssh string whose `<<\\E` body is `myjob`:
    with the bracket (`[m]yjob`) the pattern still matches the shell's command line, but
    only in the body, which HL101's fix takes out of the string: HL103 reports the
    self-match and offers no fix of its own.  The body is blanked where it stands (one
    blank a character: 6, so `E` and the blanks after it stay under 9), before the bracket
    edit shifts the text: blanked after it, two characters too early, the body's last
    `b` was left beside the terminator, `b[[:space:]]E` matched there and a split fix
    was offered for a match that HL101's fix removes (a bug, fixed).  (Run 7: the blank
    count `body_end - body_start` made `body_end + body_start` let `E[[:space:]]{9}`
    match and offered a split fix.)"""
    for pattern in ("myjob|E[[:space:]]{9}", "myjob|b[[:space:]]E"):
        text = f"ssh h 'pkill -f \"{pattern}\"; cat <<\\E\nmyjob\nE\n'\n"
        found = [f for f in check_shell(text, "t.sh") if f.code in ("HL101", "HL103")]
        assert [(f.code, text[f.start : f.end], f.severity.value) for f in found] == [
            ("HL103", "pkill", "error"),
            ("HL101", "<<", "info"),
        ]
        assert found[0].fix is None
        assert found[1].fix is not None and found[1].fix.strategy == "base64"


# -- HL104 in a Python channel: the channel, not an ssh session, is held --------------------

_CHANNEL = """\
import paramiko

client = paramiko.SSHClient()
client.connect("h")
stdin, stdout, stderr = client.exec_command("nohup ./server &")
print(stdout.read())
stdin, stdout, stderr = client.exec_command("./worker &")
"""


def test_hl104_names_the_python_channel_that_a_background_job_holds() -> None:
    """paramiko's `exec_command("nohup ./server &")`: the job keeps the channel's stdout and
    stderr, and `stdout.read()` on line 6 waits for the channel to close: a warning that
    says so; the second call's output is never read: info.  (Run 7: the channel
    message's `held = ...` made `pass` left `held` unbound there: the check crashed.)"""
    found = [f for f in check_text(_CHANNEL, "python", "t.py") if f.code == "HL104"]
    assert [(_CHANNEL[f.start : f.end], f.severity.value) for f in found] == [
        ("nohup", "warning"),
        ("./worker", "info"),
    ]
    held = (
        "still has the channel of `exec_command` as its stdout and stderr: the remote shell "
        "exits, but the channel stays open until this job exits"
    )
    assert found[0].message.startswith(f"The background command `nohup ./server &` {held}")
    assert (
        "(`nohup` does not detach it from the session), and reading its output (line 6) "
        "waits for the channel to close" in found[0].message
    )
    assert f"{held}, and the file does not show that anything waits for it" in (found[1].message)


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
            [BASH, "--norc", "-c", f"echo from-stdin | {remote}"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            check=False,
        )
        assert "file-line" in ran.stdout and "from-stdin" not in ran.stdout
        text = f"while read -r h; do ssh $h '{remote}'; done < hosts\n"
        found = _found(text, "HL105")
        assert [(text[f.start : f.end], f.severity.value) for f in found] == [("ssh", "warning")]
        fix = found[0].fix
        assert fix is not None and fix.applicability.value == "safe"
        assert fix_shell(text, "t.sh").text == text.replace("ssh $h", "ssh -n $h")


def test_hl106_a_quoted_redirection_pair_is_passed_on_purpose(
    sshd: SshServer, tmp_path: Path
) -> None:
    """`ssh h CMD '> /dev/null 2>&1'`: a word holding only redirections, with a blank in
    it, is written for the remote shell (through the real sshd: the remote `echo`'s
    output goes to /dev/null there, nothing comes back): no HL106.  (Read ahead, run 7's
    sample: hl106:190, `" \\t"` cut to `"\\t"`, reported these.)"""
    ran = kit.run_ok("#!/bin/bash\nssh h echo hi '> /dev/null 2>&1'\nssh h echo hi\n", sshd)
    assert ran.stdout == "hi\n"
    for word in ("'> /dev/null 2>&1'", "'2>&1 >/dev/null'", "'>/dev/null 2>&1'"):
        assert _found(f"ssh h ./backup.sh {word}\n", "HL106") == []


# -- HL111: eval runs its string in the same shell: no escape-chain warning --------------------


def test_hl111_eval_string_with_an_escape_chain_is_not_reported() -> None:
    """`eval 'printf "%s\\n" '\\''a b'\\'''`: the `'\\''` chain carries a quote into a
    string that the same shell runs (bash prints `a b`); no other shell parses it, so
    HL111's escape-chain warning, meant for `ssh h '...'`, is not made; the same string
    given to ssh is.  (Read ahead, run 7's sample: hl111:108, `"eval"` cut to `"val"`,
    warned here.)"""
    script = "printf \"%s\\n\" '\\''a b'\\''"
    ran = _bash(f"eval '{script}'")
    assert (ran.returncode, ran.stdout) == (0, "a b\n")
    assert _found(f"eval '{script}'\n", "HL111") == []
    found = _found(f"ssh h '{script}'\n", "HL111")
    assert [(f.start, f.end, f.severity.value) for f in found] == [(0, 3, "warning")]
    assert "needs the `'\\''` escape chain" in found[0].message
