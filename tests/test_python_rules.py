"""HL201 and HL202, the shell rules inside Python strings, and the fixes written back.

Every fix is checked three ways: the exact text it produces, that the result parses
with libcst, and that checking the result again finds nothing the fix was for.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import libcst
import pytest
from rulekit import SSH_RUNNING_BASH, python_findings, run_python_with_ssh

from heredoc_lint.engine import Settings, check_text, fix_kind
from heredoc_lint.frontends.python import PyFragment, fragments
from heredoc_lint.model import Applicability, Edit, Severity
from heredoc_lint.report.lines import LineIndex

CASES = Path(__file__).parent / "cases"
DATA = Path(__file__).parent / "data" / "python"


def found(text: str, min_severity: Severity = Severity.WARNING) -> list[tuple[str, str]]:
    """(code, anchored source text) at or above min_severity."""
    return [
        (f.code, text[f.start : f.end])
        for f in check_text(text, "python", "t.py")
        if f.severity.rank >= min_severity.rank
    ]


def fixed(text: str, unsafe: bool = True) -> str:
    outcome = fix_kind(text, "python", "t.py", unsafe=unsafe)
    assert outcome.error is None
    return outcome.text


# -- the contract's example ------------------------------------------------------------------


def test_remote_py_case() -> None:
    spec = json.loads((CASES / "expect.json").read_text())["cases"]["remote_py.py"]
    text = (CASES / "remote_py.py").read_text()
    index = LineIndex(text)
    lines = text.splitlines()
    expected = sorted(
        (code, next(n for n, line in enumerate(lines, 1) if needle in line))
        for code, needle in spec["expect"]
    )
    got = sorted(
        (f.code, index.position(f.start)[0])
        for f in check_text(text, "python", "remote_py.py")
        if f.severity.rank >= Severity.WARNING.rank
    )
    assert got == expected


def test_remote_py_fixed() -> None:
    text = (CASES / "remote_py.py").read_text()
    result = fixed(text)
    assert result == (
        "import base64\n"
        "import shlex\n"
        "import subprocess\n"
        "\n"
        "import paramiko\n"
        "\n"
        "\n"
        "def deploy(host: str, unit: str) -> None:\n"
        '    subprocess.run(["ssh", host, "pkill -f \'[g]\'unicorn; sleep 1; systemctl start '
        'app"], check=True)\n'
        "    client = paramiko.SSHClient()\n"
        "    client.connect(host)\n"
        '    unit_b64 = base64.b64encode((unit + "\\n").encode()).decode()\n'
        '    client.exec_command(f"printf %s {unit_b64} | base64 -d > '
        '/etc/systemd/system/app.service")\n'
        '    subprocess.run(f"ssh {shlex.quote(host)} uptime", shell=True, check=True)\n'
    )
    assert found(result) == []


# -- HL201 -----------------------------------------------------------------------------------------


# `p` is a parameter whose name says nothing of what it holds: info by default (its first
# look: 13 real bugs in 108), so these quoting forms are read at info, with the evidence.
U = "parameter-unknown"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('os.system(f"ls {p}")', [("HL201", "{p}", U)]),
        ("os.system(f\"ls '{p}'\")", [("HL201", "{p}", U)]),
        # in "...": a parameter alone is no evidence (test_hl201_in_double_quotes)
        ('os.system(f"ls \\"{p}\\"")', [("HL201", "{p}", "parameter-in-double-quotes")]),
        ('os.system("ls %s" % p)', [("HL201", "%s", U)]),
        ('os.system("ls {}".format(p))', [("HL201", "{}", U)]),
        ('os.system("ls " + p)', [("HL201", "p", U)]),
        ('os.system(f"X={p} make")', [("HL201", "{p}", U)]),
        ('os.system(f"cat > {p}")', [("HL201", "{p}", U)]),
        ('os.system(f"echo $(cat {p})")', [("HL201", "{p}", U)]),
        # safe: quoted, numbers, a whole command, a heredoc body (HL202's)
        ('os.system(f"ls {shlex.quote(p)}")', []),
        ('os.system("ls " + shlex.join(a))', []),
        ('os.system(f"head -n {n:d} {len(a)} {3}")', []),
        ('os.system("head -n %d" % n)', []),
        ('os.system(f"{cmd} --verbose")', []),
        ('os.system(f"sudo {cmd}")', []),
        ("os.system(f\"ls '{p.replace(chr(39), q)}'\")", [("HL201", "{p.replace(chr(39), q)}", U)]),
        ("os.system(\"ls '%s'\" % p.replace(\"'\", \"'\\\\''\"))", []),
        ('os.system(f"printf %s {base64.b64encode(b).decode()} | base64 -d")', []),
    ],
)  # fmt: skip
def test_hl201(source: str, expected: list[tuple[str, str, str]]) -> None:
    # The values are parameters of a public function: its callers decide them.
    text = f"import os\nimport shlex\nimport base64\n\ndef run(p, q, n, a, b, cmd):\n    {source}\n"
    got = [(f.code, text[f.start : f.end], f.evidence) for f in check_text(text, "python", "t.py")]
    assert got == expected


@pytest.mark.parametrize(
    ("name", "severity", "evidence"),
    [
        ("p", Severity.INFO, "parameter-unknown"),
        ("path", Severity.INFO, "parameter"),
        ("url", Severity.INFO, "parameter-url"),
        ("host", Severity.WARNING, "parameter-host"),
    ],
)
def test_hl201_a_parameter_by_what_its_name_says(
    name: str, severity: Severity, evidence: str
) -> None:
    """Only a parameter named as a host (`ssh {host} uptime`, remote_py.py) is a warning."""
    text = f'import os\n\ndef run({name}):\n    os.system(f"ssh {{{name}}} uptime")\n'
    got = [
        (f.code, text[f.start : f.end], f.severity, f.evidence)
        for f in check_text(text, "python", "t.py")
    ]
    assert got == [("HL201", f"{{{name}}}", severity, evidence)]


def test_hl201_in_double_quotes() -> None:
    """In "...": a parameter alone is no evidence; a value from the environment keeps its
    evidence, at info by default (its first look: 13 findings, all debatable)."""
    head = "import os\n\ndef run(p):\n    "
    for value, evidence in (
        ("{p}", "parameter-in-double-quotes"),
        ("{os.environ[p]}", "environment"),
    ):
        text = f'{head}os.system(f"ls \\"{value}\\"")\n'
        got = [
            (f.code, text[f.start : f.end], f.severity, f.evidence)
            for f in check_text(text, "python", "t.py")
        ]
        assert got == [("HL201", value, Severity.INFO, evidence)]


def test_hl201_through_two_shells_has_no_fix() -> None:
    text = "import os\nos.system(f\"ssh h 'cat {p}'\")\n"
    findings = [f for f in check_text(text, "python") if f.code == "HL201"]
    assert [(text[f.start : f.end], f.fix) for f in findings] == [("{p}", None)]
    assert "`ssh` command string" in findings[0].message


def test_hl201_message_per_quoting() -> None:
    text = 'import os\nos.system(f"a {x} \'{y}\' \\"{z}\\"")\n'
    messages = [f.message for f in check_text(text, "python") if f.code == "HL201"]
    assert "unquoted shell word" in messages[0]
    assert "single quotes" in messages[1]
    assert "double quotes" in messages[2]


@pytest.mark.parametrize(
    ("before", "after", "applicability"),
    [
        (
            "import subprocess\nsubprocess.run(f\"cat '{p}' \\\"{q}\\\" /srv/'{r}'.conf\", "
            "shell=True)\n",
            "import shlex\nimport subprocess\nsubprocess.run(f\"cat {shlex.quote(str(p))} "
            "{shlex.quote(str(q))} /srv/{shlex.quote(str(r))}.conf\", shell=True)\n",
            Applicability.SAFE,
        ),
        (
            "import os\nos.system(f\"cat '/srv/{p}.conf'\")\n",
            "import os\nimport shlex\nos.system(f\"cat '/srv/'{shlex.quote(str(p))}'.conf'\")\n",
            Applicability.SAFE,
        ),
        (
            '"""Doc."""\nfrom __future__ import annotations\nimport os\n'
            "os.system(\"ls '%s'\" % p)\n",
            '"""Doc."""\nfrom __future__ import annotations\nimport os\nimport shlex\n'
            'os.system("ls %s" % shlex.quote(str(p)))\n',
            Applicability.SAFE,
        ),
        (
            "#!/usr/bin/env python3\nimport os\nos.system(\"ls '\" + p + \"'\")\n",
            "#!/usr/bin/env python3\nimport os\nimport shlex\nos.system(\"ls \" + "
            "shlex.quote(str(p)))\n",
            Applicability.SAFE,
        ),
        (
            "import shlex as sx\nimport os\nos.system(\"ls {}\".format(p))\n",
            "import shlex as sx\nimport os\nos.system(\"ls {}\".format(sx.quote(str(p))))\n",
            Applicability.UNSAFE,
        ),
        (
            "from shlex import quote\nimport os\nos.system(f\"ls {p!s}\")\n",
            "from shlex import quote\nimport os\nos.system(f\"ls {quote(str(p))}\")\n",
            Applicability.UNSAFE,
        ),
        (
            "import os\n\ndef f(p: str):\n    os.system(f\"ls {p}\")\n",
            "import os\nimport shlex\n\ndef f(p: str):\n    os.system(f\"ls {shlex.quote(p)}\")\n",
            Applicability.UNSAFE,
        ),
        (
            "from os import system\nsystem(f\"ls {p}\")\n",
            "import shlex\n\nfrom os import system\nsystem(f\"ls {shlex.quote(str(p))}\")\n",
            Applicability.UNSAFE,
        ),
        (
            "def f(c):\n    c.exec_command(f\"ls {p}\")\n",
            "import shlex\n\ndef f(c):\n    c.exec_command(f\"ls {shlex.quote(str(p))}\")\n",
            Applicability.UNSAFE,
        ),
    ],
)  # fmt: skip
def test_hl201_fixes(before: str, after: str, applicability: Applicability) -> None:
    """Safe where the author's quotes show one word; unsafe for an unquoted value."""
    fixes = [f.fix for f in check_text(before, "python") if f.code == "HL201"]
    assert fixes and all(f is not None and f.applicability is applicability for f in fixes)
    assert fixed(before) == after
    unsafe = applicability is Applicability.UNSAFE
    assert fixed(before, unsafe=False) == (before if unsafe else after)
    libcst.parse_module(after)
    assert [c for c, _ in found(after)] == []


