"""HL001 on two debatable patterns of the precision bench (bench/corpus/patterns.md):
text that is not a script of this tool's languages is "not checked" (info, evidence
`source-not-checked` / `not-a-script`), not a syntax error (evidence `source-unreadable` /
`script-refused`, info by default too since heredoc_lint/severities.py measured them).

- python2: a Python 2 file whose indentation mixes tabs and spaces. Python 2 reads a tab
  as indentation to the next multiple of 8 columns; Python 3 refuses the mix (TabError).
- transcript: the lines a Markdown runbook types into an interactive program (`psql`,
  `sqlite3`) after starting it; bash refuses them, the program reads them.

Each reproducer is written here; the interpreters are run to show what they accept.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from heredoc_lint.engine import check_text
from heredoc_lint.model import Finding, Severity


def hl001(text: str, kind: str, path: str) -> list[Finding]:
    return [f for f in check_text(text, kind, path) if f.code == "HL001"]  # type: ignore[arg-type]


# -- Python 2 with tabs and spaces ------------------------------------------------------------

PYTHON2_TABS = (
    "import os\n"
    "\n"
    "def thresholds(policy):\n"
    "\tfound = {}\n"
    "\tfor key, value in policy.iteritems():\n"
    "\t\tfound[key] = value\n"
    "        os.system('sync')\n"  # 8 blanks: the level of one tab, for Python 2
    "        return found\n"
)


def test_python2_tabs_are_not_checked_info() -> None:
    (finding,) = hl001(PYTHON2_TABS, "python", "agent.py")
    assert finding.severity is Severity.INFO and finding.evidence == "source-not-checked"
    assert finding.message == (
        "not checked: Python 2 source (line 7: inconsistent use of tabs and spaces in indentation)"
    )
    assert PYTHON2_TABS[finding.start : finding.end] == " "  # line 7's first character
    assert PYTHON2_TABS.count("\n", 0, finding.start) + 1 == 7


def test_python3_refuses_it_and_python2_reads_tabs_as_eight_columns(tmp_path: Path) -> None:
    with pytest.raises(TabError):
        compile(PYTHON2_TABS, "agent.py", "exec")
    # what Python 2 reads: each tab up to the next multiple of 8 columns
    compile(PYTHON2_TABS.expandtabs(8), "agent.py", "exec")
    python2 = shutil.which("python2.7") or shutil.which("python2")
    pyenv = Path.home() / ".pyenv/versions/2.7.18/bin/python2.7"
    python2 = python2 if python2 and _runs(python2) else (str(pyenv) if _runs(str(pyenv)) else None)
    if python2 is not None:  # a real Python 2 where one is installed: it compiles the file
        source = tmp_path / "agent.py"
        source.write_text(PYTHON2_TABS)
        done = subprocess.run(
            [python2, "-c", f"compile(open({str(source)!r}).read(), 'agent.py', 'exec')"],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr


def _runs(python: str) -> bool:
    try:
        done = subprocess.run([python, "-c", "print 1"], capture_output=True, timeout=30)
    except OSError:
        return False
    return done.returncode == 0


def test_tabs_and_spaces_without_python2_stay_a_syntax_error() -> None:
    """A Python 3 file with the same mix does not run: a syntax error, as before (info by
    default since its evidence was measured)."""
    text = PYTHON2_TABS.replace(".iteritems()", ".items()")
    (finding,) = hl001(text, "python", "agent.py")
    assert finding.severity is Severity.INFO and finding.evidence == "source-unreadable"
    assert finding.message == (
        "Python syntax error: inconsistent use of tabs and spaces in indentation"
    )
    assert sys.version_info >= (3,)


# -- the input of an interactive program in a runbook ------------------------------------------

RUNBOOK = """Create the tables:

```bash
ssh db1 'mkdir -p /srv/db' && cd /srv/db
sudo -u app sqlite3 app.db
create table t1(id integer PRIMARY KEY, num integer);
.tables
```
"""


def _block(text: str) -> str:
    return text.split("```bash\n", 1)[1].split("```", 1)[0]


def test_the_lines_after_an_interactive_program_are_not_checked() -> None:
    (finding,) = hl001(RUNBOOK, "markdown", "db.md")
    assert finding.severity is Severity.INFO and finding.evidence == "not-a-script"
    assert "a session of `sqlite3` (the lines after it are typed into it)" in finding.message
    line = RUNBOOK.splitlines()[5]
    assert RUNBOOK.count("\n", 0, finding.start) + 1 == 6
    assert finding.start - RUNBOOK.rfind("\n", 0, finding.start) - 1 == line.index("(")


def test_bash_refuses_the_lines_and_the_program_reads_them(tmp_path: Path) -> None:
    block = _block(RUNBOOK)
    assert subprocess.run(["bash", "-n"], input=block, text=True, capture_output=True).returncode
    typed = block.split("sqlite3 app.db\n", 1)[1]
    sqlite3 = shutil.which("sqlite3")
    assert sqlite3 is not None, "sqlite3 is needed to show what the session reads"
    done = subprocess.run(
        [sqlite3, str(tmp_path / "app.db")], input=typed, text=True, capture_output=True
    )
    assert (done.returncode, done.stdout.strip()) == (0, "t1")


@pytest.mark.parametrize(
    ("first", "why"),
    [
        ("python3 make_tables.py", "an interpreter given a file runs it"),
        ('psql -c "select 1"', "a client given a command runs it and exits"),
        ("psql < setup.sql", "a client given its input reads no more"),
        ("echo psql", "not a command line of the program"),
    ],
)
def test_a_program_that_runs_something_of_its_own_is_no_session(first: str, why: str) -> None:
    text = RUNBOOK.replace("sudo -u app sqlite3 app.db", first)
    (finding,) = hl001(text, "markdown", "db.md")
    assert finding.severity is Severity.INFO and finding.evidence == "script-refused", why


def test_a_script_file_is_no_runbook() -> None:
    """In a script, the program reads the terminal and the next lines are bash again."""
    script = "#!/bin/bash\n" + _block(RUNBOOK)
    (finding,) = hl001(script, "shell", "db.sh")
    assert finding.severity is Severity.INFO and finding.evidence == "script-refused"
