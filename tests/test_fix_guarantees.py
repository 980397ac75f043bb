"""The guarantees of `--fix`, checked on the real cases and the real CLI.

* fixing twice changes nothing the second time;
* a re-check of a fixed file has no finding that the fix was for;
* `--diff` writes nothing (bytes and mode), exits 1 and prints a diff that, applied,
  gives what `--fix` gives;
* seed 000 fixed with plain `--fix` delivers `$1`/`$2` literally and its pgrep no longer
  sees its own remote shell (through the real sshd);
* the writer keeps CRLF, a missing final newline, the mode and owner, and the encoding;
  a read-only directory or file gets a one-line error while the other files of the same
  run are fixed; a file that does not parse is never rewritten.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from sshd import SshServer, run_local
from test_fix_e2e import (
    CASES,
    MATRIX,
    PGREP,
    SEED000_INTENDED,
    STRATEGIES,
    adapt,
    checked_root,
    heredoc_lint,
    my_remote_shell_lines,
)

from heredoc_lint.engine import Settings, check_shell, fix_shell
from heredoc_lint.fixes.fixer import applicable

MATRIX_IDS = [f"{c}-{s}-{p.split()[0]}" for c, s, p in MATRIX]


CACHE_DIR = ".heredoc_lint_cache"  # the findings cache (like .ruff_cache), in the cwd


def snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every file below `directory` but the findings cache: content and mode."""
    return {
        str(p.relative_to(directory)): (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
        for p in sorted(directory.rglob("*"))
        if p.is_file() and CACHE_DIR not in p.relative_to(directory).parts
    }


def write_case(tmp_path: Path, name: str, standin: str = PGREP) -> tuple[Path, str]:
    root = checked_root(tmp_path)
    case = adapt(name, root / "remote", "root", standin)
    local = root / "local"
    local.mkdir()
    script = local / f"{name}.sh"
    script.write_text(case.text)
    return script, case.text


# --- fixing twice; re-check -----------------------------------------------------------------


@pytest.mark.parametrize(("name", "strategy", "standin"), MATRIX, ids=MATRIX_IDS)
def test_second_fix_changes_nothing_and_recheck_is_clean(
    tmp_path: Path, name: str, strategy: str, standin: str
) -> None:
    script, text = write_case(tmp_path, name, standin)
    settings = Settings(fix_strategy=strategy)
    before = check_shell(text, str(script), settings)
    fixed_for = {f.code for f in before if applicable(f.fix, unsafe=False)}
    assert {"HL101"} <= fixed_for <= {"HL101", "HL102", "HL103"}, before

    first = heredoc_lint("--fix", "--fix-strategy", strategy, script.name, cwd=script.parent)
    assert first.returncode == 0, first.stdout + first.stderr
    fixed = script.read_text()
    assert fixed != text
    after_first = snapshot(script.parent)

    # Re-check: nothing the fix was for is left (nor anything else, for these cases).
    findings = check_shell(fixed, str(script), settings)
    assert [f for f in findings if f.code in fixed_for] == [], findings
    assert findings == [], findings

    # In process: a second fix finds nothing to do.
    outcome = fix_shell(fixed, str(script), settings)
    assert (outcome.text, outcome.fixed, outcome.error) == (fixed, 0, None)
    assert outcome.new_files == ()

    # And through the CLI: same bytes, same side files.
    second = heredoc_lint("--fix", "--fix-strategy", strategy, script.name, cwd=script.parent)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Fixed 0 findings" in second.stdout
    assert snapshot(script.parent) == after_first


# --- --diff -------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("name", CASES)
def test_diff_writes_nothing_and_exits_1(tmp_path: Path, name: str, strategy: str) -> None:
    script, text = write_case(tmp_path, name)
    script.chmod(0o640)
    before = snapshot(script.parent)
    stat_before = script.stat()

    proc = heredoc_lint("--diff", "--fix-strategy", strategy, script.name, cwd=script.parent)

    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.startswith(f"--- a/{script.name}\n+++ b/{script.name}\n@@ "), proc.stdout
    assert snapshot(script.parent) == before  # bytes and mode; no `.d` file either
    assert script.read_text() == text
    assert script.stat().st_ino == stat_before.st_ino  # not even replaced by a copy


def test_diff_of_clean_file_is_empty(tmp_path: Path) -> None:
    script = tmp_path / "clean.sh"
    script.write_text("#!/bin/bash\nssh h 'cat > /tmp/x' < local.txt\n")
    proc = heredoc_lint("--diff", script.name, cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "")


@pytest.mark.parametrize(
    "strategy",
    [
        "base64",
        pytest.param("scp"),
        "stdin",
    ],
)
def test_diff_applied_gives_what_fix_gives(tmp_path: Path, strategy: str) -> None:
    if shutil.which("patch") is None:
        pytest.skip("needs patch(1)")
    fixed_dir, patched_dir = tmp_path / "fixed", tmp_path / "patched"
    for directory in (fixed_dir, patched_dir):
        directory.mkdir()
        case = adapt("write_cron", tmp_path / "remote", "root")
        (directory / "write_cron.sh").write_text(case.text)

    assert (
        heredoc_lint("--fix", "--fix-strategy", strategy, "write_cron.sh", cwd=fixed_dir).returncode
        == 0
    )
    diff = heredoc_lint("--diff", "--fix-strategy", strategy, "write_cron.sh", cwd=patched_dir)
    assert diff.returncode == 1
    subprocess.run(
        ["patch", "-s", "-p1"],
        input=diff.stdout,
        text=True,
        cwd=patched_dir,
        check=True,
        capture_output=True,
    )

    assert snapshot(patched_dir) == snapshot(fixed_dir)


# --- seed 000 with plain --fix, through the real sshd ---------------------------------------


def test_seed000_fixed_delivers_literal_args_and_no_self_match(
    sshd: SshServer, tmp_path: Path
) -> None:
    root = checked_root(tmp_path)
    case = adapt("seed000", root / "remote", sshd.user, PGREP)
    case.prepare()
    script = root / "seed000.sh"
    script.write_text(case.text)

    # Control: the original lists its own remote shell and loses $1/$2.
    original = run_local(script, sshd)
    assert original.returncode == 0, original.stderr
    [line] = my_remote_shell_lines(original.stdout, root)
    assert line.split(" ", 1)[1].startswith("bash -c pgrep -af sglang 2>/dev/null; sleep 2; ")
    assert b"CUDA_VISIBLE_DEVICES=$1" not in case.remote.read_bytes()
    case.remote.unlink()

    lint = heredoc_lint("--fix", str(script), cwd=root)  # the default strategy

    assert lint.returncode == 0, lint.stdout + lint.stderr
    fixed = script.read_text()
    assert "pgrep -af sglang" not in fixed  # the pattern no longer matches its own text
    proc = run_local(script, sshd)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1:] == ["ok"], proc.stdout
    delivered = case.remote.read_bytes()
    assert delivered == SEED000_INTENDED
    assert b"export CUDA_VISIBLE_DEVICES=$1\n" in delivered
    assert b"  --port $2\n" in delivered
    assert stat.S_IMODE(case.remote.stat().st_mode) & 0o111  # chmod +x ran
    # pgrep ran on the remote side and did not list the shell running it. (The local ssh
    # client's argv may hold the same text on this shared host; only the remote shell's
    # line counts, as in test_runtime_seeds.py.)
    assert my_remote_shell_lines(proc.stdout, root) == [], proc.stdout
    assert not [
        line
        for line in proc.stdout.splitlines()
        if re.match(r"^\d+ \S*sh -c pgrep -af ", line) and str(root) in line
    ]


