"""HL201 shell-interpolation-unquoted: a run-time value put into a shell string unquoted.

A warning needs evidence that the value comes from outside the program, named in the
message; a value of unknown origin is info; values that are one safe word or meant as
shell text are not reported (the wrong findings seen in public code, each as a small
reproducer written here). The fixes are applied, safe and unsafe, and the code is run:
locally through `subprocess` and `os.system` (sh, and bash as `executable`), remotely
through paramiko and the ssh client against the real sshd, with values that work and
values that break.
"""

from __future__ import annotations

import os
import re
import subprocess
import types
from pathlib import Path

import paramiko  # type: ignore[import-untyped]
import pytest
from rulekit import (
    SSH_RUNNING_BASH,
    code_severity_text,
    python_findings,
    python_findings_with_settings,
    run_python_with_ssh,
)
from sshd import SshServer

from heredoc_lint.engine import check_text, fix_kind
from heredoc_lint.model import Applicability, Finding, Severity
from heredoc_lint.rules.hl201_shell_interpolation_unquoted import RULE

CODE = "HL201"


def hl201(text: str) -> list[Finding]:
    return [f for f in check_text(text, "python", "t.py") if f.code == CODE]


def anchored(text: str) -> list[tuple[str, Severity]]:
    return [(text[f.start : f.end], f.severity) for f in hl201(text)]


def fixed(text: str, *, unsafe: bool = True) -> str:
    outcome = fix_kind(text, "python", "t.py", unsafe=unsafe)
    assert outcome.error is None
    return outcome.text


# -- the documented example ------------------------------------------------------------------


def _block(doc: str, section: str) -> str:
    match = re.search(rf"## {section}\n```python\n(.*?)```", doc, re.DOTALL)
    assert match is not None, section
    return match.group(1)


def test_documented_example_is_found_and_its_use_instead_is_clean() -> None:
    example = _block(RULE.doc, "Example")
    (f,) = hl201(example)
    # The example is a public function's parameter named as a host (`ssh {host} ...`, the
    # shared case remote_py.py): a warning, shown at default severity.
    assert (example[f.start : f.end], f.severity, f.evidence) == (
        "{host}",
        Severity.WARNING,
        "parameter-host",
    )
    assert "parameter of the public function `restart`" in f.message
    assert "its name says it is a host" in f.message
    assert hl201(_block(RULE.doc, "Use instead")) == []
    # The fix of the example is the documented "Use instead", and it is safe to show so.
    assert fixed(example) == _block(RULE.doc, "Use instead")


# -- positives: the evidence is in the file, and the message names it --------------------------
# argv, options, the environment, configuration, input(), an HTTP request and a parameter
# named as a path or free text, as a URL or as nothing are info by default: their first
# look on real code was mostly debatable (heredoc_lint/severities.py). A parameter named as
# a host stays a warning (the shared case remote_py.py).
POSITIVES = [
    (
        "import os, sys\nos.system(f'ls -l {sys.argv[1]}')\n",
        "{sys.argv[1]}",
        "`sys.argv`",
        "argv",
        Severity.INFO,
    ),
    (
        "import argparse, os\nparser = argparse.ArgumentParser()\nargs = parser.parse_args()\n"
        "os.system(f'du -sh {args.dir}')\n",
        "{args.dir}",
        "command-line option",
        "cli-option",
        Severity.INFO,
    ),
    (
        "import os\nos.system('ls ' + os.environ['DATA_DIR'])\n",
        "os.environ['DATA_DIR']",
        "environ",
        "environment",
        Severity.INFO,
    ),
    (
        "import os\nos.system(f\"rm -rf {os.getenv('BUILD_DIR')}/out\")\n",
        "{os.getenv('BUILD_DIR')}",
        "`os.getenv`",
        "environment",
        Severity.INFO,
    ),
    (
        "import json, os\ncfg = json.load(open('c.json'))\nos.system(f\"cp a {cfg['dest']}\")\n",
        "{cfg['dest']}",
        "it comes from configuration",
        "config",
        Severity.INFO,
    ),
    (
        "import os\nname = input()\nos.system(f'id {name}')\n",
        "{name}",
        "`input()`",
        "input",
        Severity.INFO,
    ),
    (
        "import os\nfrom flask import request\ndef view():\n"
        "    os.system(f\"convert {request.args.get('f')} out.png\")\n",
        "{request.args.get('f')}",
        "HTTP request",
        "request",
        Severity.INFO,
    ),
    (
        "import os\ndef clean(path):\n    os.system(f'rm -rf {path}')\n",
        "{path}",
        "parameter of the public function `clean`",
        "parameter",
        Severity.INFO,
    ),
    (
        "class Box:\n    def push(self, client, path):\n"
        "        client.exec_command(f'cat {path}')\n",
        "{path}",
        "public function `push`",
        "parameter",
        Severity.INFO,
    ),
    (  # a parameter rebound from itself keeps its origin
        "import os\ndef clean(path):\n    path = path.rstrip('/')\n"
        "    os.system(f'rm -r {path}')\n",
        "{path}",
        "public function `clean`",
        "parameter",
        Severity.INFO,
    ),
    (  # named as a host: the one parameter still a warning
        "import os\ndef restart(host):\n    os.system(f'ssh {host} systemctl restart app')\n",
        "{host}",
        "parameter of the public function `restart`",
        "parameter-host",
        Severity.WARNING,
    ),
    (
        "class Box:\n    def push(self, client, host):\n"
        "        client.exec_command(f'ping -c1 {host}')\n",
        "{host}",
        "public function `push`",
        "parameter-host",
        Severity.WARNING,
    ),
]


