"""Where each character of a Python string comes from, now that a literal's units are
runs (issue 18 item 8): findings and fixes land on the file's own characters after
escapes, backslash-newlines, f-string braces and fields, and implicit concatenation."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rulekit import python_findings

from heredoc_lint.engine import Settings, check_text
from heredoc_lint.frontends import fragments
from heredoc_lint.frontends.python import analyse
from heredoc_lint.frontends.python.model import Unit, Units

# An ssh command in one argv element made of five literals: escapes (`\t`, `\x41`, a
# backslash-newline, `\N{...}`), an f-string with `{{x}}` and a numeric field, a raw
# literal, and a run-time value `{host}` in an element of its own.
SOURCE = (
    "import subprocess\n"
    'subprocess.run(["ssh", "h", "echo \\t\\x41\\\n ok; " f"{{x}} {n:d} " r\'\\d; \'\n'
    "    '\\N{LATIN SMALL LETTER A}; pkill -f sglang; ./restart', f\"{host}\"])\n"
)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_findings_and_fixes_land_on_the_source_of_their_characters(newline: str) -> None:
    source = SOURCE.replace("\n", newline)
    findings = {f.code: f for f in check_text(source, "python", "t.py")}
    assert sorted(findings) == ["HL103", "HL201"]

    pkill = source.index("pkill -f sglang")
    hl103 = findings["HL103"]
    assert (hl103.start, hl103.end) == (pkill, pkill + len("pkill"))
    assert hl103.fix is not None
    (edit,) = hl103.fix.edits
    at = pkill + len("pkill -f ")  # the `s` of sglang, inside a single-quoted literal
    assert (edit.start, edit.end, edit.content) == (at, at + 1, "\\'[s]\\'")
    fixed = source[: edit.start] + edit.content + source[edit.end :]
    assert "'\\N{LATIN SMALL LETTER A}; pkill -f \\'[s]\\'glang; ./restart'" in fixed
    assert check_text(fixed, "python", "t.py")[0].code == "HL201"  # HL103 is gone

    field = source.index("{host}")
    hl201 = findings["HL201"]
    assert (hl201.start, hl201.end) == (field, field + len("{host}"))


def test_a_long_literal_is_a_few_runs_of_units() -> None:
    """A 200,000-character literal: its units are as many as its characters and each maps
    to its own source character, but they are held as a handful of runs."""
    body = "x = 1; " * 28_572
    source = f'import subprocess\nsubprocess.run(["ssh", "h", "\\techo; {body}"])\n'
    analysis, frags = analyse(source)
    (frag,) = frags
    assert frag.text == "\techo; " + body
    start = source.index("\\techo")
    assert frag.offsets is not None
    assert frag.offsets[0] == start and frag.offsets[1] == start + 2
    assert frag.offsets[-2] == len(source) - len('"])\n') - 1
    units = analysis.units
    first = units[frag.origin.unit_of[0]]  # type: ignore[attr-defined]
    last = units[frag.origin.unit_of[-1]]  # type: ignore[attr-defined]
    assert (first.kind, first.start, first.end, first.at) == ("char", start, start + 2, start)
    end = len(source) - len('"])\n')
    assert (last.kind, last.start, last.end, last.at) == ("char", end - 1, end, end - 1)
    assert units.runs < 10 < len(frag.text) <= len(units)


# Units as written by the readers: characters in steps (plain, escapes), synthetic
# characters at one spot, placeholders; in any order.
UNIT = st.builds(
    Unit,
    st.sampled_from(["char", "field", "spec", "expr", "synthetic"]),
    st.integers(0, 40),
    st.integers(0, 40),
    st.integers(0, 40),
    st.integers(-1, 2),
    st.integers(-1, 2),
)
STEPPED = st.tuples(UNIT, st.integers(0, 3), st.integers(1, 6)).map(
    lambda r: [
        Unit(
            r[0].kind,
            r[0].start + k * r[1],
            r[0].end + k * r[1],
            r[0].at + k * r[1],
            r[0].atom,
            r[0].interp,
        )
        for k in range(r[2])
    ]
)


@given(st.lists(st.one_of(UNIT.map(lambda u: [u]), STEPPED), max_size=10))
def test_units_give_back_what_was_added(parts: list[list[Unit]]) -> None:
    added = [unit for part in parts for unit in part]
    units = Units()
    indices = [units.append(unit) for unit in added]
    assert indices == list(range(len(added)))
    assert len(units) == len(added)
    assert list(units) == added
    assert [units[i] for i in reversed(range(-len(added), len(added)))] == (added * 2)[::-1]
    assert units[1:4] == added[1:4]
    with pytest.raises(IndexError):
        units[len(added)]


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 5), st.integers(-1, 1))))
def test_characters_added_at_once_are_those_added_one_by_one(
    stretches: list[tuple[int, int, int]],
) -> None:
    at_once, one_by_one = Units(), Units()
    for start, count, atom in stretches:
        first = at_once.add_chars(start, count, atom)
        assert first == len(one_by_one)
        for k in range(count):
            one_by_one.add("char", start + k, start + k + 1, start + k, atom)
    assert list(at_once) == list(one_by_one)
    assert at_once.runs == one_by_one.runs


# -- literals.py: the characters of a bytes literal ------------------------------------


def test_every_byte_of_a_bytes_command_is_read() -> None:
    """A bytes command is read whatever its bytes: `\\x7e`, DEL (`\\x7f`, `\\177`: still
    ASCII) and the bytes over 0x7f all leave `$HOME` before them a finding of its own."""
    escapes = ["\\x7e", "\\x7f", "\\177", "\\x80", "\\200", "\\xff"]
    text = "import subprocess\n" + "".join(
        f'subprocess.run(b"ssh h echo $HOME{e}", shell=True)\n' for e in escapes
    )
    found = python_findings(text, "HL102")
    homes = [i for i in range(len(text)) if text.startswith("$HOME", i)]
    assert [(f.start, f.end) for f in found] == [(i, i + 5) for i in homes]
    assert len(found) == len(escapes)


# -- positions.py: columns in UTF-8 bytes --------------------------------------------------


def test_spans_after_non_ascii_characters_on_the_same_line() -> None:
    """ast's columns count UTF-8 bytes: after `é` (2 bytes), `€` (3) and `𝄞` (4, a
    surrogate pair nowhere) on the same line, a finding is still at its own characters."""
    text = (
        'import os\nx = "é€𝄞"; os.system("ssh h echo $HOME"); os.system(f"ssh h echo {x} $USER")\n'
    )
    found = python_findings(text, "HL102")
    assert [(f.start, f.end) for f in found] == [
        (text.index("$HOME"), text.index("$HOME") + 5),
        (text.index("$USER"), text.index("$USER") + 5),
    ]


# -- literals.py: the characters of a string literal, and where each came from ------------


@pytest.mark.parametrize(
    "dollar", ["$", "\\x24", "\\u0024", "\\U00000024", "\\N{DOLLAR SIGN}", "\\44", "\\044"]
)
def test_an_escaped_dollar_is_read_as_the_dollar(dollar: str) -> None:
    """`"\\x24HOME"` is `$HOME` to Python: the local shell expands it, and HL102 points at
    the escape and the name, from the backslash on."""
    text = f'import os\nos.system("ssh h echo {dollar}HOME")\n'
    found = python_findings(text, "HL102")
    assert [text[f.start : f.end] for f in found] == [f"{dollar}HOME"]
    assert "`$HOME` is this machine's value" in found[0].message


def test_a_literal_ending_in_a_backslash_newline_is_read() -> None:
    """`\"\"\"...$HOME\\<newline>\"\"\"`: the backslash-newline yields nothing, and the
    rest of the literal is read as usual."""
    text = 'import os\nos.system("""ssh h echo $HOME\\\n""")\n'
    found = python_findings(text, "HL102")
    assert [text[f.start : f.end] for f in found] == ["$HOME"]


def test_a_raw_backslash_crlf_continues_the_shell_line(tmp_path: Path) -> None:
    """A CRLF file: Python reads CR LF in a raw literal as one newline, so the shell sees
    `echo \\<newline>$HOME`, a line continuation: `$HOME` is an argument of the ssh
    command, expanded here (bash says so), and HL102 reports it."""
    text = 'import os\r\nos.system(r"""ssh h echo \\\r\n$HOME""")\r\n'
    script = tmp_path / "crlf.py"
    script.write_bytes(text.encode())
    value = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import ast; print(repr(ast.parse(open({str(script)!r}).read())"
            ".body[1].value.args[0].value))",
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout
    assert value == "'ssh h echo \\\\\\n$HOME'\n"
    words = subprocess.run(
        ["bash", "-c", "set -- ssh h echo \\\n$HOME; echo $#"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout
    assert words == "4\n"  # one command: ssh, h, echo and the expanded $HOME
    found = python_findings(text, "HL102")
    assert [text[f.start : f.end] for f in found] == ["$HOME"]


def test_a_doubled_brace_of_an_f_string_is_one_brace() -> None:
    """`f"...${{HOME}}..."` is `${HOME}`: HL102 names it so, from its `$`."""
    text = 'import os\nx = 1\nos.system(f"ssh h echo ${{HOME}} {x}")\n'
    found = python_findings(text, "HL102")
    assert [f.start for f in found] == [text.index("$")]
    assert "`${HOME}` is this machine's value" in found[0].message


def test_a_del_byte_after_a_backslash_newline_is_ascii() -> None:
    """A bytes literal whose last character, a raw DEL (0x7f, still ASCII), follows a
    backslash-newline: the literal is read, and `$HOME` in it reported."""
    text = 'import subprocess\nsubprocess.run(b"ssh h echo $HOME x\\\n\x7f", shell=True)\n'
    found = python_findings(text, "HL102")
    assert [text[f.start : f.end] for f in found] == ["$HOME"]


# -- model.py: where each character of a long literal came from ----------------------------


def test_every_expansion_of_long_literals_is_placed_exactly() -> None:
    """Long literals, with tabs, escapes and run-time values between their stretches of
    plain characters: each `$NAME` the local shell expands is reported at its own
    characters in the file, wherever it stands in its stretch."""
    text = (
        "import os\n\ndef go(y):\n"
        '    os.system("ssh h echo ' + "a" * 40 + " $HOME " + "b" * 25 + '\\t\\t\\t$USER"'
        ' + y + "' + "c" * 16 + ' $PWD")\n'
        '    os.system(f"ssh h echo $LANG\\t\\t\\t{y} $TERM ' + "d" * 30 + ' $SHELL\\x20$EDITOR")\n'
    )
    found = python_findings(text, "HL102")
    names = ["$HOME", "$USER", "$PWD", "$LANG", "$TERM", "$SHELL", "$EDITOR"]
    assert [(text[f.start : f.end], f.start) for f in found] == [
        (name, text.index(name)) for name in names
    ]


# -- where a span ends: after the whole source of its last character -----------------------


# A span whose last character is written with several source characters (`}}` of an
# f-string, an escape such as `\x7d`) ends after that whole source, not inside it.  (Seen
# in run 6 as a strict xfail; fixed in run 7: the fragment says where a character's
# source ends, `Fragment.source_end`.)
@pytest.mark.parametrize(
    ("call", "expansion"),
    [
        ('os.system(f"ssh h echo ${{HOME}} {x}")', "${{HOME}}"),
        ('os.system("ssh h echo \\x24{HOME\\x7d")', "\\x24{HOME\\x7d"),
    ],
)
def test_a_span_ends_after_the_source_of_its_last_character(call: str, expansion: str) -> None:
    text = f"import os\nx = 1\n{call}\n"
    found = python_findings(text, "HL102")
    assert [text[f.start : f.end] for f in found] == [expansion]


# -- reading.py: a bytes literal with bytes above 0x7f --------------------------------------


def test_a_bytes_command_with_non_ascii_bytes_is_read() -> None:
    """`b"... caf\\xe9"` (Latin-1) and `b"... \\xc3\\xa9"` (UTF-8): the shell gets the bytes
    as they are; the command is read all the same, `$HOME` found where it is written."""
    text = (
        "import subprocess\n\n"
        'subprocess.run(b"ssh h echo $HOME \\xc3\\xa9", shell=True)\n'
        'subprocess.run(b"ssh h echo $HOME caf\\xe9", shell=True)\n'
    )
    found = python_findings(text)
    home = [i for i in range(len(text)) if text.startswith("$HOME", i)]
    assert [(f.code, f.severity.value, f.start, f.end) for f in found] == [
        ("HL102", "info", home[0], home[0] + 5),
        ("HL102", "info", home[1], home[1] + 5),
    ]


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


# -- Python frontend --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("literal", "pattern"),
    [
        ('b"ssh h \\"pkill -f \\N{x}a; y\\""', "'N{x}a'"),  # no \N escape in bytes
        ('"ssh h \\"pkill -f \\N{LATIN SMALL LETTER A}b; y\\""', "ab"),
        ('"ssh h \\"pkill -f \\x61\\u0062\\143; y\\""', "abc"),
    ],
)
@pytest.mark.filterwarnings("ignore:invalid escape sequence")  # the input's own `\N`
def test_python_escapes_decoded_as_python_does(literal: str, pattern: str) -> None:
    """The shell sees the string's value: Python's escapes decoded, bytes without `\\N`."""
    text = f"import os\n\nos.system({literal})\n"
    (f,) = [f for f in check_text(text, "python", "t.py") if f.code == "HL103"]
    assert text[f.start : f.end] == "pkill"
    assert f"`pkill -f {pattern}`" in f.message


def test_fstring_doubled_braces_keep_the_offsets() -> None:
    """`{{print}}` is `{print}` to the shell; what follows it keeps its exact span."""
    text = (
        "import subprocess\n\n"
        "def f(z: str) -> None:\n"
        '    subprocess.run(f"ssh h \\"awk {{print}} f; pkill -f x; y\\" {z}", shell=True)\n'
    )
    (f,) = [f for f in check_text(text, "python", "t.py") if f.code == "HL103"]
    assert (f.start, f.end) == (text.index("pkill"), text.index("pkill") + 5)
    assert "awk {print} f; pkill -f x; y" in f.message