# --- writer: line ends ----------------------------------------------------------------------

CRLF_CASE = (
    "#!/bin/bash\r\n"
    "# deploy the config\r\n"
    "ssh {user}@crlf-host \"cat > {remote} << 'EOF'\r\n"
    "key=\\$HOME value=$1 it's\r\n"
    "EOF\r\n"
    'echo written"\r\n'
    "echo after\r\n"
)
# In a CRLF file every line the remote shell reads ends in `\r`, the body's included; the
# delimiter word and the terminator line both end in `\r`, so the heredoc terminates.
CRLF_INTENDED = b"key=$HOME value=$1 it's\r\n"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_crlf_file_keeps_crlf_and_works(sshd: SshServer, tmp_path: Path, strategy: str) -> None:
    root = checked_root(tmp_path)
    remote = root / "remote" / "crlf.conf"
    remote.parent.mkdir()
    text = CRLF_CASE.format(user=sshd.user, remote=remote)
    script = root / "crlf.sh"
    script.write_bytes(text.encode())
    original = run_local(script, sshd)
    assert original.returncode == 0, original.stderr
    assert remote.read_bytes() == b"key=$HOME value= it's\r\n"  # $1 expanded locally
    remote.unlink()

    lint = heredoc_lint("--fix", "--fix-strategy", strategy, script.name, cwd=root)

    fixed = script.read_bytes()
    assert fixed != text.encode(), lint.stdout + lint.stderr
    # The lines the fix does not touch keep their CRLF.
    assert fixed.startswith(b"#!/bin/bash\r\n# deploy the config\r\n"), fixed
    assert fixed.endswith(b"\r\necho after\r\n"), fixed
    # Every line of the fixed file still ends in CRLF, those inside the fixed string too
    # (the `\r` the delimiter word held stays, in a comment: issue 18 item 13).
    assert re.search(rb"(?<!\r)\n", fixed) is None, fixed
    proc = run_local(script, sshd)
    assert proc.returncode == 0, (proc.stderr, fixed)
    assert remote.read_bytes() == CRLF_INTENDED, fixed
    # (run_local reads stdout as text: universal newlines turn the echoed `\r\n` into `\n`)
    assert proc.stdout == "written\nafter\n", (proc.stdout, fixed)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_stdin_fix_in_file_with_one_crlf_line(sshd: SshServer, tmp_path: Path) -> None:
    root = checked_root(tmp_path)
    remote = root / "remote" / "mixed.txt"
    remote.parent.mkdir()
    script = root / "mixed.sh"
    script.write_bytes(
        (
            f"#!/bin/bash\n# saved once on windows\r\n"
            f"ssh {sshd.user}@mixed-host \"cat > {remote} << 'EOF'\nline1 $1\nline2\nEOF\n"
            'echo written"\necho after\n'
        ).encode()
    )

    lint = heredoc_lint("--fix", "--fix-strategy", "stdin", script.name, cwd=root)

    proc = run_local(script, sshd)
    assert remote.read_bytes() == b"line1 $1\nline2\n", script.read_bytes()
    assert proc.stdout == "written\nafter\n"
    assert lint.returncode == 0, lint.stdout + lint.stderr


