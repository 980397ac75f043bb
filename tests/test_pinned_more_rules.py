"""More pinned behaviours of the rules: exact spans, counts and messages, checked against
bash, grep -E (the ERE of pkill's regcomp) or the loopback sshd of tests/sshd.py.

Each test kills a mutant that survived `bench/mutation.py` (issue 20, bench/MUTATION.md,
run 3).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from heredoc_lint.engine import Settings, check_shell, fix_shell
from heredoc_lint.model import Finding, Severity


def _findings(text: str, code: str) -> list[Finding]:
    return check_shell(text, "t.sh", Settings(select=frozenset({code})))


def _ere_matches(pattern: str, line: str, *, valid: bool = True) -> bool:
    """Whether the POSIX extended regex matches `line` (grep -E: glibc's regcomp, as pkill);
    a pattern regcomp rejects (exit 2) matches nothing: pkill only reports the error."""
    proc = subprocess.run(
        ["grep", "-qE", "--", pattern], input=line.encode(), timeout=30, check=False
    )
    assert proc.returncode in ((0, 1) if valid else (2,)), (pattern, proc.stderr)
    return proc.returncode == 0


# -- HL103: POSIX character classes in the pattern ----------------------------------------


@pytest.mark.parametrize(
    ("pattern", "after"),
    [
        ("echo[[:space:]]end", "echo end"),
        ("echo[[:blank:]]end", "echo end"),
        ("sleep [[:digit:]]", "sleep 0"),
        ("echo [[:alpha:]]nd", "echo end"),
        ("echo [[:alnum:]]nd", "echo end"),
        ("echo [[:lower:]]nd", "echo end"),
        ("echo [[:upper:]]ND", "echo END"),
        ("a[[:punct:]]b", "echo a.b"),
        ("echo [[:xdigit:]]nd", "echo end"),
        ("echo[[:digit:]]end", "echo end"),  # no digit there: no self-match
        ("echo [[:upper:]]nd", "echo end"),
        ("ech[[:nosuch:]]", "echo"),  # not a class: regcomp fails, pkill kills nothing
        ("echo [[:word:]]nd", "echo end"),  # Perl's and Python's, not POSIX: fails too
        ("echo[[:graph:]]end", "echo end"),
        ("echo[[:print:]]end", "echo end"),
        ("echo[[:cntrl:]]end", "echo end"),
    ],
)
def test_hl103_posix_classes_match_like_pkill(pattern: str, after: str) -> None:
    """`pkill -f 'echo[[:space:]]end'; echo end` matches its own shell's command line
    exactly when the ERE does: HL103 reports it then, at the `pkill` word, and only then."""
    text = f"ssh h 'pkill -f \"{pattern}\"; {after}'\n"
    own = f'bash -c pkill -f "{pattern}"; {after}'
    found = [(f.start, f.end) for f in _findings(text, "HL103")]
    invalid = ":nosuch:" in pattern or ":word:" in pattern
    matches = _ere_matches(pattern, own, valid=not invalid)
    assert found == ([(7, 12)] if matches else [])


# -- HL103: the split fix only where the ssh starts its statement --------------------------


def _run_with_fake_ssh(script: str, directory: Path) -> bytes:
    """stdout of `script` run by bash with an `ssh` that runs its remote command in a
    local bash where `pkill` only prints its arguments."""
    bindir = directory / "bin"
    bindir.mkdir(exist_ok=True)
    ssh = bindir / "ssh"
    ssh.write_text(
        '#!/bin/bash\nshift\nexec bash -c "pkill() { printf \'<%s>\' \\"\\$@\\"; echo; }; $*"\n'
    )
    ssh.chmod(0o755)
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=30,
        check=False,
    )
    return proc.stdout


@pytest.mark.parametrize(
    ("before", "runs"),
    [("", True), ("true && ", True), ("true || ", False), ("test -d /nonexistent && ", False)],
)
def test_hl103_split_fix_keeps_the_condition_of_the_ssh(
    before: str, runs: bool, tmp_path: Path
) -> None:
    """`sglang` stands in the string twice, so only moving the pkill into an ssh call of
    its own helps; behind `&&` or `||` that would run the rest unconditionally (or the
    pkill alone conditionally), so no fix is offered there."""
    text = f"{before}ssh h 'pkill -f sglang; echo sglang'\n"
    (finding,) = _findings(text, "HL103")
    assert (finding.start, finding.end) == (len(before) + 7, len(before) + 12)
    fixed = fix_shell(text, "t.sh", Settings(select=frozenset({"HL103"})), unsafe=True).text
    expected = b"<-f><sglang>\nsglang\n" if runs else b""
    assert _run_with_fake_ssh(text, tmp_path) == expected
    if before:
        assert fixed == text
    else:
        assert fixed == "ssh h 'pkill -f \\[s]glang'; ssh h 'echo sglang'\n"
        assert _run_with_fake_ssh(fixed, tmp_path) == b"<-f><[s]glang>\nsglang\n"


# -- HL103: a script file whose name the pattern matches -----------------------------------


def test_hl103_script_keeps_its_process_for_its_last_command(tmp_path: Path) -> None:
    """bash runs a script file in its own process to the end (no exec of the last command,
    unlike `bash -c`): `pgrep -f NAME` as the only command of NAME.sh finds that bash."""
    script = tmp_path / "hl103_selfmatch_probe.sh"
    text = "#!/bin/bash\npgrep -f hl103_selfmatch_probe\n"
    script.write_text(text)
    proc = subprocess.run(
        ["bash", str(script)], capture_output=True, timeout=30, check=False, text=True
    )
    assert proc.returncode == 0 and proc.stdout.strip(), "pgrep found its own bash"
    findings = check_shell(text, str(script), Settings(select=frozenset({"HL103"})))
    assert [(f.severity, f.start, f.end) for f in findings] == [(Severity.WARNING, 12, 17)]
    assert "always finds that shell" in findings[0].message


@pytest.mark.parametrize("flags", ["-f", "--full", "--exact -f", "-x -f", "-f --exact", "-xf"])
def test_hl103_exact_flag_agrees_with_pgrep(flags: str) -> None:
    """With `--exact` (`-x`) the pattern must match the whole command line, which its
    shell's never is: real pgrep, run by `bash -c` on the same string, decides."""
    remote = f"pgrep {flags} zq_hl103_exact_probe; echo $?"
    proc = subprocess.run(
        ["bash", "-c", remote], capture_output=True, text=True, timeout=30, check=False
    )
    matched_itself = proc.stdout.splitlines()[-1] == "0"
    assert matched_itself == ("x" not in flags)
    text = f"ssh h '{remote}'\n"
    found = [(f.start, f.end) for f in _findings(text, "HL103")]
    assert found == ([(7, 12)] if matched_itself else [])


@pytest.mark.parametrize("signal", ["-STOP", "-TTOU", "-9", "-KILL"])
def test_hl103_signal_names_take_no_argument(signal: str) -> None:
    """`-STOP` is a signal, not `-S -T -O -P` with `-P` taking the next word: real pkill
    with `-STOP -f` finds a process by its full command line (so `-f` was read as a
    flag), and HL103 reads the `-f` too."""
    sleeper = subprocess.Popen(["sleep", "30.4817"])
    try:
        proc = subprocess.run(
            ["pkill", signal, "-f", "^sleep 30[.]4817$"],
            capture_output=True,
            timeout=30,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr  # found by its argument: `-f` took effect
    finally:
        sleeper.kill()
        sleeper.wait()
    text = f"ssh h 'pkill {signal} -f sglang; echo'\n"
    found = [(f.start, f.end) for f in _findings(text, "HL103")]
    assert found == [(7, 12)]


@pytest.mark.parametrize(
    ("pattern", "fixed_pattern"),
    [
        ("[0-9]*sglang", "[0-9]*[s]glang"),  # the bracket expression is skipped whole
        ("[[:digit:]]*sglang", "[[:digit:]]*[s]glang"),
        ("\\.sglang", "\\.[s]glang"),
    ],
)
def test_hl103_bracket_fix_matches_the_same_processes(
    pattern: str, fixed_pattern: str, tmp_path: Path
) -> None:
    """The bracketed pattern the remote pkill receives matches (grep -E) the same command
    lines as the original, and no longer the command line of its own shell."""
    text = f"ssh h 'pkill -f \"{pattern}\"; echo'\n"
    fixed = fix_shell(text, "t.sh", Settings(select=frozenset({"HL103"})), unsafe=True).text
    assert fixed == f"ssh h 'pkill -f \"{fixed_pattern}\"; echo'\n"
    received = _run_with_fake_ssh(fixed, tmp_path).decode()
    assert received == f"<-f><{fixed_pattern}>\n\n"
    for line in ("python -m sglang", "x5sglang", "run .sglang", "pylang", "sglan g", "other"):
        assert _ere_matches(fixed_pattern, line) == _ere_matches(pattern, line), line
    assert _ere_matches(pattern, f'bash -c pkill -f "{pattern}"; echo')
    assert not _ere_matches(fixed_pattern, f'bash -c pkill -f "{fixed_pattern}"; echo')


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
    (finding,) = _findings(text, "HL102")
    assert (finding.severity, finding.start, finding.end) == (Severity.ERROR, start, start + 2)
    assert finding.message.startswith(f"`$x` is expanded by the local shell {when}, ")
    local = text.replace("ssh h ", "bash -c ").replace("sudo ", "")
    proc = subprocess.run(
        ["bash", "-c", local], capture_output=True, text=True, timeout=30, check=False
    )
    assert proc.stdout == "\n"  # the local, empty value; the inner `x=1` came too late