@pytest.mark.parametrize(("text", "needle", "words", "evidence", "severity"), POSITIVES)
def test_positive_warning_names_its_evidence(
    text: str, needle: str, words: str, evidence: str, severity: Severity
) -> None:
    (f,) = hl201(text)
    start = text.index(needle)
    assert (f.start, f.end, f.severity, f.evidence) == (
        start,
        start + len(needle),
        severity,
        evidence,
    )
    assert words in f.message and f.message.endswith("quote it with shlex.quote()")


# -- info: nothing shows where the value comes from ---------------------------------------------

INFO = [
    ("import os\ndef _clean(path):\n    os.system(f'rm -rf {path}')\n", "{path}"),  # private
    (  # names from a directory listing: internal to the program
        "import os\ndef gz(d):\n    for name in os.listdir(d):\n"
        "        os.system(f'gzip {name}')\n",
        "{name}",
    ),
    ("import os\nos.system(f'ping -c1 {node}')\n", "{node}"),
    (  # a nested function: its callers are in the file
        "import os\ndef outer():\n    def inner(p):\n        os.system(f'ls {p}')\n",
        "{p}",
    ),
]


@pytest.mark.parametrize(("text", "needle"), INFO)
def test_unknown_origin_is_info(text: str, needle: str) -> None:
    (f,) = hl201(text)
    start = text.index(needle)
    assert (f.start, f.end, f.severity) == (start, start + len(needle), Severity.INFO)
    assert "nothing in this file shows where the value comes from" in f.message


# -- negatives: one safe word, or shell text on purpose (WILD pattern 6) --------------------------
# Every value below is built from a parameter of a public function or from argv where a
# value is needed, so that only the shape of the value keeps it from being reported.
HEAD = (
    "import os, pipes, random, shlex, socket, subprocess, sys, uuid\n"
    "PORT = 8000\n"
    "def run(d, ns, name, count, quick, sock, p):\n"
)
NEGATIVES = [
    "    os.system(f'nc -l {PORT + 1}')",  # a module constant and arithmetic
    "    os.system(f'nc -l {sock.getsockname()[1]}')",
    "    os.system(f'sleep {random.randint(1, 5)}')",
    "    os.system(f'mkdir /tmp/{uuid.uuid4()} /tmp/{str(uuid.uuid4())} /tmp/{uuid.uuid4().hex}')",
    "    os.system(f'kill {os.getpid()} {len(sys.argv) * 2}')",
    "    for svc in ['api', 'worker']:\n        os.system(f'systemctl restart {svc}')",
    "    mode = 'fast' if quick else 'full'\n    os.system(f'make {mode}')",
    "    os.system(f\"make {'-j8' if quick else ''}\")",
    "    os.system(f'ls {shlex.quote(p)} {pipes.quote(p)}')",
    "    q = shlex.quote(p)\n    os.system('ls ' + q)",
    "    os.system(f'rm -f {os.path.join(d, \"*.tmp\")}')",  # a glob
    "    opt = '-n ' + ns\n    os.system(f'kubectl get pods {opt}')",  # an option string
    "    extra = ''\n    if quick:\n        extra = ' count=0'\n"
    "    os.system('dd of=/tmp/z' + extra)",
    "    dest = '~/' + name\n    os.system(f'cp a {dest}')",  # `~` for the shell
    "    os.system(f'ls {os.path.join(\"~\", name)}')",
    "    target = '$HOME/' + name\n    os.system(f'cp a {target}')",  # `$VAR`
    "    q = \"'\" + p + \"'\"\n    os.system(f'ls {q}')",  # quoted by hand already
    "    os.system(f'timeout 10 {sys.argv[1]}')",  # a whole command
    "    cmd = sys.argv[1]\n    subprocess.run(f'nice {cmd}', shell=True)",
]


