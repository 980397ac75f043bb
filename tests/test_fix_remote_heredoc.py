"""fixes/remote_heredoc.py: the fixes of a heredoc inside an ssh command string (the stdin,
base64 and scp strategies), checked by the text they write and the bytes they deliver."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest
from cli_process import run_cli
from rulekit import bash_at_home, delivered_bytes, fixed_without_error
from sshd import SshServer, run_local

from heredoc_lint.engine import Settings, check_shell, check_text, fix_shell
from heredoc_lint.model import NewFile

# -- the scp strategy: a place for the body beside a shell script --------------------------


_BODY = "#!/bin/bash\nssh h \"cat > /srv/app.conf << 'EOF'\nkey=1\nEOF\"\n"


def test_scp_fix_puts_the_body_beside_a_shell_script() -> None:
    """A shell script run as a file has a place for the body (`NAME.d/`): the scp fix
    is offered there; a command line (an agent's, no file of its own) has none."""
    outcome = fix_shell(_BODY, "deploy.sh", Settings(fix_strategy="scp"))
    assert (
        outcome.text == '#!/bin/bash\nscp "$(dirname "$0")/deploy.sh.d/app.conf" h:/srv/app.conf\n'
    )
    assert outcome.new_files == (NewFile("deploy.sh.d/app.conf", b"key=1\n", 0o644),)
    command = fix_shell(_BODY, "deploy.sh", Settings(fix_strategy="scp"), command=True)
    assert command.new_files == ()


def test_scp_fix_names_an_ssh_uri_host_as_an_scp_uri() -> None:
    """`ssh ssh://u@h:2222` copies to `scp://u@h:2222//PATH`: after the host's `/` the
    path is the home's and percent-decoded (tests/test_fix_e2e.py delivers it); with
    `-l` beside the URI, whose user wins is not written down: no scp fix."""
    text = "#!/bin/bash\nssh ssh://root@h:2222 \"cat > /srv/a%b.conf << 'EOF'\nx=\\$1\nEOF\"\n"
    outcome = fix_shell(text, "deploy.sh", Settings(fix_strategy="scp"))
    assert outcome.text == (
        '#!/bin/bash\nscp "$(dirname "$0")/deploy.sh.d/a%b.conf" scp://root@h:2222//srv/a%25b.conf\n'
    )
    with_user = text.replace("ssh://root@h", "-l root ssh://h")
    assert fix_shell(with_user, "deploy.sh", Settings(fix_strategy="scp")).text == with_user


# -- fixes/remote_heredoc.py: the stdin fix beside the script's other heredocs ---------------


STDIN = Settings(fix_strategy="stdin")


def test_stdin_fix_beside_a_heredoc_on_another_line(sshd: SshServer, tmp_path: Path) -> None:
    """A local heredoc on the lines before or after the ssh command is no obstacle: the
    body fed to ssh starts after the ssh command's own line."""
    local, remote = tmp_path / "local.txt", tmp_path / "remote.txt"
    ssh = f"ssh h \"cat > {remote} << 'EOF'\nhello\nEOF\"\n"
    fed = f"ssh h \"cat > {remote}\" <<'EOF'\nhello\nEOF\n"
    other = f"cat > {local} <<'X'\none\nX\n"
    for text, expected in ((other + ssh, other + fed), (ssh + other, fed + other)):
        (finding,) = [f for f in check_shell(text, "t.sh", STDIN) if f.code == "HL101"]
        assert finding.fix is not None and finding.fix.strategy == "stdin"
        outcome = fix_shell(text, "t.sh", STDIN)
        assert outcome.error is None and outcome.text == expected
        for script in (text, expected):
            assert delivered_bytes(script, sshd, (local, remote)) == [b"one\n", b"hello\n"]


def test_stdin_fix_declined_after_a_heredoc_on_the_same_line(
    sshd: SshServer, tmp_path: Path
) -> None:
    """`cat <<'X'; ssh h "..."`: X's body follows the line, so a body fed to ssh there
    would be read as X's; the fix declines and the text stays as it is."""
    local, remote = tmp_path / "local.txt", tmp_path / "remote.txt"
    text = f"cat > {local} <<'X'; ssh h \"cat > {remote} << 'EOF'\nhello\nEOF\"\none\nX\n"
    assert [f.fix for f in check_shell(text, "t.sh", STDIN) if f.code == "HL101"] == [None]
    outcome = fix_shell(text, "t.sh", STDIN)
    assert outcome.error is None and outcome.text == text
    assert delivered_bytes(text, sshd, (local, remote)) == [b"one\n", b"hello\n"]


# -- writer.py: the scp fix's new file, and nothing left beside the files -------------------


_SCP_SCRIPT = "#!/bin/bash\nssh h \"cat > {remote} << 'EOF'\nhello\nEOF\necho done\"\n"


_SCP_FIXED = '#!/bin/bash\nscp "$(dirname "$0")/push.sh.d/app.conf" h:{remote}; ssh h "echo done"\n'


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every entry under `root` (dot-files too): a file's bytes, None for a directory."""
    return {
        str(p.relative_to(root)): None if p.is_dir() else p.read_bytes()
        for p in sorted(root.rglob("*"))
    }


@pytest.mark.parametrize("existing", [None, b"hello\n"])
def test_scp_fix_writes_its_file_and_leaves_no_temp_file(
    sshd: SshServer, tmp_path: Path, existing: bytes | None
) -> None:
    """`--fix --fix-strategy scp` writes the body beside the script (a file already there
    with the same bytes is fine: a second run of the fix) and rewrites the script; the
    temp files of both writes are gone afterwards, and the fixed script delivers the body
    through the sshd."""
    work, remote = tmp_path / "work", tmp_path / "remote" / "app.conf"
    work.mkdir()
    remote.parent.mkdir()
    script = work / "push.sh"
    script.write_text(_SCP_SCRIPT.format(remote=remote))
    if existing is not None:
        (work / "push.sh.d").mkdir()
        (work / "push.sh.d" / "app.conf").write_bytes(existing)
    proc = run_cli(
        "--fix", "--severity", "info", "--fix-strategy", "scp", "--no-cache", str(script)
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    fixed = _SCP_FIXED.format(remote=remote).encode()
    assert _tree(work) == {"push.sh": fixed, "push.sh.d": None, "push.sh.d/app.conf": b"hello\n"}
    proc = run_local(script, sshd)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"
    assert remote.read_bytes() == b"hello\n"


def test_scp_fix_never_overwrites_another_file(tmp_path: Path) -> None:
    """A file with other bytes where the body would go: nothing is written, the script
    stays as it was, and the message says why."""
    script = tmp_path / "push.sh"
    text = _SCP_SCRIPT.format(remote="/srv/app.conf")
    script.write_text(text)
    (tmp_path / "push.sh.d").mkdir()
    (tmp_path / "push.sh.d" / "app.conf").write_bytes(b"other\n")
    proc = run_cli(
        "--fix", "--severity", "info", "--fix-strategy", "scp", "--no-cache", str(script)
    )
    assert proc.returncode == 2
    assert f"{tmp_path}/push.sh.d/app.conf: exists with other content; not overwritten" in (
        proc.stderr
    )
    assert "Traceback" not in proc.stderr
    assert _tree(tmp_path) == {
        "push.sh": text.encode(),
        "push.sh.d": None,
        "push.sh.d/app.conf": b"other\n",
    }


# -- fixes/remote_heredoc.py: the base64 fix needs the command's one heredoc ----------------


BASE64 = Settings(fix_strategy="base64")


@pytest.mark.parametrize(
    ("second", "delivered"),
    [
        ("<< 'B'", b"two\n"),  # cat reads the last heredoc on stdin
        ("3<< 'B'", b"one\n"),  # B is fd 3's: cat reads A
    ],
)
def test_base64_fix_declines_a_command_with_two_heredocs(
    sshd: SshServer, tmp_path: Path, second: str, delivered: bytes
) -> None:
    """`cat > P << 'A' << 'B'` in an ssh string: replacing `cat` by one body's base64
    would drop or double the other; neither heredoc gets the fix, the text stays, and
    what the remote side receives is what bash gives it."""
    target = tmp_path / "out.txt"
    text = f"ssh h \"cat > {target} << 'A' {second}\none\nA\ntwo\nB\n\"\n"
    hl101 = [f for f in check_shell(text, "t.sh", BASE64) if f.code == "HL101"]
    assert [f.fix for f in hl101] == [None, None]
    outcome = fix_shell(text, "t.sh", BASE64)
    assert outcome.error is None and outcome.text == text
    assert delivered_bytes(text, sshd, (target,)) == [delivered]


# -- fixes/remote_heredoc.py: the scp fix carries ssh's options over -------------------------


def test_scp_fix_carries_the_ssh_options(sshd: SshServer, tmp_path: Path) -> None:
    """`ssh -p PORT -C -l USER h "..."`: scp gets `-P PORT -C` and `USER@h` (scp spells
    the port `-P`, and has no `-l`); the remote file receives the body through the sshd
    (whose client config reaches it from any -p), and the command after it still runs."""
    work, remote = tmp_path / "work", tmp_path / "remote" / "app.conf"
    work.mkdir()
    remote.parent.mkdir()
    script = work / "push.sh"
    ssh = f"ssh -p 2222 -C -l {sshd.user} h"
    script.write_text(f"#!/bin/bash\n{ssh} \"cat > {remote} << 'EOF'\nhello\nEOF\necho done\"\n")
    proc = run_cli(
        "--fix", "--severity", "info", "--fix-strategy", "scp", "--no-cache", str(script)
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert script.read_text() == (
        f'#!/bin/bash\nscp -P 2222 -C "$(dirname "$0")/push.sh.d/app.conf" '
        f'{sshd.user}@h:{remote}; {ssh} "echo done"\n'
    )
    proc = run_local(script, sshd)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"
    assert remote.read_bytes() == b"hello\n"


# -- shell/syntax.py: a command in a pipeline is not split off by the scp fix -----------------


def test_the_scp_fix_leaves_a_heredoc_command_piped_from_the_line_before(tmp_path: Path) -> None:
    """`echo x |` on one line, `cat > /tmp/f <<'EOF'` on the next: one pipeline, so the
    scp fix (which cuts the ssh string around the heredoc's command) is not offered: the
    file is unchanged, nothing is written beside it, and no fix is reported as failed.
    (Run 7: the command did not say it was in a pipeline, and the fix cut `ssh h "echo x |"`
    off, which bash cannot parse.)"""
    text = "ssh h \"echo x |\ncat > /tmp/f <<'EOF'\nhello $USER\nEOF\necho done\"\n"
    bash = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True)
    assert bash.returncode == 0, bash.stderr
    script = tmp_path / "deploy.sh"
    script.write_text(text)
    done = run_cli(
        "--fix", "--unsafe-fixes", "--fix-strategy", "scp", "--no-cache", script, cwd=tmp_path
    )
    assert done.stderr == ""
    assert done.returncode == 1  # HL101 and HL102 stay
    assert script.read_text() == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deploy.sh"]


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
    assert bash_at_home(f'printf %s "{quoted}"', tmp_path).stdout == remote
    done = bash_at_home(remote, tmp_path)
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


# -- fixes/remote_heredoc.py: a heredoc across two ssh arguments -----------------------------


_SPLIT_ARGS = 'ssh h "cat > out <<\'EOF\'" "\nport=1\nEOF"\n'


def test_no_heredoc_fix_across_the_arguments_ssh_joins(tmp_path: Path) -> None:
    """`ssh h "cat > out <<'EOF'" "<newline>port=1<newline>EOF"`: ssh joins its arguments
    with a blank, so the remote shell reads one heredoc whose operator is in the first
    argument and whose body and terminator are in the second (bash shows it: run as ssh
    runs it, the joined command writes `port=1`).  Taking the heredoc out would have to
    edit both words at once: neither the base64 nor the stdin fix is offered, rather
    than a fix with that edit missing."""
    joined = bash_at_home(f'ssh() {{ shift; printf %s "$*"; }}\n{_SPLIT_ARGS}', tmp_path).stdout
    assert joined == "cat > out <<'EOF' \nport=1\nEOF"
    assert bash_at_home(joined, tmp_path).returncode == 0
    assert (tmp_path / "out").read_text() == "port=1\n"
    for strategy in ("base64", "stdin"):
        found = check_shell(_SPLIT_ARGS, "/tmp/push.sh", Settings(fix_strategy=strategy))
        assert [(f.code, f.fix) for f in found] == [("HL101", None)], strategy


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
        done = bash_at_home(_LOCAL_SSH + script, where)
        runs.append((done.stdout, (where / "out").read_bytes()))
    # (`done` and the `\r` the last line's word ends in: text mode reads `\r\n` as `\n`.)
    assert runs[0] == runs[1] == ("done\n", b"port=1\r\n")


# -- remote heredoc fixes ------------------------------------------------------------------


def _remote_bytes(script: str, server: SshServer, target: Path) -> bytes:
    """Run `script` locally (its ssh goes to the test sshd); the bytes it left in `target`."""
    target.unlink(missing_ok=True)
    proc = run_local(script, server)
    assert proc.returncode == 0, proc.stderr
    return target.read_bytes()


def test_unquoted_body_with_backslashes_keeps_its_bytes(sshd: SshServer, tmp_path: Path) -> None:
    """An unquoted heredoc body with `\\\\` is not literal: the remote shell turns `\\\\`
    into `\\`.  A fix that sent the body as written (base64) would deliver two backslashes."""
    target = tmp_path / "out.txt"
    # Layer 1 (the remote string) reads `a\\b`; the remote unquoted heredoc gives `a\b`.
    text = f'ssh h "cat > {target} << EOF\na\\\\\\\\b\nEOF"\n'
    original = _remote_bytes(text, sshd, target)
    assert original == b"a\\b\n"
    for settings in (BASE64, STDIN):
        fixed = fixed_without_error(text, settings)
        assert _remote_bytes(fixed, sshd, target) == original, fixed


def test_stdin_fix_picks_a_delimiter_absent_from_the_body(sshd: SshServer, tmp_path: Path) -> None:
    """The body holds a line `EOF`: the local heredoc must end at another delimiter."""
    target = tmp_path / "out.txt"
    body = "first\nEOF\nEOF_1\nlast\n"
    text = f"ssh h \"cat > {target} << 'END'\n{body}END\necho done\"\n"
    fixed = fixed_without_error(text, STDIN)
    assert fixed != text  # the stdin fix applies
    assert "<<'EOF_2'" in fixed, fixed
    assert _remote_bytes(fixed, sshd, target) == body.encode()
    assert _remote_bytes(text, sshd, target) == body.encode()


def test_stdin_fix_not_offered_to_ssh_n(sshd: SshServer, tmp_path: Path) -> None:
    """`ssh -n` reads /dev/null, not the script's stdin: a body fed there never arrives."""
    target = tmp_path / "out.txt"
    text = f"ssh -n h \"cat > {target} << 'EOF'\nhello\nEOF\"\n"
    fixed = fixed_without_error(text, STDIN)
    assert _remote_bytes(fixed, sshd, target) == b"hello\n"
    assert [f.fix for f in check_shell(text, "t.sh", STDIN) if f.code == "HL101"] == [None]


def test_stdin_fix_in_a_crlf_file_ends_its_heredoc(sshd: SshServer, tmp_path: Path) -> None:
    """In a CRLF file the `\\r` is part of the new `<<'EOF'` delimiter word: the
    terminator line the fix writes must carry it, or the body runs to the end of file.
    The first line ends in a bare LF: the fixer does not convert the whole edit to CRLF."""
    target = tmp_path / "out.txt"
    text = f"echo start\nssh h \"cat > {target} << 'EOF'\r\nhello\r\nEOF\r\n\"\r\necho after\r\n"
    fixed = fixed_without_error(text, STDIN)
    assert fixed != text
    assert fixed.count("EOF\r\n") == 1, fixed
    for script in (text, fixed):
        target.unlink(missing_ok=True)
        proc = run_local(script, sshd)
        assert proc.returncode == 0, proc.stderr
        assert target.read_bytes() == b"hello\r\n", script
        assert proc.stdout.split() == ["start", "after"], script  # text mode: \r\n read as \n


def test_base64_fix_stays_under_the_argument_limit(sshd: SshServer, tmp_path: Path) -> None:
    """Linux refuses one argument over 128 KiB: a body that fits as itself but not as
    base64 (4/3 longer) must not be rewritten into a command that cannot start."""
    target = tmp_path / "out.txt"
    body = ("x" * 99 + "\n") * 990  # 99,000 bytes: base64 makes 132,000
    text = f"ssh h \"cat > {target} << 'EOF'\n{body}EOF\"\n"
    assert _remote_bytes(text, sshd, target) == body.encode()
    fixed = fixed_without_error(text, BASE64)
    assert "base64 -d" not in fixed
    assert _remote_bytes(fixed, sshd, target) == body.encode()


def test_base64_fix_applies_just_under_the_limit(sshd: SshServer, tmp_path: Path) -> None:
    """The other side of the bound: a body whose base64 fits is rewritten and delivered."""
    target = tmp_path / "out.txt"
    body = ("y" * 99 + "\n") * 700  # 70,000 bytes: base64 makes 93,336
    text = f"ssh h \"cat > {target} << 'EOF'\n{body}EOF\"\n"
    fixed = fixed_without_error(text, BASE64)
    assert "base64 -d" in fixed
    assert _remote_bytes(fixed, sshd, target) == body.encode()


# -- scp strategy: the string is cut around the heredoc ------------------------------------


@pytest.mark.parametrize(("join", "joined"), [("; ", "; "), (" && ", " && ")])
def test_scp_fix_keeps_the_commands_around_the_heredoc(
    sshd: SshServer, tmp_path: Path, join: str, joined: str
) -> None:
    """The commands before and after the heredoc stay in ssh calls of their own, joined
    as they were; the body goes to a file beside the script, byte for byte, and scp
    copies it."""
    remote = tmp_path / "remote"
    script = tmp_path / "push.sh"
    body = "key=$1 \\x it's\n"
    script.write_text(
        f"#!/bin/bash\nssh h \"mkdir -p {remote}{join}cat > {remote}/app.conf << 'EOF'\n"
        f'{body}EOF\necho done"\n'
    )
    proc = run_cli("--fix", "--fix-strategy", "scp", "--no-cache", str(script))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert script.read_text() == (
        f'#!/bin/bash\nssh h "mkdir -p {remote}"{joined}'
        f'scp "$(dirname "$0")/push.sh.d/app.conf" h:{remote}/app.conf; ssh h "echo done"\n'
    )
    local = tmp_path / "push.sh.d" / "app.conf"
    assert local.read_bytes() == body.encode()
    assert stat.S_IMODE(local.stat().st_mode) == 0o644
    proc = run_local(script, sshd)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"
    assert (remote / "app.conf").read_bytes() == body.encode()


# -- the bytes a text stands for: undecodable bytes and lone surrogates --------------------


def test_base64_fix_delivers_undecodable_bytes_and_lone_surrogates(
    sshd: SshServer, tmp_path: Path
) -> None:
    """A body read from a non-UTF-8 file holds U+DCFF for the byte 0xff; a JSON command
    may hold a lone U+D800, which Python writes as the three bytes ED A0 80.  The base64
    fix encodes exactly those bytes, and the remote file receives them."""
    target = tmp_path / "out"
    text = f"ssh h \"cat > {target} <<'EOF'\n\udcff\ud800x\nEOF\"\n"
    fixed = fixed_without_error(text, Settings(fix_strategy="base64"), unsafe=True)
    assert fixed == f'ssh h "printf %s /+2ggHgK | base64 -d > {target}"\n'
    proc = run_local(fixed, sshd)
    assert proc.returncode == 0, proc.stderr
    assert target.read_bytes() == b"\xff\xed\xa0\x80x\n"


# -- parse_script: a redirection after `a && b` belongs to `b` -----------------------------


def test_base64_fix_after_a_list_writes_the_file(sshd: SshServer, tmp_path: Path) -> None:
    """`mkdir -p D && cat > D/f << 'EOF'`: the heredoc is `cat`'s, so the base64 fix
    replaces `cat`, and the remote file gets the body."""
    target = tmp_path / "d" / "f"
    text = f"ssh h \"mkdir -p {target.parent} && cat > {target} << 'EOF'\nbody\nEOF\necho post\"\n"
    fixed = fixed_without_error(text, Settings(fix_strategy="base64"), unsafe=True)
    assert fixed == (
        f'ssh h "mkdir -p {target.parent} && printf %s Ym9keQo= | base64 -d > {target}\n'
        'echo post"\n'
    )
    for script in (text, fixed):
        target.unlink(missing_ok=True)
        proc = run_local(script, sshd)
        assert (proc.returncode, proc.stdout) == (0, "post\n"), proc.stderr
        assert target.read_bytes() == b"body\n"
