"""Pinned behaviours of the Python frontend (frontends/python/), through
`engine.check_text` and the CLI: exact spans, severities, what a message names.

Each test kills a mutant that survived `bench/mutation.py` (issue 20, run 4b,
bench/MUTATION.md, section 8); each was planted by hand, the test failed, and passes without.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from heredoc_lint.engine import Settings, check_text, fix_kind
from heredoc_lint.model import Finding


def _python(text: str, code: str | None = None) -> list[Finding]:
    found = check_text(text, "python", "t.py", Settings())
    return [f for f in found if code is None or f.code == code]


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
    found = _python(_RENDER + call, "HL201")
    text = _RENDER + call
    assert [(f.start, f.end) for f in found] == [
        (text.index("{path}"), text.index("{path}") + 6),
        (text.index("{out}"), text.index("{out}") + 5),
    ]
    assert [(f.severity.value, f.evidence) for f in found] == severities


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


# -- calls.py: the shells fabric and invoke run a string in ---------------------------------

# Python source of a string holding two `bash -c` (inside the library's shell).
_NESTED = "bash -c 'bash -c \\\"echo \\\\$x\\\"'"


def _codes(text: str) -> list[tuple[str, int, int, str]]:
    return [(f.code, f.start, f.end, f.severity.value) for f in _python(text)]


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


# -- HL201: the word that holds a value is the innermost one --------------------------------


def test_a_value_inside_a_command_substitution_is_judged_in_its_own_word() -> None:
    """Inside `"$(...)"` a value is a word of the inner command: unquoted there (bash does
    not carry the outer double quotes into `$(...)`), the inner command itself when it
    stands first (not reported: a whole command), single-quoted when quoted there."""
    text = (
        "import os\n\n\ndef f(p):\n"
        "    os.system(f'echo \"$(cat {p})\"')\n"
        "    os.system(f'echo \"$({p} x)\"')\n"
        "    os.system(f\"echo $(echo '{p}')\")\n"
    )
    # bash: a value with a blank is split inside "$(...)": cat gets two arguments.
    proc = subprocess.run(
        ["bash", "-c", 'p="a b"; set -- $(printf "<%s>" $p); echo "$(printf "<%s>" $p)"'],
        capture_output=True,
        timeout=30,
        check=True,
    )
    assert proc.stdout == b"<a><b>\n"
    found = _python(text)
    first = text.index("{p})\"')")
    third = text.index("{p}')")
    assert [(f.code, f.start, f.end) for f in found] == [
        ("HL201", first, first + 3),
        ("HL201", third, third + 3),
    ]
    assert "as an unquoted shell word" in found[0].message
    assert "inside single quotes" in found[1].message


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


# -- HL202: a heredoc body filled in at run time --------------------------------------------


def test_runtime_heredoc_body_is_reported_at_its_operator(tmp_path: Path) -> None:
    """HL202 marks the whole operator, `<<-` (three characters) or `<<` (two); bash shows
    what it warns of: a value holding the line `EOF` ends the body and runs the rest."""
    text = (
        "import paramiko\n\n\ndef push(c, body):\n"
        '    c.exec_command(f"cat <<-EOF > /a\\n{body}\\nEOF\\n")\n'
        '    c.exec_command(f"cat <<EOF > /a\\n{body}\\nEOF\\n")\n'
    )
    found = _python(text)
    first = text.index("<<-EOF")
    second = text.index("<<EOF")
    assert [(f.code, f.start, f.end) for f in found] == [
        ("HL202", first, first + 3),
        ("HL202", second, second + 2),
    ]
    body = "x\nEOF\necho ran"
    target = tmp_path / "a"
    for strip in ("-", ""):
        command = f"cat <<{strip}EOF > {target}\n{body}\nEOF\n"
        proc = subprocess.run(["bash", "-c", command], capture_output=True, timeout=30)
        assert proc.stdout == b"ran\n"
        assert target.read_bytes() == b"x\n"


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
    found = _python(text)
    assert [(f.code, f.start, f.end) for f in found] == [("HL001", 23, 24)]
    assert found[0].message == (
        "not checked: Python cannot run this file, its coding line (line 2) fails: "
        "unknown encoding: no-such-codec"
    )


def test_an_ascii_file_with_a_latin1_coding_line_is_fixed_as_usual() -> None:
    """Latin-1 reads an ASCII file as the same characters: the file is its own text, and
    its findings get their fixes (only a file whose text differs is never fixed)."""
    body = "import os\n\n\ndef f(p):\n    os.system(f'ls {p}')\n"
    plain = _python(body)
    coded = _python("# -*- coding: latin-1 -*-\n" + body)
    shift = len("# -*- coding: latin-1 -*-\n")
    assert [(f.code, f.start + shift, f.end + shift) for f in plain] == [
        (f.code, f.start, f.end) for f in coded
    ]
    assert len(coded) == 1 and coded[0].fix is not None


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
    assert [(f.code, f.start, f.end) for f in _python(text)] == [("HL103", at, at + 5)]


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
    assert [(f.code, f.start, f.end) for f in _python(text)] == [("HL103", at, at + 5)]


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
    assert [(f.code, f.start, f.end) for f in _python(text)] == [("HL001", 0, 1)]