@pytest.mark.parametrize("body", NEGATIVES)
def test_negative_no_finding_at_any_severity(body: str) -> None:
    assert hl201(HEAD + body + "\n") == []


def test_a_method_named_quote_of_the_project() -> None:
    text = (
        "class Remote:\n"
        "    def ls(self, path):\n"
        "        self.client.exec_command(f'ls {self._shell.quote(path)}')\n"
    )
    assert hl201(text) == []


# -- Python 2 (WILD pattern 9, and 7's import) -------------------------------------------------


def test_python2_source_is_one_info_not_a_syntax_error() -> None:
    text = 'import os, sys\nprint "cleaning"\nos.system("rm -rf " + sys.argv[1])\n'
    (f,) = check_text(text, "python", "t.py")
    assert (f.code, f.severity, f.start) == ("HL001", Severity.INFO, text.index("print"))
    assert f.message.startswith("not checked: Python 2 source")
    assert f.evidence == "source-not-checked"
    for source in ("try:\n    pass\nexcept OSError, e:\n    pass\n", "x = `1`\n"):
        (g,) = check_text(f"import os\nos.system('ls')\n{source}", "python", "t.py")
        assert (g.code, g.severity, g.evidence) == ("HL001", Severity.INFO, "source-not-checked")
    # Python 3 syntax errors stay what they are, a backtick in a broken string too; info,
    # as their first look was 9 findings, 8 debatable
    for broken in ("import os\nos.system('ls' +)\n", "import os\nos.system('ls')\nx = 'it`s\n"):
        (h,) = check_text(broken, "python", "t.py")
        assert (h.code, h.severity, h.evidence) == ("HL001", Severity.INFO, "source-unreadable")
        assert h.message.startswith("Python syntax error")


@pytest.mark.parametrize(
    "head",
    [
        "from __future__ import print_function\n",
        "#!/usr/bin/env python2\n",
        "import urllib2\n",
    ],
)
def test_no_fix_in_a_file_that_may_run_under_python2(head: str) -> None:
    text = head + "import os, sys\nos.system(\"ls '%s'\" % sys.argv[1])\n"
    (f,) = hl201(text)
    # argv is info by default; still found, and still without a fix
    assert (f.severity, f.evidence, f.fix) == (Severity.INFO, "argv", None)
    assert fixed(text) == text


# -- fix applicability (WILD pattern 7) ------------------------------------------------------


def test_fix_safe_where_the_author_quoted_the_value() -> None:
    text = "import os\ndef show(path):\n    os.system(f\"cat '{path}'\")\n"
    (f,) = hl201(text)
    assert f.fix is not None and f.fix.applicability is Applicability.SAFE
    assert fixed(text, unsafe=False) == (
        'import os\nimport shlex\ndef show(path):\n    os.system(f"cat {shlex.quote(str(path))}")\n'
    )


def test_fix_unsafe_for_an_unquoted_value() -> None:
    text = "import os\ndef show(path):\n    os.system(f'cat {path}')\n"
    (f,) = hl201(text)
    assert f.fix is not None and f.fix.applicability is Applicability.UNSAFE
    assert fixed(text, unsafe=False) == text


def test_fix_display_only_where_the_value_has_other_uses() -> None:
    text = (
        "import os\ndef backup(path):\n"
        "    dest = '/srv/backup/' + path\n"
        "    os.system('cp -r x ' + dest)\n"
        "    print(dest)\n"
    )
    (f,) = hl201(text)
    assert f.fix is not None and f.fix.applicability is Applicability.DISPLAY_ONLY
    assert fixed(text) == text
    # Used once: the value is built for the shell alone, the fix is offered (unsafe).
    once = text.replace("    print(dest)\n", "")
    (g,) = hl201(once)
    assert g.fix is not None and g.fix.applicability is Applicability.UNSAFE