def test_hl201_fix_refused() -> None:
    for source in (
        'os.system(f"ls {p!r}")',
        'os.system(f"ls {p:>10}")',
        'os.system("ls %s %s" % args)',
        "os.system(\"a %(x)s b %(x)s\" % {'x': p})",
        "os.system(f\"ls $'{p}'\")",
    ):
        text = f"import os\n{source}\n"
        fixes = [f.fix for f in check_text(text, "python") if f.code == "HL201"]
        assert fixes and all(fix is None for fix in fixes), source


# -- HL202 -----------------------------------------------------------------------------------------


def test_hl202_replaces_hl101() -> None:
    text = "def f(c, body):\n    c.exec_command(f\"cat > /a << 'EOF'\\n{body}\\nEOF\")\n"
    assert found(text, Severity.INFO) == [("HL202", "<<")]


def test_hl202_messages() -> None:
    terminated = "def f(c, b):\n    c.exec_command(f\"cat > /a << 'EOF'\\n{b}\\nEOF\")\n"
    glued = "def f(c, b):\n    c.exec_command(f\"cat > /a << 'EOF'\\n{b}EOF\")\n"
    unquoted = 'def f(c, b):\n    c.exec_command(f"cat > /a <<EOF\\n{b}\\nEOF")\n'
    message = {
        name: next(f.message for f in check_text(t, "python") if f.code == "HL202")
        for name, t in (("t", terminated), ("g", glued), ("u", unquoted))
    }
    assert "holding the line `EOF` ends the body early" in message["t"]
    assert "unless the value ends with a newline" in message["g"]
    assert "expanded" in message["u"] and "expanded" not in message["t"]


