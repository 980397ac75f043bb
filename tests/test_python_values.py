"""The Python frontend's reading of run-time values: where a value comes from (callers,
origins, imported modules), what it is (a str, a number, one shell word), and the names,
templates and choices that carry it into a command."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from cli_process import run_cli
from rulekit import (
    code_severity_text,
    python_findings,
    python_findings_with_settings,
    run_python_with_fake_ssh,
)

from heredoc_lint.engine import Settings, check_text, fix_kind
from heredoc_lint.model import Finding, Severity

# -- callers.py: a parameter is judged by what the file's own calls pass -------------------


_RENDER = 'import os\n\n\ndef render(path, out="o.mp3"):\n    os.system(f"lame {path} {out}")\n\n\n'


# (severity, evidence) of a finding: a parameter given outside data, or that may be, is
# evidence by what its name says it holds: `path` is `parameter` (a path), `out` is
# `parameter-unknown` (its name says nothing), both info by measurement on real code; one
# given `sys.argv` carries `argv`, info by default since its first look on real code; one
# given only the program's own values has no origin (info).
_PARAMETER = ("info", "parameter")


_UNKNOWN = ("info", "parameter-unknown")


_ARGV = ("info", "argv")


_OWN = ("info", "no-origin")


@pytest.mark.parametrize(
    ("call", "severities"),
    [
        # `**opts` may hold `path`: the file does not show it, the parameter is evidence
        ("opts = {}\nrender(**opts)\n", [_PARAMETER, _UNKNOWN]),
        ('names = ["a.wav"]\nrender(*names)\n', [_PARAMETER, _UNKNOWN]),
        # a keyword for another parameter says nothing of `path`'s value
        ('import sys\nrender("a.wav", out=sys.argv[1])\n', [_OWN, _ARGV]),
        ('import sys\nrender(sys.argv[1], out="b.mp3")\n', [_ARGV, _OWN]),
        # `out` left to its default: only `path`'s own value counts
        ("import sys\nrender(sys.argv[1])\n", [_ARGV, _OWN]),
        ('render("a.wav")\n', [_OWN, _OWN]),
    ],
)
def test_parameters_are_judged_by_the_calls_in_the_file(
    call: str, severities: list[tuple[str, str]]
) -> None:
    """Each of `path` and `out` is outside data exactly when a call of the file passes it
    some (or may, through `**opts`); the findings stay at the two interpolations. The
    calls are the program's own, in a function: a literal at the module's top level is
    an example of use, which leaves a parameter evidence (tests/test_hl201_lost_bugs.py)."""
    lines = call.splitlines()
    imports = "".join(f"{line}\n" for line in lines if line.startswith("import "))
    body = "".join(f"    {line}\n" for line in lines if not line.startswith("import "))
    call = f"{imports}def main():\n{body}"
    found = python_findings(_RENDER + call, "HL201")
    text = _RENDER + call
    assert [(f.start, f.end) for f in found] == [
        (text.index("{path}"), text.index("{path}") + 6),
        (text.index("{out}"), text.index("{out}") + 5),
    ]
    assert [(f.severity.value, f.evidence) for f in found] == severities


# -- imported.py: numbers imported from the project's own modules ------------------------


def _spans(text: str, found: list[Finding]) -> list[str]:
    return [text[f.start : f.end] for f in found]


_SERVE = (
    "import os\nfrom app.settings import {names}\ndef serve():\n    os.system(f'serve {fields}')\n"
)


def _serve(tmp_path: Path, settings: str, names: list[str]) -> list[str]:
    """The HL201 spans of a `serve()` that imports `names` from app/settings.py."""
    package = tmp_path / "app"
    package.mkdir()
    (package / "settings.py").write_text(settings)
    text = _SERVE.format(names=", ".join(names), fields=" ".join(f"{{{n}}}" for n in names))
    return _spans(text, python_findings(text, "HL201", str(package / "main.py")))


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
    found = python_findings(_ORIGINS, "HL201")
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
    found = python_findings(text)
    assert [(f.code, _spans(text, [f])[0], f.severity.value) for f in found] == [
        ("HL201", "a", "info")
    ]


# -- positions.py: columns in UTF-8 bytes --------------------------------------------------


def test_a_value_grown_in_a_loop_is_traced_to_its_parameter() -> None:
    """`path = path + "/" + name`: the value is read back through its own rebinding (each
    pass one step deeper, so the search ends) and comes from the parameter `names`."""
    text = (
        "import os\ndef walk(names):\n    path = '.'\n    for name in names:\n"
        "        path = path + '/' + name\n    os.system(f'ls {path}')\n"
    )
    (found,) = python_findings(text)
    assert (found.code, text[found.start : found.end], found.severity.value, found.evidence) == (
        "HL201",
        "{path}",
        "info",
        "parameter",
    )
    assert "parameter of the public function `walk`" in found.message


# -- values.py: what a value is (a str, a number) decides the finding and the fix ----------


def _fixed_and_run(program: str, call: str, tmp_path: Path) -> tuple[str, str]:
    """The line HL201's fix writes, and what the fixed program prints when `call` runs."""
    fixed = fix_kind(program, "python", "t.py", Settings(), unsafe=True).text
    script = tmp_path / "fixed.py"
    script.write_text(f"{fixed}\n\n{call}\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return fixed.splitlines()[-1].strip(), done.stdout


_SHOW = (
    "import os\nimport subprocess\n\n\ndef show(p, q):\n"
    '    subprocess.run(f"echo {{{}}}", shell=True)'
)


@pytest.mark.parametrize(
    ("expression", "quoted", "printed"),
    [
        # a str method's result, an os.path function's: already a str, quoted as it is
        ("p.lower()", "shlex.quote(p.lower())", "a  b; echo injected\n"),
        ("os.path.basename(p)", "shlex.quote(os.path.basename(p))", "a  b; echo injected\n"),
        # `.join` is a str method whoever owns it
        ("os.path.join(p, q)", "shlex.quote(os.path.join(p, q))", "a  b; echo injected/x\n"),
        # a parameter of unknown type: made a str first
        ("p", "shlex.quote(str(p))", "a  b; echo injected\n"),
    ],
)
def test_the_quote_fix_wraps_str_only_around_what_may_not_be_one(
    expression: str, quoted: str, printed: str, tmp_path: Path
) -> None:
    """HL201's fix quotes the value with shlex.quote, adding `str()` only where the value
    is not known to be a str; the fixed program echoes the value as one word (bash runs
    it through `shell=True`: two blanks kept, the `;` not run)."""
    program = _SHOW.format(expression)
    found = python_findings_with_settings(program, "HL201")
    assert code_severity_text(program, found) == [("HL201", "info", f"{{{expression}}}")]
    line, out = _fixed_and_run(program, 'show("a  b; echo injected", "x")', tmp_path)
    assert line == f'subprocess.run(f"echo {{{quoted}}}", shell=True)'
    assert out == printed


def test_str_of_an_int_parameter_is_one_word() -> None:
    """`str(count)` of a parameter annotated `int` is a number, one shell word: no HL201;
    the same without the annotation is reported."""
    typed = (
        "import subprocess\n\n\ndef f(count: int):\n"
        '    subprocess.run(f"echo {str(count)}", shell=True)\n'
    )
    assert python_findings_with_settings(typed, "HL201") == []
    untyped = typed.replace("count: int", "count")
    assert code_severity_text(untyped, python_findings_with_settings(untyped, "HL201")) == [
        ("HL201", "info", "{str(count)}")
    ]


# -- reading.py: which argument of a `%` or `.format` template fills which field ----------


_ECHO = "import subprocess\n\n\ndef f(x, args):\n    subprocess.run({}, shell=True)\n"


@pytest.mark.parametrize(
    ("template", "field", "fixed"),
    [
        ('"echo %s" % x', "%s", '"echo %s" % shlex.quote(str(x))'),
        ('"echo %(a)s" % {"a": x}', "%(a)s", '"echo %(a)s" % {"a": shlex.quote(str(x))}'),
        (
            '"echo {{}} {}".format(x)',
            "{}",
            '"echo {{}} {}".format(shlex.quote(str(x)))',
        ),
        ('"echo {{x}} {}".format(x)', "{}", '"echo {{x}} {}".format(shlex.quote(str(x)))'),
    ],
)
def test_the_argument_of_a_template_field_is_named_and_quoted(
    template: str, field: str, fixed: str, tmp_path: Path
) -> None:
    """The field the argument fills is marked (after `{{`/`}}`, which are no field),
    the message names the argument, and the fix quotes that argument: the fixed program
    echoes the value as one word."""
    program = _ECHO.format(template)
    found = python_findings_with_settings(program, "HL201")
    assert [(f.severity.value, program[f.start : f.end]) for f in found] == [("info", field)]
    literal = template[: template.index('"', 1)]  # the field: the last in the literal
    assert found[0].start == program.index(template) + literal.rindex(field)
    assert found[0].message.startswith("`x` is put into the shell command of `subprocess.run`")
    line, out = _fixed_and_run(program, 'f("a  b; echo injected", ())', tmp_path)
    assert line == f"subprocess.run({fixed}, shell=True)"
    assert out.endswith("a  b; echo injected\n")
    assert "\ninjected\n" not in f"\n{out}"


def test_a_star_width_takes_its_own_argument() -> None:
    """`"echo %s %*d" % args`: the operand is a tuple of three at run time (`%*d` takes a
    width and a value), so `%s` is not `args` itself: an info about an unknown value, and
    no fix (quoting `args` as a whole would break the program)."""
    program = _ECHO.format('"echo %s %*d" % args')
    found = python_findings_with_settings(program, "HL201")
    assert [(f.severity.value, program[f.start : f.end]) for f in found] == [("info", "%s")]
    assert found[0].message.startswith("`%s` is put into")  # named by its field
    assert fix_kind(program, "python", "t.py", Settings(), unsafe=True).text == program
    template = "echo %s %*d"
    assert template % ("a", 3, 7) == "echo a   7"
    with pytest.raises(TypeError):
        template % shlex.quote(str(("a", 3, 7)))  # noqa: B018 - the TypeError is the point


def test_a_number_chosen_among_six_literals_is_one_word(tmp_path: Path) -> None:
    """`port = 1 if c1 else 2 if c2 else ... 6`: every value the file gives it is a
    number, so `{port}` is one shell word whichever branch runs (bash prints it alone)."""
    chain = " else ".join(f"{i} if c{i}" for i in range(1, 6)) + " else 6"
    program = (
        "import subprocess\n\n\ndef f(c1, c2, c3, c4, c5):\n"
        f"    port = {chain}\n"
        '    subprocess.run(f"echo [{port}]", shell=True)\n'
    )
    assert python_findings_with_settings(program, "HL201") == []
    script = tmp_path / "p.py"
    script.write_text(program + "\n\nf(0, 0, 0, 0, 0)\nf(0, 0, 1, 0, 0)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.stdout == "[6]\n[3]\n"


# -- reading.py: the values a command may have, and constants put into a template -------


@pytest.mark.parametrize(
    "call",
    [
        'subprocess.run("ssh h echo %s" % "$HOME", shell=True)',
        'subprocess.run("ssh h echo {}".format("$HOME"), shell=True)',
    ],
)
def test_a_constant_argument_of_a_template_is_read_as_text(call: str, tmp_path: Path) -> None:
    """A string constant put into a `%`/`.format` template is part of the command: its
    `$HOME` is reported where it is written, and the local shell expands it."""
    program = f"import subprocess\n\n{call}\n"
    found = python_findings_with_settings(program)
    assert code_severity_text(program, found) == [("HL102", "info", "$HOME")]
    assert found[0].start == program.index("$HOME")
    assert run_python_with_fake_ssh(tmp_path, program) == "remote: echo /home/local-user\n"


def test_each_value_of_a_doubled_choice_is_read_once(tmp_path: Path) -> None:
    """`b = a if d else a`, 30 times over: a valid program whose command has two values;
    each expression is read once, so the check takes seconds, not 2**30 readings (run in
    a subprocess with a time limit), and finds the two `$...` of the two values."""
    lines = ['    a0 = "ssh h echo $HOME" if c else "ssh h echo $USER"']
    lines += [f"    a{k} = a{k - 1} if d else a{k - 1}" for k in range(1, 31)]
    program = (
        "import subprocess\n\n\ndef f(c, d):\n"
        + "\n".join(lines)
        + "\n    subprocess.run(a30, shell=True)\n"
    )
    probe = (
        "import sys\nfrom heredoc_lint.engine import check_text\n"
        "text = sys.stdin.read()\n"
        "for f in check_text(text, 'python', 't.py'):\n"
        "    print(f.code, text[f.start:f.end])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], input=program, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "HL102 $HOME\nHL102 $USER\n"
    script = tmp_path / "p.py"
    script.write_text(program + "\n\nf(True, False)\nf(False, True)\n")
    assert run_python_with_fake_ssh(tmp_path, script.read_text()) == (
        "remote: echo /home/local-user\nremote: echo local-user\n"
    )


def test_a_str_through_four_concatenations_is_quoted_as_it_is(tmp_path: Path) -> None:
    """`a0 = p + q` ... `a3 = a2 + q`, `p: str`: `a3` is a str (its leftmost operand is),
    so the fix quotes it without `str()`; the fixed program echoes it as one word."""
    body = "    a0 = p + q\n" + "".join(f"    a{i} = a{i - 1} + q\n" for i in range(1, 4))
    program = (
        "import subprocess\n\n\ndef f(p: str, q):\n"
        f'{body}    subprocess.run(f"echo {{a3}}", shell=True)'
    )
    assert code_severity_text(program, python_findings_with_settings(program, "HL201")) == [
        ("HL201", "info", "{a3}")
    ]
    line, out = _fixed_and_run(program, 'f("a  b", ";x")', tmp_path)
    assert line == 'subprocess.run(f"echo {shlex.quote(a3)}", shell=True)'
    assert out == "a  b;x;x;x;x\n"


def test_a_command_is_read_through_a_chain_of_names(tmp_path: Path) -> None:
    """`cmd = CMD`, `CMD = BASE`, `BASE = "..."`: names bound once to the next, in a
    function and at the top, are followed to the string (each scope holds two links)."""
    program = (
        'import subprocess\n\nBASE = "ssh h echo $HOME"\nCMD = BASE\n\n\n'
        "def run():\n    cmd = CMD\n    again = cmd\n"
        "    subprocess.run(again, shell=True)\n\n\nrun()\n"
    )
    found = python_findings_with_settings(program)
    assert code_severity_text(program, found) == [("HL102", "info", "$HOME")]
    assert found[0].start == program.index("$HOME")
    assert run_python_with_fake_ssh(tmp_path, program) == "remote: echo /home/local-user\n"


def _check_in_time(program: str) -> list[str]:
    """`code text` of each finding, checked in a subprocess given 60 s: a loop that never
    ends fails the test instead of hanging it."""
    probe = (
        "import sys\nfrom heredoc_lint.engine import check_text\n"
        "text = sys.stdin.read()\n"
        "for f in check_text(text, 'python', 't.py'):\n"
        "    print(f.code, f.severity.value, text[f.start:f.end])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], input=program, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_cycle_of_names_stops_where_it_closes() -> None:
    """`a = b`, `b = c`, `c = a`: following the names stops at the one that closes the
    cycle (a value of unknown origin: an info), and the rest of the string is read."""
    program = (
        "import subprocess\n\na = b\nb = c\nc = a\n"
        'subprocess.run(f"ssh h echo {a} $HOME", shell=True)\n'
    )
    assert _check_in_time(program) == ["HL201 info {a}", "HL102 info $HOME"]


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
    are an HTTP request's text (`request` evidence, info by measurement), and the message
    names the attribute it went through."""
    found = python_findings(_CLASS, "HL201")
    assert code_severity_text(_CLASS, found) == [
        ("HL201", "info", "{self.name}"),
        ("HL201", "info", "{self.target}"),
    ]
    assert [f.evidence for f in found] == ["request", "request"]
    assert "comes from an HTTP request (`request`), through `self.name`" in found[0].message
    assert "comes from an HTTP request (`request`), through `self.target`" in found[1].message


_KEYWORD_ONLY = """\
import os

def encode(path, *, bitrate="500k"):
    os.system(f"ffmpeg -b {bitrate} -i {path}")
"""


def test_the_default_of_a_keyword_only_parameter_shows_a_quantity() -> None:
    """`bitrate="500k"` after the `*`: its default shows a quantity, so the parameter is
    no evidence (`no-origin`), while `path` of the same public function is (`parameter`:
    both info by measurement)."""
    found = python_findings(_KEYWORD_ONLY, "HL201")
    assert code_severity_text(_KEYWORD_ONLY, found) == [
        ("HL201", "info", "{bitrate}"),
        ("HL201", "info", "{path}"),
    ]
    assert [f.evidence for f in found] == ["no-origin", "parameter"]
    assert "nothing in this file shows where the value comes from" in found[0].message
    assert "parameter of the public function `encode`" in found[1].message


@pytest.mark.parametrize("adder", ["append(", "insert(0, ", "add(", "extend("])
def test_what_a_list_is_filled_with_is_its_source(adder: str) -> None:
    """`items = []` then `items.insert(0, request...)` (or append, add, extend): the item
    is a request's text (`request` evidence, info by measurement), and the message says
    it was added to `items`."""
    text = (
        "import os\nfrom flask import request\n\ndef collect():\n    items = []\n"
        f'    items.{adder}request.args["x"])\n    os.system("ls " + items[0])\n'
    )
    found = python_findings(text, "HL201")
    assert code_severity_text(text, found) == [("HL201", "info", "items[0]")]
    assert found[0].evidence == "request"
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
    through the helper, is reported (`request` evidence, info by measurement)."""
    assert python_findings(_helper(1), "HL201") == []
    assert python_findings(_helper(4), "HL201") == []
    text = _helper(5)
    found = python_findings(text, "HL201")
    assert code_severity_text(text, found) == [("HL201", "info", 'prepare(request.args["y"])')]
    assert found[0].evidence == "request"
    assert "comes from an HTTP request (`request`), through `prepare()`" in found[0].message


_OPTIONS = """\
import argparse, os
p = argparse.ArgumentParser()
p.add_argument("--count", type=int, nargs="?")
p.add_argument("--counts", type=int, nargs="+")
args = p.parse_args()
os.system(f"seq {args.count}")
os.system(f"seq {args.counts}")
"""


def test_an_int_option_is_one_word_only_without_a_list_nargs() -> None:
    """`type=int, nargs="?"` is one number (no evidence); `type=int, nargs="+"` is a list,
    whose text holds blanks and brackets: a command-line option.  Both are info (an
    option is `cli-option`, info since its first look on real code): the evidence tells
    them apart."""
    found = python_findings(_OPTIONS, "HL201")
    assert code_severity_text(_OPTIONS, found) == [
        ("HL201", "info", "{args.count}"),
        ("HL201", "info", "{args.counts}"),
    ]
    assert [f.evidence for f in found] == ["no-origin", "cli-option"]
    assert "it is a command-line option (`parse_args()`)" in found[1].message


# -- imported.py: numbers imported from the project's own modules ------------------------


def _served(tmp_path: Path, settings: str, names: list[str], dots: str = "") -> list[str]:
    """The HL201 spans of `serve()` in app/web/main.py, which imports `names` from
    settings.py: app/web/settings.py (`from settings`, `from .settings`) or
    app/settings.py (`from ..settings`), as `dots` says."""
    web = tmp_path / "app" / "web"
    web.mkdir(parents=True)
    where = web.parent if dots == ".." else web
    (where / "settings.py").write_text(settings)
    fields = " ".join(f"{{{n}}}" for n in names)
    text = (
        f"import os\nfrom {dots}settings import {', '.join(names)}\n\n"
        f"def serve():\n    os.system(f'serve {fields}')\n"
    )
    return [text[f.start : f.end] for f in python_findings(text, "HL201", str(web / "main.py"))]


@pytest.mark.parametrize("dots", ["", ".", ".."])
def test_a_number_is_imported_from_the_module_the_import_names(tmp_path: Path, dots: str) -> None:
    """`from settings import PORT`, `from .settings`, `from ..settings`: each finds the
    settings.py Python would import, and PORT = 8000 there is one shell word: no
    finding.  NAME, a string there, is still a finding."""
    assert _served(tmp_path, "PORT = 8000\nNAME = 'x'\n", ["PORT", "NAME"], dots) == ["{NAME}"]


def test_a_relative_import_does_not_read_a_module_of_another_package(tmp_path: Path) -> None:
    """`from .settings import PORT` is app/web/settings.py only: a settings.py one
    directory up (app/settings.py) is another module, and PORT stays unknown."""
    web = tmp_path / "app" / "web"
    web.mkdir(parents=True)
    (web.parent / "settings.py").write_text("PORT = 8000\n")
    text = "import os\nfrom .settings import PORT\n\ndef serve():\n    os.system(f'serve {PORT}')\n"
    found = python_findings(text, "HL201", str(web / "main.py"))
    assert [text[f.start : f.end] for f in found] == ["{PORT}"]


def test_a_signed_number_is_a_number(tmp_path: Path) -> None:
    """`OFFSET = -3` and `PORT = +8000` are numbers: one shell word each, no finding."""
    assert _served(tmp_path, "OFFSET = -3\nPORT = +8000\n", ["OFFSET", "PORT"]) == []


def test_a_sum_is_read_to_eight_operators_deep(tmp_path: Path) -> None:
    """A sum of 9 terms (8 `+`, its first term 8 levels deep) is a number; a sum of 10
    terms is deeper than the reader goes: unknown, a finding."""
    settings = f"NINE = {' + '.join(['1'] * 9)}\nTEN = {' + '.join(['1'] * 10)}\n"
    assert _served(tmp_path, settings, ["NINE", "TEN"]) == ["{TEN}"]


def test_a_module_python_cannot_parse_gives_no_number(tmp_path: Path) -> None:
    """settings.py that does not parse: its names are unknown (a finding), and the file
    that imports them is still checked."""
    assert _served(tmp_path, "PORT = 8000\ndef broken(:\n", ["PORT"]) == ["{PORT}"]


def test_an_attribute_set_at_module_level_is_no_binding_of_a_name(tmp_path: Path) -> None:
    """`logging.root.level = 10` and `TABLE[0] = 5` at settings.py's top level bind no
    name of the module; PORT = 8000 next to them is still read, and NAME, bound to a
    string, is still a finding."""
    settings = "import logging\nlogging.root.level = 10\nTABLE = {}\nTABLE[0] = 5\n"
    settings += "PORT = 8000\nNAME = 'x'\n"
    assert _served(tmp_path, settings, ["PORT", "NAME"]) == ["{NAME}"]


# -- an argv option with a run-time value attached -----------------------------------------


# An argv element with a run-time value after fixed text (`f"-u{u}"`) is read as the shell
# reads `-u$u`: the option `-u` with its argument attached, so docker's `bash -c` is found
# as it is with `"-u", u` as two elements.  (Found in run 6: the element was one unknown
# word from its first character.)
def test_an_option_with_an_attached_run_time_value_is_an_option() -> None:
    text = (
        "import subprocess\n\ndef f(u):\n"
        '    subprocess.run(["docker", "exec", f"-u{u}", "c", "bash", "-c", "pkill -f x; echo"])\n'
    )
    assert code_severity_text(text, python_findings(text)) == [("HL103", "error", "pkill")]


# -- origins.py: where a value comes from, as the message says ------------------------------


_WARMUP = (
    "import subprocess\n\n\n"
    "def warmup(path):\n"
    '    subprocess.run(f"cat {path} > /dev/null", shell=True)\n\n\n'
)


@pytest.mark.parametrize("call", ['warmup("/data/a")\n', 'sample = "/data/a"\nwarmup(sample)\n'])
def test_a_top_level_example_by_literal_or_by_name_is_named_as_one(call: str) -> None:
    """The file's only call of `warmup` passes a literal at the top level, written in
    the call or bound to a name first: an example of use, which the message names with
    its line; the parameter stays evidence in a path the command acts on (`parameter`,
    info by measurement)."""
    text = _WARMUP + call
    (f,) = python_findings(text, "HL201")
    assert (text[f.start : f.end], f.severity.value, f.evidence) == ("{path}", "info", "parameter")
    line = text.count("\n", 0, text.index("warmup(", text.index("/dev/null"))) + 1
    assert (
        "it comes from a parameter of the public function `warmup` (the file calls it only with a "
        f"literal example, line {line}), and its name says it is a path"
    ) in f.message


def test_evidence_is_found_through_join_and_format() -> None:
    """A value joined from the command line, a name formatted from input(): each is
    found, and says where its text comes from (info: `argv` and `input` evidence are
    info by measurement)."""
    text = (
        "import subprocess\nimport sys\n\n\ndef main():\n"
        '    names = ",".join(sys.argv[1:])\n'
        '    subprocess.run(f"ls {names}", shell=True)\n'
        '    out = "{}.txt".format(input())\n'
        '    subprocess.run(f"touch {out}", shell=True)\n'
    )
    found = python_findings(text, "HL201")
    assert [(text[f.start : f.end], f.severity.value, f.evidence) for f in found] == [
        ("{names}", "info", "argv"),
        ("{out}", "info", "input"),
    ]
    assert "; it comes from the command line (`sys.argv`): quote it" in found[0].message
    assert "; it is read from input (`input()`): quote it" in found[1].message


# -- HL201: where the file is decides what a parameter is worth ----------------------------


_CLEAN = 'import os\n\n\ndef clean(path):\n    os.system(f"rm -rf {path}")\n'


_UPTIME = 'import os\n\n\ndef uptime(host):\n    os.system(f"ssh {host} uptime")\n'


@pytest.mark.parametrize(
    ("path", "evidence"),
    [
        ("t.py", "parameter"),
        # test code: the paths a test passes are its authors' own
        ("tests/t.py", "test-code"),
        ("a/test_x.py", "test-code"),
        ("/abs/test_x.py", "test-code"),
        # a `tests/` above the checkout, in an absolute path, says nothing of the file
        ("/srv/tests/t.py", "parameter"),
        # a private module: only the project's own code calls its functions
        ("pkg/_impl.py", "private-parameter"),
        ("_x/t.py", "private-parameter"),
        ("/srv/_impl/t.py", "parameter"),
        ("pkg/__init__.py", "parameter"),
    ],
)
def test_a_parameter_is_evidence_outside_test_code_and_private_modules(
    path: str, evidence: str
) -> None:
    """Outside test code and private modules a parameter is evidence: a path parameter
    is `parameter` (info by measurement), a host parameter `parameter-host` (a warning);
    in test code or a private module either is no evidence (info)."""
    found = python_findings(_CLEAN, "HL201", path=path)
    assert [(_CLEAN[f.start : f.end], f.severity.value, f.evidence) for f in found] == [
        ("{path}", "info", evidence)
    ]
    assert "it comes from a parameter of the public function `clean`" in found[0].message
    found = python_findings(_UPTIME, "HL201", path=path)
    host = ("warning", "parameter-host") if evidence == "parameter" else ("info", evidence)
    assert [(_UPTIME[f.start : f.end], f.severity.value, f.evidence) for f in found] == [
        ("{host}", *host)
    ]
    assert "it comes from a parameter of the public function `uptime`" in found[0].message


# -- scopes.py: a name imported from a module of the project --------------------------------


@pytest.mark.parametrize("source", ["from .settings import PORT", "from settings import PORT"])
def test_a_port_imported_from_a_settings_module_next_to_the_file_is_a_number(
    source: str, tmp_path: Path
) -> None:
    """`PORT = 2222` in settings.py beside the file: `{PORT}` is one safe word, absolutely
    or relatively imported; the host parameter is still reported. Without settings.py
    (the same text in a directory beside it), the file does not show what PORT holds
    (an info)."""
    text = (
        f"import os\n{source}\n\n\n"
        'def main(host):\n    os.system(f"ssh -p {PORT} {host} uptime")\n'
    )
    (tmp_path / "a").mkdir()
    program = tmp_path / "a" / "main.py"
    program.write_text(text)
    (tmp_path / "a" / "settings.py").write_text('PORT = 2222\nUSER = "deploy"\n')

    def found(path: Path) -> list[tuple[str, str]]:
        return [
            (text[f.start : f.end], f.severity.value)
            for f in python_findings(text, "HL201", path=str(path))
        ]

    assert found(program) == [("{host}", "warning")]
    assert found(tmp_path / "b" / "main.py") == [("{PORT}", "info"), ("{host}", "warning")]


# -- reading.py: a bytes literal with bytes above 0x7f --------------------------------------


def test_a_key_that_names_shell_words_marks_the_value_as_shell_text() -> None:
    """`job['flags']` holds options for the shell to split (its key says so): no HL201;
    `job['name']` and `job[0]` say nothing of the kind, a parameter's item whose name says
    nothing of what it holds: `parameter-unknown`, info by measurement."""
    text = (
        "import subprocess\n\n\ndef run(job):\n"
        "    subprocess.run(f\"ls {job['flags']} /tmp\", shell=True)\n"
        "    subprocess.run(f\"ls {job['name']} /tmp\", shell=True)\n"
        '    subprocess.run(f"ls {job[0]} /tmp", shell=True)\n'
    )
    found = python_findings(text, "HL201")
    assert [(text[f.start : f.end], f.severity.value, f.evidence) for f in found] == [
        ("{job['name']}", "info", "parameter-unknown"),
        ("{job[0]}", "info", "parameter-unknown"),
    ]


@pytest.mark.parametrize("receiver", ["settings", "cfg"])
def test_get_on_a_configuration_object_is_configuration(receiver: str) -> None:
    """`settings.get("host")`: the host comes from configuration, which is what the
    finding says (not that `settings` is a parameter, which would be a warning):
    `config` evidence, info by measurement."""
    text = (
        "import os\nimport subprocess\n\n\ndef deploy(settings, cfg):\n"
        f'    host = {receiver}.get("host")\n'
        '    subprocess.run(f"ssh {host} uptime", shell=True)\n'
    )
    (f,) = python_findings(text, "HL201")
    assert (text[f.start : f.end], f.severity.value, f.evidence) == ("{host}", "info", "config")
    assert (
        f"; it comes from configuration (`{receiver}.get`), and its name says it is a host: "
        "quote it"
    ) in f.message


# -- values.py: values that are one safe word whatever they hold ----------------------------


def test_numbers_and_tokens_from_the_standard_library_are_safe_words(tmp_path: Path) -> None:
    """Process ids, times, random numbers, uuids and hex tokens are letters, digits, `.`
    and `-`: the shell reads each as the one word it is (bash shows it below), no HL201;
    the host parameter beside them is still a warning."""
    text = (
        "import os\nimport random\nimport secrets\nimport subprocess\nimport time\n"
        "import uuid\n\n\ndef main(host):\n"
        '    subprocess.run(f"ssh {host} id -u; echo {os.geteuid()} {os.getpid()}", shell=True)\n'
        '    subprocess.run(f"echo {time.time()} {random.randint(1, 9)} {random.random()}", '
        "shell=True)\n"
        '    subprocess.run(f"echo {uuid.uuid4()} {secrets.token_hex(8)} {uuid.uuid4().hex}", '
        "shell=True)\n"
    )
    found = python_findings(text, "HL201")
    assert [(text[f.start : f.end], f.severity.value) for f in found] == [("{host}", "warning")]
    program = tmp_path / "p.py"
    program.write_text(
        "import os, random, secrets, subprocess, time, uuid\n"
        "subprocess.run(f\"printf '<%s>' {os.geteuid()} {os.getpid()} {time.time()} "
        "{random.randint(1, 9)} {random.random()} {uuid.uuid4()} {secrets.token_hex(8)} "
        '{uuid.uuid4().hex}", shell=True)\n'
    )
    done = subprocess.run(
        [sys.executable, str(program)], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.count("<") == 8


# -- prefilter.py: a tab where a space usually stands ----------------------------------------


@pytest.mark.parametrize(
    ("body", "value", "name_says"),
    [
        # the `with` holds no call of interest: its binding is read all the same
        (
            "        host = fh.read()\n    os.system(f'ssh {host} uptime')\n",
            "{host}",
            ", and its name says it is a host",
        ),
        # the call of interest is inside the `with`
        ("        os.system(f'ssh {fh.read()} uptime')\n", "{fh.read()}", ""),
    ],
)
def test_a_name_bound_by_with_as_carries_where_its_value_comes_from(
    body: str, value: str, name_says: str
) -> None:
    """`with open(sys.argv[1]) as fh`: what `fh.read()` returns comes from the file the
    command line names, which the finding says (`argv` evidence, info by measurement)."""
    text = "import os\nimport sys\n\n\ndef main():\n    with open(sys.argv[1]) as fh:\n" + body
    (f,) = python_findings(text, "HL201")
    assert (text[f.start : f.end], f.severity.value, f.evidence) == (value, "info", "argv")
    assert (
        f"; it comes from the command line (`sys.argv`), through `open()`{name_says}: quote it"
    ) in f.message


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


# -- where a value comes from: an HTTP client's response ------------------------------------


_CLIENT_CALLS = ["requests.get", "requests.post", "httpx.get", "httpx.post"]


@pytest.mark.parametrize("called", _CLIENT_CALLS)
def test_a_value_read_by_an_http_client_is_named_as_the_networks(called: str) -> None:
    """A response's text put unquoted into a shell string is a finding whose evidence is
    the call that read it from the network, for httpx as for requests.  (Run 7: with the
    prefix `httpx.` cut to `ttpx.`, httpx's responses were no longer network text.)"""
    module = called.split(".")[0]
    text = (
        f"import subprocess\nimport {module}\ndef f(url):\n"
        f"    name = {called}(url).text\n"
        '    subprocess.run("ls " + name, shell=True)\n'
    )
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.evidence) == ("HL201", "network")
    start = text.index("name, shell")
    assert (finding.start, finding.end) == (start, start + len("name"))
    assert f"it is read from the network (`{called}`)" in finding.message


# -- exec_command's command given by keyword --------------------------------------------------


_READ_RESPONSES = [
    ("urllib.request.urlopen(url).read()", "read from the network (`urllib.request.urlopen`)"),
    ("requests.get(url).json()", "it is read from the network (`requests.get`)"),
    ("urllib.request.urlopen(url).readline()", "read from the network (`urllib.request.urlopen`)"),
]


@pytest.mark.parametrize(("value", "evidence"), _READ_RESPONSES)
def test_what_a_read_method_returns_comes_from_its_receiver(value: str, evidence: str) -> None:
    """`.read()`, `.json()`, `.readline()` of a response return what the response holds:
    the evidence is the call that made the response.  (Run 7: with `read` cut to `ead`
    in the methods that read their receiver, `urlopen(url).read()` was an info "nothing
    in this file shows where the value comes from".)"""
    module = value.split("(")[0].rsplit(".", 1)[0]
    text = (
        f"import subprocess\nimport {module}\ndef f(url):\n"
        f"    name = {value}\n"
        '    subprocess.run("ls " + name, shell=True)\n'
    )
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.evidence) == ("HL201", "network")
    start = text.index("name, shell")
    assert (finding.start, finding.end) == (start, start + len("name"))
    assert evidence in finding.message


# -- the fix's `str(...)`: left out where the value is known to be a str ---------------------


_STR_VALUES = ['",".join(names)', "name.rjust(9)", "name.strip()", "name.zfill(4)"]


@pytest.mark.parametrize("expr", _STR_VALUES)
def test_the_quote_fix_calls_no_str_on_a_str_methods_result(expr: str) -> None:
    """A str method returns a str: HL201's fix writes `shlex.quote(value)`; a value of
    unknown type gets `shlex.quote(str(value))`, which the control below shows.  (Run 7:
    `join` and `rjust` cut to `oin` and `just` in the str methods: their results got a
    `str(...)` the fix need not write.)"""
    text = (
        f"import subprocess\ndef f(name, names):\n    value = {expr}\n"
        '    subprocess.run("ls " + value, shell=True)\n'
    )
    outcome = fix_kind(text, "python", unsafe=True)
    assert outcome.fixed == 1
    assert outcome.text.endswith('    subprocess.run("ls " + shlex.quote(value), shell=True)\n')


def test_the_quote_fix_calls_str_on_a_value_of_unknown_type() -> None:
    text = 'import subprocess\ndef f(value):\n    subprocess.run("ls " + value, shell=True)\n'
    outcome = fix_kind(text, "python", unsafe=True)
    assert outcome.text.endswith('"ls " + shlex.quote(str(value)), shell=True)\n')


# -- which functions are public: their parameters come from any caller ----------------------


_FUNCTION_NAMES = [
    ("run", Severity.WARNING),
    ("__run__", Severity.WARNING),  # a dunder: called by Python, from anywhere
    ("_run", Severity.INFO),
    ("_run__", Severity.INFO),  # one underscore in front: private
    ("__run_", Severity.INFO),  # one behind: private (name-mangled), not a dunder
    ("__run", Severity.INFO),
]


@pytest.mark.parametrize(("name", "severity"), _FUNCTION_NAMES)
def test_a_parameter_of_a_public_function_is_a_warning(name: str, severity: Severity) -> None:
    """A parameter of a public function (no leading `_`, or a dunder: two underscores on
    each side) is filled by callers out of sight: for a host (`ssh {host}`), a warning
    that says so; a private function with no caller in the file shows nothing: an info.
    (Run 7: with one `__` of the dunder test cut to `_`, `_run__` or `__run_` counted as
    dunders, public.)"""
    text = (
        f"import subprocess\ndef {name}(host):\n"
        '    subprocess.run("ssh " + host + " uptime", shell=True)\n'
    )
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.severity) == ("HL201", severity)
    public = f"it comes from a parameter of the public function `{name}`"
    assert (public in finding.message) == (severity is Severity.WARNING)


# -- an f-string field of a constant: written in only when printed as it is ------------------


_JOB = "echo $HOME"


def _local_shell_prints(command: str) -> str:
    """What `sh -c` passes on of `command`'s words (ssh's place taken by printf)."""
    done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, check=True)
    return done.stdout


def test_a_constant_field_is_read_as_its_text() -> None:
    """`f"ssh host {JOB}"` with `JOB = "echo $HOME"` is the command `ssh host echo $HOME`:
    the local shell expands `$HOME` (sh shows it), and HL102 points at `$HOME` inside
    the constant.  (Run 7: the test for a plain field negated, `{JOB}` was an unknown
    value and HL102 vanished, while `{JOB!r}` below was written in as `echo $HOME`.)"""
    sent = _local_shell_prints(f"printf '%s|' {_JOB}")
    assert sent == f"echo|{os.environ['HOME']}|"
    text = f'import os\nJOB = "{_JOB}"\nos.system(f"ssh host {{JOB}}")\n'
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.severity) == ("HL102", Severity.INFO)
    assert (finding.start, finding.end) == (text.index("$HOME"), text.index("$HOME") + 5)