# -- running the code, before and after every fix ---------------------------------------------

LOCAL = """import os
import subprocess


def first_line(path):
    return subprocess.run(f"head -n1 '{path}'", shell=True, capture_output=True, text=True).stdout


def count_lines(path):
    return subprocess.run(f"wc -l < {path}", shell=True, capture_output=True, text=True,
                          executable="/bin/bash").stdout


def copy_logs(src, dst):
    os.system(f"cp {os.path.join(src, '*.log')} {dst}")


def archive(src, ns):
    opt = "-C " + src
    return subprocess.run(f"tar {opt} -cf - . | tar -tf - | sort", shell=True,
                          capture_output=True, text=True).stdout


def home_file(name):
    rel = "~/" + name
    return subprocess.run(f"ls -d {rel}", shell=True, capture_output=True, text=True).stdout
"""


def _load(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(source, name, "exec"), module.__dict__)
    return module


def test_local_code_runs_the_same_after_every_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    offered = hl201(LOCAL)
    # the file parameters are reported; the glob, the option string and `~` are not
    assert sorted(LOCAL[f.start : f.end] for f in offered) == ["{dst}", "{path}", "{path}"]
    after = fixed(LOCAL)
    assert hl201(after) == []
    original, patched = _load(LOCAL, "original"), _load(after, "fixed")
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "notes.txt").write_text("n\n")
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.log").write_text("one\ntwo\n")
    (src / "b.log").write_text("three\n")
    for word in ("plain", "two words"):
        for module in (original, patched):
            works = module is patched or word == "plain"
            log = tmp_path / f"{module.__name__}-{word}.log"
            log.write_text("one\ntwo\n")
            assert module.first_line(str(log)) == "one\n"  # quoted by the author: fine
            assert (module.count_lines(str(log)).strip() == "2") is works, (module, word)
            dst = tmp_path / f"dst-{module.__name__}-{word}"
            dst.mkdir()
            module.copy_logs(str(src), str(dst))
            copied = sorted(p.name for p in dst.iterdir())
            assert (copied == ["a.log", "b.log"]) is works, (module, word)
            # the glob, the option string and `~` (not reported, not fixed) work as before
            assert module.archive(str(src), "x").split() == ["./", "./a.log", "./b.log"]
            assert module.home_file("notes.txt") == f"{tmp_path}/notes.txt\n"


REMOTE = """import subprocess


def remote_cat(client, path):
    _, out, _ = client.exec_command(f"cat {path}")
    return out.read()


def remote_size(client, path):
    _, out, _ = client.exec_command(f"wc -c < '{path}'")
    return out.read()


def ssh_cat(config, path):
    return subprocess.run(["ssh", "-F", config, "h", f"cat {path}"], capture_output=True).stdout
"""


def test_remote_code_runs_the_same_after_every_fix(
    tmp_path: Path, client: paramiko.SSHClient, sshd: SshServer
) -> None:
    found = hl201(REMOTE)
    # a parameter named as a path: info by default (evidence `parameter`)
    assert [(REMOTE[f.start : f.end], f.severity, f.evidence) for f in found] == [
        ("{path}", Severity.INFO, "parameter")
    ] * 3
    assert [f.fix.applicability for f in found if f.fix] == [
        Applicability.UNSAFE,
        Applicability.SAFE,
        Applicability.UNSAFE,
    ]
    after = fixed(REMOTE)
    assert hl201(after) == []
    original, patched = _load(REMOTE, "original"), _load(after, "fixed")
    config = str(sshd.config)
    for name in ("plain.txt", "two words.txt", "it's.txt"):
        path = tmp_path / name
        path.write_bytes(b"abc\n")
        for module in (original, patched):
            works = module is patched or name == "plain.txt"
            assert (module.remote_cat(client, str(path)) == b"abc\n") is works, (module, name)
            assert (module.ssh_cat(config, str(path)) == b"abc\n") is works, (module, name)
            size = module.remote_size(client, str(path)).strip()
            assert (size == b"4") is (module is patched or "'" not in name), (module, name)


