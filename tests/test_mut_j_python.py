"""Pinned behaviours of the Python frontend found by the mutation run of issue 20 (run 7,
seed 41, bench/mutation_runs/run7-h20q.md): origins, parsing, positions, prefilter,
queries, reading, scopes, values and waits.

Each test kills a mutant that `bench/mutation.py` left alive: it was planted in a scratch
copy of the tree, the test failed there, and it passes without.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from heredoc_lint.engine import check_text, fix_kind
from heredoc_lint.model import Severity
from heredoc_lint.source import LineIndex

# -- the prefilter: fabric, invoke, asyncssh, pexpect are read only where imported -----------

_BROKEN = "def deploy(:\n    pass\n"

_NAMED_NOT_IMPORTED = [
    "# deploys with fabric\n",
    'LIBRARY = "pexpect"\n',
    "invoke = 1\n",
    "asyncssh_port = 22\n",
    # ` as ` and `from ` open the search for a module called by another name: none here.
    "from pathlib import Path\n",
    "import json as j\n",
    "with open(path) as handle:\n    pass\n",
]


@pytest.mark.parametrize("head", _NAMED_NOT_IMPORTED)
def test_a_broken_file_with_no_call_of_interest_is_not_this_tools_business(head: str) -> None:
    """HL001 is reported for a whole Python file only when it holds something the tool
    checks (SPEC.md); a file that names fabric, invoke, asyncssh or pexpect without
    importing it, or that imports under another name a module that runs nothing, holds
    no call the finder reads, so it is not parsed and its syntax error is not reported.
    (Run 7: the prefilter's `and` made `or`, and any file naming one of those libraries
    was parsed: HL001 on files with nothing to check.)"""
    assert check_text(head + _BROKEN, "python") == []


def test_a_broken_file_that_imports_a_library_is_reported() -> None:
    """The other side: with `import invoke` the file may hold `ctx.run(...)`, so its
    syntax error is HL001 at the bad character: info, as a Python file that does not
    parse is `source-unreadable` (heredoc_lint/severities.py)."""
    text = "import invoke\n" + _BROKEN
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.severity, finding.evidence) == (
        "HL001",
        Severity.INFO,
        "source-unreadable",
    )
    assert LineIndex(text).position(finding.start) == (2, 12)
    assert "Python syntax error" in finding.message


_IMPORTED_BESIDE = [
    "import os, fabric\n",
    "import os as o, fabric.connection\n",
    "x = 1; import fabric\n",
    "if True: import fabric\n",
    "import \\\n    fabric\n",
    "import os, \\\n    fabric\n",
]


@pytest.mark.parametrize("head", _IMPORTED_BESIDE)
def test_fabric_imported_beside_another_name_is_read(head: str) -> None:
    """The finder records every name of an import statement, wherever the statement
    stands (scopes.py), so `c.run(...)` of a file importing fabric as the second name,
    after a `;`, after an `if ...:` or across a backslash-newline is a remote command:
    the prefilter passes such a file (it skipped all of them: only `import fabric` or
    `from fabric` at the start of a line passed)."""
    text = head + 'def deploy(c):\n    c.run("ssh h echo $HOME")\n'
    findings = check_text(text, "python")
    assert [(f.code, f.severity) for f in findings] == [("HL102", Severity.INFO)]
    start = text.index("$HOME")
    assert (findings[0].start, findings[0].end) == (start, start + len("$HOME"))
    assert "`$HOME` is this machine's value" in findings[0].message


# -- a class or def that the fix's import would shadow ---------------------------------------

_SHADOWING = [
    # The call inside the class: the class statement is read whole, not skimmed.
    "import subprocess\nclass shlex:\n    def f(self, name):\n"
    '        subprocess.run("ls " + name, shell=True)\n',
    'import subprocess\ndef shlex(name):\n    subprocess.run("ls " + name, shell=True)\n',
]


@pytest.mark.parametrize("text", _SHADOWING)
def test_no_shlex_quote_fix_where_shlex_names_a_class_or_function(text: str) -> None:
    """HL201's fix writes `import shlex` and `shlex.quote(...)`; in a file where `shlex`
    is the name of a class or function defined after the imports, that name would mean
    the class at run time (`shlex.quote` an AttributeError), so no fix is offered and
    `--unsafe-fixes` leaves the file as it is.  (Run 7: the class's name was not bound
    when the class statement held the call, and the fix wrote `import shlex` above
    `class shlex:`.)"""
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.severity, finding.fix) == ("HL201", Severity.INFO, None)
    outcome = fix_kind(text, "python", unsafe=True)
    assert (outcome.fixed, outcome.text) == (0, text)


def test_the_same_call_in_a_class_of_another_name_is_fixed() -> None:
    """The control: the class is named `Task`, and the fix is offered and applied."""
    text = _SHADOWING[0].replace("class shlex:", "class Task:")
    outcome = fix_kind(text, "python", unsafe=True)
    assert outcome.fixed == 1
    assert outcome.text.startswith("import shlex\nimport subprocess\nclass Task:\n")
    assert 'subprocess.run("ls " + shlex.quote(str(name)), shell=True)' in outcome.text


# -- where a value comes from: an HTTP client's response ------------------------------------

_CLIENT_CALLS = ["requests.get", "requests.post", "httpx.get", "httpx.post"]


@pytest.mark.parametrize("called", _CLIENT_CALLS)
def test_a_value_read_by_an_http_client_is_named_as_the_networks(called: str) -> None:
    """A response's text put unquoted into a shell string is a warning whose evidence is
    the call that read it from the network, for httpx as for requests.  (Run 7: with the
    prefix `httpx.` cut to `ttpx.`, httpx's responses were no longer network text.)"""
    module = called.split(".")[0]
    text = (
        f"import subprocess\nimport {module}\ndef f(url):\n"
        f"    name = {called}(url).text\n"
        '    subprocess.run("ls " + name, shell=True)\n'
    )
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.severity) == ("HL201", Severity.WARNING)
    start = text.index("name, shell")
    assert (finding.start, finding.end) == (start, start + len("name"))
    assert f"it is read from the network (`{called}`)" in finding.message