NO_EOL_CASE = """\
#!/bin/bash
ssh {user}@noeol-host "cat > {remote} << 'EOF'
no final newline in the script, \\$1 and $2
EOF
echo written"
echo done"""
NO_EOL_INTENDED = b"no final newline in the script, $1 and $2\n"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_missing_final_newline_is_kept(sshd: SshServer, tmp_path: Path, strategy: str) -> None:
    root = checked_root(tmp_path)
    remote = root / "remote" / "noeol.txt"
    remote.parent.mkdir()
    script = root / "noeol.sh"
    script.write_text(NO_EOL_CASE.format(user=sshd.user, remote=remote))

    lint = heredoc_lint("--fix", "--fix-strategy", strategy, script.name, cwd=root)

    assert lint.returncode == 0, lint.stdout + lint.stderr
    fixed = script.read_bytes()
    assert fixed.endswith(b"\necho done"), fixed
    proc = run_local(script, sshd)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "written\ndone\n"
    assert remote.read_bytes() == NO_EOL_INTENDED


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_missing_final_newline_after_the_ssh_line(
    sshd: SshServer, tmp_path: Path, strategy: str
) -> None:
    """The ssh command is the last line, without a newline: base64 and scp keep that; stdin
    declines (it needs a line after the ssh command for the body) and leaves the file."""
    root = checked_root(tmp_path)
    remote = root / "remote" / "noeol.txt"
    remote.parent.mkdir()
    text = NO_EOL_CASE.format(user=sshd.user, remote=remote).removesuffix("\necho done")
    script = root / "noeol.sh"
    script.write_text(text)

    lint = heredoc_lint("--fix", "--fix-strategy", strategy, script.name, cwd=root)

    fixed = script.read_text()
    if strategy == "stdin":
        assert lint.returncode == 1 and fixed == text
        return
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert fixed != text and not fixed.endswith("\n"), fixed
    proc = run_local(script, sshd)
    assert (proc.returncode, proc.stdout) == (0, "written\n"), proc.stderr
    assert remote.read_bytes() == NO_EOL_INTENDED