HL202_FIXES = [
    # the usual form: a new line computes the body (a `\n` cannot be in an f-string
    # field before Python 3.12)
    (
        "import paramiko\ndef push(c, body):\n"
        "    c.exec_command(f\"cat > /a << 'EOF'\\n{body}\\nEOF\\n\")\n",
        "import base64\nimport paramiko\ndef push(c, body):\n"
        '    body_b64 = base64.b64encode((str(body) + "\\n").encode()).decode()\n'
        '    c.exec_command(f"printf %s {body_b64} | base64 -d > /a")\n',
        Applicability.SAFE,
    ),
    # the value glued to the delimiter: the body is the value alone, inline
    (
        "def push(c, body: str):\n    c.exec_command(f\"cat > /a << 'EOF'\\n{body}EOF\\n\")\n",
        "import base64\n\ndef push(c, body: str):\n"
        '    c.exec_command(f"printf %s {base64.b64encode(body.encode()).decode()} '
        '| base64 -d > /a")\n',
        Applicability.SAFE,
    ),
    # `+` concatenation with more commands after the heredoc
    (
        "def push(c, body: str):\n"
        '    c.exec_command("cat > /a << \'EOF\'\\n" + body + "\\nEOF\\nchmod 600 /a")\n',
        "import base64\n\ndef push(c, body: str):\n"
        '    body_b64 = base64.b64encode((body + "\\n").encode()).decode()\n'
        '    c.exec_command(f"printf %s {body_b64} | base64 -d > /a\\n" + "chmod 600 /a")\n',
        Applicability.SAFE,
    ),
    # implicit concatenation over lines: comments kept, emptied parts dropped
    (
        "def push(c, body: str):\n"
        "    c.exec_command(\n"
        '        "set -e\\n"\n'
        "        \"cat > /a << 'EOF'\\n\"  # the config\n"
        "        + body +\n"
        '        "\\nEOF\\n"\n'
        "    )\n",
        "import base64\n\ndef push(c, body: str):\n"
        '    body_b64 = base64.b64encode((body + "\\n").encode()).decode()\n'
        "    c.exec_command(\n"
        '        "set -e\\n"\n'
        '        f"printf %s {body_b64} | base64 -d > /a"  # the config\n'
        "    )\n",
        Applicability.SAFE,
    ),
    # a heredoc feeding a command other than `cat`; constant text around the value
    (
        "def push(c, d):\n"
        '    c.exec_command(f\'tee /a << "EOF"\\n# head\\n{d["k"]!r}\\n{{x}}\\nEOF\')\n',
        "import base64\n\ndef push(c, d):\n"
        '    body_b64 = base64.b64encode(("# head\\n" + repr(d["k"]) + "\\n{x}\\n")'
        ".encode()).decode()\n"
        "    c.exec_command(f'printf %s {body_b64} | base64 -d | tee /a')\n",
        Applicability.SAFE,
    ),
    # `!a` is ascii(), not repr(): they differ on a value that is not ASCII
    (
        "def push(c, d):\n"
        '    c.exec_command(f\'tee /a << "EOF"\\n# head\\n{d["k"]!a}\\n{{x}}\\nEOF\')\n',
        "import base64\n\ndef push(c, d):\n"
        '    body_b64 = base64.b64encode(("# head\\n" + ascii(d["k"]) + "\\n{x}\\n")'
        ".encode()).decode()\n"
        "    c.exec_command(f'printf %s {body_b64} | base64 -d | tee /a')\n",
        Applicability.SAFE,
    ),
    # an unquoted delimiter: the shell no longer expands the value
    (
        'def push(c, body: str):\n    c.exec_command(f"cat > /a <<EOF\\n{body}EOF")\n',
        "import base64\n\ndef push(c, body: str):\n"
        '    c.exec_command(f"printf %s {base64.b64encode(body.encode()).decode()} '
        '| base64 -d > /a")\n',
        Applicability.UNSAFE,
    ),
    # a name bound to the template: the statement that builds it is rewritten
    (
        'import subprocess\n\nTEMPLATE = """cat > /a << \'EOF\'\n{body}\nEOF\n"""\n\n'
        "def push(host: str, body: str) -> None:\n"
        "    cmd = f\"cat > /srv/app << 'EOF'\\n{body}\\nEOF\"\n"
        '    subprocess.run(["ssh", host, cmd], check=True)\n',
        'import base64\nimport subprocess\n\nTEMPLATE = """cat > /a << \'EOF\'\n{body}\n'
        'EOF\n"""\n\n'
        "def push(host: str, body: str) -> None:\n"
        '    body_b64 = base64.b64encode((body + "\\n").encode()).decode()\n'
        '    cmd = f"printf %s {body_b64} | base64 -d > /srv/app"\n'
        '    subprocess.run(["ssh", host, cmd], check=True)\n',
        Applicability.SAFE,
    ),
]


