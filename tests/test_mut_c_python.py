"""Pinned behaviours of the Python frontend's helpers (frontends/python/imported.py,
literals.py, model.py, origins.py, parsing.py, positions.py), through `engine.check_text`:
exact spans, severities, what a message names.

Each test kills mutants of the sample of `bench/mutation.py` (issue 20, run 5c,
bench/MUTATION.md, section 9), most of them survivors of its first run; each was planted by
hand, the test failed, and passes without.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from heredoc_lint.engine import Settings, check_text
from heredoc_lint.model import Finding


def _python(text: str, code: str | None = None, path: str = "t.py") -> list[Finding]:
    found = check_text(text, "python", path, Settings())
    return [f for f in found if code is None or f.code == code]


def _spans(text: str, found: list[Finding]) -> list[str]:
    return [text[f.start : f.end] for f in found]


# -- imported.py: numbers imported from the project's own modules ------------------------

_SERVE = (
    "import os\nfrom app.settings import {names}\ndef serve():\n    os.system(f'serve {fields}')\n"
)


def _serve(tmp_path: Path, settings: str, names: list[str]) -> list[str]:
    """The HL201 spans of a `serve()` that imports `names` from app/settings.py."""
    package = tmp_path / "app"
    package.mkdir()
    (package / "settings.py").write_text(settings)
    text = _SERVE.format(names=", ".join(names), fields=" ".join(f"{{{n}}}" for n in names))
    return _spans(text, _python(text, "HL201", str(package / "main.py")))


def test_a_constant_is_read_only_to_a_bounded_depth(tmp_path: Path) -> None:
    """Eight nested signs or an eight-deep sum are read as a number (a safe shell word);
    a deeper expression (900 signs, 900 terms, 100 nested brackets on the right) is not
    followed, so the name is as unknown as one the file cannot see."""
    right = "2 * (" * 100 + "2" + ")" * 100
    settings = (
        f"SIGNS = {'-' * 8}1\nSUM = {'+'.join(['1'] * 9)}\nPRODUCT = 2 * -3 - 4\n"
        f"DEEP = {'-' * 900}1\nLONG = {'+'.join(['1'] * 900)}\nRIGHT = {right}\n"
    )
    names = ["SIGNS", "SUM", "PRODUCT", "DEEP", "LONG", "RIGHT"]
    assert _serve(tmp_path, settings, names) == ["{DEEP}", "{LONG}", "{RIGHT}"]


def test_a_module_over_512_kib_is_not_read(tmp_path: Path) -> None:
    """settings.py is read up to 512 KiB exactly; one byte more and it is not read."""
    limit = 512 * 1024
    head = "PORT = 8000\n"
    for size, spans in ((limit, []), (limit + 1, ["{PORT}"])):
        padding = "#" * (size - len(head) - 1) + "\n"
        directory = tmp_path / str(size)
        directory.mkdir()
        settings = head + padding
        assert len(settings.encode()) == size
        assert _serve(directory, settings, ["PORT"]) == spans, size


# -- origins.py: where a value comes from ------------------------------------------------

_ORIGINS = """import argparse, os
from flask import request
p = argparse.ArgumentParser()
p.add_argument("--port", type=int)
p.add_argument("--host")
args = p.parse_args()
def serve(cfg):
    os.system(f"srun -w {os.getenv('SLURM_NODELIST', 'localhost')} hostname")
    os.system(f"ls {os.getenv('BUILD_DIR', 'SLURM_NODELIST')}")
    os.system(f"ls {os.environ['SLURM_JOB_ID']}")
    os.system(f"nc {args.host} {args.port}")
    os.system(f"ls {cfg.form.name} {request.form.name}")