# --- writer: mode, owner --------------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o755, 0o600, 0o741])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_mode_and_owner_are_kept(tmp_path: Path, strategy: str, mode: int) -> None:
    script, text = write_case(tmp_path, "write_cron")
    script.chmod(mode)
    owner = (65534, 65534) if os.geteuid() == 0 else (os.getuid(), os.getgid())
    if os.geteuid() == 0:
        os.chown(script, *owner)

    inode = script.stat().st_ino

    lint = heredoc_lint("--fix", "--fix-strategy", strategy, script.name, cwd=script.parent)

    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert script.read_text() != text
    info = script.stat()
    assert info.st_ino != inode  # replaced by a rename, never rewritten in place
    assert stat.S_IMODE(info.st_mode) == mode
    assert (info.st_uid, info.st_gid) == owner
    leftovers = [
        p.name for p in script.parent.iterdir() if p.name.startswith(".") and p.name != CACHE_DIR
    ]
    assert leftovers == [], leftovers  # no temp file left behind


def test_fix_through_a_symlink_fixes_the_target(tmp_path: Path) -> None:
    case = adapt("write_cron", tmp_path / "remote", "root")
    real = tmp_path / "real.sh"
    real.write_text(case.text)
    link = tmp_path / "link.sh"
    link.symlink_to("real.sh")

    lint = heredoc_lint("--fix", "link.sh", cwd=tmp_path)

    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert link.is_symlink() and os.readlink(link) == "real.sh"
    assert real.read_text() != case.text


# --- writer: encoding -----------------------------------------------------------------------

LATIN1_CASE = (
    b"#!/bin/bash\n"
    b"# caf\xe9: configuration \xe0 d\xe9ployer\n"
    b"ssh USER@latin-host \"cat > REMOTE << 'EOF'\n"
    b"na\xefve \\$x d\xe9j\xe0 vu\n"
    b"EOF\n"
    b'echo ok"\n'
    b"echo fin\n"
)
LATIN1_INTENDED = b"na\xefve $x d\xe9j\xe0 vu\n"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_latin1_file_keeps_its_encoding_and_body_bytes(
    sshd: SshServer, tmp_path: Path, strategy: str
) -> None:
    root = checked_root(tmp_path)
    remote = root / "remote" / "latin.txt"
    remote.parent.mkdir()
    data = LATIN1_CASE.replace(b"USER", sshd.user.encode()).replace(b"REMOTE", bytes(remote))
    script = root / "latin.sh"
    script.write_bytes(data)
    # Control: the original already delivers the body's Latin-1 bytes.
    original = run_local(script, sshd)
    assert (original.returncode, original.stdout) == (0, "ok\nfin\n"), original.stderr
    assert remote.read_bytes() == LATIN1_INTENDED
    remote.unlink()

    lint = heredoc_lint("--fix", "--fix-strategy", strategy, script.name, cwd=root)

    assert lint.returncode == 0, lint.stdout + lint.stderr
    fixed = script.read_bytes()
    assert fixed != data
    # Still Latin-1: the untouched lines are the same bytes, and nothing became UTF-8.
    assert fixed.startswith(b"#!/bin/bash\n# caf\xe9: configuration \xe0 d\xe9ployer\n")
    assert fixed.endswith(b"\necho fin\n")
    assert b"\xc3" not in fixed
    proc = run_local(script, sshd)
    assert (proc.returncode, proc.stdout) == (0, "ok\nfin\n"), proc.stderr
    assert remote.read_bytes() == LATIN1_INTENDED


# --- writer: read-only directory or file ----------------------------------------------------


