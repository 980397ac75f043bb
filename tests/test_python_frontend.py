"""The Python frontend: which calls make fragments, and where each character comes from.

The fixtures in tests/data/python hold one file per kind of call (subprocess, os and
asyncio, paramiko, fabric 1 and 2, invoke), one with every form of string literal, and
one with calls that are fine; tests/data/python/expect.json lists every finding at
warning and above as [code, line, column, anchored source text], each checked by hand.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rulekit import (
    code_severity_text,
    finding_codes,
    python_findings,
    python_findings_with_settings,
    run_python_with_fake_ssh,
)

from heredoc_lint.engine import Settings, check_text
from heredoc_lint.frontends import Fragment, SourceError
from heredoc_lint.frontends.python import PyFragment, analyse, fragments, interesting
from heredoc_lint.layers.layer import root_layer, walk_layers
from heredoc_lint.layers.wrappers import Role
from heredoc_lint.model import Severity
from heredoc_lint.report.lines import LineIndex

DATA = Path(__file__).parent / "data" / "python"
EXPECT: dict[str, list[list[object]]] = json.loads((DATA / "expect.json").read_text())


def found(text: str) -> list[list[object]]:
    # At info too: the fixtures' parameters (`name`, `path`, `dest`...) are HL201 info by
    # default since their evidence is split by what their name says (severities.py).
    index = LineIndex(text)
    return [
        [f.code, *index.position(f.start), text[f.start : f.end]]
        for f in check_text(text, "python", "t.py")
        if f.severity.rank >= Severity.INFO.rank
    ]


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_fixture_findings_at_their_columns(name: str) -> None:
    text = (DATA / name).read_text()
    assert found(text) == EXPECT[name]
    lines = text.splitlines()
    for _, line, column, anchor in EXPECT[name]:
        assert isinstance(line, int) and isinstance(column, int) and isinstance(anchor, str)
        assert lines[line - 1][column - 1 :].startswith(anchor.split("\n")[0])


def test_every_fixture_has_expectations() -> None:
    on_disk = {p.name for p in DATA.glob("*.py") if not p.name.startswith("runtime_")}
    assert on_disk == set(EXPECT)


# -- call kinds ------------------------------------------------------------------------------


def only(text: str) -> Fragment:
    frags = fragments(text)
    assert len(frags) == 1, [f.text for f in frags]
    return frags[0]


@pytest.mark.parametrize(
    ("source", "depth", "wrapper", "remote", "shell", "cmdline"),
    [
        ("import subprocess\nsubprocess.run('ls', shell=True)", 0, "subprocess.run", False,
         "sh", "/bin/sh -c ls"),
        ("import subprocess\nsubprocess.Popen('ls', shell=True, executable='/bin/bash')", 0,
         "subprocess.Popen", False, "bash", "/bin/bash -c ls"),
        ("import os\nos.system('ls')", 0, "os.system", False, "sh", "/bin/sh -c ls"),
        ("import os\nos.popen('ls')", 0, "os.popen", False, "sh", "/bin/sh -c ls"),
        ("import subprocess\nsubprocess.getoutput('ls')", 0, "subprocess.getoutput", False,
         "sh", "/bin/sh -c ls"),
        ("import subprocess\nsubprocess.getstatusoutput('ls')", 0, "subprocess.getstatusoutput",
         False, "sh", "/bin/sh -c ls"),
        ("import asyncio\nasyncio.create_subprocess_shell('ls')", 0, "create_subprocess_shell",
         False, "sh", "/bin/sh -c ls"),
        ("import asyncio\nasyncio.create_subprocess_exec('ssh', h, 'ls')", 1, "ssh", True,
         "bash", "bash -c ls"),
        ("import subprocess\nsubprocess.run(['ssh', '-p', '22', h, 'ls -l'])", 1, "ssh", True,
         "bash", "bash -c ls -l"),
        # The argv itself, as a command line no shell reads (layer 0): ssh's words (HL106),
        # scp's options (HL108); its command line is the argv's.
        ("import subprocess\nsubprocess.run(['ssh', h, 'ls', '-l'])", 0, "subprocess.run",
         False, "bash", "ssh  ls -l"),
        ("import subprocess\nsubprocess.Popen(['scp', '-P', '22', a, b])", 0,
         "subprocess.Popen", False, "bash", "scp -P 22  "),
        ("import subprocess\nsubprocess.run(['bash', '-lc', 'ls'])", 1, "bash -c", False, "bash",
         "bash -c ls"),
        ("import subprocess\nsubprocess.run(('sudo', '-u', 'x', 'sh', '-c', 'ls'))", 1, "sh -c",
         False, "sh", "sh -c ls"),
        ("import subprocess\nsubprocess.run(['docker', 'exec', 'c', 'sh', '-c', 'ls'])", 1,
         "docker exec sh -c", True, "sh", "sh -c ls"),
        ("c.exec_command('ls')", 1, "exec_command", True, "bash", "bash -c ls"),
        ("self.pool.get().exec_command(command='ls')", 1, "exec_command", True, "bash",
         "bash -c ls"),
        ("from fabric import Connection\nConnection(h).run('ls')", 1, "Connection.run", True,
         "bash", "bash -c ls"),
        ("from fabric import Connection\nConnection(h).sudo('ls')", 1, "Connection.sudo", True,
         "bash", "bash -c sudo ls"),
        ("from fabric import Connection\nConnection(h).local('ls')", 0, "local", False, "bash",
         "/bin/bash -c ls"),
        ("from fabric.api import run\nrun('ls')", 1, "fabric run", True, "bash",
         "/bin/bash -l -c ls"),
        ("from fabric.operations import run\nrun('ls')", 1, "fabric run", True, "bash",
         "/bin/bash -l -c ls"),  # fabric 1's other module of them
        ("from fabric.api import local\nlocal('ls')", 0, "fabric local", False, "sh",
         "/bin/sh -c ls"),
        ("import invoke\ninvoke.run('ls')", 0, "invoke.run", False, "bash", "/bin/bash -c ls"),
        ("from invoke import Context\nContext().run('ls')", 0, "Context.run", False, "bash",
         "/bin/bash -c ls"),
        ("from invoke import task\n@task\ndef t(c):\n    c.sudo('ls')", 0, "Context.sudo", False,
         "bash", "/bin/bash -c sudo ls"),
    ],
)  # fmt: skip
def test_call_kinds(
    source: str, depth: int, wrapper: str, remote: bool, shell: str, cmdline: str
) -> None:
    frag = only(source)
    assert (frag.depth, frag.wrapper, frag.remote, frag.shell, frag.cmdline) == (
        depth,
        wrapper,
        remote,
        shell,
        cmdline,
    )


@pytest.mark.parametrize(
    ("source", "role"),
    [
        ("import os\nos.system('ls')", Role.SHELL),
        ("import subprocess\nsubprocess.run('ls', shell=True)", Role.SHELL),
        ("import subprocess\nsubprocess.run(['ssh', h, 'ls'])", Role.SSH),
        ("import subprocess\nsubprocess.run(['sudo', 'bash', '-c', 'ls'])", Role.SHELL),
        ("c.exec_command('ls')", Role.CHANNEL),
        ("from fabric import Connection\nConnection(h).run('ls')", Role.CHANNEL),
        ("from fabric.api import run\nrun('ls')", Role.CHANNEL),
        ("from invoke import Context\nContext().run('ls')", Role.SHELL),
        ("import subprocess\nsubprocess.Popen(['scp', '-P', '22', a, b])", None),  # an argv
    ],
)
def test_call_roles(source: str, role: Role | None) -> None:
    assert only(source).role is role


@pytest.mark.parametrize(
    "source",
    [
        "from subprocess import run as sh\nsh('ls', shell=True)",
        "import subprocess as sp\nsp.check_output('ls', shell=True)",
        "from os import system as shell\nshell('ls')",
        "import os as o\no.popen('ls')",
        "import asyncio as aio\naio.create_subprocess_shell('ls')",
        "from asyncio import create_subprocess_shell as css\ncss('ls')",
        "from subprocess import (\n    PIPE,\n    Popen,\n)\nPopen('ls', shell=True, stdout=PIPE)",
        "def f():\n    import subprocess\n    subprocess.call('ls', shell=True)",
        "from subprocess import (\n    PIPE,\n    run as sh,\n)\ndef f():\n  sh('ls', shell=True)",
        # The function in parentheses: the only call of the file (the prefilter passed
        # over it, a silent pass).
        "import subprocess\n(subprocess.run)('ls', shell=True)",
        "import os\n(os.system)('ls')",
        "import subprocess\n((subprocess . call) )('ls', shell=True)",
        "import subprocess as sp\n(sp.run)('ls', shell=True)",
        "from os import system as sh\n(sh)('ls')",
    ],
)
def test_import_aliases(source: str) -> None:
    assert interesting(source)
    assert only(source).text == "ls"


@pytest.mark.parametrize(
    "source",
    [
        "import subprocess\nsubprocess.run('ls')",  # a program named `ls`, no shell
        "import subprocess\nsubprocess.run(['ls', '-l'])",  # no wrapper
        "import subprocess\nsubprocess.run(['ssh', h])",  # an interactive session
        "import subprocess\nsubprocess.run(cmd, shell=True)",  # nothing known
        "import subprocess\nsubprocess.run('ls', shell=flag)",  # decided at run time
        "import subprocess\nsubprocess.run([*base, 'ls'], shell=True)",
        "class A:\n    def run(self, c): pass\nA().run('ls')",  # no fabric, no invoke
        "from invoke import task\nrunner.run('ls')",  # not a Context by its name
        "def run(c): pass\nrun('ls')",
        "import os\nos.system(f'{cmd}')",  # only a value
    ],
)
def test_not_a_shell_string(source: str) -> None:
    assert fragments(source) == []


def test_fabric_receivers() -> None:
    source = (
        "from fabric import Connection, task\n"
        "@task\n"
        "def deploy(c):\n"
        "    c.run('a')\n"
        "def helper(conn: Connection, web_conn, other):\n"
        "    conn.run('b')\n"
        "    web_conn.run('c')\n"
        "    other.run('not')\n"
        "    with Connection('h') as cx:\n"
        "        cx.sudo('d')\n"
        "    self.cxn.run('e')\n"
    )
    frags = fragments(source)
    assert [(f.text, f.depth) for f in frags] == [
        ("a", 1),
        ("b", 1),
        ("c", 1),
        ("sudo d", 1),
        ("e", 1),
    ]


def test_invoke_receivers() -> None:
    source = (
        "from invoke import Context, task\n"
        "@task\n"
        "def build(ctx):\n"
        "    ctx.run('a')\n"
        "def helper(c: Context, x):\n"
        "    c.run('b')\n"
        "    x.run('not')\n"
    )
    assert [(f.text, f.depth) for f in fragments(source)] == [("a", 0), ("b", 0)]


# -- reading strings ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ("c.exec_command('a' 'b')", "ab"),
        ("c.exec_command('a' + 'b')", "ab"),
        ("c.exec_command('a\\tb\\x41\\u00e9\\N{BULLET}\\101\\\\')", "a\tbA\u00e9\u2022A\\"),
        ("c.exec_command(r'a\\tb')", "a\\tb"),
        ("c.exec_command(b'a\\xe9')", "a\udce9"),
        ("c.exec_command(rb'a\\x')", "a\\x"),
        ("c.exec_command('''a\nb''')", "a\nb"),
        ("c.exec_command('a\\\nb')", "ab"),
        ("c.exec_command(f'a{{b}}')", "a{b}"),
        ("c.exec_command(f'a{x}b')", "a${__hl_0}b"),
        ("c.exec_command('a %s %d %%' % (x, 3))", "a ${__hl_0} ${__hl_1} %"),
        ("c.exec_command('a %(k)s' % {'k': x})", "a ${__hl_0}"),
        ("c.exec_command('{} {x} {{}}'.format(y, x=z))", "${__hl_0} ${__hl_1} {}"),
        ("c.exec_command('ls ' + path)", "ls ${__hl_0}"),
        ("CMD = 'ls'\ndef f():\n    c.exec_command(CMD + ' -l')", "ls -l"),
        ("def f():\n    cmd = f'ls {p}'\n    c.exec_command(cmd)", "ls ${__hl_0}"),
        ("def f():\n    a = 'ls'\n    b = a + ' -l'\n    c.exec_command(b)", "ls -l"),
        ("def outer():\n    a = 'ls'\n    def inner():\n        c.exec_command(a)", "ls"),
    ],
)
def test_string_values(source: str, text: str) -> None:
    assert only(source).text == text


@pytest.mark.parametrize(
    "source",
    [
        "def f():\n    cmd = 'ls'\n    cmd = 'rm'\n    c.exec_command(cmd)",  # bound twice
        "def f(cmd='ls'):\n    c.exec_command(cmd)",  # a parameter
        "def f():\n    for cmd in ('a', 'b'):\n        c.exec_command(cmd)",
        "def f():\n    cmd = 'ls'\n    cmd += ' -l'\n    c.exec_command(cmd)",
        "class A:\n    CMD = 'ls'\n    def f(self):\n        c.exec_command(CMD)",  # not visible
        "def f():\n    global CMD\n    CMD = 'x'\n    c.exec_command(CMD)",
    ],
)
def test_names_not_bound_once(source: str) -> None:
    assert fragments(source) == []


def test_every_character_maps_to_its_source() -> None:
    """Decode each character's source with Python itself: it must give the character."""
    text = (DATA / "string_forms.py").read_text()
    analysis, frags = analyse(text)
    checked = 0
    for frag in frags:
        origin = frag.origin
        assert isinstance(origin, PyFragment)
        for k, char in enumerate(frag.text):
            unit = analysis.units[origin.unit_of[k]]
            if unit.kind != "char":
                continue
            atom = analysis.atoms[unit.atom]
            source = text[unit.start : unit.end]
            prefix = atom.prefix.replace("f", "")
            if ("f" in atom.prefix or atom.template == "format") and source in ("{{", "}}"):
                source = source[0]  # a brace of an f-string or of a str.format template
            if atom.template == "%" and source == "%%":
                source = "%"
            if "r" in prefix:
                value: str | bytes = source  # raw: every character stands for itself
            else:
                value = ast.literal_eval(f"{prefix}{atom.quote}{source}{atom.quote}")
            if isinstance(value, bytes):
                value = "".join(chr(b) if b < 0x80 else chr(0xDC00 + b) for b in value)
            assert value == char, (frag.text, k, source)
            assert frag.offsets is not None and frag.offsets[k] == unit.at
            checked += 1
    assert checked > 500