@pytest.mark.parametrize(("before", "after", "applicability"), HL202_FIXES)
def test_hl202_fixes(before: str, after: str, applicability: Applicability) -> None:
    findings = [f for f in check_text(before, "python") if f.code == "HL202"]
    assert len(findings) == 1 and findings[0].fix is not None
    assert findings[0].fix.applicability is applicability
    assert fixed(before) == after
    libcst.parse_module(after)
    assert found(after) == []
    assert fixed(after) == after


def test_hl202_without_fix() -> None:
    for source in (
        "if c: c.exec_command(f\"cat > /a << 'EOF'\\n{b}\\nEOF\")",  # no line of its own
        'c.exec_command(f"cat > /a <<-EOF\\n\\t{b}\\n\\tEOF")',  # tabs stripped by <<-
        "c.exec_command(\"cat > /a << 'EOF'\\n%s\\nEOF\" % b)",  # a % template
        "os.system(f\"ssh h 'cat > /a << EOF\\n{b}\\nEOF'\")",  # through two shells
        'c.exec_command(f"cat > /a <<EOF\\n$HOME {b}\\nEOF")',  # expands `$HOME` on purpose
    ):
        text = f"import os\ndef f(c, b):\n    {source}\n"
        fixes = [f.fix for f in check_text(text, "python") if f.code == "HL202"]
        assert fixes == [None], source


