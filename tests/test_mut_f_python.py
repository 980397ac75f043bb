"""Pinned behaviours of the Python frontend, part A (frontends/python/__init__.py,
callers.py, calls.py, decoding.py, encode.py, imported.py, literals.py, model.py), through
`engine.check_text`, `fix_kind` and real programs: exact spans, severities, what a message
names, the bytes a fix writes.

Each test kills mutants that `bench/mutation.py` left alive (issue 20, run 6, seed 40,
bench/mutation_runs/run6-h20h.md); each was planted by hand in a scratch copy of the tree,
the test failed there, and it passes without.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from heredoc_lint.engine import Settings, check_text, fix_kind
from heredoc_lint.model import Finding


def _python(text: str, code: str | None = None, path: str = "t.py") -> list[Finding]:
    found = check_text(text, "python", path, Settings())
    return [f for f in found if code is None or f.code == code]


def _got(text: str, found: list[Finding]) -> list[tuple[str, str, str]]:
    """(code, severity, the text the finding points at) of each finding."""
    return [(f.code, f.severity.value, text[f.start : f.end]) for f in found]


# -- callers.py: what the file's own code says of a value --------------------------------

_CLASS = """\
import os
from flask import request

class Job:
    def __init__(self):
        self.name = request.args["name"]

    @property
    def target(self):
        return request.args["target"]

    def run(self):
        os.system(f"ls {self.name}")
        os.system(f"ls {self.target}")
"""


def test_an_attribute_and_a_property_of_self_carry_their_source() -> None:
    """`self.name` set from a request in `__init__`, and a `@property` returning one: both
    are an HTTP request's text (warning), and the message names the attribute it went
    through."""
    found = _python(_CLASS, "HL201")
    assert _got(_CLASS, found) == [
        ("HL201", "warning", "{self.name}"),
        ("HL201", "warning", "{self.target}"),
    ]
    assert "comes from an HTTP request (`request`), through `self.name`" in found[0].message
    assert "comes from an HTTP request (`request`), through `self.target`" in found[1].message


_KEYWORD_ONLY = """\
import os

def encode(path, *, bitrate="500k"):
    os.system(f"ffmpeg -b {bitrate} -i {path}")
"""


def test_the_default_of_a_keyword_only_parameter_shows_a_quantity() -> None:
    """`bitrate="500k"` after the `*`: its default shows a quantity, so the parameter is
    no evidence (info), while `path` of the same public function is (warning)."""
    found = _python(_KEYWORD_ONLY, "HL201")
    assert _got(_KEYWORD_ONLY, found) == [
        ("HL201", "info", "{bitrate}"),
        ("HL201", "warning", "{path}"),
    ]
    assert "nothing in this file shows where the value comes from" in found[0].message
    assert "parameter of the public function `encode`" in found[1].message


@pytest.mark.parametrize("adder", ["append(", "insert(0, ", "add(", "extend("])
def test_what_a_list_is_filled_with_is_its_source(adder: str) -> None:
    """`items = []` then `items.insert(0, request...)` (or append, add, extend): the item
    is a request's text, and the message says it was added to `items`."""
    text = (
        "import os\nfrom flask import request\n\ndef collect():\n    items = []\n"
        f'    items.{adder}request.args["x"])\n    os.system("ls " + items[0])\n'
    )
    found = _python(text, "HL201")
    assert _got(text, found) == [("HL201", "warning", "items[0]")]
    assert "comes from an HTTP request (`request`), added to `items`" in found[0].message


def _helper(names: int) -> str:
    """A helper returning `shlex.quote(p)` through `names` local names, called on a
    request's value."""
    chain = [f"n{k}" for k in range(names)]
    lines = [f"    {chain[0]} = shlex.quote(p)"]
    lines += [f"    {chain[k]} = {chain[k - 1]}" for k in range(1, names)]
    return (
        "import os, shlex\nfrom flask import request\n\ndef prepare(p):\n"
        + "\n".join(lines)
        + f"\n    return {chain[-1]}\n\n"
        + 'def use():\n    os.system("ls " + prepare(request.args["y"]))\n'
    )


def test_a_helper_that_returns_its_argument_quoted_is_followed_four_names_deep() -> None:
    """`return n3` where n3 = n2 = n1 = n0 = shlex.quote(p): the helper's result is quoted,
    no finding.  One name more (five) and the chain is not followed: the request's text,
    through the helper, is a warning."""
    assert _python(_helper(1), "HL201") == []
    assert _python(_helper(4), "HL201") == []
    text = _helper(5)
    found = _python(text, "HL201")
    assert _got(text, found) == [("HL201", "warning", 'prepare(request.args["y"])')]
    assert "comes from an HTTP request (`request`), through `prepare()`" in found[0].message


_OPTIONS = """\
import argparse, os
p = argparse.ArgumentParser()
p.add_argument("--port", type=int, nargs="?")
p.add_argument("--ports", type=int, nargs="+")
args = p.parse_args()
os.system(f"nc {args.port}")
os.system(f"nc {args.ports}")
"""


def test_an_int_option_is_one_word_only_without_a_list_nargs() -> None:
    """`type=int, nargs="?"` is one number (info); `type=int, nargs="+"` is a list, whose
    text holds blanks and brackets: a command-line option (warning)."""
    found = _python(_OPTIONS, "HL201")
    assert _got(_OPTIONS, found) == [
        ("HL201", "info", "{args.port}"),
        ("HL201", "warning", "{args.ports}"),
    ]
    assert "it is a command-line option (`parse_args()`)" in found[1].message
