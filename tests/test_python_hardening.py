"""Python files that hid a command from the frontend (issue 18, items 9 and 17).

Each case is run by the real `python3` with a stand-in `ssh` on PATH that logs its
arguments: what Python runs is the oracle, and the finding must be on that command.
"""

from __future__ import annotations

import base64
import importlib.metadata
import io
import os
import subprocess
import sys
import tokenize
from pathlib import Path

import libcst
import pytest
from cli_process import run_cli
from packaging.version import Version

from heredoc_lint.engine import check_text
from heredoc_lint.frontends.python import fragments
from heredoc_lint.frontends.python.literals import scan_tokens, token_end
from heredoc_lint.model import Severity

# libcst reads f-strings nested in reused quotes from 1.1.0 on; 1.0.x raises, and the reader
# then drops the string (measured on 1.0.0, 1.0.1, 1.1.0 ... 1.9.0).
LIBCST_READS_NESTED = Version(importlib.metadata.version("libcst")) >= Version("1.1")

REMOTE = "pkill -f sglang; ./restart"
BAD = f"'ssh h \"{REMOTE}\"'"  # a Python literal: HL103 on the remote side

_SSH_STUB = '#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done >> "$SSH_LOG"\n'


def ssh_arguments(tmp_path: Path, source: bytes, *argv: str) -> list[str]:
    """The arguments `python3 FILE ARGV` gave to ssh (a stand-in on PATH that logs them)."""
    stubs = tmp_path / "bin"
    stubs.mkdir(exist_ok=True)
    (stubs / "ssh").write_text(_SSH_STUB)
    (stubs / "ssh").chmod(0o755)
    script = tmp_path / "job.py"
    script.write_bytes(source)
    log = tmp_path / "ssh.log"
    log.unlink(missing_ok=True)
    env = {**os.environ, "PATH": f"{stubs}:{os.environ['PATH']}", "SSH_LOG": str(log)}
    subprocess.run([sys.executable, str(script), *argv], env=env, check=True, timeout=30)
    return log.read_text().splitlines() if log.exists() else []


def hl103_lines(text: str) -> list[int]:
    return [
        text.count("\n", 0, f.start) + 1
        for f in check_text(text, "python", "job.py")
        if f.code == "HL103" and f.severity is Severity.ERROR
    ]


# -- item 17: conditionals, `or`/`and`, long chains of names -----------------------------

CHOICES = {
    "if-else": f"subprocess.run('true' if len(sys.argv) > 5 else {BAD}, shell=True)\n",
    "or": f"subprocess.run('' or {BAD}, shell=True)\n",
    "and": f"subprocess.run(sys.argv and {BAD}, shell=True)\n",
    "name-bound-to-if-else": (
        f"cmd = 'true' if len(sys.argv) > 5 else {BAD}\nsubprocess.run(cmd, shell=True)\n"
    ),
    "argv-element": (
        f"subprocess.run(['ssh', 'h', 'true' if len(sys.argv) > 5 else '{REMOTE}'])\n"
    ),
    "argv-list-choice": (
        f"subprocess.run(['ssh', 'h', 'true'] if len(sys.argv) > 5 else ['ssh', 'h', '{REMOTE}'])\n"
    ),
    "aliases-12": (
        f"a0 = {BAD}\n"
        + "".join(f"a{n} = a{n - 1}\n" for n in range(1, 12))
        + "subprocess.run(a11, shell=True)\n"
    ),
    "aliases-500": (
        f"a0 = {BAD}\n"
        + "".join(f"a{n} = a{n - 1}\n" for n in range(1, 500))
        + "subprocess.run(a499, shell=True)\n"
    ),
}


@pytest.mark.parametrize("case", sorted(CHOICES))
def test_a_command_behind_a_choice_or_aliases_is_found(tmp_path: Path, case: str) -> None:
    text = "import subprocess, sys\n" + CHOICES[case]
    # python3 runs ssh with the remote command ...
    assert ssh_arguments(tmp_path, text.encode())[-1] == REMOTE
    # ... and the finding is on the line where that command is written.
    literal_line = next(n for n, line in enumerate(text.splitlines(), 1) if "pkill" in line)
    assert hl103_lines(text) == [literal_line], case