def test_two_hoisted_fixes_get_two_names() -> None:
    text = (
        "def push(c, body):\n"
        "    c.exec_command(f\"cat > /a << 'EOF'\\n{body}\\nEOF\")\n"
        "    c.exec_command(f\"cat > /b << 'EOF'\\n{body}\\nEOF\")\n"
    )
    result = fixed(text)
    assert "    body_b64 = " in result and "    body_b64_2 = " in result
    assert found(result) == []


# -- shell rules inside Python strings, and their fixes through encode_edit ------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            'c.exec_command("pkill -f worker; echo \'done\'")',
            'c.exec_command("pkill -f \'[w]\'orker; echo \'done\'")',
        ),
        (
            "c.exec_command('pkill -f worker; echo')",
            "c.exec_command('pkill -f \\\\[w]orker; echo')",
        ),
        (
            'c.exec_command(f"pkill -f worker; echo {{x}}")',
            'c.exec_command(f"pkill -f \'[w]\'orker; echo {{x}}")',
        ),
        (
            'c.exec_command("pkill -f worker; echo %d" % n)',
            'c.exec_command("pkill -f \'[w]\'orker; echo %d" % n)',
        ),
        (
            'c.exec_command(rb"pkill -f worker; echo \\x")',
            'c.exec_command(rb"pkill -f \'[w]\'orker; echo \\x")',
        ),
    ],
)  # fmt: skip
def test_shell_fixes_inside_python_strings(before: str, after: str) -> None:
    text = f"def f(c, n):\n    {before}\n"
    assert fixed(text, unsafe=False) == f"def f(c, n):\n    {after}\n"
    libcst.parse_module(fixed(text))


def test_sudo_redirect_in_invoke_and_fabric() -> None:
    text = "from invoke import task\n@task\ndef t(c):\n    c.sudo('echo 1 > /proc/sys/vm/x')\n"
    assert found(text) == [("HL109", ">")]


def test_encode_edit_refuses_what_it_cannot_write() -> None:
    frag = fragments("def f(c, v):\n    c.exec_command(f'echo a{v}b' r'c\\d')\n")[0]
    encoder = frag.encode_edit
    assert isinstance(frag.origin, PyFragment) and encoder is not None
    assert frag.text == "echo a${__hl_0}bc\\d"
    start = frag.text.index("$")
    assert encoder(start - 1, start + 3, "x") is None  # cuts a placeholder
    assert encoder(start, start + 10, "x") is None  # drops a run-time value
    assert encoder(0, 4, "${__hl_0}") is None  # writes a placeholder as text
    raw = frag.text.index("c\\d")
    assert encoder(raw, raw + 1, "\\") is None  # a backslash in a raw string
    assert encoder(raw, raw + 1, "'") is None  # the quote of an r'...' string
    assert encoder(raw, raw + 1, '"') is not None
    edit = encoder(0, 4, 'printf "%s"\n')
    assert edit is not None and edit.content == 'printf "%s"\\n'


# -- every fixture: fixes parse, re-check clean, and are stable ----------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.py")))
def test_fixture_fixes(name: str) -> None:
    text = (DATA / name).read_text()
    outcome = fix_kind(text, "python", name, unsafe=True)
    assert outcome.error is None
    libcst.parse_module(outcome.text)
    assert all(f.fix is None for f in outcome.remaining), [
        (f.code, f.message) for f in outcome.remaining if f.fix is not None
    ]
    assert fix_kind(outcome.text, "python", name, unsafe=True).text == outcome.text


