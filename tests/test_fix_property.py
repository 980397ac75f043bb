"""Property: any literal heredoc body survives every fix strategy, byte for byte, over real ssh.

Hypothesis draws a body (quotes ' and ", `$`, `$1`, backslashes, a backslash at the end of a
line, backticks, unicode, tabs, C0 controls, lines equal to other delimiters such as `EOF2`,
`END`, `EOF_1`, empty lines; never a line equal to the heredoc's own delimiter, which would
end it in the source) and puts it into a seed-shaped command:

    ssh -p 2222 USER@prop-host "pkill -0 -f hlprop 2>/dev/null; sleep 0; cat > P << 'EOF'
    <the body, escaped for the double-quoted layer>
    EOF
    chmod +x P && echo ok"

in one of three spellings: `dq` (every `\\`, `$`, backtick and `"` escaped), `dq-min` (only
what must be: `$1`/`$name` and backslashes before ordinary characters or a newline left as
they are: they stay literal in the body the author wrote), and `sq` (a single-quoted
string, `'` spelled `'\\''`). The intended body is what hypothesis drew.

Each example is fixed in-process through the runner (`heredoc_lint.run.runner.run`, the code
behind `--fix`, which also writes the scp strategy's file); then all fixed scripts of a
strategy are run against the session's real sshd, a few at a time, and every remote file is
compared with its body. To keep this fast the ssh/scp clients share one OpenSSH master
connection (ControlMaster): every command is still its own session and its own remote
`bash -c`.
"""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sshd import SshServer, multiplexed, run_local

from heredoc_lint.engine import check_shell
from heredoc_lint.model import Severity
from heredoc_lint.run.runner import Options, run

# 200 per strategy. Every remote command is a real session whose login shell reads root's
# ~/.bashrc, so this file takes a minute or two; HEREDOC_LINT_PROPERTY_EXAMPLES changes it.
MAX_EXAMPLES = int(os.environ.get("HEREDOC_LINT_PROPERTY_EXAMPLES", "200"))
WORKERS = 4
FIXED_CODES = {"HL101", "HL102", "HL103"}

PIECES = [
    "'",
    '"',
    "$",
    "`",
    "\\",
    " ",
    "\t",
    "{",
    "}",
    "(",
    ")",
    "|",
    ";",
    "&",
    "<",
    ">",
    "*",
    "?",
    "#",
    "~",
    "!",
    "%",
    "=",
    "$1",
    "$2",
    "$@",
    "$HOME",
    "${x}",
    "$(id -u)",
    "`id -u`",
    "\\$",
    "\\\\",
    "\\n",
    "'\\''",
    '\\"',
    "é",
    "ü",
    "中文",
    "😀",
    "\u2028",
    "\x85",
    "\x0b",
    "\x0c",
    "\x1b[0m",
    "\x7f",
    "EOF",
    "<<",
    "<< 'EOF'",
    "hello",
    "x=1",
]
SPECIAL_LINES = [
    "",
    "EOF",
    "END",
    "EOF2",
    "EOF_1",
    "EOF_2",
    "EOF ",
    " EOF",
    "\tEOF",
    "EOF\\",
    "'EOF'",
    '"EOF"',
    "\\",
    "$",
    "a \\",
    "\\\\",
    "END;",
    "#!/bin/bash",
]
DELIMITERS = ["EOF", "END"]
VARIANTS = ["sq", "dq", "dq-min"]

piece = st.sampled_from(PIECES) | st.characters(
    codec="utf-8", exclude_categories=("Cs",), exclude_characters="\x00\n\r"
)
line = st.lists(piece, max_size=10).map("".join) | st.sampled_from(SPECIAL_LINES)


@st.composite
def bodies(draw: st.DrawFn) -> tuple[str, str, str]:
    """(heredoc delimiter, intended body, spelling)."""
    delimiter = draw(st.sampled_from(DELIMITERS))
    lines = draw(st.lists(line.filter(lambda text: text != delimiter), min_size=1, max_size=7))
    variant = draw(st.sampled_from(VARIANTS))
    return delimiter, "".join(text + "\n" for text in lines), variant


def escape_dq(body: str) -> str:
    """Every character that is special inside "..." escaped."""
    return "".join("\\" + c if c in '\\$`"' else c for c in body)


def escape_dq_minimal(body: str) -> str:
    """Only what must be escaped inside "...": `$name`, `$1` and `\\` before an ordinary
    character or a newline are left alone (the intended body keeps them literally)."""
    out = []
    for i, c in enumerate(body):
        following = body[i + 1 : i + 2]
        if c == "\\":
            plain = following == "\n" or (following and following not in '\\$`"')
            out.append("\\" if plain else "\\\\")
        elif c == "$":
            name = following.isascii() and (following.isalnum() or following == "_")
            out.append("$" if name else "\\$")
        elif c in '`"':
            out.append("\\" + c)
        else:
            out.append(c)
    return "".join(out)