def test_placeholders_point_at_their_source() -> None:
    text = "def f(host, n, d):\n    c.exec_command(f\"ssh {host} '{d['x']}' %s\" % n)\n"
    frag = only(text)
    offsets = frag.offsets
    assert offsets is not None
    anchored = [text[offsets[a] : offsets[b - 1] + 1] for a, b in frag.interpolations]
    assert anchored == ["{host}", "{d['x']}", "%s"]


@pytest.mark.parametrize(
    ("source", "line", "column"),
    [
        # `\n` in a one-line literal: the next character stays on this line
        ('c.exec_command("echo a\\npkill -f x; y")', 1, 25),
        ('c.exec_command("""echo a\npkill -f x; y""")', 2, 1),
        ('c.exec_command(r"echo \\n; pkill -f x; y")', 1, 27),
        ('c.exec_command(b"echo \\xff\\n; pkill -f x; y")', 1, 31),
        ('c.exec_command(\n    "echo a; "\n    "pkill -f x; y"\n)', 3, 6),
        ('c.exec_command("echo é\\u00e9; pkill -f x; y")', 1, 31),
        ('c.exec_command(f"echo {a}\\t; pkill -f x; y")', 1, 30),
        ('c.exec_command("echo %s; pkill -f x; y" % a)', 1, 26),
    ],
)
def test_finding_positions(source: str, line: int, column: int) -> None:
    text = source + "\n"
    findings = [f for f in check_text(text, "python") if f.code == "HL103"]
    assert len(findings) == 1
    assert LineIndex(text).position(findings[0].start) == (line, column)
    assert text[findings[0].start : findings[0].end] == "pkill"