def test_constant_names_are_read_not_reported() -> None:
    text = (
        "import os\n"
        'NVR = "%{name}-%{version}"\n'
        "def f(spec):\n"
        '    src = NVR + ".src.rpm"\n'
        "    os.popen(\"rpm -q --qf '%s' --specfile '%s'\" % (src, spec))\n"
        '    os.system(f"{src} {NVR}")\n'
        '    os.system("run {}".format(NVR))\n'
    )
    # `spec` says nothing of what it holds: info (parameter-unknown), read at info here.
    assert found(text, Severity.INFO) == [("HL201", "%s")]
    assert text.count("%s") == 2 and text.index("%s") < check_text(text, "python")[0].start


def test_words_joined_for_the_shell_are_not_reported() -> None:
    text = 'import os\ndef ls(a, more):\n    os.system("ls %s %s" % (a, " ".join(more)))\n'
    # `a` says nothing of what it holds: info (parameter-unknown), read at info here.
    assert found(text, Severity.INFO) == [("HL201", "%s")]
    assert check_text(text, "python")[0].start == text.index("%s")


def test_two_hoisted_fixes_at_module_level() -> None:
    text = (
        "import paramiko\n"
        "c = paramiko.SSHClient()\n"
        'body = open("x").read()\n'
        "c.exec_command(f\"cat > /a << 'EOF'\\n{body}\\nEOF\")\n"
        "c.exec_command(f\"cat > /b << 'EOF'\\n{body}\\nEOF\")\n"
    )
    result = fixed(text)
    assert result.startswith("import base64\nimport paramiko\n")
    assert "\nbody_b64 = " in result and "\nbody_b64_2 = " in result
    libcst.parse_module(result)
    assert found(result) == []


# -- fixes/python_fixes.py ---------------------------------------------------------------


_RM = 'import subprocess\n\ndef f(path):\n    subprocess.call("rm " + path, shell=True)\n'


@pytest.mark.parametrize(
    ("head", "fixable"),
    [
        ("", True),
        ("#!/usr/bin/env python2\n", False),
        ("from __future__ import print_function\n", False),
        ("#!/usr/bin/env python3\n", True),
    ],
)
def test_no_shlex_quote_fix_in_a_python2_file(head: str, fixable: bool) -> None:
    """Python 2 has no `shlex.quote`: a file that may run under it gets the finding
    without the fix that would add it."""
    text = head + _RM
    (found,) = [f for f in check_text(text, "python", "t.py") if f.code == "HL201"]
    assert text[found.start : found.end] == "path"
    if fixable:
        assert found.fix is not None
        assert found.fix.message == "Quote the value with `shlex.quote(...)`"
    else:
        assert found.fix is None


# -- __init__.py: the names bound at module level ------------------------------------------


def test_hoisted_name_avoids_a_module_level_name(tmp_path: Path) -> None:
    """The base64 fix of a heredoc body in a function names its new variable so that it
    shadows no module-level name (`body_b64` is taken: `body_b64_2`); the fixed command,
    run by bash, writes the body's bytes."""
    src = (
        "import paramiko\nbody_b64 = 'kept'\n\n\ndef push(c, body):\n"
        "    c.exec_command(f\"cat > /a << 'EOF'\\n{body}\\nEOF\\n\")\n"
    )
    fixed = fix_kind(src, "python", "t.py", Settings()).text
    assert "body_b64 = 'kept'\n" in fixed
    assert "    body_b64_2 = base64.b64encode(" in fixed
    target = tmp_path / "a"
    sent: list[str] = []

    class Client:
        def exec_command(self, command: str) -> None:
            sent.append(command)

    namespace: dict[str, object] = {}
    exec(compile(fixed.replace("import paramiko\n", ""), "t.py", "exec"), namespace)
    push = namespace["push"]
    assert callable(push)
    push(Client(), "line $HOME 'q'")
    assert namespace["body_b64"] == "kept"
    (command,) = sent
    subprocess.run(["bash", "-c", command.replace("/a", str(target))], timeout=30, check=True)
    assert target.read_bytes() == b"line $HOME 'q'\n"


# -- fixes/python_fixes.py: `import shlex` goes after `from __future__` ----------------------


