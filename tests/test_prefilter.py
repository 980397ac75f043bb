"""The prefilter (texts without any rule's trigger are never parsed) changes no finding."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from corpus import corpus_files
from rulekit import (
    code_severity_text,
    python_findings,
    python_findings_with_settings,
    run_python_with_fake_ssh,
)

from heredoc_lint.engine import Settings, check_text, trigger_pattern
from heredoc_lint.layers.grammars import FORMS, LAYER_COMMANDS, READERS
from heredoc_lint.layers.pywrappers import PyWrapper
from heredoc_lint.layers.triggers import ALL_TRIGGERS, RULE_TRIGGERS, holds_trigger
from heredoc_lint.layers.wrappers import PREFIXES, WRAPPERS
from heredoc_lint.model import Severity
from heredoc_lint.report.lines import LineIndex
from heredoc_lint.rules import RULES, triggers
from heredoc_lint.shell.names import SHELLS

HERE = Path(__file__).parent
EXTRA = sorted((HERE / "cases").glob("*.sh")) + sorted((HERE.parent / "fixtures").rglob("*.sh"))


def _key(text: str, settings: Settings) -> list[tuple[str, int, int, str]]:
    return [
        (f.code, f.start, f.end, f.severity.value)
        for f in check_text(text, "shell", "x.sh", settings)
    ]


def test_the_hooks_triggers_are_the_rules_own() -> None:
    """The hook reads ALL_TRIGGERS without importing a rule: it must be what the rules'
    own triggers make (a rule with triggers of its own left out of RULE_TRIGGERS, or the
    layer commands left out of ALL_TRIGGERS, would let its commands pass unchecked)."""
    assert triggers(RULES) == ALL_TRIGGERS


def test_rule_triggers_name_real_rules() -> None:
    """A code mistyped in RULE_TRIGGERS would leave its rule on the layer commands."""
    assert RULE_TRIGGERS.keys() <= {rule.code for rule in RULES}
    for code, needed in RULE_TRIGGERS.items():
        assert next(r for r in RULES if r.code == code).triggers == needed


def test_a_new_wrapper_is_a_trigger_without_another_list() -> None:
    """The commands of every row and reader of the wrapper table are triggers, and so are
    those the hook finds: a row for a new tool needs nothing else."""
    assert {form.command for form in FORMS} | READERS.keys() | SHELLS <= ALL_TRIGGERS
    assert WRAPPERS.keys() - PREFIXES == LAYER_COMMANDS
    assert holds_trigger("incus exec c -- sh -c 'x'", ALL_TRIGGERS)


def test_prefilter_changes_no_finding_on_the_corpus() -> None:
    texts = [c.text for c in corpus_files()] + [p.read_text() for p in EXTRA]
    fast, full = Settings(), Settings(prefilter=False)
    skipped = 0
    needed = triggers(fast.rules())
    for text in texts:
        if trigger_pattern(needed).search(text) is None:
            # Never parsed: only a layer-0 parse error (HL001) could have been found, and
            # HL001 is documented to be reported only where the other rules have work.
            skipped += 1
            assert _key(text, fast) == []
            assert {code for code, *_ in _key(text, full)} <= {"HL001"}
        else:
            # Parsed by both: the same findings, but for layer-0 parse errors (HL001) that
            # the full path also reports where no other rule has work.
            quick, complete = _key(text, fast), _key(text, full)
            assert [k for k in complete if k[0] != "HL001"] == [k for k in quick if k[0] != "HL001"]
            assert set(quick) <= set(complete)
    # The comparison is only worth something if both paths really ran.
    assert len(texts) > 700
    assert 0 < skipped < len(texts)
    print(f"prefilter: {len(texts)} files compared, {skipped} skipped without parsing")


def test_a_python_file_that_may_hold_no_call_has_no_fragment() -> None:
    # The memory bound checks a large file in this process when it may hold no call (no
    # parse, no worker to fork): real modules, the standard library's top level.
    import sysconfig

    from heredoc_lint.frontends import fragments, may_hold_fragments

    files = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
    without = 0
    for file in files:
        text = file.read_text(encoding="utf-8", errors="surrogateescape")
        if not may_hold_fragments("python", text, str(file)):
            without += 1
            assert fragments("python", text, str(file)) == [], file
    assert 0 < without < len(files)


def test_triggers_come_from_the_rules() -> None:
    assert {"pkill", "pgrep"} <= triggers(tuple(r for r in RULES if r.code == "HL103"))
    assert "ssh" in triggers(tuple(r for r in RULES if r.code == "HL101"))
    only_scp = triggers(tuple(r for r in RULES if r.code == "HL108"))
    assert only_scp == frozenset({"scp"})
    assert check_text("scp -p 22 a h:b", settings=Settings(select=frozenset({"HL108"})))
    assert Severity.ERROR.rank > Severity.WARNING.rank


def test_sudo_assigned_to_a_variable_is_a_trigger_and_a_modeline_is_none() -> None:
    """`SUDO=sudo; $SUDO echo x > /etc/f` is HL109's (the text names sudo only as a
    value); vim's `# ex: filetype=sh`, at the end of every bash-completion file, names
    no shell."""
    from heredoc_lint.layers.triggers import present_triggers

    needed = triggers(RULES, frozenset())
    assert "sudo" in present_triggers('SUDO=""\n[ "$EUID" = 0 ] || SUDO=sudo;\n', needed)
    assert present_triggers("complete -F _x x\n# ex: filetype=sh\n", needed) == frozenset()


# -- prefilter.py: which files are read at all ----------------------------------------------


@pytest.mark.parametrize(
    "program",
    [
        # a function imported under another name, called by that name alone
        'from os import system as sh\n\nsh("ssh h echo $HOME")\n',
        'from os import (\n    getcwd,\n    system as run_it,\n)\n\nrun_it("ssh h echo $HOME")\n',
        # the module under another name
        'import os as o\n\no.system("ssh h echo $HOME")\n',
    ],
)
def test_a_call_under_another_name_is_read(program: str, tmp_path: Path) -> None:
    """The file's only call of interest is spelled through an `as` name: it is read, and
    HL102 says what the program does: the local shell expands `$HOME` before ssh runs."""
    found = python_findings_with_settings(program)
    assert code_severity_text(program, found) == [("HL102", "info", "$HOME")]
    assert found[0].message.startswith("`$HOME` is this machine's value, expanded by the local")
    assert run_python_with_fake_ssh(tmp_path, program) == "remote: echo /home/local-user\n"


def test_an_invoke_task_file_is_read() -> None:
    """A file that imports invoke (and names neither subprocess nor fabric) is read: its
    `c.run` string runs in a local bash."""
    program = 'from invoke import task\n\n\n@task\ndef deploy(c):\n    c.run("ssh h echo $HOME")\n'
    assert code_severity_text(program, python_findings_with_settings(program)) == [
        ("HL102", "info", "$HOME")
    ]


@pytest.mark.parametrize(
    "program",
    [
        'print("unclosed"\n',
        "def f(:\n    pass\n",
        'with open("x") as f:\n    print(f.read(\n',
        'from pathlib import Path\nPath("x").write_text(\n',
    ],
)
@pytest.mark.parametrize("wrappers", [(), (PyWrapper("*.shell", 0, "sh"),)])
def test_a_broken_file_without_a_call_of_interest_is_not_reported(
    program: str, wrappers: tuple[PyWrapper, ...]
) -> None:
    """SPEC, HL001: a whole file is reported as unparsable only when it holds something
    this tool checks; a file with no subprocess/os/ssh call (nor a configured wrapper's
    name) is not read at all, whatever the wrappers configured."""
    compiled = subprocess.run([sys.executable, "-c", f"compile({program!r}, 'f', 'exec')"])
    assert compiled.returncode != 0  # python3 itself refuses the file
    assert python_findings_with_settings(program, settings=Settings(python_wrappers=wrappers)) == []


def test_a_wrapper_call_alone_is_read() -> None:
    """A file whose only call is a configured wrapper's (`*.shell`, run by `/bin/sh -c`)
    is read, in a function body as at the top; without the setting it is not."""
    program = (
        "import os\n\n\ndef restart(box):\n"
        '    return box.shell("pkill -f zz-worker-marker; echo restarted")\n'
    )
    wrappers = Settings(python_wrappers=(PyWrapper("*.shell", 0, "sh"),))
    found = python_findings_with_settings(program, settings=wrappers)
    assert code_severity_text(program, found) == [("HL103", "error", "pkill")]
    assert "(`/bin/sh -c pkill -f zz-worker-marker; echo restarted`)" in found[0].message
    assert python_findings_with_settings(program) == []


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
        found = python_findings(text)
        assert [(f.code, text[f.start : f.end]) for f in found] == [("HL102", "$HOME")], text


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


# -- Python frontend --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "import os\n\nos.popen(CMD)\n",
        "import os\n\nos.system(CMD)\n",
        "from os import popen\n\npopen(CMD)\n",
        "from os import popen as run_it\n\nrun_it(CMD)\n",
        "import os as o\n\no.popen(CMD)\n",
        "import os\n\nos . popen (CMD)\n",
    ],
)
def test_prefilter_keeps_an_os_popen_call_alone(code: str) -> None:
    """A file whose only call of interest is os.popen (or os.system) is read, whatever
    spelling reaches the function."""
    text = code.replace("CMD", "'ssh h \"pkill -f x; y\"'")
    (f,) = [f for f in check_text(text, "python", "t.py") if f.code == "HL103"]
    assert text[f.start : f.end] == "pkill"
