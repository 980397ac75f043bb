"""Run 6 of issue 20 (h20k): edits.py, fixes/, writer.py, suppress.py, cache.py.

Each test kills a survivor of the seed-40 mutation run (bench/mutation_runs/run6-h20k.md)
through the public entries: the findings and fixes of `check_shell`/`fix_shell`, the CLI
on real files, bash and the loopback sshd as the oracle.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_process import run_cli
from sshd import SshServer, run_local

from heredoc_lint.engine import Settings, check_shell, check_text, fix_kind, fix_shell
from heredoc_lint.kinds import SourceKind

STDIN = Settings(fix_strategy="stdin")

# -- edits.py: many edits lifted through one long word -----------------------------------


def test_many_heredocs_in_one_ssh_string_are_each_fixed_in_place() -> None:
    """200 `ssh b <<EOF` in one double-quoted ssh string: each HL107 fix (quote the
    delimiter) is lifted through the same long word to its own `EOF`.  (That the lexer
    states of the word are computed once, not per edit, is a matter of time: measured by
    bench/bench_shapes.py's "unquoted heredocs to ssh in one ssh string", not here.)"""
    n = 200
    text = 'ssh a "' + "".join(f"ssh b <<EOF\necho \\$USER{i}\nEOF\n" for i in range(n)) + '"\n'
    findings = [f for f in check_shell(text, "t.sh") if f.code == "HL107"]
    assert len(findings) == n
    operators = [m.start() for m in re.finditer("<<EOF", text)]
    for finding, at in zip(findings, operators, strict=True):
        assert finding.fix is not None
        (edit,) = finding.fix.edits
        # The delimiter quoted in place: `'EOF'` reads the same inside the double quotes.
        assert (edit.start, edit.end, edit.content) == (at + 2, at + 5, "'EOF'")


# -- fixes/remote_heredoc.py: the stdin fix beside the script's other heredocs ---------------


def _delivered(script: str, server: SshServer, targets: tuple[Path, ...]) -> list[bytes]:
    """Run `script` locally (its ssh goes to the loopback sshd): the bytes of `targets`."""
    for target in targets:
        target.unlink(missing_ok=True)
    proc = run_local(script, server)
    assert proc.returncode == 0, proc.stderr
    return [target.read_bytes() for target in targets]


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
            assert _delivered(script, sshd, (local, remote)) == [b"one\n", b"hello\n"]


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
    assert _delivered(text, sshd, (local, remote)) == [b"one\n", b"hello\n"]


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


# -- edits.py: an edit inside an unquoted heredoc body sent to ssh ---------------------------


def test_fix_inside_an_unquoted_remote_heredoc_body(sshd: SshServer, system_dir: Path) -> None:
    """`ssh h bash <<EOF` with `sudo echo hi > F` in the body: the body is expanded
    locally, but the HL109 fix writes no `$`, backtick or backslash and touches no
    expansion, so it is lifted into the body as it is; both scripts write `hi`."""
    target = system_dir / "motd"
    text = f"ssh h bash <<EOF\nsudo echo hi > {target} 2>/dev/null\nEOF\n"
    (finding,) = [f for f in check_shell(text, "t.sh") if f.code == "HL109"]
    assert finding.fix is not None
    outcome = fix_shell(text, "t.sh", unsafe=True)
    assert outcome.error is None
    assert (
        outcome.text
        == f"ssh h bash <<EOF\necho hi 2>/dev/null | sudo tee {target} > /dev/null\nEOF\n"
    )
    for script in (text, outcome.text):
        assert _delivered(script, sshd, (target,)) == [b"hi\n"]


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
    assert _delivered(text, sshd, (target,)) == [delivered]


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


# -- cache.py: a parser that is not installed ------------------------------------------------

# Runs the CLI with the named modules made unimportable (a None in sys.modules is what
# Python's import system reads as "not installed"), the rest of argv passed on.
_HIDING = (
    "import runpy, sys\n"
    "for name in filter(None, sys.argv[1].split(',')):\n"
    "    sys.modules[name] = None\n"
    "sys.argv = ['heredoc-lint', *sys.argv[2:]]\n"
    "runpy.run_module('heredoc_lint', run_name='__main__', alter_sys=True)\n"
)


def _run_hiding(tmp_path: Path, hidden: str) -> tuple[str, str]:
    """One cached run on a script with an HL103 finding: its output and its pack's name."""
    script = tmp_path / "s.sh"
    script.write_text("ssh h 'pkill -f sglang; echo done'\n")
    cache = tmp_path / "c"
    argv = [sys.executable, "-c", _HIDING, hidden, "--cache-dir", str(cache), str(script)]
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "HL103" in proc.stdout
    (pack,) = cache.glob("findings-*.json")
    return proc.stdout, pack.name


def test_a_parser_not_installed_has_a_pack_of_its_own(tmp_path: Path) -> None:
    """PyYAML is imported only for a workflow file: a shell script is checked without it.
    Its absence is part of the cache's fingerprint: installing it later starts a new pack
    (it may change the findings), and removing it again starts another."""
    without, first = _run_hiding(tmp_path, "yaml")
    with_yaml, second = _run_hiding(tmp_path, "")
    assert with_yaml == without
    assert second != first
    assert _run_hiding(tmp_path, "yaml") == (without, first)


# -- suppress.py: a directive spelled in Markdown prose is no comment -------------------------

_FENCE = "```bash\n# shellcheck shell=bash\n{directive}ssh h 'pkill -f sglang; echo done'\n```\n"
_PROSE = "To silence it, write `# heredoc-lint: disable-file=HL103` in the script.\n\n"


def test_a_directive_in_markdown_prose_silences_nothing() -> None:
    """The prose before a fence spells a directive inside a code span: it is not a comment
    of the fence's shell (whose first line is a comment), so HL103 stays, at `pkill`.
    Written as the fence's own comment, the same directive silences it."""
    text = _PROSE + _FENCE.format(directive="")
    at = text.index("pkill")
    assert [(f.code, f.start, f.end) for f in check_text(text, "markdown")] == [
        ("HL103", at, at + len("pkill"))
    ]
    own = _FENCE.format(directive="# heredoc-lint: disable-file=HL103\n")
    assert check_text(own, "markdown") == []


# -- edits.py: an edit that runs to the end of a string ending in an escape -----------------


@pytest.mark.parametrize("escape", ["\\x41", "\\101"])
def test_fix_through_an_ansi_string_ending_in_an_escape(
    sshd: SshServer, system_dir: Path, escape: str
) -> None:
    """`ssh h $'sudo echo hi > DIR/\\x41'`: the target's last character `A` is written as
    an escape of several characters.  HL109's fix replaces the redirection up to the end
    of the remote string: its file edit must take the whole escape (up to the closing
    quote), or the escape's tail stays behind the new text.  Both scripts write `hi`."""
    home = system_dir
    target = home / "A"
    text = f"ssh h $'sudo echo hi > {home}/{escape}'\n"
    outcome = fix_shell(text, "t.sh", unsafe=True)
    assert outcome.error is None
    assert outcome.text == f"ssh h $'echo hi | sudo tee {target} > /dev/null'\n"
    for script in (text, outcome.text):
        assert _delivered(script, sshd, (target,)) == [b"hi\n"]


# -- fixes/python_fixes.py: `import shlex` goes after `from __future__` ----------------------


def test_shlex_import_goes_after_the_future_import(tmp_path: Path) -> None:
    """A file whose imports are `from __future__ import ...` and other from-imports: the
    HL201 fix's `import shlex` goes before the first from-import that is not
    `__future__` (a `__future__` import must stay first, or the file no longer compiles).
    The fixed file runs: the path with a blank and a `;` reaches `rm` as one word."""
    victim = tmp_path / "a b; touch pwned"
    victim.write_text("x")
    head = "from __future__ import annotations\n"
    body = '\n\ndef f(path):\n    call("rm " + {}, shell=True)\n\n\nf({!r})\n'
    text = head + "from subprocess import call\n" + body.format("path", str(victim))
    outcome = fix_kind(text, "python", "t.py", unsafe=True)
    assert outcome.error is None
    fixed = (
        head
        + "import shlex\n\nfrom subprocess import call\n"
        + body.format("shlex.quote(str(path))", str(victim))
    )
    assert outcome.text == fixed
    script = tmp_path / "fixed.py"
    script.write_text(fixed)
    proc = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert not victim.exists()
    assert not (tmp_path / "pwned").exists()


_OWN_DIRECTIVE = "# heredoc-lint: disable=HL103\n"
_IN_FENCE = "Deploy:\n\n```bash\n{d}ssh h 'pkill -f sglang; echo done'\n```\n"
_IN_STEP = (
    "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n"
    "          {d}ssh h 'pkill -f sglang; echo done'\n"
)


@pytest.mark.parametrize(("template", "kind"), [(_IN_FENCE, "markdown"), (_IN_STEP, "actions")])
def test_a_directive_in_a_fence_or_a_run_step_silences_its_line(
    template: str, kind: SourceKind
) -> None:
    """A directive written as a comment of the shell in a Markdown fence or a workflow's
    `run:` step (no other directive or ShellCheck comment in the file) silences the line
    after it; without it HL103 is reported at `pkill`."""
    plain = template.format(d="")
    at = plain.index("pkill")
    assert [(f.code, f.start, f.end) for f in check_text(plain, kind)] == [
        ("HL103", at, at + len("pkill"))
    ]
    indent = " " * 10 if kind == "actions" else ""
    assert check_text(template.format(d=_OWN_DIRECTIVE + indent), kind) == []
