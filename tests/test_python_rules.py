"""HL201 and HL202, the shell rules inside Python strings, and the fixes written back.

Every fix is checked three ways: the exact text it produces, that the result parses
with libcst, and that checking the result again finds nothing the fix was for.
"""

from __future__ import annotations

import json
from pathlib import Path

import libcst
import pytest

from heredoc_lint.engine import check_text, fix_kind
from heredoc_lint.frontends.python import PyFragment, fragments
from heredoc_lint.model import Applicability, Severity
from heredoc_lint.source import LineIndex

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