@pytest.mark.parametrize("field", ["{JOB!r}", "{JOB!s:>20}"])
def test_a_constant_field_with_a_conversion_or_spec_is_not_written_in(field: str) -> None:
    """`{JOB!r}` is `'echo $HOME'`, quotes included: sh passes `$HOME` on as written, so
    no HL102; a spec also changes the text: neither is read as the constant's text."""
    sent = _local_shell_prints(f"printf '%s|' {_JOB!r}")
    assert sent == f"{_JOB}|"
    text = f'import os\nJOB = "{_JOB}"\nos.system(f"ssh host {field}")\n'
    assert [f.code for f in check_text(text, "python")] == []


# -- `%` formatting: each `%s` takes the next value of the tuple -----------------------------


def test_each_percent_field_is_the_next_value_of_the_tuple() -> None:
    """`"cp %s %s" % (src, dst)`: the first `%s` is `src`, the second `dst` (Python's
    own formatting shows the order); each is HL201's finding at its own `%s` (a path
    parameter: info by measurement).  (Not run by run 7's budget, planted by hand: with
    the counter of positional values not moved on, both fields were `src`.)"""
    assert "cp %s %s" % ("A", "B") == "cp A B"  # noqa: UP031 - the form the frontend reads
    text = 'import os\ndef f(src, dst):\n    os.system("cp %s %s" % (src, dst))\n'
    findings = check_text(text, "python")
    first = text.index("%s")
    assert [(f.code, f.severity, f.start, f.end) for f in findings] == [
        ("HL201", Severity.INFO, first, first + 2),
        ("HL201", Severity.INFO, first + 3, first + 5),
    ]
    assert [f.message.split(" is put")[0] for f in findings] == ["`src`", "`dst`"]