def test_the_other_branch_is_read_too() -> None:
    """Both values of `A if c else B` are commands: a finding in A and one in B."""
    text = (
        "import subprocess, sys\n"
        "subprocess.run('ssh h \"pkill -f one; x\"' if sys.argv else "
        "'ssh h \"pkill -f two; y\"', shell=True)\n"
    )
    found = [text[f.start : f.end] for f in check_text(text, "python", "t.py")]
    assert found == ["pkill", "pkill"]
    starts = [f.start for f in check_text(text, "python", "t.py")]
    assert text.index("pkill -f one") in starts and text.index("pkill -f two") in starts


def test_an_alias_cycle_ends() -> None:
    """`a = b; b = a`: no value, no fragment, and no endless loop."""
    text = "import subprocess\na = b\nb = a\nsubprocess.run(a, shell=True)\n"
    assert fragments(text) == []


def test_evidence_rules_hold_in_each_branch() -> None:
    """A run-time value in a branch is reported as anywhere else: with the evidence of
    where it comes from (argv), or none.  Both are info (`argv` is info by default since
    its first look on real code): the evidence tells them apart."""
    text = (
        "import subprocess, sys\n"
        "def _go(name, ok):\n"
        "    subprocess.run(f'ssh h rm {name}' if ok else 'true', shell=True)\n"
        "    subprocess.run('true' if ok else f'ssh h rm {sys.argv[1]}', shell=True)\n"
    )
    got = [
        (f.code, f.severity, f.evidence, text[f.start : f.end])
        for f in check_text(text, "python", "t.py")
        if f.code == "HL201"
    ]
    assert got == [
        ("HL201", Severity.INFO, "no-origin", "{name}"),
        ("HL201", Severity.INFO, "argv", "{sys.argv[1]}"),
    ]


def test_no_number_of_harmless_values_hides_a_command(tmp_path: Path) -> None:
    """Every value is read: 40 empty strings before the command in an `or`, 40 harmless
    values before it in one argv element."""
    empties = " or ".join(["''"] * 40)
    text = f"import subprocess, sys\nsubprocess.run({empties} or {BAD}, shell=True)\n"
    assert ssh_arguments(tmp_path, text.encode())[-1] == REMOTE
    assert hl103_lines(text) == [2]
    harmless = " if len(sys.argv) > 9 else ".join(f"'echo {n}'" for n in range(40))
    text = (
        "import subprocess, sys\n"
        f"subprocess.run(['ssh', 'h', {harmless} if len(sys.argv) > 9 else '{REMOTE}'])\n"
    )
    assert ssh_arguments(tmp_path, text.encode())[-1] == REMOTE
    assert hl103_lines(text) == [2]


def test_values_through_names_are_read_once_each() -> None:
    """Conditionals through names that double the combinations at every step: each
    expression is still read once (30 steps would be 2**30 combinations)."""
    lines = ["import subprocess, sys", "c0 = 'true'"]
    lines += [f"c{n} = c{n - 1} if sys.argv else 'echo {n}'" for n in range(1, 30)]
    lines.append("subprocess.run([c29, c29, c29], shell=False)")
    lines.append("subprocess.run(c29, shell=True)")
    assert len(fragments("\n".join(lines) + "\n")) == 30


# -- item 9: the coding line (PEP 263) ---------------------------------------------------


def _utf7_hidden(text: str) -> str:
    """`text` as UTF-7's base64 form: `+AHMAcwBo-` for `ssh`, nothing of it readable."""
    encoded = base64.b64encode(text.encode("utf-16-be")).decode("ascii").rstrip("=")
    return f"+{encoded}-"


UTF7_FILE = (
    "# -*- coding: utf-7 -*-\n"
    "import subprocess\n"
    f"subprocess.run('{_utf7_hidden(BAD[1:-1])}', shell=True)\n"
)


def test_a_utf7_coding_line_does_not_hide_a_command(tmp_path: Path) -> None:
    assert "ssh" not in UTF7_FILE and "pkill" not in UTF7_FILE
    # python3 decodes the literal as UTF-7 and runs the ssh command in it ...
    assert ssh_arguments(tmp_path, UTF7_FILE.encode("ascii")) == ["h", REMOTE]
    # ... and the finding is on line 3, inside that literal, with no fix (an edit would
    # have to be written in UTF-7).
    found = check_text(UTF7_FILE, "python", "job.py")
    assert [(f.code, f.severity) for f in found] == [("HL103", Severity.ERROR)]
    literal = UTF7_FILE.index("'+") + 1
    assert literal <= found[0].start < UTF7_FILE.index("-'", literal)
    assert found[0].fix is None


