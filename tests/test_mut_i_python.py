"""Pinned behaviours of the Python frontend (frontends/python/__init__.py, callers.py,
calls.py, decoding.py, encode.py, imported.py, literals.py, model.py) found by the
mutation run of issue 20 (run 7, seed 41, bench/mutation_runs/run7-h20p.md).

Each test kills a mutant that `bench/mutation.py` left alive: it was planted in a scratch
copy of the tree, the test failed there, and it passes without.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from cli_process import run_cli

from heredoc_lint.engine import Settings, check_text, fix_kind
from heredoc_lint.frontends import fragments
from heredoc_lint.pywrappers import PyWrapper


def _strings(source: str) -> list[str]:
    """The values of the string constants of `source` (which must parse)."""
    return [
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


# -- encode.py: a fix that spans two literals of a concatenation ----------------------------

_SPLIT_REDIRECT = [
    # the target of `>` is cut between two literals, the second in other quotes
    (
        "import subprocess\nsubprocess.run(\"sudo echo hi > /etc/\" 'motd', shell=True)\n",
        "import subprocess\n"
        'subprocess.run("echo hi | sudo tee /etc/motd > /dev/null", shell=True)\n',
    ),
    # three literals: the middle one is emptied and dropped, the third kept as it was
    (
        "import subprocess\n"
        'subprocess.run("sudo echo hi > " "/etc/motd" "; echo ok", shell=True)\n',
        "import subprocess\n"
        'subprocess.run("echo hi | sudo tee /etc/motd > /dev/null" "; echo ok", shell=True)\n',
    ),
]


@pytest.mark.parametrize(("text", "fixed"), _SPLIT_REDIRECT, ids=["two", "three"])
def test_a_fix_across_two_literals_keeps_the_source_between_them(text: str, fixed: str) -> None:
    """HL109's fix replaces ` > /etc/motd` (a redirection cut between two literals of an
    implicit concatenation) with ` | sudo tee ...`: the new text goes into the first
    literal, the emptied literal goes with its separator, and the source between the
    pieces of the edit (the first literal's closing quote) is kept, so the file still
    parses and the string is the fixed command.  (Run 7: the text between the pieces
    of a joined edit was dropped, the closing quote with it, and the fix was refused
    as unparsable.)"""
    outcome = fix_kind(text, "python", "t.py", Settings())
    assert (outcome.fixed, outcome.error) == (1, None)
    assert outcome.text == fixed
    assert "echo hi | sudo tee /etc/motd > /dev/null" in "".join(_strings(outcome.text))


_COMMENTED = (
    "import subprocess\n"
    "subprocess.run(\n"
    '    "sudo echo hi > /etc/"  # the target\n'
    '    {join}"motd"{after}\n'
    "    shell=True,\n"
    ")\n"
)
_COMMENTED_FIXED = (
    "import subprocess\n"
    "subprocess.run(\n"
    '    "echo hi | sudo tee /etc/motd > /dev/null"  # the target\n'
    "    {after}\n"
    "    shell=True,\n"
    ")\n"
)


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize(
    ("join", "after"), [("", ","), ("+ ", ","), ("", ",  # its name")], ids=["", "plus", "note"]
)
def test_an_emptied_literal_after_a_comment_leaves_the_comment_its_line(
    newline: str, join: str, after: str
) -> None:
    """The literal after a commented line is emptied by the fix and dropped; the comment
    stays at the end of its line, and what followed the dropped literal on its line (the
    `,` of the call's argument list, a comment of its own) stays on a line of its own, out
    of the comment, so the file parses and the call keeps its arguments.  (Run 7: the
    `,` was joined to the comment's line, inside the comment, and the fix was refused as
    unparsable.)"""
    text = _COMMENTED.format(join=join, after=after).replace("\n", newline)
    fixed = _COMMENTED_FIXED.format(after=after).replace("\n", newline)
    outcome = fix_kind(text, "python", "t.py", Settings())
    assert (outcome.fixed, outcome.error) == (1, None)
    assert outcome.text == fixed
    call = ast.parse(outcome.text).body[1]
    assert isinstance(call, ast.Expr) and isinstance(call.value, ast.Call)
    assert ast.literal_eval(call.value.args[0]) == "echo hi | sudo tee /etc/motd > /dev/null"
    assert [k.arg for k in call.value.keywords] == ["shell"]


# -- __init__.py / parsing.py: the statements read in full --------------------------------

_UNUSUAL_CALLS = (
    "import subprocess\n"
    'subprocess.run(["uptime"])\n'
    '(subprocess.run)("ssh h ls $HOME", shell=True)\n'
    "subprocess.run\\\n"
    '("ssh h echo $USER", shell=True)\n'
)


def test_a_call_with_its_callee_in_brackets_or_continued_is_read() -> None:
    """`(subprocess.run)(...)` and `subprocess.run\\` + newline + `(...)` are calls of
    subprocess.run as `subprocess.run(...)` is (Python runs each): the statements that
    hold them are read, and each `$VAR` of the double-quoted ssh string is reported as
    the local shell's value (HL102 info) at its exact span.  (Run 7, `__init__.py:120`:
    the analysis read only the lines where a call's name is followed by `(`, and found
    neither call; reading every statement, as the mutant did, found both.)"""
    found = check_text(_UNUSUAL_CALLS, "python", "t.py", Settings())
    got = [(f.code, f.severity.value, _UNUSUAL_CALLS[f.start : f.end]) for f in found]
    assert got == [("HL102", "info", "$HOME"), ("HL102", "info", "$USER")]
    assert [f.start for f in found] == [
        _UNUSUAL_CALLS.index("$HOME"),
        _UNUSUAL_CALLS.index("$USER"),
    ]
    assert "expanded by the local shell before ssh sends the command" in found[0].message
    # shell=True: /bin/sh expands it before ssh runs (shown with `echo` in front of ssh)
    shown = subprocess.run(
        ["/bin/sh", "-c", "echo ssh h ls $HOME"],
        env={"HOME": "/local/home", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert shown.stdout == "ssh h ls /local/home\n"


# -- imported.py: standard input has no place next to a module ------------------------------

_PORT_PROGRAM = (
    "#!/usr/bin/env python3\n"
    "import os\n"
    "from settings import PORT\n"
    'os.system(f"ssh -p {PORT} h uptime")\n'
)


def test_a_program_read_from_stdin_imports_no_module_of_the_current_directory(
    tmp_path: Path,
) -> None:
    """A program read from standard input (`--stdin-filename -`, its kind told by its
    shebang) is in no directory: `from settings import PORT` is not looked up in the
    current directory, whose settings.py says nothing about that program, and `{PORT}`
    stays a value the file does not show (HL201 info).  Named `main.py`, the same text
    is a file of the current directory, and PORT = 2222 there is a safe number.  (Run 7:
    `-` was resolved as a file of the current directory.)"""
    (tmp_path / "settings.py").write_text("PORT = 2222\n")
    args = ("--no-cache", "--severity", "info", "--format", "concise")
    as_stdin = run_cli(*args, "--stdin-filename", "-", "-", stdin=_PORT_PROGRAM, cwd=tmp_path)
    assert as_stdin.returncode == 1, as_stdin.stderr
    assert as_stdin.stdout.splitlines()[0].startswith("-:4:20: HL201 [info] `PORT` is put")
    as_file = run_cli(*args, "--stdin-filename", "main.py", "-", stdin=_PORT_PROGRAM, cwd=tmp_path)
    assert (as_file.returncode, as_file.stdout) == (0, ""), as_file.stderr


@pytest.mark.parametrize("path", ["-", ""])
def test_no_file_name_reads_no_module_beside_the_working_directory(
    path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`check_text(..., path="-")` or `path=""`: text with no file behind it; a settings.py
    in the working directory or its parent is not read for it."""
    (tmp_path / "settings.py").write_text("PORT = 2222\n")
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    found = check_text(_PORT_PROGRAM, "python", path, Settings())
    assert [(f.code, f.severity.value, _PORT_PROGRAM[f.start : f.end]) for f in found] == [
        ("HL201", "info", "{PORT}")
    ]


# -- imported.py: a constant Python cannot compute ------------------------------------------

_E300 = "1" + "0" * 300  # 10**300 as an int literal: a float holds it, its square not


def test_a_constant_too_large_for_a_float_is_unknown_not_a_crash(tmp_path: Path) -> None:
    """settings.py binds `HUGE = 10**300 * 10**300 * 0.5` (the int 10**600 made a float:
    Python raises OverflowError when it imports the module) and `SUM = 10**300 + 10**300
    + 0.5` (a float, 2e300).  SUM is a number, a safe word; HUGE has no value, so `{HUGE}`
    is a value the file does not show (HL201 info), and the file is checked (exit 1, not
    the internal error of exit 2).  (Run 7: the overflow escaped the reader and the whole
    file failed with an internal error; the `+` read as `*` made SUM overflow too.)"""
    (tmp_path / "settings.py").write_text(
        f"HUGE = {_E300} * {_E300} * 0.5\nSUM = {_E300} + {_E300} + 0.5\n"
    )
    imported = subprocess.run(
        [sys.executable, "-c", "import settings"], cwd=tmp_path, capture_output=True, text=True
    )
    assert "OverflowError: int too large to convert to float" in imported.stderr
    summed = subprocess.run(
        [sys.executable, "-c", f"print(type({_E300} + {_E300} + 0.5).__name__)"],
        capture_output=True,
        text=True,
    )
    assert summed.stdout == "float\n"
    text = (
        'import os\nfrom settings import HUGE, SUM\ndef f():\n    os.system(f"ls {HUGE} {SUM}")\n'
    )
    program = tmp_path / "main.py"
    found = check_text(text, "python", str(program), Settings())
    assert [(f.code, f.severity.value, text[f.start : f.end]) for f in found] == [
        ("HL201", "info", "{HUGE}")
    ]
    program.write_text(text)
    checked = run_cli("--no-cache", "--severity", "info", "--format", "concise", program)
    assert checked.returncode == 1, checked.stderr
    assert "internal error" not in checked.stderr


# -- calls.py: a project wrapper that runs its string with sh -------------------------------

_SH_WRAPPER = Settings(python_wrappers=(PyWrapper("*.shell", 0, "sh"),))
_SH_COMMANDS = [
    ("ssh h echo $HOME", [("HL102", "info", 1, "$HOME")]),
    ("ssh h 'sleep 10 &'", [("HL104", "warning", 1, "sleep")]),
    ("sudo echo hi > /etc/motd", [("HL109", "error", 0, ">")]),
    (
        'ssh h "bash -c \\"echo \\$x\\""',
        [("HL111", "info", 1, "ssh"), ("HL102", "info", 2, "$x")],
    ),
]


@pytest.mark.parametrize(("command", "expected"), _SH_COMMANDS)
def test_a_wrapper_that_runs_sh_is_read_as_subprocess_with_shell_true(
    command: str, expected: list[tuple[str, str, int, str]]
) -> None:
    """`python-wrappers = {"*.shell" = {arg = 0, runs = "sh"}}`: `box.shell(CMD)` runs CMD
    with `/bin/sh -c`, the local shell, as `subprocess.run(CMD, shell=True)` does: the
    same findings at the same depths (the local shell is depth 0, ssh's remote shell 1),
    and the same fixes.  (Run 7: the wrapper's string was given depth -1, so the remote
    shell was depth 0, taken for the file's own shell: HL102's and HL104's remote
    findings were lost, HL111 counted one shell less.)"""
    literal = repr(command)
    wrapped = f"def f(box):\n    box.shell({literal})\n"
    direct = f"import subprocess\nsubprocess.run({literal}, shell=True)\n"

    def found(text: str) -> list[tuple[str, str, int, str]]:
        return [
            (f.code, f.severity.value, f.depth, text[f.start : f.end])
            for f in check_text(text, "python", "t.py", _SH_WRAPPER)
        ]

    assert found(wrapped) == found(direct) == expected
    fixed = fix_kind(wrapped, "python", "t.py", _SH_WRAPPER, unsafe=True).text
    fixed_direct = fix_kind(direct, "python", "t.py", _SH_WRAPPER, unsafe=True).text
    assert fixed.split("box.shell(", 1)[1] == fixed_direct.split("subprocess.run(", 1)[1].replace(
        ", shell=True", ""
    )


# -- imported.py: a module edited while the process lives -----------------------------------


def test_a_settings_module_edited_between_two_checks_is_read_again(tmp_path: Path) -> None:
    """One process (as the language server is) checks main.py, then settings.py is
    edited and main.py checked again: the second check reads the new settings.py.
    `PORT = 2222` is a number (no finding); `PORT = input()` is not shown by the file
    (HL201 info); `PORT = 80`, no finding again.  (Run 7: the first reading
    was kept for the life of the process, and only 64 other modules read in between
    made it go, so the edit was seen or not by a count: `imported.py:45`.)"""
    settings = tmp_path / "settings.py"
    text = 'import os\nfrom settings import PORT\ndef f():\n    os.system(f"ls {PORT}")\n'
    program = str(tmp_path / "main.py")

    def found() -> list[tuple[str, str, str]]:
        return [
            (f.code, f.severity.value, text[f.start : f.end])
            for f in check_text(text, "python", program, Settings())
        ]

    settings.write_text("PORT = 2222\n")
    assert found() == []
    settings.write_text("PORT = input()\n")
    assert found() == [("HL201", "info", "{PORT}")]
    settings.write_text("PORT = 80\n")
    assert found() == []


# -- literals.py: an octal escape is at most three digits -----------------------------------

_OCTALS = 'import subprocess\nsubprocess.run("ssh h echo \\0441 \\1234 \\7777", shell=True)\n'


def test_an_octal_escape_reads_three_digits_and_the_next_is_a_character() -> None:
    """`\\0441` is `$` then `1` (Python reads at most three octal digits): the string is
    `ssh h echo $1 S4 \\u01ff7`, as Python builds it, and `$1` is the local shell's first
    argument, empty (HL102 info at `\\0441`).  (Run 7: a fourth digit was read, `\\0441`
    became U+0121 and the `$1` was gone.)"""
    (fragment,) = fragments("python", _OCTALS)
    (literal,) = [
        n
        for n in ast.walk(ast.parse(_OCTALS))
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]
    assert literal.value == "ssh h echo $1 S4 \u01ff7"
    assert fragment.text == literal.value
    found = check_text(_OCTALS, "python", "t.py", Settings())
    assert [(f.code, f.severity.value, _OCTALS[f.start : f.end]) for f in found] == [
        ("HL102", "info", "\\0441")
    ]
    assert "there it is empty" in found[0].message
    # the shell of shell=True: `$1` is its first argument, and Python passes none
    shown = subprocess.run(
        ["/bin/sh", "-c", literal.value.replace("ssh h ", "")], capture_output=True, text=True
    )
    assert shown.stdout == "S4 \u01ff7\n"  # the empty, unquoted `$1` is no word


# -- decoding.py: no coding line, whatever the bytes of the first two lines -----------------

_LATIN_1_COMMENT = "# caf\xe9\n".encode("latin-1").decode("utf-8", "surrogateescape")
_HOME_CALL = 'import os\nos.system("ssh h echo $HOME")\n'


@pytest.mark.parametrize(
    "text",
    [
        _LATIN_1_COMMENT + _HOME_CALL,
        _HOME_CALL + _LATIN_1_COMMENT,
        "#\n" + _LATIN_1_COMMENT + _HOME_CALL,
    ],
    ids=["line-1", "line-3", "line-2"],
)
def test_a_stray_byte_without_a_coding_line_is_read_as_on_any_line(text: str) -> None:
    """A file with no coding line and a Latin-1 `é` in a comment (a byte that is not
    UTF-8, kept as the file's byte; Python refuses to run it, on any line): the file is
    read as UTF-8 wherever the byte stands, on line 1 or 2 as on line 3, and its call is
    checked (HL102 info at `$HOME`); no coding line is blamed, there is none.  (Run 7:
    with the byte on line 1 or 2 the first lines went to Python's coding-line reader,
    which refused the byte, and the file was not checked: "its coding line (line 1)
    fails".)"""
    found = check_text(text, "python", "t.py", Settings())
    assert [(f.code, f.severity.value, text[f.start : f.end]) for f in found] == [
        ("HL102", "info", "$HOME")
    ]


# -- decoding.py: where a coding line that Python refuses is reported ------------------------


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("# -*- coding: bogus -*-\nimport os\nos.system('ls $HOME')\n", 1),
        ("#!/usr/bin/env python3\n# -*- coding: bogus -*-\nimport os\nos.system('ls')\n", 2),
        ("#!/usr/bin/python\n# vim: set fileencoding=nope :\nimport os\n", 2),
        ("# -*- coding: bogus -*-", 1),
    ],
    ids=["line-1", "line-2", "line-2-short-first", "one-line-no-newline"],
)
def test_a_coding_line_python_refuses_is_reported_at_its_start(text: str, line: int) -> None:
    """`coding: bogus` names no codec: Python refuses to run the file (SyntaxError,
    `unknown encoding`), and the file is not checked: one HL001 at the first character
    of the coding line (line 1 or 2), which the message names, in a file of one line
    without a newline too; info, as a Python file that does not parse is
    `source-unreadable`.  (Run 7: for a coding line on line 2, the length of the wrong
    line could place it; a file of one line was looked into for a second.)"""
    found = check_text(text, "python", "t.py", Settings())
    assert [(f.code, f.severity.value, f.evidence) for f in found] == [
        ("HL001", "info", "source-unreadable")
    ]
    start = 0 if line == 1 else text.index("\n") + 1
    assert (found[0].start, found[0].end) == (start, start + 1)
    assert f"its coding line (line {line}) fails: unknown encoding" in found[0].message
    refused = subprocess.run(
        [sys.executable, "-c", f"compile({text.encode()!r}, 't.py', 'exec')"],
        capture_output=True,
        text=True,
    )
    assert "SyntaxError: unknown encoding" in refused.stderr


