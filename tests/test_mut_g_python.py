"""Pinned behaviours of the Python frontend, part B (origins, parsing, positions,
prefilter, queries, reading, scopes, values, waits) and of HL201/HL202, through
`engine.check_text`, `fix_kind` and real programs.

Each test kills a mutant that `bench/mutation.py` left alive (issue 20, run 6, seed 40,
bench/mutation_runs/run6-h20i.md); each was planted in a scratch copy of the tree, the
test failed there, and it passes without.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from heredoc_lint.engine import Settings, check_text
from heredoc_lint.model import Finding


def _python(text: str, code: str | None = None, path: str = "t.py") -> list[Finding]:
    found = check_text(text, "python", path, Settings())
    return [f for f in found if code is None or f.code == code]


# -- HL202: the message names every value of the body, once ---------------------------------


def test_hl202_names_each_value_of_the_body_once_in_order() -> None:
    """Two values fill the body, one of them twice: the message names both, in their
    order, each once, separated by a comma."""
    text = (
        "def push(c, head, body):\n"
        "    c.exec_command(f\"cat > /a << 'EOF'\\n{head}\\n{body}\\n{head}\\nEOF\")\n"
    )
    (f,) = _python(text, "HL202")
    assert (f.start, f.end, f.severity.value) == (text.index("<<"), text.index("<<") + 2, "warning")
    assert "is filled in at run time from `head`, `body`: a value holding the line `EOF`" in (
        f.message
    )


def test_hl202_leaves_a_value_after_the_operator_on_its_line_to_hl201() -> None:
    """`cat <<EOF; echo {x}` with nothing after: the heredoc's body is empty and the value
    is a word of the `echo` command on the operator's line (bash runs it as one), not
    body text; HL201 reports it, HL112 the missing terminator, HL202 nothing."""
    done = subprocess.run(
        ["bash", "-c", "cat <<EOF; echo VALUE"], capture_output=True, text=True, timeout=30
    )
    assert done.stdout == "VALUE\n"
    text = 'def push(c, x):\n    c.exec_command(f"cat <<EOF; echo {x}")\n'
    found = _python(text)
    assert [(f.code, text[f.start : f.end]) for f in found] == [("HL112", "<<"), ("HL201", "{x}")]


# -- HL201: where the value is put, as the message says ------------------------------------

_LAYERS = (
    "import subprocess\n"
    "def push(host, name):\n"
    '    subprocess.run(["ssh", host, f"ls {name}"])\n'
    '    subprocess.run(f"ls {name}", shell=True)\n'
    '    subprocess.run(["bash", "-c", f"ls {name}"])\n'
)


def test_hl201_names_the_command_or_command_string_the_value_is_put_into() -> None:
    """The root layer is the shell command of the call; a layer below it is the command
    string of its wrapper (ssh, bash -c). (`name` says nothing of what it holds:
    `parameter-unknown`, info by measurement.)"""
    found = _python(_LAYERS, "HL201")
    assert [(_LAYERS[f.start : f.end], f.severity.value) for f in found] == [("{name}", "info")] * 3
    assert [f.message.split(" as an unquoted")[0] for f in found] == [
        "`name` is put into the `ssh` command string",
        "`name` is put into the shell command of `subprocess.run`",
        "`name` is put into the `bash -c` command string",
    ]


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
    found = _python(text)
    assert [(f.code, f.severity.value, text[f.start : f.end]) for f in found] == [
        ("HL102", "info", "$HOME")
    ]


def test_a_file_too_deep_for_the_parser_is_reported_at_its_first_character() -> None:
    """A sum of 200,000 terms exhausts the parser's recursion (not a syntax error): the
    file cannot be read, an HL001 on its first character, and nothing else (info: a
    Python file that does not parse is `source-unreadable`, info by measurement)."""
    text = 'import os\nos.system("ssh h echo $HOME")\nx = 1' + "+1" * 200_000 + "\n"
    found = _python(text)
    assert [(f.code, f.severity.value, f.evidence, f.start, f.end) for f in found] == [
        ("HL001", "info", "source-unreadable", 0, 1)
    ]
    assert found[0].message.startswith("Python source cannot be read: maximum recursion")


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
    (f,) = _python(text, "HL201")
    assert (text[f.start : f.end], f.severity.value, f.evidence) == ("{path}", "info", "parameter")
    line = text.count("\n", 0, text.index("warmup(", text.index("/dev/null"))) + 1
    assert (
        "it is a parameter of the public function `warmup` (the file calls it only with a "
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
    found = _python(text, "HL201")
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
    found = _python(_CLEAN, "HL201", path=path)
    assert [(_CLEAN[f.start : f.end], f.severity.value, f.evidence) for f in found] == [
        ("{path}", "info", evidence)
    ]
    assert "it is a parameter of the public function `clean`" in found[0].message
    found = _python(_UPTIME, "HL201", path=path)
    host = ("warning", "parameter-host") if evidence == "parameter" else ("info", evidence)
    assert [(_UPTIME[f.start : f.end], f.severity.value, f.evidence) for f in found] == [
        ("{host}", *host)
    ]
    assert "it is a parameter of the public function `uptime`" in found[0].message


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
            for f in _python(text, "HL201", path=str(path))
        ]

    assert found(program) == [("{host}", "warning")]
    assert found(tmp_path / "b" / "main.py") == [("{PORT}", "info"), ("{host}", "warning")]


# -- reading.py: a bytes literal with bytes above 0x7f --------------------------------------


def test_a_bytes_command_with_non_ascii_bytes_is_read() -> None:
    """`b"... caf\\xe9"` (Latin-1) and `b"... \\xc3\\xa9"` (UTF-8): the shell gets the bytes
    as they are; the command is read all the same, `$HOME` found where it is written."""
    text = (
        "import subprocess\n\n"
        'subprocess.run(b"ssh h echo $HOME \\xc3\\xa9", shell=True)\n'
        'subprocess.run(b"ssh h echo $HOME caf\\xe9", shell=True)\n'
    )
    found = _python(text)
    home = [i for i in range(len(text)) if text.startswith("$HOME", i)]
    assert [(f.code, f.severity.value, f.start, f.end) for f in found] == [
        ("HL102", "info", home[0], home[0] + 5),
        ("HL102", "info", home[1], home[1] + 5),
    ]


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
    found = _python(text, "HL201")
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
    (f,) = _python(text, "HL201")
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
    found = _python(text, "HL201")
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
    "program",
    [
        'from\tos import system\n\nsystem("ssh h echo $HOME")\n',
        'from os import system\tas\tsh\n\nsh("ssh h echo $HOME")\n',
        'from\tos\timport\t(getcwd, system)\n\nsystem("ssh h echo $HOME")\n',
        'import os\tas\to\n\no.system("ssh h echo $HOME")\n',
        'import subprocess\tas\tsp\n\nsp.getoutput("ssh h echo $HOME")\n',
    ],
)
def test_an_import_written_with_tabs_is_read(program: str) -> None:
    """Python reads a tab between the words of an import as a space: the call is read
    (HL102: the local shell expands `$HOME` before ssh runs), as it is in the same file
    written with spaces.  (The file's only call is spelled by the imported name.)"""
    for text in (program, program.replace("\t", " ")):
        ast.parse(text)
        found = _python(text)
        assert [(f.code, text[f.start : f.end]) for f in found] == [("HL102", "$HOME")], text


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
    (f,) = _python(text, "HL201")
    assert (text[f.start : f.end], f.severity.value, f.evidence) == (value, "info", "argv")
    assert (
        f"; it comes from the command line (`sys.argv`), through `open()`{name_says}: quote it"
    ) in f.message


def test_a_percent_escape_split_across_two_literals_does_not_stop_the_file() -> None:
    """`"... 50%" "% done %s" % x`: the `%%` is made of the last character of one literal
    and the first of the next (Python joins them before formatting); the template is not
    one the frontend maps back to a single token, so its reading stops there, without an
    error: the file is still checked and the call after it reported."""
    text = (
        "import os\n\n\ndef main(x):\n"
        '    os.system("ssh h echo 50%" "% done %s" % x)\n'
        '    os.system("ssh h echo $HOME")\n'
    )
    found = _python(text)
    home = text.index("$HOME")
    assert ("HL102", home, home + 5) in [(f.code, f.start, f.end) for f in found]