def source(variant: str, delimiter: str, body: str, remote: Path, user: str) -> str:
    head = f"ssh -p 2222 {user}@prop-host"
    pre = "pkill -0 -f hlprop 2>/dev/null; sleep 0"
    if variant == "sq":
        quoted_body = body.replace("'", "'\\''")
        return (
            f"#!/bin/bash\n{head} '{pre}; cat > {remote} << '\\''{delimiter}'\\''\n"
            f"{quoted_body}{delimiter}\nchmod +x {remote} && echo ok'\n"
        )
    escaped = escape_dq(body) if variant == "dq" else escape_dq_minimal(body)
    return (
        f"#!/bin/bash\n{head} \"{pre}; cat > {remote} << '{delimiter}'\n"
        f'{escaped}{delimiter}\nchmod +x {remote} && echo ok"\n'
    )


def test_escapes_round_trip_through_bash() -> None:
    """The spellings above are right: for bodies without `$name`/backslash-newline, what
    local bash makes of the "..." word is the body itself."""
    body = "a 'b' \"c\" \\$ $ `x` \\\\ \\n é\t\n"
    for spelled in (escape_dq(body), escape_dq_minimal(body)):
        out = subprocess.run(
            ["bash", "-c", f'printf %s "{spelled}"'], capture_output=True, text=True, check=True
        ).stdout
        assert out == body
    assert escape_dq_minimal("$1 \\\n\\a") == "$1 \\\n\\a"


# --- a multiplexed client for the session's server ----------------------------------------


@pytest.fixture(scope="module")
def fast_sshd(sshd: SshServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshServer]:
    """The session's server behind ssh master connections: the same sessions, faster."""
    with multiplexed(sshd, tmp_path_factory.mktemp("mux")) as server:
        yield server


# --- the property --------------------------------------------------------------------------


@dataclass(frozen=True)
class Fixed:
    number: int
    variant: str
    delimiter: str
    body: str
    script: Path
    remote: Path


def describe(item: Fixed, problem: str) -> str:
    return (
        f"example {item.number} ({item.variant}, <<'{item.delimiter}'): {problem}\n"
        f"  body: {item.body!r}\n  fixed script:\n{item.script.read_text()}"
    )


@pytest.mark.parametrize("strategy", ["base64", "scp", "stdin"])
def test_random_bodies_survive_fix_over_real_ssh(
    fast_sshd: SshServer,
    tmp_path: Path,
    strategy: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    local, remote_root = tmp_path / "local", tmp_path / "remote"
    local.mkdir()
    remote_root.mkdir()
    fixed: list[Fixed] = []
    declined: list[tuple[str, str]] = []
    counter = [0]

    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(bodies())
    @example(("EOF", "", "dq"))
    @example(("EOF", "EOF2\nEND\nEOF_1\n\n \\\n", "dq-min"))
    @example(("END", "EOF\nEOF_1\nit's 'quoted' \"twice\"\n", "sq"))
    @example(("EOF", "export CUDA_VISIBLE_DEVICES=$1\nexec x \\\n  --port $2\n", "dq-min"))
    def fix_one(drawn: tuple[str, str, str]) -> None:
        delimiter, body, variant = drawn
        counter[0] += 1
        number = counter[0]
        remote = remote_root / f"ex{number:04d}" / "out.txt"
        remote.parent.mkdir()
        directory = local / f"ex{number:04d}"
        directory.mkdir()
        script = directory / "t.sh"
        text = source(variant, delimiter, body, remote, fast_sshd.user)
        script.write_bytes(text.encode("utf-8"))

        # Every heredoc is fixed, also one that arrives as written (HL101 at info).
        result = run(Options(fix=True, fix_strategy=strategy, severity=Severity.INFO), [script])

        assert not result.failed, result.notes
        after = script.read_bytes().decode("utf-8")
        left = {f.code for f in check_shell(after, str(script))} & FIXED_CODES
        if strategy == "stdin" and body == "":
            # Declined (stdin_fix wants a body ending in a newline): the heredoc stays in
            # the string. Still run below: an empty body cannot be corrupted.
            assert left == {"HL101"}, (left, after)
            declined.append((variant, body))
        else:
            assert not left, (left, after)
        if strategy != "scp":
            assert not (directory / "t.sh.d").exists()
        fixed.append(Fixed(number, variant, delimiter, body, script, remote))

    fix_one()

    def over_ssh(item: Fixed) -> str | None:
        proc = run_local(item.script, fast_sshd, timeout=120)
        if proc.returncode != 0 or proc.stdout != "ok\n":
            return describe(
                item, f"exit {proc.returncode}, stdout {proc.stdout!r}, stderr {proc.stderr!r}"
            )
        if not item.remote.exists():
            return describe(item, "no remote file")
        got = item.remote.read_bytes()
        if got != item.body.encode("utf-8"):
            return describe(item, f"remote file holds {got!r}")
        return None

    with ThreadPoolExecutor(WORKERS) as pool:
        problems = [p for p in pool.map(over_ssh, fixed) if p is not None]

    variants = Counter(item.variant for item in fixed)
    with capsys.disabled():
        print(
            f"\n[{strategy}] {len(fixed)} examples verified through sshd "
            f"({dict(sorted(variants.items()))}; {len(declined)} of them not rewritten: "
            f"empty body), "
            f"{len(problems)} failed"
        )
    assert not problems, f"{len(problems)} of {len(fixed)} failed:\n" + "\n".join(
        sorted(problems, key=len)[:3]
    )
    assert len(fixed) >= MAX_EXAMPLES
    assert len(declined) == (1 if strategy == "stdin" else 0)  # the explicit empty body
    assert set(variants) == set(VARIANTS)