def test_numbers_imported_from_the_projects_own_modules(tmp_path: Path) -> None:
    """`from settings import PORT`: settings.py next to the file (or a package above it)."""
    package = tmp_path / "app"
    package.mkdir()
    (package / "settings.py").write_text(
        'PORT = 8000\nWORKERS = 2 * 4\nHOST = "db"\nTWICE = 1\nTWICE = 2\n'
    )
    text = (
        "import os\nfrom .settings import PORT\nfrom app.settings import WORKERS, HOST, TWICE\n"
        "def serve():\n"
        "    os.system(f'serve -p {PORT} -w {WORKERS} -n {TWICE} -h {HOST}')\n"
    )
    path = str(package / "main.py")
    found = [text[f.start : f.end] for f in check_text(text, "python", path) if f.code == CODE]
    assert found == ["{TWICE}", "{HOST}"]  # bound twice; a string: not provably one word
    # Without the file to read, nothing is known of them.
    assert len(hl201(text)) == 4


def test_characters_taken_out_of_a_value_are_not_its_text() -> None:
    """`.strip("'")` and `.replace('"', "")` remove quotes: the value is still argv's."""
    for call in ('sys.argv[1].strip("\'")', "sys.argv[1].replace('\"', '')"):
        text = f'import os, sys\nos.system(f"""ls {{{call}}}""")\n'
        (f,) = hl201(text)
        assert (f.severity, f.evidence) == (Severity.INFO, "argv"), call  # argv: info
        assert "`sys.argv`" in f.message, call


EVIDENCE_THROUGH = [
    (  # pieces of an argv path are still the user's text
        "import os, sys\nout = sys.argv[1]\n"
        "latest = os.path.join('/'.join(out.split('/')[:-1]), 'l')\n"
        "os.system('rm ' + latest)\n",
        "latest",
        "command line",
        "argv",
    ),
    (  # a helper of the file's own made it from an option
        "import argparse, os\np = argparse.ArgumentParser()\np.add_argument('--tmp')\n"
        "args = p.parse_args()\ntmp = get_dir(args.tmp)\nos.system(f'rm -r {tmp}')\n",
        "{tmp}",
        "through `get_dir()`",
        "cli-option",
    ),
]


@pytest.mark.parametrize(("text", "value", "says", "evidence"), EVIDENCE_THROUGH)
def test_evidence_flows_through_split_and_helpers(
    text: str, value: str, says: str, evidence: str
) -> None:
    """Real bugs of the precision corpus (gpt-neox, nanotron) that the first evidence
    rules lost: the value is derived from argv through `.split()` or a local helper.
    Still found, at info: argv and options were mostly debatable on their first look."""
    found = [f for f in hl201(text) if f.evidence == evidence]
    assert [(text[f.start : f.end], f.severity) for f in found] == [(value, Severity.INFO)]
    assert says in found[0].message


def test_a_helper_given_only_literals_is_no_evidence() -> None:
    text = "import os\ntmp = get_dir('/tmp/x')\nos.system(f'rm -r {tmp}')\n"
    assert [f for f in hl201(text) if f.severity is not Severity.INFO] == []


@pytest.mark.parametrize("helper", ["build_remote_shell_path", "create_temp_file", "shquote"])
def test_a_helper_that_makes_its_own_text_is_no_evidence(helper: str) -> None:
    """Helpers named for quoting or temp files return text of their own, not the input
    (false positives of the precision corpus once evidence flowed through helpers)."""
    text = f"import os, sys\np = {helper}(sys.argv[1])\nos.system('mkdir -p ' + p)\n"
    assert [f for f in hl201(text) if f.severity is not Severity.INFO] == []


# -- a parameter's evidence is what the file's own calls pass --------------------------------

_RENDER = 'import os\n\n\ndef render(path):\n    os.system(f"lame {path} out.mp3")\n\n\n'