def test_shlex_import_goes_after_the_future_import(tmp_path: Path) -> None:
    """A file whose imports are `from __future__ import ...` and other from-imports: the
    HL201 fix's `import shlex` goes before the first from-import that is not
    `__future__` (a `__future__` import must stay first, or the file no longer compiles).
    The fixed file runs: the path with a blank and a `;` reaches `rm` as one word."""
    victim = tmp_path / "a b; touch pwned"
    victim.write_text("x")
    head = "from __future__ import annotations\n"
    body = '\n\ndef f(path):\n    call("rm " + {}, shell=True)\n\n\nf({!r})\n'
    text = head + "from subprocess import call\n" + body.format("path", str(victim))
    outcome = fix_kind(text, "python", "t.py", unsafe=True)
    assert outcome.error is None
    fixed = (
        head
        + "import shlex\n\nfrom subprocess import call\n"
        + body.format("shlex.quote(str(path))", str(victim))
    )
    assert outcome.text == fixed
    script = tmp_path / "fixed.py"
    script.write_text(fixed)
    proc = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert not victim.exists()
    assert not (tmp_path / "pwned").exists()


# -- encode.py: the Python source a shell fix writes ---------------------------------------


_LATE_BINDING = """\
import os

def f(y):
    os.system(f'ssh h "x=1; echo ${{x}}" {y}')
    os.system('ssh h "x=2; echo ${{x}}" {}'.format(y))
    os.system('ssh h "x=3; echo ${x}" %s' % y)
    os.system('ssh h "x=4; echo ${x}" ' + y)

f("Y")
"""


def _run_with_ssh_running_bash(tmp_path: Path, program: str) -> str:
    """The program's output, its `ssh h CMD` running CMD in bash here."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    return run_python_with_ssh(tmp_path, program, SSH_RUNNING_BASH, env)


def test_the_escape_fix_writes_each_template_s_own_syntax(tmp_path: Path) -> None:
    """`${x}` used before the string binds x is expanded by the local shell (empty: the
    remote echo prints only Y).  The fix escapes it, in the syntax of each string: an
    f-string and a `.format` template double its braces, a `%` template and a plain
    string do not; the fixed program prints the remote values."""
    assert _run_with_ssh_running_bash(tmp_path, _LATE_BINDING) == "Y\nY\nY\nY\n"
    found = python_findings(_LATE_BINDING, "HL102")
    assert [(f.severity.value, f.start) for f in found] == [
        ("error", i) for i in range(len(_LATE_BINDING)) if _LATE_BINDING.startswith("${", i)
    ]
    fixed = fix_kind(_LATE_BINDING, "python", "t.py", Settings(), unsafe=True).text
    assert fixed == (
        _LATE_BINDING.replace("echo ${{x}}", "echo \\\\${{x}}").replace(
            "echo ${x}", "echo \\\\${x}"
        )
    )
    assert _run_with_ssh_running_bash(tmp_path, fixed) == "1 Y\n2 Y\n3 Y\n4 Y\n"


@pytest.mark.parametrize(
    "argument",
    [
        '"cat > /a << \'EOF\'\\n" + body + "\\nEOF\\n"',
        '"cat > /a << \'EOF\'\\n" f"{body}" "\\nEOF\\n"',
    ],
)
def test_the_base64_fix_drops_the_heredoc_s_strings(argument: str, tmp_path: Path) -> None:
    """A heredoc whose body is a run-time value, its delimiter lines in strings of their
    own (joined by `+`, or written side by side): the fix drops those strings whole, the
    command is one f-string, and bash run on it writes the body to the file."""
    text = f"def push(c, body: str):\n    c.exec_command({argument})\n"
    fixed = fix_kind(text, "python", "t.py", Settings(), unsafe=True).text
    assert fixed == (
        "import base64\n\ndef push(c, body: str):\n"
        '    body_b64 = base64.b64encode((body + "\\n").encode()).decode()\n'
        '    c.exec_command(f"printf %s {body_b64} | base64 -d > /a")\n'
    )
    sent: list[str] = []

    class Client:
        def exec_command(self, command: str) -> None:
            sent.append(command)

    namespace: dict[str, object] = {}
    exec(compile(fixed, "fixed.py", "exec"), namespace)  # noqa: S102 - the fix's own output
    push = namespace["push"]
    assert callable(push)
    push(Client(), "line $HOME 'q'\nEOF\nlast")
    (command,) = sent
    target = tmp_path / "out"
    subprocess.run(["bash", "-c", command.replace("/a", str(target))], timeout=30, check=True)
    assert target.read_bytes() == b"line $HOME 'q'\nEOF\nlast\n"


def test_an_empty_edit_at_either_end_of_a_fragment_is_an_empty_edit_in_the_file() -> None:
    """The engine hands every lifted span to the fragment's `encode_edit`: an edit that
    changes nothing, at the end of the command or at its start, is an edit that changes
    nothing in the file, at the closing quote or after the opening one; an insertion
    at the end goes before the closing quote."""
    text = 'import os\nos.system("ssh h echo \\x41 x")\n'
    (fragment,) = fragments(text)
    assert fragment.text == "ssh h echo A x"
    assert fragment.encode_edit is not None
    end, quote = len(fragment.text), text.index('")')
    assert fragment.encode_edit(end, end, "") == Edit(quote, quote, "")
    assert fragment.encode_edit(end, end, ";") == Edit(quote, quote, ";")
    opening = text.index('"') + 1
    assert fragment.encode_edit(0, 0, "") == Edit(opening, opening, "")


# -- fixes/python_fixes.py: a value spelled over several lines -------------------------------


# f-string values written over two lines: alone, such a line break does not parse as an
# expression, so the fix puts the value in parentheses.  The last heredoc glues its
# delimiter to the value (a value without a final newline): bash never sees its end.
_MULTILINE = '''def push(client, id_, name):
    client.exec_command(f"""cat > out-a << 'EOF'
{'id-'
  + id_}