def test_a_call_whose_name_matches_no_wrapper_pattern_is_not_read() -> None:
    """With only `*.shell` configured, `box.run(CMD)`, `log.info(CMD)` and a bare
    `execute(CMD)` are not the wrapper: nothing says they run CMD, so CMD is not read
    (no finding), while `box.shell(CMD)` is (HL104 at `sleep`).  (Run 7: any named call
    was taken for the first configured wrapper.)"""
    command = "ssh h 'sleep 10 &'"
    text = (
        "def f(box, log):\n"
        f"    box.run({command!r})\n"
        f"    log.info({command!r})\n"
        f"    execute({command!r})\n"
        f"    box.shell({command!r})\n"
    )
    found = check_text(text, "python", "t.py", _SH_WRAPPER)
    assert [(f.code, f.start) for f in found] == [("HL104", text.rindex("sleep"))]


# -- encode.py: a literal emptied by a fix keeps its type -----------------------------------


class _Recorder:
    """Stands for the subprocess module: records the command instead of running it."""

    def __init__(self) -> None:
        self.commands: list[object] = []

    def run(self, command: object, **_: object) -> None:
        self.commands.append(command)


@pytest.mark.parametrize("prefix", ["", "b"], ids=["str", "bytes"])
def test_a_literal_emptied_by_a_fix_stays_a_literal_of_its_type(prefix: str) -> None:
    """`PREFIX = "sudo "` is all of its statement's string, and HL109's fix drops the
    pointless `sudo` (`echo` needs no privilege; `sudo tee` writes the file): the literal
    becomes `""` (`b""` for bytes), so `PREFIX + "..."` still runs and builds the fixed
    command, as executing the fixed program (its subprocess recorded) shows.  (Run 7: a
    str literal became `b""`, and the program raised TypeError at the `+`.)"""
    text = (
        "import subprocess\n"
        f'PREFIX = {prefix}"sudo "\n'
        f'subprocess.run(PREFIX + {prefix}"echo hi > /etc/motd", shell=True)\n'
    )
    outcome = fix_kind(text, "python", "t.py", Settings())
    assert (outcome.fixed, outcome.error) == (1, None)
    assert outcome.text == (
        "import subprocess\n"
        f'PREFIX = {prefix}""\n'
        f'subprocess.run(PREFIX + {prefix}"echo hi | sudo tee /etc/motd > /dev/null", '
        "shell=True)\n"
    )
    recorder = _Recorder()
    program = outcome.text.replace("import subprocess\n", "")
    exec(compile(program, "t.py", "exec"), {"subprocess": recorder})
    fixed_command = "echo hi | sudo tee /etc/motd > /dev/null"
    assert recorder.commands == [fixed_command.encode() if prefix else fixed_command]