def test_the_cli_reports_the_utf7_file(tmp_path: Path) -> None:
    script = tmp_path / "job.py"
    script.write_bytes(UTF7_FILE.encode("ascii"))
    result = run_cli("--no-cache", "--format", "concise", str(script))
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{script}:3:" in result.stdout and "HL103" in result.stdout


def test_a_latin1_literal_is_read_as_python_reads_it(tmp_path: Path) -> None:
    """A byte that is not UTF-8 (Latin-1 `é`) in the literal hid the command from the
    reader; in Python's text it is a character like any other.  Its column is the file's
    (one byte, one character), and no fix is offered: it would be written in UTF-8."""
    text = (
        "# coding: latin-1\nimport subprocess\n"
        "subprocess.run('echo \udce9t\udce9; ssh h \"pkill -f sglang; y\"', shell=True)\n"
    )
    data = text.encode("utf-8", "surrogateescape")
    assert b"\xe9t\xe9" in data
    assert ssh_arguments(tmp_path, data) == ["h", "pkill -f sglang; y"]
    found = check_text(text, "python", "t.py")
    assert [(f.code, text[f.start : f.end]) for f in found] == [("HL103", "pkill")]
    assert found[0].fix is None


@pytest.mark.parametrize(
    ("head", "message"),
    [
        (
            "# coding: no-such-codec\n",
            "not checked: Python cannot run this file, its coding line (line 1) fails: "
            "unknown encoding: no-such-codec",
        ),
        (
            "#!/usr/bin/env python3\n# coding: ascii\n",
            "not checked: Python cannot run this file: byte 73 (line 4) is not valid in "
            "ascii, the encoding its coding line names",
        ),
    ],
)
def test_a_file_python_cannot_decode_says_so(tmp_path: Path, head: str, message: str) -> None:
    """Never silent: one HL001 (`source-unreadable`: info by default since its first look
    on real code, so `--severity info` shows it), and python3 indeed refuses the file."""
    text = head + "import subprocess\nsubprocess.run('\udce9 ssh h true', shell=True)\n"
    data = text.encode("utf-8", "surrogateescape")
    script = tmp_path / "bad.py"
    script.write_bytes(data)
    refused = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=False
    )
    assert refused.returncode == 1 and "SyntaxError" in refused.stderr
    found = check_text(text, "python", "bad.py")
    assert [(f.code, f.severity, f.evidence, f.message) for f in found] == [
        ("HL001", Severity.INFO, "source-unreadable", message)
    ]


# -- item 9: syntax of a newer Python ------------------------------------------------------

PEP701_FILE = (
    "import subprocess, sys\n"
    'd = {"a": "x"}\n'
    'print(f"{d["a"]}")\n'  # Python 3.12 (PEP 701): the field reuses the string's quote
    "def main():\n"
    '    label = f"{d["a"]}"\n'
    f"    subprocess.run({BAD}, shell=True)\n"
    "main()\n"
)


def test_a_newer_f_string_does_not_hide_the_rest_of_the_file(tmp_path: Path) -> None:
    """Python 3.11 cannot parse lines 3 and 5 (python3 here refuses the file, as the
    checker's own parser does): they are one HL001 that names them, and the command on
    line 6 is still checked."""
    script = tmp_path / "new.py"
    script.write_text(PEP701_FILE)
    if sys.version_info < (3, 12):
        refused = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, check=False
        )
        assert "SyntaxError: f-string: unmatched '['" in refused.stderr
    found = check_text(PEP701_FILE, "python", "new.py")
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    expected_hl001 = (
        f"not checked: line 3 and line 5: Python {version} cannot parse them (f-string: "
        "unmatched '['): syntax of a newer Python (3.12 f-strings, `type` and type "
        "parameters); the rest of the file was checked"
    )
    got = [(f.code, f.severity, PEP701_FILE.count("\n", 0, f.start) + 1) for f in found]
    if sys.version_info < (3, 12):
        # a Python file that does not parse (in part) is `source-unreadable`: info
        assert got == [("HL001", Severity.INFO, 3), ("HL103", Severity.ERROR, 6)]
        assert found[0].evidence == "source-unreadable"
        assert found[0].message == expected_hl001
    else:  # the whole file parses
        assert got == [("HL103", Severity.ERROR, 6)]