# -- `sys.argv[1]`, `os.environ["X"]`: strs from outside, never safe words --------------------


_OUTSIDE = [
    ("sys.argv[1]", "it comes from the command line (`sys.argv`)"),
    ('os.environ["TARGET"]', "it comes from the environment (`os.environ`)"),
]


# The evidence each raises: info by default since their first look on real code
# (heredoc_lint/severities.py); kept out of the parameters so the test ids stay.
_KIND = {"sys.argv[1]": "argv", 'os.environ["TARGET"]': "environment"}


@pytest.mark.parametrize(("value", "evidence"), _OUTSIDE)
def test_a_command_line_or_environment_value_is_a_warning(value: str, evidence: str) -> None:
    """An argument or an environment variable is a str the program does not choose: put
    unquoted into a shell string it is HL201 at the value, naming where it comes from
    (info since `argv` and `environment` evidence were measured; shown with
    `--severity info`).  (Not run by run 7's budget, planted by hand: with values.py:132's
    `False` made `True`, both were safe words and the finding vanished.)"""
    text = f'import os\nimport sys\nos.system("ls " + {value})\n'
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.severity, finding.evidence) == (
        "HL201",
        Severity.INFO,
        _KIND[value],
    )
    assert text[finding.start : finding.end] == value
    assert evidence in finding.message