def test_crlf_file_positions() -> None:
    text = 'import os\r\n\r\nos.system("""a\r\npkill -f x; y""")\r\n'
    findings = [f for f in check_text(text, "python") if f.code == "HL103"]
    assert [LineIndex(text).position(f.start) for f in findings] == [(4, 1)]


# -- parsing, speed -----------------------------------------------------------------------------


def test_prefilter_skips_files_without_calls() -> None:
    assert not interesting("import os\nprint(os.path.join('a', 'b'))\nrunner.run()\n")
    # Not parsed at all: a syntax error in such a file is not this tool's business.
    assert fragments("def broken(:\n    pass\n") == []


def test_syntax_error_is_hl001() -> None:
    text = "import os\nos.system('ls')\ndef broken(:\n"
    with pytest.raises(SourceError):
        fragments(text)
    findings = check_text(text, "python")
    assert [f.code for f in findings] == ["HL001"]
    assert LineIndex(text).position(findings[0].start)[0] == 3


@pytest.mark.parametrize("end", ["", "\n"])
def test_an_unparsable_last_line_without_a_newline_is_hl001(end: str) -> None:
    # The tokenizer puts the NEWLINE of a last line without one on the row after it.
    text = 'import subprocess\nsubprocess.run(f"echo {}", shell=True)' + end
    findings = check_text(text, "python")
    assert [f.code for f in findings] == ["HL001"]
    assert LineIndex(text).position(findings[0].start)[0] == 2


