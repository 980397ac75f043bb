"""A Python file's text: its codec and coding line, what Python refuses to read, and where
HL001 places a syntax error."""

from __future__ import annotations

import ast
import base64
import subprocess
import sys
from pathlib import Path

import pytest
from rulekit import python_findings

from heredoc_lint.engine import Settings, check_text

# -- __init__.py: the names bound at module level ------------------------------------------


def test_a_file_in_another_codec_is_never_fixed() -> None:
    """A Latin-1 file (its coding line says so) is checked in Python's text of it, but an
    edit would have to be written in Latin-1: its findings carry no fix, while the same
    file in ASCII gets the shlex.quote fix.  Both at the same span in the file."""
    raw = b"# -*- coding: latin-1 -*-\nimport os\n# caf\xe9\ndef f(p):\n    os.system(f'ls {p}')\n"
    latin = check_text(raw.decode("utf-8", "surrogateescape"), "python", "t.py", Settings())
    ascii_ = check_text(raw.replace(b"\xe9", b"e").decode(), "python", "t.py", Settings())
    assert [(f.code, f.start, f.end, f.fix) for f in latin] == [("HL201", 72, 75, None)]
    assert [(f.code, f.start, f.end) for f in ascii_] == [("HL201", 72, 75)]
    assert ascii_[0].fix is not None


# -- HL201: the word that holds a value is the innermost one --------------------------------


def test_a_file_in_another_codec_with_newer_syntax_keeps_what_was_read() -> None:
    """A Latin-1 file with a 3.12 f-string that this Python cannot parse: the statement
    is reported as not checked (HL001 at its place in the file) and the rest is checked
    all the same, its findings at their places in the file's own text."""
    raw = (
        b"# -*- coding: latin-1 -*-\nimport os\n# caf\xe9\ndef f(p):\n"
        b'    os.system(f\'ls {p}\')\n\nx = f"{d["k"]}"\n'
    )
    found = check_text(raw.decode("utf-8", "surrogateescape"), "python", "t.py", Settings())
    try:
        ast.parse(raw.decode("latin-1"))
        newer = []  # this Python reads 3.12 f-strings
    except SyntaxError:
        newer = [("HL001", 79, 80)]
    assert [(f.code, f.start, f.end) for f in found] == [("HL201", 72, 75), *newer]
    assert all(f.fix is None for f in found)


# -- decoding.py: the coding line ------------------------------------------------------------


def test_a_bad_coding_line_on_line_2_is_reported_there(tmp_path: Path) -> None:
    """`# coding: no-such-codec` on line 2 (after a shebang): python3 refuses the file, and
    the one HL001 says line 2 and points at that line's first character."""
    text = "#!/usr/bin/env python3\n# coding: no-such-codec\nimport os\nos.system('ls')\n"
    script = tmp_path / "bad.py"
    script.write_text(text)
    refused = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=30
    )
    assert refused.returncode == 1 and "no-such-codec" in refused.stderr
    found = python_findings(text)
    assert [(f.code, f.start, f.end) for f in found] == [("HL001", 23, 24)]
    assert found[0].message == (
        "not checked: Python cannot run this file, its coding line (line 2) fails: "
        "unknown encoding: no-such-codec"
    )


def test_an_ascii_file_with_a_latin1_coding_line_is_fixed_as_usual() -> None:
    """Latin-1 reads an ASCII file as the same characters: the file is its own text, and
    its findings get their fixes (only a file whose text differs is never fixed)."""
    body = "import os\n\n\ndef f(p):\n    os.system(f'ls {p}')\n"
    plain = python_findings(body)
    coded = python_findings("# -*- coding: latin-1 -*-\n" + body)
    shift = len("# -*- coding: latin-1 -*-\n")
    assert [(f.code, f.start + shift, f.end + shift) for f in plain] == [
        (f.code, f.start, f.end) for f in coded
    ]
    assert len(coded) == 1 and coded[0].fix is not None


def test_an_error_at_the_start_of_a_latin1_file_stays_there(tmp_path: Path) -> None:
    """A Latin-1 file with a NUL byte, which python3 refuses: HL001 at the file's first
    character, where the decoded text's first character came from."""
    text = '# coding: latin-1\n# caf\udce9\nimport os\nos.system("ls")\nx = 1\x00\n'
    script = tmp_path / "nul.py"
    script.write_bytes(text.encode("utf-8", "surrogateescape"))
    refused = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=30
    )
    assert refused.returncode != 0 and "null bytes" in refused.stderr
    assert [(f.code, f.start, f.end) for f in python_findings(text)] == [("HL001", 0, 1)]


# -- parsing.py: where a syntax error is, and what a newer statement hides --------------


def _hl001(text: str) -> list[tuple[str, int, int, str, str]]:
    found = python_findings(text, "HL001")
    return [(f.severity.value, f.start, f.end, f.message, f.evidence) for f in found]


def test_a_syntax_error_is_reported_at_its_character() -> None:
    """`)` at the start of line 3 (Python's column 1) is where HL001 points, not one
    character later nor on the line before (info: a Python file that does not parse is
    `source-unreadable`, info by default since its first look on real code)."""
    text = 'import os\nos.system("ls")\n)\n'
    (only,) = _hl001(text)
    assert only[:3] == ("info", text.rindex(")"), text.rindex(")") + 1)
    assert only[3:] == ("Python syntax error: unmatched ')'", "source-unreadable")