def without_root_powers() -> tuple[str, ...]:
    """A command prefix under which permissions apply: root keeps CAP_DAC_OVERRIDE and
    writes anywhere, so drop it (and DAC_READ_SEARCH) from the bounding set."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("as root, needs setpriv(1) to drop CAP_DAC_OVERRIDE")
    return (setpriv, "--bounding-set=-dac_override,-dac_read_search", "--")


@pytest.mark.parametrize(
    "strategy",
    [
        "base64",
        pytest.param("scp"),
        "stdin",
    ],
)
def test_read_only_directory_one_line_error_others_fixed(tmp_path: Path, strategy: str) -> None:
    prefix = without_root_powers()
    case = adapt("write_cron", tmp_path / "remote", "root")
    locked, free = tmp_path / "locked", tmp_path / "free"
    for directory in (locked, free):
        directory.mkdir()
        (directory / "a.sh").write_text(case.text)
    (free / "b.sh").write_text(case.text)
    locked.chmod(0o555)
    try:
        proc = heredoc_lint(
            "--fix",
            "--fix-strategy",
            strategy,
            "locked/a.sh",
            "free/a.sh",
            "free/b.sh",
            cwd=tmp_path,
            prefix=prefix,
        )
        locked_after = snapshot(locked)
    finally:
        locked.chmod(0o755)

    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert locked_after == {"a.sh": (case.text.encode(), 0o644)}  # untouched, no `.d`
    errors = [line for line in proc.stderr.splitlines() if "locked/a.sh" in line]
    assert len(errors) == 1 and "Permission denied" in errors[0], proc.stderr
    assert "Traceback" not in proc.stderr
    for name in ("a.sh", "b.sh"):
        assert (free / name).read_text() != case.text, name
        assert check_shell((free / name).read_text(), name) == []
    assert "internal error" not in errors[0], errors[0]


def test_read_only_file_one_line_error_others_fixed(tmp_path: Path) -> None:
    prefix = without_root_powers()
    case = adapt("write_cron", tmp_path / "remote", "root")
    (tmp_path / "ro.sh").write_text(case.text)
    (tmp_path / "rw.sh").write_text(case.text)
    (tmp_path / "ro.sh").chmod(0o444)

    proc = heredoc_lint("--fix", "ro.sh", "rw.sh", cwd=tmp_path, prefix=prefix)

    assert (tmp_path / "rw.sh").read_text() != case.text
    assert (tmp_path / "ro.sh").read_text() == case.text
    assert proc.returncode == 2
    assert len([line for line in proc.stderr.splitlines() if "ro.sh" in line]) == 1


# --- a file that does not parse is never rewritten ------------------------------------------

STRAY_KEYWORD_BUG = (
    "BUG: a closing reserved word with nothing to close (`done`, `fi`, `esac`, `}`, `then` "
    'alone on a line) is a syntax error for bash (`bash -n`: "syntax error near unexpected '
    'token") but tree-sitter-bash parses it as a plain command named `done`: no HL001, and '
    "--fix rewrites the file"
)


@pytest.mark.parametrize(
    "tail",
    [
        "echo $((1 +\n",
        "echo )\n",
        "echo a |\n",
        "for x in; do\n",
        "echo ${x\n",
        "echo 'open\n",
        *[
            pytest.param(f"{word}\n", id=f"stray-{word}")
            for word in ("done", "fi", "esac", "}", "then")
        ],
        pytest.param("if true; then\n  echo x\n", id="if-without-fi"),
        pytest.param("case $1 in\n", id="case-without-esac"),
        pytest.param('echo "unterminated\n', id="unterminated-quote"),
        pytest.param("f() {\n  echo x\n", id="function-without-brace"),
    ],
)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_unparsable_file_is_never_rewritten(tmp_path: Path, strategy: str, tail: str) -> None:
    case = adapt("write_cron", tmp_path / "remote", "root")
    text = case.text + tail
    script = tmp_path / "broken.sh"
    script.write_text(text)
    # Control: bash itself rejects the file.
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 2

    proc = heredoc_lint("--fix", "--fix-strategy", strategy, script.name, cwd=tmp_path)

    assert script.read_text() == text
    assert not (tmp_path / "broken.sh.d").exists()
    assert "does not parse" in proc.stderr, proc.stdout + proc.stderr
    assert proc.returncode != 0
