"""Python call sites run for real against a loopback sshd, before and after the fix.

tests/data/python/runtime_push.py pushes a file the ways public code does: paramiko's
`exec_command` with a heredoc (the body on its own lines, or glued to the delimiter),
with `printf '{content}'`, with a constant heredoc, and `subprocess.run` with an ssh
argument list and with `shell=True`.  The module is executed as written, then fixed by
heredoc-lint (`--fix --unsafe-fixes`) and executed again; the file on the "remote" side
(the same machine, through sshd) is compared byte for byte with what the code meant to
write.  The contents are the ones that break the original: a line holding the
delimiter, no final newline, quotes.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from pathlib import Path

import paramiko  # type: ignore[import-untyped]
import pytest
from sshd import SshServer

from heredoc_lint.engine import check_text, fix_kind

SOURCE = (Path(__file__).parent / "data" / "python" / "runtime_push.py").read_text()

DELIMITER_LINE = "[a]\nx = 1\nEOF\nrm -rf important\n"
NO_FINAL_NEWLINE = "last line without newline"
QUOTES = "it's \"quoted\" $HOME `id` \\n 'single'\n"
PLAIN = "key = value\n"


def load(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(source, name, "exec"), module.__dict__)
    return module


@pytest.fixture(scope="module")
def modules() -> tuple[types.ModuleType, types.ModuleType]:
    outcome = fix_kind(SOURCE, "python", "runtime_push.py", unsafe=True)
    assert outcome.error is None
    left = [f.code for f in check_text(outcome.text, "python") if f.severity.rank >= 1]
    assert left == []
    return load(SOURCE, "original"), load(outcome.text, "fixed")


def written(path: Path) -> bytes | None:
    return path.read_bytes() if path.exists() else None


Push = Callable[[types.ModuleType, Path, str], None]


def _cases(
    client: paramiko.SSHClient, sshd: SshServer
) -> dict[str, tuple[Push, Callable[[str], str]]]:
    """Each pusher with what it means to write for a content."""
    config = str(sshd.config)

    def with_newline(content: str) -> str:
        return content + "\n"

    def exactly(content: str) -> str:
        return content

    return {
        "exec_command heredoc": (
            lambda m, p, c: m.push_heredoc(client, str(p), c),
            with_newline,
        ),
        "exec_command glued heredoc": (
            lambda m, p, c: m.push_glued(client, str(p), c),
            exactly,
        ),
        "exec_command printf": (lambda m, p, c: m.push_printf(client, str(p), c), exactly),
        "subprocess ssh argv": (lambda m, p, c: m.push_ssh(config, str(p), c), with_newline),
        "subprocess shell=True": (lambda m, p, c: m.write_local(str(p), c), with_newline),
    }


BREAKING = {
    "exec_command heredoc": [DELIMITER_LINE],
    "exec_command glued heredoc": [NO_FINAL_NEWLINE, DELIMITER_LINE],
    "exec_command printf": [QUOTES],
    "subprocess ssh argv": [DELIMITER_LINE],
    "subprocess shell=True": [DELIMITER_LINE],
}


@pytest.mark.parametrize("case", sorted(BREAKING))
def test_fixed_call_writes_the_intended_bytes(
    case: str,
    modules: tuple[types.ModuleType, types.ModuleType],
    client: paramiko.SSHClient,
    sshd: SshServer,
    tmp_path: Path,
) -> None:
    original, fixed = modules
    push, intended = _cases(client, sshd)[case]
    contents = [*BREAKING[case], QUOTES, PLAIN]
    for n, content in enumerate(dict.fromkeys(contents)):
        meant = intended(content).encode()
        before, after = tmp_path / f"before-{n}", tmp_path / f"after-{n}"
        push(original, before, content)
        push(fixed, after, content)
        assert written(after) == meant, (case, content)
        if content in BREAKING[case]:
            assert written(before) != meant, f"{case}: the original did not break on {content!r}"
    # What worked before still works the same.
    same_before, same_after = tmp_path / "plain-before", tmp_path / "plain-after"
    push(original, same_before, PLAIN)
    push(fixed, same_after, PLAIN)
    assert written(same_before) == written(same_after) == intended(PLAIN).encode()


def test_constant_heredoc_fix_writes_the_same_bytes(
    modules: tuple[types.ModuleType, types.ModuleType],
    client: paramiko.SSHClient,
    tmp_path: Path,
) -> None:
    """A constant quoted heredoc in exec_command arrives byte for byte: no HL101, no change."""
    original, fixed = modules
    before, after = tmp_path / "motd-before", tmp_path / "motd-after"
    original.push_motd(client, str(before))
    fixed.push_motd(client, str(after))
    meant = b"Welcome $USER \\o/ `date` \"quoted\" 'single'\n"
    assert written(before) == meant
    assert written(after) == meant


def test_the_fixed_module_is_what_the_fixes_say() -> None:
    fixed_source = fix_kind(SOURCE, "python", "runtime_push.py", unsafe=True).text
    assert 'base64.b64encode((content + "\\n").encode()).decode()' in fixed_source
    assert "{base64.b64encode(content.encode()).decode()}" in fixed_source
    assert "printf %s {shlex.quote(str(content))}" in fixed_source
    # The one heredoc left is the constant one in exec_command: no outer shell parses it.
    assert fixed_source.count("<<") == 1
    assert 'exec_command(f"""cat > {shlex.quote(path)} << \'EOF\'' in fixed_source