EOF
cat > out-b << 'EOF'
{name
  .strip()}
EOF
cat > out-c << 'EOF'
{'id-'
  + id_}EOF""")
'''


class _Recorder:
    """A stand-in ssh client: keeps the command it is given."""

    def __init__(self) -> None:
        self.commands: list[str] = []

    def exec_command(self, command: str) -> None:
        self.commands.append(command)


def _remote_files(source: str, tmp_path: Path, label: str) -> dict[str, bytes]:
    """Run `push` of `source`, its command through bash in a directory of its own (bash
    stands for the remote shell): the files it writes."""
    namespace: dict[str, object] = {}
    exec(compile(source, label, "exec"), namespace)
    client = _Recorder()
    namespace["push"](client, "7", "  bob ")  # type: ignore[operator]
    (command,) = client.commands
    where = tmp_path / label
    where.mkdir()
    subprocess.run(["bash", "-c", command], cwd=where, check=True)
    return {p.name: p.read_bytes() for p in sorted(where.iterdir())}


def test_runtime_base64_fix_of_a_value_over_two_lines(tmp_path: Path) -> None:
    """HL202's fix on values that span lines: the fixed file compiles, has no HL202 left,
    and its command writes the values' bytes (through bash): the same as the original's
    for the two whole heredocs, and the value alone (`.encode()` of the whole value, not
    of its last operand) for the glued one, which the original wrote with its `EOF`."""
    found = [f for f in check_text(_MULTILINE, "python", "push.py") if f.code == "HL202"]
    assert len(found) == 3 and all(f.fix is not None for f in found)
    outcome = fix_kind(_MULTILINE, "python", "push.py", unsafe=True)
    assert outcome.error is None
    assert [f.code for f in check_text(outcome.text, "python", "push.py")] == []
    original = _remote_files(_MULTILINE, tmp_path, "original")
    assert original == {"out-a": b"id-7\n", "out-b": b"bob\n", "out-c": b"id-7EOF\n"}
    fixed = _remote_files(outcome.text, tmp_path, "fixed")
    assert fixed == {"out-a": b"id-7\n", "out-b": b"bob\n", "out-c": b"id-7"}


# -- encode.py: a fix that spans two literals of a concatenation ----------------------------


def _strings(source: str) -> list[str]:
    """The values of the string constants of `source` (which must parse)."""
    return [
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


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


# -- encode.py: a literal emptied by a fix keeps its type -----------------------------------


class _SubprocessRecorder:
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
    recorder = _SubprocessRecorder()
    program = outcome.text.replace("import subprocess\n", "")
    exec(compile(program, "t.py", "exec"), {"subprocess": recorder})
    fixed_command = "echo hi | sudo tee /etc/motd > /dev/null"
    assert recorder.commands == [fixed_command.encode() if prefix else fixed_command]


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