def test_a_type_statement_does_not_hide_the_rest_of_the_file() -> None:
    text = f"import subprocess\ntype Cmd = str\nsubprocess.run({BAD}, shell=True)\n"
    found = [(f.code, text.count("\n", 0, f.start) + 1) for f in check_text(text, "python")]
    if sys.version_info < (3, 12):
        assert found == [("HL001", 2), ("HL103", 3)]
    else:
        assert found == [("HL103", 3)]


def test_a_real_syntax_error_is_still_the_whole_file() -> None:
    """An error no Python accepts: python3 runs nothing of the file, nothing is checked
    (one HL001, `source-unreadable`: info by default since its first look on real code)."""
    text = f"import subprocess\nx = = 1\nsubprocess.run({BAD}, shell=True)\n"
    found = check_text(text, "python", "t.py")
    assert [(f.code, f.severity, f.evidence, f.message) for f in found] == [
        ("HL001", Severity.INFO, "source-unreadable", "Python syntax error: invalid syntax")
    ]


def test_a_newer_f_string_in_a_utf7_file_maps_back() -> None:
    """Both at once: the unreadable statement and the command are placed in the file."""
    text = (
        "# coding: utf-7\nimport subprocess\n"
        'd = {"a": "x"}\nprint(f"{d["a"]}")\n'
        f"subprocess.run('{_utf7_hidden(BAD[1:-1])}', shell=True)\n"
    )
    found = [(f.code, text.count("\n", 0, f.start) + 1) for f in check_text(text, "python")]
    expected = [("HL103", 5)] if sys.version_info >= (3, 12) else [("HL001", 4), ("HL103", 5)]
    assert found == expected


# -- item 9: string tokens of Python 3.12 --------------------------------------------------


@pytest.mark.parametrize(
    ("token", "libcst_reads"),
    [
        ('f"{d["a"]}"', True),
        ('f"{"\\n".join(lines)}"', True),
        ('f"""{x # a comment\n}"""', True),
        ('f"{x!r:>{width}} {{not a field}}"', True),
        ('f"{ {"a": 1}["a"] }"', True),
        ('f"{f"{f"{1}"}"}"', LIBCST_READS_NESTED),
    ],
)
def test_a_312_f_string_is_one_token(token: str, libcst_reads: bool) -> None:
    """On 3.12 `ast` accepts these and the reader finds the token's end itself: it used
    to stop at the first reused quote and drop the string in silence.  The token it finds
    is the whole f-string, which libcst reads with its fields."""
    text = f"run({token}, shell=True)"
    assert scan_tokens(text, 4, 4 + len(token)) == [(4, 4 + len(token))]
    if not libcst_reads:
        with pytest.raises(libcst.ParserSyntaxError):
            libcst.parse_expression(token)
        return
    parsed = libcst.parse_expression(token)
    assert isinstance(parsed, libcst.FormattedString)
    assert any(isinstance(p, libcst.FormattedStringExpression) for p in parsed.parts)


def test_string_tokens_end_where_pythons_tokenizer_ends_them() -> None:
    """Oracle: every string token of this project's own sources, as `tokenize` of this
    Python reads them, is found by the reader with the same end."""
    root = Path(__file__).resolve().parent.parent
    checked = 0
    for path in sorted([*root.glob("heredoc_lint/**/*.py"), *root.glob("tests/*.py")]):
        text = path.read_text()
        starts = [0]
        for line in text.splitlines(keepends=True):
            starts.append(starts[-1] + len(line))
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.STRING:
                continue
            start = starts[token.start[0] - 1] + token.start[1]
            end = starts[token.end[0] - 1] + token.end[1]
            assert token_end(text, start, len(text)) == end, (path, token.start)
            checked += 1
    assert checked > 5000


def test_python_s_own_warnings_on_the_code_read_are_not_shown(tmp_path: Path) -> None:
    """`"\\s"` makes Python 3.12+ warn when it parses the file: the user's code, not ours."""
    (tmp_path / "job.py").write_text(
        'import subprocess\npattern = "\\s+"\nsubprocess.run("ssh h uptime", shell=True)\n'
    )
    ran = run_cli("--no-cache", "job.py", cwd=tmp_path)
    assert (ran.returncode, ran.stderr) == (0, "")