# -- an f-string that Python reads and libcst does not --------------------------------------

_NAMED_ESCAPE_IN_SPEC = 'import os\ndef f(x):\n    os.system(f"ls {x:\\N{DOLLAR SIGN}>9}")\n'


def test_an_fstring_libcst_cannot_parse_is_skipped_not_a_crash() -> None:
    """Python 3.11 reads `\\N{DOLLAR SIGN}` in a format spec; libcst (which maps an
    f-string's characters to the file) refuses it.  Such a string is not read, so the call
    is not checked: no finding, and no internal error.  (Run 7: without the `return
    False` after libcst's error, the reader went on with no parse: UnboundLocalError.)"""
    compile(_NAMED_ESCAPE_IN_SPEC, "x.py", "exec")  # Python reads it
    assert check_text(_NAMED_ESCAPE_IN_SPEC, "python") == []


def test_the_same_fstring_with_a_plain_spec_is_read() -> None:
    """The control: with the spec written `>9`, the value is HL201's finding at `{x:>9}`
    (`x` says nothing of what it holds: `parameter-unknown`, info by measurement)."""
    text = _NAMED_ESCAPE_IN_SPEC.replace("\\N{DOLLAR SIGN}", "")
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.severity) == ("HL201", Severity.INFO)
    assert text[finding.start : finding.end] == "{x:>9}"


# -- exec_command's command given by keyword --------------------------------------------------

_EXEC_CALLS = [
    'client.exec_command("sleep 100 &")',
    'client.exec_command(command="sleep 100 &", timeout=5)',
    'client.exec_command(timeout=5, command="sleep 100 &")',
    'client.exec_command(get_pty=False, command="sleep 100 &", timeout=5)',
]


@pytest.mark.parametrize("call", _EXEC_CALLS)
def test_a_job_holding_the_channel_is_a_warning_whatever_the_keywords_order(call: str) -> None:
    """paramiko's `exec_command` returns at once, but reading its stdout waits for the
    channel's end of file, which the `&` job holds: HL104 is a warning that names the line
    of the read, whether the command is the first argument or the keyword `command`
    before, between or after the others.  (Run 7: the channel's call was located by its
    first keyword, so `timeout=5, command=...` was an info "the file does not show that
    anything waits"; the mutant `keywords[-1]` broke `command=..., timeout=5`.)"""
    text = (
        "import paramiko\ndef f(client):\n"
        f"    stdin, stdout, stderr = {call}\n"
        "    return stdout.read()\n"
    )
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.severity) == ("HL104", Severity.WARNING)
    assert text[finding.start : finding.end] == "sleep"
    assert "reading its output (line 4) waits" in finding.message


def test_a_job_holding_the_channel_of_an_unread_call_is_an_info() -> None:
    """The control: nothing reads the stdout, nothing waits; an info."""
    text = (
        'import paramiko\ndef f(client):\n    client.exec_command(timeout=5, command="sleep 9 &")\n'
    )
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.severity) == ("HL104", Severity.INFO)
    assert "the file does not show that anything wai" in finding.message


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
    assert (finding.code, finding.severity) == ("HL201", Severity.WARNING)
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


_BUILT_COMMANDS = [
    # (JOB, the statements before the call in `f`): where the command's text is written
    ("leep 100 &", '    cmd = "s" + JOB\n'),  # one character in the assignment of `cmd`
    ("sleep 100 &", "    cmd = JOB\n"),  # none: `cmd` is given another name's value
    ("sleep 100 &", "    job = JOB\n    cmd = job\n"),  # through two names
]


@pytest.mark.parametrize(("job", "before"), _BUILT_COMMANDS)
def test_the_call_is_found_from_a_command_built_in_names(job: str, before: str) -> None:
    """The call whose channel the job holds is found from where the command's characters
    are written: in its argument, in the assignment of the name it is given, or in the
    assignment of a name that one is given (`cmd = JOB`).  Found, its read makes HL104 a
    warning.  (Run 7: the mutant `i >= 1` dropped the command's first character, the only
    one written in `cmd = "s" + JOB`; and `cmd = JOB` was never followed: an info.)"""
    text = (
        f'import paramiko\nJOB = "{job}"\ndef f(client):\n{before}'
        "    stdin, stdout, stderr = client.exec_command(cmd)\n"
        "    return stdout.read()\n"
    )
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.severity) == ("HL104", Severity.WARNING)
    line = text.count("\n", 0, text.index("stdout.read()")) + 1
    assert f"reading its output (line {line}) waits" in finding.message


def test_reading_the_name_of_exec_commands_stdin_waits_for_nothing() -> None:
    """Of `stdin, stdout, stderr = exec_command(...)` only stdout and stderr are the
    channel's output: a later `.read()` of the first name (here given a file) does not
    wait for the job, so HL104 stays an info.  (Run 7: with `len(elements) == 3` made
    `== 4`, the first name counted as an output and the info became a warning.)"""
    text = (
        "import paramiko\ndef f(client):\n"
        '    stdin, stdout, stderr = client.exec_command("sleep 100 &")\n'
        '    stdin = open("input.txt")\n'
        "    return stdin.read()\n"
    )
    (finding,) = check_text(text, "python")
    assert (finding.code, finding.severity) == ("HL104", Severity.INFO)
    assert "the file does not show that anything wai" in finding.message


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
    public = f"it is a parameter of the public function `{name}`"
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