"""


def test_origins_of_values_name_their_source() -> None:
    """What each value's message says of its source: a scheduler's variable (set by the
    job's launcher, whatever the default) and a `type=int` option are no evidence; the
    key of `os.getenv` is its first argument, not the default; `.form` is an HTTP
    request's part only on flask's `request`, not on any parameter's attribute.  The
    environment and options are evidence at info (their first look on real code), and
    so are a parameter whose name says nothing of what it holds and an HTTP request, so
    the evidence, not the severity, tells them from the values with no origin."""
    found = _python(_ORIGINS, "HL201")
    got = [(_ORIGINS[f.start : f.end], f.severity.value, f.evidence) for f in found]
    assert got == [
        ("{os.getenv('SLURM_NODELIST', 'localhost')}", "info", "no-origin"),
        ("{os.getenv('BUILD_DIR', 'SLURM_NODELIST')}", "info", "environment"),
        ("{os.environ['SLURM_JOB_ID']}", "info", "no-origin"),
        ("{args.host}", "info", "cli-option"),
        ("{args.port}", "info", "no-origin"),
        ("{cfg.form.name}", "info", "parameter-unknown"),
        ("{request.form.name}", "info", "request"),
    ]
    messages = {_ORIGINS[f.start : f.end]: f.message for f in found}
    assert (
        "comes from the environment (`os.getenv`)"
        in messages["{os.getenv('BUILD_DIR', 'SLURM_NODELIST')}"]
    )
    assert "parameter" in messages["{cfg.form.name}"]
    assert "HTTP request" not in messages["{cfg.form.name}"]
    assert "comes from an HTTP request (`request`)" in messages["{request.form.name}"]


def test_a_cycle_of_aliases_is_read_once() -> None:
    """`a = b` and `b = a`: the names are followed around the cycle once, and the value
    is unknown (info), not a crash of the whole file."""
    text = "import os\ndef f():\n    a = b\n    b = a\n    os.system('ls ' + a)\n"
    found = _python(text)
    assert [(f.code, _spans(text, [f])[0], f.severity.value) for f in found] == [
        ("HL201", "a", "info")
    ]


# -- literals.py: the characters of a bytes literal ------------------------------------


def test_every_byte_of_a_bytes_command_is_read() -> None:
    """A bytes command is read whatever its bytes: `\\x7e`, DEL (`\\x7f`, `\\177`: still
    ASCII) and the bytes over 0x7f all leave `$HOME` before them a finding of its own."""
    escapes = ["\\x7e", "\\x7f", "\\177", "\\x80", "\\200", "\\xff"]
    text = "import subprocess\n" + "".join(
        f'subprocess.run(b"ssh h echo $HOME{e}", shell=True)\n' for e in escapes
    )
    found = _python(text, "HL102")
    homes = [i for i in range(len(text)) if text.startswith("$HOME", i)]
    assert [(f.start, f.end) for f in found] == [(i, i + 5) for i in homes]
    assert len(found) == len(escapes)


# -- parsing.py: where a syntax error is, and what a newer statement hides --------------


def _hl001(text: str) -> list[tuple[str, int, int, str, str]]:
    found = _python(text, "HL001")
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


def test_spans_after_non_ascii_characters_on_the_same_line() -> None:
    """ast's columns count UTF-8 bytes: after `é` (2 bytes), `€` (3) and `𝄞` (4, a
    surrogate pair nowhere) on the same line, a finding is still at its own characters."""
    text = (
        'import os\nx = "é€𝄞"; os.system("ssh h echo $HOME"); os.system(f"ssh h echo {x} $USER")\n'
    )
    found = _python(text, "HL102")
    assert [(f.start, f.end) for f in found] == [
        (text.index("$HOME"), text.index("$HOME") + 5),
        (text.index("$USER"), text.index("$USER") + 5),
    ]


def test_a_value_grown_in_a_loop_is_traced_to_its_parameter() -> None:
    """`path = path + "/" + name`: the value is read back through its own rebinding (each
    pass one step deeper, so the search ends) and comes from the parameter `names`."""
    text = (
        "import os\ndef walk(names):\n    path = '.'\n    for name in names:\n"
        "        path = path + '/' + name\n    os.system(f'ls {path}')\n"
    )
    (found,) = _python(text)
    assert (found.code, text[found.start : found.end], found.severity.value, found.evidence) == (
        "HL201",
        "{path}",
        "info",
        "parameter",
    )
    assert "parameter of the public function `walk`" in found.message


_NEWER = 'import os\n{call}(\nf"{{d["a"]}}")\nos.system("ssh h echo $HOME")\n'


def test_a_newer_statement_is_left_out_without_moving_the_lines_after_it() -> None:
    """A 3.12 f-string that 3.11 cannot parse is left out (HL001 names its lines) and the
    call after it is still read at its own characters.  When the statement's first line
    (`g(`) is shorter than the `pass` that stands in for it, the stand-in would swallow
    the line break and move every line after it up by one: the file is then reported as
    not parsed (HL001 at the error), as parse_partly's docstring says.  From 3.12 Python
    reads the f-string, and the whole file is checked."""
    text = _NEWER.format(call="print")
    found = _python(text)
    if sys.version_info >= (3, 12):
        for call in ("print", "g"):
            text = _NEWER.format(call=call)
            found = _python(text)
            assert [(f.code, text[f.start : f.end]) for f in found] == [("HL102", "$HOME")]
        return
    assert [(f.code, text[f.start : f.end]) for f in found] == [("HL001", "p"), ("HL102", "$HOME")]
    assert found[0].message.startswith("not checked: lines 2-3: Python 3.11 cannot parse it")
    assert found[1].start == text.index("$HOME")
    short = _NEWER.format(call="g")
    found = _python(short)
    # a Python file that does not parse is `source-unreadable`: info
    assert [(f.code, f.severity.value, f.evidence) for f in found] == [
        ("HL001", "info", "source-unreadable")
    ]
    assert found[0].message == "Python syntax error: f-string: unmatched '['"
    with pytest.raises(SyntaxError) as error:  # where Python itself points
        ast.parse(short)
    assert (error.value.lineno, error.value.offset) == (3, 7)
    assert found[0].start == short.index("\nf") + 1 + 6