def test_libcst_only_for_fstrings() -> None:
    probe = (
        "import sys\n"
        "from heredoc_lint.frontends.python import fragments\n"
        "fragments('import os\\nos.system(\"ls -l\" + x)\\n')\n"
        "print('libcst' in sys.modules)\n"
        "fragments('import os\\nos.system(f\"ls {x}\")\\n')\n"
        "print('libcst' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "True"]


def test_child_layers_inherit_placeholders() -> None:
    from heredoc_lint.frontends.python import runtime_spans

    text = "import subprocess\nsubprocess.run(f\"ssh h 'cat {p}; ls'\", shell=True)\n"
    root = root_layer(only(text))
    child = list(walk_layers(root))[1]
    assert child.text == "cat ${__hl_0}; ls"
    assert runtime_spans(child) == ((4, 13),)


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.py")))
def test_reading_only_hot_statements_finds_the_same(name: str) -> None:
    text = (DATA / name).read_text()
    hot = [(f.text, f.offsets) for f in analyse(text)[1]]
    whole = [(f.text, f.offsets) for f in analyse(text, whole=True)[1]]
    assert hot == whole


# -- calls.py: the shells fabric and invoke run a string in ---------------------------------


# Python source of a string holding two `bash -c` (inside the library's shell).
_NESTED = "bash -c 'bash -c \\\"echo \\\\$x\\\"'"


def _codes(text: str) -> list[tuple[str, int, int, str]]:
    return [(f.code, f.start, f.end, f.severity.value) for f in python_findings(text)]


@pytest.mark.parametrize(
    "head",
    [
        "import invoke\ninvoke.run(",
        "import invoke\ninvoke.sudo(",
        "from invoke import task\n\n\n@task\ndef go(c):\n    c.run(",
        "from invoke import task\n\n\n@task\ndef go(c):\n    c.local(",
        "from invoke import task\n\n\n@task\ndef go(c):\n    c.sudo(",
    ],
)
def test_invoke_runs_its_string_in_a_local_shell(head: str) -> None:
    """invoke runs the string with `/bin/bash -c` on this machine: the string is the
    script of the first shell, so `bash -c 'bash -c "..."'` in it is three shells deep
    (HL111 at the first inner `bash`), and `$F` in an ssh command is expanded here."""
    text = f'{head}"{_NESTED}")\n{head}"ssh h rm $F")\n'
    first = text.index("bash -c")
    second = text.index("$F")
    assert _codes(text) == [
        ("HL111", first, first + 4, "info"),  # escaped for the outer shells
        ("HL102", second, second + 2, "info"),
    ]


@pytest.mark.parametrize(
    "receiver",
    [
        "from fabric import Connection\n\n\ndef go(host):\n    c = Connection(host)\n",
        "from invoke import task\n\n\n@task\ndef go(c):\n",
    ],
)
def test_library_sudo_leaves_the_redirection_to_the_calling_shell(receiver: str) -> None:
    """`c.sudo("echo x > /etc/motd")` runs `sudo ... echo x > /etc/motd` in the user's
    shell (fabric and invoke put `sudo` before the command, no `bash -c`): the file is
    opened without root, HL109 at the `>`; `c.run` of the same has no sudo to blame."""
    text = f'{receiver}    c.sudo("echo x > /etc/motd")\n    c.run("echo x > /etc/motd")\n'
    at = text.index(">")
    assert _codes(text) == [("HL109", at, at + 1, "error")]


# -- decoding.py: the coding line ------------------------------------------------------------


@pytest.mark.parametrize("function", ["run", "call", "check_call", "check_output", "Popen"])
@pytest.mark.parametrize("shell", [True, False])
def test_every_subprocess_runner_is_read(function: str, shell: bool) -> None:
    """Each of subprocess's five runners runs its command: a string with shell=True, an
    argv without; the remote pkill's self-match is found at the `pkill` word in both."""
    if shell:
        call = f"subprocess.{function}(\"ssh h 'pkill -f sglang; echo'\", shell=True)"
    else:
        call = f'subprocess.{function}(["ssh", "h", "pkill -f sglang; echo"])'
    text = f"import subprocess\n{call}\n"
    at = text.index("pkill")
    assert [(f.code, f.start, f.end) for f in python_findings(text)] == [("HL103", at, at + 5)]


@pytest.mark.parametrize(
    "call",
    [
        "os.system(\"ssh h 'pkill -f sglang; echo'\")",
        "os.popen(\"ssh h 'pkill -f sglang; echo'\")",
        "os.popen(\"ssh h 'pkill -f sglang; echo'\", 'r')",
        "os.popen(\"ssh h 'pkill -f sglang; echo'\", 'r', -1)",
        "os.popen(cmd=\"ssh h 'pkill -f sglang; echo'\")",
    ],
)
def test_os_system_and_popen_run_their_first_argument(call: str) -> None:
    """`os.popen(cmd, mode, buffering)`: the command is the first argument (or `cmd=`),
    whatever follows it."""
    text = f"import os\n{call}\n"
    at = text.index("pkill")
    assert [(f.code, f.start, f.end) for f in python_findings(text)] == [("HL103", at, at + 5)]


# -- scopes.py: names bound where the finder looks for them --------------------------------


def test_a_command_bound_by_the_walrus_operator_is_read(tmp_path: Path) -> None:
    """`if (cmd := "..."):` binds `cmd` for the call below it."""
    program = (
        'import subprocess\n\nif (cmd := "ssh h echo $HOME"):\n'
        "    subprocess.run(cmd, shell=True)\n"
    )
    assert code_severity_text(program, python_findings_with_settings(program)) == [
        ("HL102", "info", "$HOME")
    ]
    assert run_python_with_fake_ssh(tmp_path, program) == "remote: echo /home/local-user\n"


def test_a_call_in_a_default_argument_is_read(tmp_path: Path) -> None:
    """A default argument is evaluated when `def` runs: its call is read (and run)."""
    program = (
        "import subprocess\n\n\n"
        'def f(done=subprocess.run("ssh h echo $HOME", shell=True)):\n'
        "    return done\n"
    )
    assert code_severity_text(program, python_findings_with_settings(program)) == [
        ("HL102", "info", "$HOME")
    ]
    assert run_python_with_fake_ssh(tmp_path, program) == "remote: echo /home/local-user\n"


# -- __init__.py and decoding.py: a file in another codec ---------------------------------


def test_checking_a_python_file_leaves_the_recursion_limit_as_it_was() -> None:
    """The frontend raises the interpreter's recursion limit to read a deep expression,
    and puts it back: a program that checks files through the API keeps its own limit
    (a fresh interpreter: this one's limit may have been changed by another test)."""
    program = """
import sys

from heredoc_lint.engine import Settings, check_text, fix_kind
from heredoc_lint.frontends.python import fragments
before = sys.getrecursionlimit()
terms = " + ".join(["'x'"] * 200)
text = f"import os\\nos.system('ssh h echo $HOME ' + {terms})\\n"
found = check_text(text, "python", "t.py", Settings())
homes = [text[f.start : f.end] for f in found if f.code == "HL102"]
print(homes, before, sys.getrecursionlimit())
"""
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout == "['$HOME'] 1000 1000\n"


# -- calls.py: which calls run a shell, which shell, where ---------------------------------


_PKILL = "pkill -f sglang; echo"


def test_a_fabric_connection_named_c_runs_its_string_remotely() -> None:
    """In a file that imports fabric, `c.run(...)` on a parameter named `c` (no
    annotation, no decorator) is a Connection's: the remote shell's pkill is found."""
    text = f'from fabric import Connection\n\ndef deploy(c):\n    c.run("{_PKILL}")\n'
    found = python_findings(text)
    assert code_severity_text(text, found) == [("HL103", "error", "pkill")]


_NOHUP = "nohup sleep 100 &"


def test_exec_command_runs_its_string_in_the_remote_shell() -> None:
    """paramiko's `exec_command(CMD)`: CMD is the remote shell's script, so a background
    job that keeps the channel's stdout holds the channel (HL104; info, as nothing in the
    file waits for it)."""
    text = (
        "import paramiko\n\ndef go(client: paramiko.SSHClient):\n"
        f'    client.exec_command("{_NOHUP}")\n'
    )
    found = python_findings(text)
    assert code_severity_text(text, found) == [("HL104", "info", "nohup")]
    assert "the channel of `exec_command`" in found[0].message


def test_invoke_sudo_puts_sudo_before_the_command() -> None:
    """invoke's `c.sudo(CMD)` runs `sudo -S -p '...' CMD` in bash (invoke's own dry run
    shows it): a redirection in CMD is opened by that bash, before sudo starts (HL109)."""
    dry = subprocess.run(
        [
            sys.executable,
            "-c",
            "from invoke import Config, Context\n"
            "c = Context(Config(overrides={'run': {'dry': True, 'hide': True}}))\n"
            "print(c.sudo('echo x > /etc/motd', password='x').command)\n",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.splitlines()[-1]  # the dry run echoes the command first, in colour
    assert dry.startswith("sudo -S -p '") and dry.endswith("' echo x > /etc/motd")
    text = 'from invoke import task\n\n@task\ndef go(c):\n    c.sudo("echo x > /etc/motd")\n'
    found = python_findings(text)
    assert code_severity_text(text, found) == [("HL109", "error", ">")]
    assert "before sudo starts: only `echo` runs as root" in found[0].message


# -- prefilter.py: a tab where a space usually stands ----------------------------------------


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
    found = python_findings(text)
    home = text.index("$HOME")
    assert ("HL102", home, home + 5) in [(f.code, f.start, f.end) for f in found]


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


# -- Python frontend --------------------------------------------------------------------------


_CTX_RUN = "def deploy(ctx):\n    ctx.run('ssh h \"pkill -f x; y\"')\n"


def test_ctx_run_is_invoke_only_without_fabric() -> None:
    """`ctx` is invoke's name for a Context; in a file that imports fabric it may be a
    Connection just as well, so it is not read as invoke's local run."""
    assert "HL103" in finding_codes("import invoke\n\n" + _CTX_RUN, "python")
    assert finding_codes("import fabric\nimport invoke\n\n" + _CTX_RUN, "python") == []


def test_for_loop_rebinds_the_name() -> None:
    """`for cmd in ...` gives `cmd` a new value: the string assigned before is not run."""
    head = "import subprocess\n\ncmd = \"ssh h 'pkill -f x; y'\"\n"
    run = "subprocess.run(cmd, shell=True)\n"
    assert "HL103" in finding_codes(head + run, "python")
    assert finding_codes(head + 'for cmd in ["ls"]:\n    ' + run, "python") == []


# -- the Python frontend: a starred argument after the command does not hide it -----------


@pytest.mark.parametrize(
    ("call", "span"),
    [
        ("subprocess.run(\"ssh h 'pkill -f sglang; echo'\", *opts, shell=True)", (41, 46)),
        ('subprocess.run(["ssh", "h", "pkill -f sglang; echo"], *opts)', (47, 52)),
        ("subprocess.run(*opts)", None),  # the command itself is unknown
    ],
)
def test_starred_argument_after_the_command(call: str, span: tuple[int, int] | None) -> None:
    """`*opts` after the command (bufsize, executable... at run time) leaves the command
    the first argument: its pkill self-match is still found, at the `pkill` word."""
    text = f"import subprocess\n{call}\n"
    found = [(f.code, f.start, f.end) for f in check_text(text, "python", "t.py", Settings())]
    assert found == ([("HL103", *span)] if span else [])
    if span:
        assert text[span[0] : span[1]] == "pkill"


@pytest.mark.parametrize("indent", ["", "    "])
def test_fabric_connection_through_a_second_name(indent: str) -> None:
    """`d = c` where `c = fabric.Connection(...)`: `d.run(...)` runs on the remote host
    all the same, and its pkill self-match is reported at the `pkill` word."""
    body = 'c = fabric.Connection("h")\nd = c\nd.run("pkill -f sglang; echo")\n'
    if indent:
        body = "def f():\n" + "".join(indent + line + "\n" for line in body.splitlines())
    text = "import fabric\n" + body
    findings = check_text(text, "python", "t.py", Settings())
    assert [(f.code, text[f.start : f.end]) for f in findings] == [("HL103", "pkill")]
    assert findings[0].start == text.index("pkill")