def test_python2_source_is_recognised_on_a_last_line_without_newline() -> None:
    """`10L` is Python 2's long literal: on the last line, with or without a newline after
    it, the file is Python 2 (info, not checked), not a syntax error."""
    for end in ("", "\n"):
        text = 'import os\nos.system("ls")\nx = 10L' + end
        (only,) = _hl001(text)
        assert only[0] == "info", repr(end)
        assert only[3] == "not checked: Python 2 source (line 3: invalid decimal literal)"


# -- positions.py: columns in UTF-8 bytes --------------------------------------------------


_NEWER = 'import os\n{call}(\nf"{{d["a"]}}")\nos.system("ssh h echo $HOME")\n'


def test_a_newer_statement_is_left_out_without_moving_the_lines_after_it() -> None:
    """A 3.12 f-string that 3.11 cannot parse is left out (HL001 names its lines) and the
    call after it is still read at its own characters.  When the statement's first line
    (`g(`) is shorter than the `pass` that stands in for it, the stand-in would swallow
    the line break and move every line after it up by one: the file is then reported as
    not parsed (HL001 at the error), as parse_partly's docstring says.  From 3.12 Python
    reads the f-string, and the whole file is checked."""
    text = _NEWER.format(call="print")
    found = python_findings(text)
    if sys.version_info >= (3, 12):
        for call in ("print", "g"):
            text = _NEWER.format(call=call)
            found = python_findings(text)
            assert [(f.code, text[f.start : f.end]) for f in found] == [("HL102", "$HOME")]
        return
    assert [(f.code, text[f.start : f.end]) for f in found] == [("HL001", "p"), ("HL102", "$HOME")]
    assert found[0].message.startswith("not checked: lines 2-3: Python 3.11 cannot parse it")
    assert found[1].start == text.index("$HOME")
    short = _NEWER.format(call="g")
    found = python_findings(short)
    # a Python file that does not parse is `source-unreadable`: info
    assert [(f.code, f.severity.value, f.evidence) for f in found] == [
        ("HL001", "info", "source-unreadable")
    ]
    assert found[0].message == "Python syntax error: f-string: unmatched '['"
    with pytest.raises(SyntaxError) as error:  # where Python itself points
        ast.parse(short)
    assert (error.value.lineno, error.value.offset) == (3, 7)
    assert found[0].start == short.index("\nf") + 1 + 6


# -- __init__.py and decoding.py: a file in another codec ---------------------------------


def _utf7(text: str) -> str:
    """`text` in UTF-7's base64 form, left open (no closing `-`): `+AHgA...`."""
    return "+" + base64.b64encode(text.encode("utf-16-be")).decode("ascii").rstrip("=")


def test_a_syntax_error_at_the_end_of_a_utf7_file_is_placed_where_it_starts(
    tmp_path: Path,
) -> None:
    """A UTF-7 file that ends (no newline) inside a base64 run holding `x = = 1`: the
    codec gives those characters only at the end of the bytes.  python3 refuses the file
    at line 4, and HL001 points at the `+` that run starts with, not past the file's end."""
    text = "# coding: utf-7\nimport os\nos.system('ls')\n" + _utf7("x = = 1")
    script = tmp_path / "tail.py"
    script.write_text(text)
    refused = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=30
    )
    assert refused.returncode == 1 and "line 4" in refused.stderr
    assert "SyntaxError: invalid syntax" in refused.stderr
    found = python_findings(text)
    plus = text.index("+")
    assert [(f.code, f.start, f.end) for f in found] == [("HL001", plus, plus + 1)]
    assert found[0].message == "Python syntax error: invalid syntax"


# -- parsing.py: a file holding lone surrogates is read like any other ---------------------


@pytest.mark.parametrize(
    ("mark", "surrogate"), [("+2AA-", "\ud800"), ("+3/8-", "\udfff"), ("+3IA-", "\udc80")]
)
def test_a_utf7_file_decoding_to_a_lone_surrogate_is_read(mark: str, surrogate: str) -> None:
    """UTF-7 decodes `+2AA-`, `+3/8-` and `+3IA-` to the lone surrogates U+D800, U+DFFF
    and U+DC80 (the first and last of the range, and the one a non-UTF-8 byte becomes):
    the file is read all the same, its call found where it is written (no HL001)."""
    assert mark.encode().decode("utf-7") == surrogate
    text = f'# -*- coding: utf-7 -*-\nimport os\n# a mark: {mark}\nos.system("ssh h echo $HOME")\n'
    found = python_findings(text)
    assert [(f.code, f.severity.value, text[f.start : f.end]) for f in found] == [
        ("HL102", "info", "$HOME")
    ]


def test_a_file_too_deep_for_the_parser_is_reported_at_its_first_character() -> None:
    """A sum of 200,000 terms exhausts the parser's recursion (not a syntax error): the
    file cannot be read, an HL001 on its first character, and nothing else (info: a
    Python file that does not parse is `source-unreadable`, info by measurement)."""
    text = 'import os\nos.system("ssh h echo $HOME")\nx = 1' + "+1" * 200_000 + "\n"
    found = python_findings(text)
    assert [(f.code, f.severity.value, f.evidence, f.start, f.end) for f in found] == [
        ("HL001", "info", "source-unreadable", 0, 1)
    ]
    assert found[0].message.startswith("Python source cannot be read: maximum recursion")


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