@pytest.mark.parametrize(
    ("call", "says", "evidence", "severity"),
    [
        # What the calls pass is the evidence; argv, environment and input() are info.
        (
            "import sys\nrender(sys.argv[1])\n",
            "`sys.argv`), passed to `render()` on line 9",
            "argv",
            Severity.INFO,
        ),
        (
            "render(path=os.environ['SRC'])\n",
            "`os.environ`), passed to `render()` on line 8",
            "environment",
            Severity.INFO,
        ),
        # One call with outside data is enough, whatever the others pass.
        (
            'render("a.wav")\nrender(input())\n',
            "`input()`), passed to `render()` on line 9",
            "input",
            Severity.INFO,
        ),
        # The file does not show what `*args` holds: the parameter stays evidence (named
        # as a path: info by default).
        (
            'names = ["a.wav"]\nrender(*names)\n',
            "a parameter of the public function `render`",
            "parameter",
            Severity.INFO,
        ),
        # Never called here: called from outside the file.
        ("", "a parameter of the public function `render`", "parameter", Severity.INFO),
    ],
)
def test_a_parameter_is_judged_by_the_calls_in_its_file(
    call: str, says: str, evidence: str, severity: Severity
) -> None:
    (finding,) = hl201(_RENDER + call)
    assert (finding.severity, finding.evidence) == (severity, evidence)
    assert says in finding.message


@pytest.mark.parametrize(
    "call",
    [
        # A literal in the program's own function; the same at the module's top level is
        # an example of use and stays evidence (tests/test_hl201_lost_bugs.py).
        'def main():\n    render("/home/erik/Downloads/lastdance.mp3")\n',
        'for name in ["a", "b"]:\n    render(name + ".wav")\n',
        'render("out-" + str(os.getpid()) + ".wav")\n',
    ],
)
def test_calls_that_pass_only_the_programs_own_values_are_no_evidence(call: str) -> None:
    text = _RENDER + call
    assert anchored(text) == [("{path}", Severity.INFO)]
    # no evidence at all, not the (info) evidence of a parameter
    assert [f.evidence for f in hl201(text)] == ["no-origin"]


def test_a_method_parameter_stays_evidence_its_callers_are_objects() -> None:
    text = (
        "import os\n\n\nclass Player:\n    def play(self, path):\n"
        '        os.system(f"mpg123 {path}")\n\n\nPlayer().play("a.mp3")\n'
    )
    (finding,) = hl201(text)
    # still a parameter's evidence (named as a path: info by default), not "no-origin"
    assert (finding.severity, finding.evidence) == (Severity.INFO, "parameter")
    assert "a parameter of the public function `play`" in finding.message


def test_a_value_under_a_command_key_is_shell_text() -> None:
    # dask's old_ssh.py: the program builds a whole command and keeps it under "cmd"; it
    # is meant for the remote `-c`, not one word. A "path" key is no such sign.
    head = "import paramiko\n\nssh = paramiko.SSHClient()\n\n\ndef run(job):\n"
    meant = head + '    ssh.exec_command("$SHELL -i -c \'" + job["cmd"] + "\'")\n'
    assert hl201(meant) == []
    word = head + '    ssh.exec_command("ls \'" + job["path"] + "\'")\n'
    # a parameter named as a path: info by default
    assert [(f.severity, f.evidence) for f in hl201(word)] == [(Severity.INFO, "parameter")]


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
    found = python_findings(text)
    first = text.index("{p})\"')")
    third = text.index("{p}')")
    assert [(f.code, f.start, f.end) for f in found] == [
        ("HL201", first, first + 3),
        ("HL201", third, third + 3),
    ]
    assert "as an unquoted shell word" in found[0].message
    assert "inside single quotes" in found[1].message


# -- queries.py: the run-time spans a child layer inherits from its Python string ----------


_CLEAN = "import subprocess\n\n\ndef clean(path):\n    "


def _run_remote(tmp_path: Path, program: str) -> str:
    """The output of `program` with an `ssh` on PATH that runs its command in bash."""
    return run_python_with_ssh(tmp_path, program, SSH_RUNNING_BASH, dict(os.environ))


@pytest.mark.parametrize(
    ("call", "value", "output"),
    [
        # the value opens the remote command string (child index 0) ...
        (
            "subprocess.run(f\"ssh h '{path}/bin/tool -v'\", shell=True)",
            "echo INJECTED;",
            "INJECTED\n",
        ),
        ('subprocess.run(["ssh", "h", f"{path}/bin/tool -v"])', "echo INJECTED;", "INJECTED\n"),
        # ... or ends it (the last run of the child text)
        ("subprocess.run(f\"ssh h 'printf [%s] {path}'\", shell=True)", "a b", "[a][b]"),
        ('subprocess.run(["ssh", "h", f"printf [%s] {path}"])', "a b", "[a][b]"),
    ],
)
def test_a_value_at_either_end_of_the_ssh_string_is_reported_exactly(
    call: str, value: str, output: str, tmp_path: Path
) -> None:
    """HL201 marks exactly `{path}` (not the `/` after it) in the remote command string,
    whether the value opens or ends it; the remote shell splits it and runs what follows
    its `;`, as the message says."""
    program = _CLEAN + call + "\n"
    found = python_findings_with_settings(program)
    assert code_severity_text(program, found) == [("HL201", "info", "{path}")]
    assert found[0].start == program.index("{path}")
    assert "into the `ssh` command string as an unquoted shell word" in found[0].message
    assert _run_remote(tmp_path, f"{program}\n\nclean({value!r})\n") == output


# -- HL201: a value that escapes by hand what matters in its quotes ---------------------------


def _bash(command: str) -> str:
    return subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, check=False, timeout=30
    ).stdout


# Text read with input(): free text, so a value that carries its own quoting is still
# judged by what it escapes (hl201 `_escaped_for`).
_HOSTILE = (
    "x'; echo INJECTED; '",
    '"; echo INJECTED; "',
    "$(echo INJECTED)",
    "`echo INJECTED`",
    "a\\",
)


_REPLACED_QUOTE = """.replace("'", "'\\\\''")"""


_ALL_DOUBLE = (
    """.replace("\\\\", "\\\\\\\\").replace('"', '\\\\"')"""
    """.replace("$", "\\\\$").replace("`", "\\\\`")"""
)


def _python_command(template: str, chain: str, value: str) -> str:
    """The command Python builds with `template % p<chain>` for `value`."""
    namespace: dict[str, str] = {"p": value}
    return str(eval(f"{template!r} % p{chain}", namespace))  # noqa: S307 - our own text


@pytest.mark.parametrize(
    ("template", "chain", "reported"),
    [
        # `'` replaced by `'\''` inside single quotes: bash prints the value as it is.
        ("echo '%s'", _REPLACED_QUOTE, False),
        # the same value inside double quotes: `$(...)`, backticks and `"` still work.
        ('echo "%s"', _REPLACED_QUOTE, True),
        # every character that matters inside double quotes escaped: one word again.
        ('echo "%s"', _ALL_DOUBLE, False),
        # `"` escaped, but the value is inside single quotes, where `'` ends them.
        ("echo '%s'", """.replace('"', '\\\\"')""", True),
        # a replace chain that escapes nothing of the shell's.
        ("echo '%s'", """.replace("x", "y")""", True),
    ],
)
def test_hl201_value_escaped_by_hand_for_its_quotes(
    template: str, chain: str, reported: bool
) -> None:
    """HL201 stays silent exactly when bash, given the command Python builds for a hostile
    input, runs nothing of it (hl201 `_escaped_for`: `state is Quote.SINGLE` flipped, and
    `or` -> `and` in the test that skips a value)."""
    text = f"import os\n\n\ndef run():\n    p = input()\n    os.system({template!r} % p{chain})\n"
    found = python_findings(text, "HL201")
    outputs = [_bash(_python_command(template, chain, value)) for value in _HOSTILE]
    if not reported:
        assert outputs == [f"{value}\n" for value in _HOSTILE]
        assert found == []
        return
    assert any("INJECTED" in output for output in outputs), outputs
    start = text.index("%s")  # the finding marks the placeholder the value goes into
    # input() is `input` evidence: info by default since its first look on real code.
    assert [(f.start, f.end, f.severity.value, f.evidence) for f in found] == [
        (start, start + 2, "info", "input")
    ]
    assert "it is read from" in found[0].message


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
    found = python_findings(_LAYERS, "HL201")
    assert [(_LAYERS[f.start : f.end], f.severity.value) for f in found] == [("{name}", "info")] * 3
    assert [f.message.split(" as an unquoted")[0] for f in found] == [
        "`name` is put into the `ssh` command string",
        "`name` is put into the shell command of `subprocess.run`",
        "`name` is put into the `bash -c` command string",
    ]


# -- Python frontend --------------------------------------------------------------------------


def test_hl201_names_the_python_call() -> None:
    text = (
        "import subprocess\n\n"
        "def f(path: str) -> None:\n"
        '    subprocess.run(f"rm {path}", shell=True)\n'
    )
    (f,) = [f for f in check_text(text, "python", "t.py") if f.code == "HL201"]
    assert text[f.start : f.end] == "{path}"
    assert "is put into the shell command of `subprocess.run`" in f.message
