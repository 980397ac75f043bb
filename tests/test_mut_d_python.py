"""Pinned behaviours of six modules of the Python frontend (prefilter, queries, reading,
scopes, values, waits), through `engine.check_text`, `fix_kind` and real programs.

Each test kills a mutant that `bench/mutation.py` left alive (issue 20, run 5d,
bench/MUTATION.md, section 10); each was planted in a scratch copy of the tree, the test failed
there, and it passes without.  A claim about what a program runs is checked by running it
(a fake `ssh` on PATH prints the remote command it is given, bash runs it).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from sshd import SshServer

from heredoc_lint.engine import Settings, check_text, fix_kind
from heredoc_lint.model import Finding
from heredoc_lint.pywrappers import PyWrapper

_FAKE_SSH = """\
#!/bin/bash
# ssh HOST CMD...: print the remote command, as the remote side would receive it
shift
printf 'remote: %s\\n' "$*"
"""


def _python(text: str, code: str | None = None, settings: Settings | None = None) -> list[Finding]:
    found = check_text(text, "python", "t.py", settings or Settings())
    return [f for f in found if code is None or f.code == code]


def _spans(text: str, found: list[Finding]) -> list[tuple[str, str, str]]:
    return [(f.code, f.severity.value, text[f.start : f.end]) for f in found]


def _run_with_fake_ssh(tmp_path: Path, program: str) -> str:
    """What the program's ssh is asked to run remotely (HOME and USER set to known values)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    ssh = bin_dir / "ssh"
    ssh.write_text(_FAKE_SSH)
    ssh.chmod(0o755)
    script = tmp_path / "prog.py"
    script.write_text(program)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "HOME": "/home/local-user",
        "USER": "local-user",
    }
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


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
    found = _python(program)
    assert _spans(program, found) == [("HL102", "info", "$HOME")]
    assert found[0].message.startswith("`$HOME` is this machine's value, expanded by the local")
    assert _run_with_fake_ssh(tmp_path, program) == "remote: echo /home/local-user\n"


def test_an_invoke_task_file_is_read() -> None:
    """A file that imports invoke (and names neither subprocess nor fabric) is read: its
    `c.run` string runs in a local bash."""
    program = 'from invoke import task\n\n\n@task\ndef deploy(c):\n    c.run("ssh h echo $HOME")\n'
    assert _spans(program, _python(program)) == [("HL102", "info", "$HOME")]


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
    assert _python(program, settings=Settings(python_wrappers=wrappers)) == []


def test_a_wrapper_call_alone_is_read() -> None:
    """A file whose only call is a configured wrapper's (`*.shell`, run by `/bin/sh -c`)
    is read, in a function body as at the top; without the setting it is not."""
    program = (
        "import os\n\n\ndef restart(box):\n"
        '    return box.shell("pkill -f zz-worker-marker; echo restarted")\n'
    )
    wrappers = Settings(python_wrappers=(PyWrapper("*.shell", 0, "sh"),))
    found = _python(program, settings=wrappers)
    assert _spans(program, found) == [("HL103", "error", "pkill")]
    assert "(`/bin/sh -c pkill -f zz-worker-marker; echo restarted`)" in found[0].message
    assert _python(program) == []


# -- queries.py: the run-time spans a child layer inherits from its Python string ----------

_RUNS_REMOTE = """\
#!/bin/bash
# ssh HOST CMD...: the remote login shell runs the words joined by blanks
shift
exec bash -c "$*"
"""

_CLEAN = "import subprocess\n\n\ndef clean(path):\n    "


def _run_remote(tmp_path: Path, program: str) -> str:
    """The output of `program` with an `ssh` on PATH that runs its command in bash."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    ssh = bin_dir / "ssh"
    ssh.write_text(_RUNS_REMOTE)
    ssh.chmod(0o755)
    script = tmp_path / "prog.py"
    script.write_text(program)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


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
    found = _python(program)
    assert _spans(program, found) == [("HL201", "info", "{path}")]
    assert found[0].start == program.index("{path}")
    assert "into the `ssh` command string as an unquoted shell word" in found[0].message
    assert _run_remote(tmp_path, f"{program}\n\nclean({value!r})\n") == output


# -- waits.py: whether the program waits for the channel a `&` job holds (HL104) -----------
# What each library does with the channel is measured through the test sshd in
# tests/test_python_channels_hl104.py and tests/test_python_argv.py; here the reading of
# the program's own code is pinned: which call, which stream, which line.

_JOB = "nohup sleep 4 > /dev/null &"


def _hl104(text: str) -> list[tuple[str, str, str]]:
    found = _python(text, "HL104")
    return [(f.severity.value, text[f.start : f.end], f.message) for f in found]


_PARAMIKO = (
    "import paramiko\n\n\n"
    "def deploy(client):\n"
    f'    cmd = "{_JOB}"\n'
    "    stdin, stdout, stderr = client.exec_command(cmd)\n"
    "    for line in {stream}:\n"
    "        print(line)\n"
)


def test_reading_a_stream_of_exec_command_named_in_a_function_waits() -> None:
    """The command is given by a name bound on the line before; the call's stdout is read
    by a `for` loop two lines below, inside the same function: a warning naming line 7."""
    ((severity, marked, message),) = _hl104(_PARAMIKO.format(stream="stdout"))
    assert (severity, marked) == ("warning", "nohup")
    assert "reading its output (line 7) waits for the channel to close" in message


def test_iterating_stdin_of_exec_command_is_no_wait() -> None:
    """stdin is never read from: iterating it shows no wait (an info)."""
    ((severity, marked, message),) = _hl104(_PARAMIKO.format(stream="stdin"))
    assert (severity, marked) == ("info", "nohup")
    assert "the file does not show that anything waits for it" in message


def test_reading_exec_command_output_at_module_level_waits() -> None:
    program = (
        "import paramiko\n\nclient = paramiko.SSHClient()\n"
        f'cmd = "{_JOB}"\n'
        "_, out, _ = client.exec_command(cmd)\nprint(out.read())\n"
    )
    ((severity, marked, message),) = _hl104(program)
    assert (severity, marked) == ("warning", "nohup")
    assert "reading its output (line 6) waits for the channel to close" in message


@pytest.mark.parametrize(
    ("disown", "reported"),
    [("True", False), ("False", True), ("1", True)],
)
def test_fabric_disown_is_read_from_the_literal_true(disown: str, reported: bool) -> None:
    """`disown=True` returns at once (measured in test_python_channels_hl104.py): no
    finding; `disown=False` (or a value not written as True) waits as a plain sudo."""
    program = (
        "from fabric import Connection\n\nc = Connection('h')\n"
        f'c.sudo("{_JOB}", disown={disown})\n'
    )
    found = _hl104(program)
    if not reported:
        assert found == []
        return
    ((severity, marked, message),) = found
    assert (severity, marked) == ("warning", "sudo")
    assert "`sudo()` reads the command's output to its end" in message


def test_ssh_tt_returns_at_once(sshd: SshServer, tmp_path: Path) -> None:
    """`ssh -tt` gives the remote shell a terminal; when the shell exits, ssh returns
    although a `nohup` job still runs: no HL104.  Without `-tt` the program waits for the
    job, and HL104 says so.  Measured without a clock (the machine may be loaded): the
    job leaves a file when it ends, and whether the file is there when the program
    returns tells whether the program waited for it."""

    def program(flag: str, done: Path) -> str:
        job = f"nohup sh -c 'sleep 6; touch {done}' > /dev/null &"
        call = f'subprocess.run(["ssh", {flag}"-F", "{sshd.config}", "h", "{job}"])'
        return f"import subprocess\n{call}\n"

    tty_done, held_done = tmp_path / "tty-job-done", tmp_path / "held-job-done"
    tty, held = program('"-tt", ', tty_done), program("", held_done)
    assert _hl104(tty) == []
    ((severity, marked, message),) = _hl104(held)
    assert (severity, marked) == ("warning", "nohup")
    assert "`subprocess.run` waits for ssh to exit" in message
    _run_program(tmp_path, tty, sshd)
    assert not tty_done.exists()  # returned while the job still ran
    _run_program(tmp_path, held, sshd)
    assert held_done.exists()  # returned only once the job had ended


def _run_program(tmp_path: Path, program: str, sshd: SshServer) -> None:
    """Run the program (its output to files: a job holding a pipe would make this wait,
    not the program)."""
    script = tmp_path / "p.py"
    script.write_text(program)
    with (tmp_path / "out").open("w") as out, (tmp_path / "err").open("w") as err:
        code = subprocess.run(
            [sys.executable, str(script)], stdout=out, stderr=err, timeout=60, env=sshd.env()
        ).returncode
    assert code == 0, (tmp_path / "err").read_text()


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
    found = _python(program, "HL201")
    assert _spans(program, found) == [("HL201", "info", f"{{{expression}}}")]
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
    assert _python(typed, "HL201") == []
    untyped = typed.replace("count: int", "count")
    assert _spans(untyped, _python(untyped, "HL201")) == [("HL201", "info", "{str(count)}")]


# -- scopes.py: names bound where the finder looks for them --------------------------------


def test_a_command_bound_by_the_walrus_operator_is_read(tmp_path: Path) -> None:
    """`if (cmd := "..."):` binds `cmd` for the call below it."""
    program = (
        'import subprocess\n\nif (cmd := "ssh h echo $HOME"):\n'
        "    subprocess.run(cmd, shell=True)\n"
    )
    assert _spans(program, _python(program)) == [("HL102", "info", "$HOME")]
    assert _run_with_fake_ssh(tmp_path, program) == "remote: echo /home/local-user\n"


def test_a_call_in_a_default_argument_is_read(tmp_path: Path) -> None:
    """A default argument is evaluated when `def` runs: its call is read (and run)."""
    program = (
        "import subprocess\n\n\n"
        'def f(done=subprocess.run("ssh h echo $HOME", shell=True)):\n'
        "    return done\n"
    )
    assert _spans(program, _python(program)) == [("HL102", "info", "$HOME")]
    assert _run_with_fake_ssh(tmp_path, program) == "remote: echo /home/local-user\n"


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
    found = _python(program, "HL201")
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
    found = _python(program, "HL201")
    assert [(f.severity.value, program[f.start : f.end]) for f in found] == [("info", "%s")]
    assert found[0].message.startswith("`?` is put into")
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
    assert _python(program, "HL201") == []
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
    found = _python(program)
    assert _spans(program, found) == [("HL102", "info", "$HOME")]
    assert found[0].start == program.index("$HOME")
    assert _run_with_fake_ssh(tmp_path, program) == "remote: echo /home/local-user\n"


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
    assert _run_with_fake_ssh(tmp_path, script.read_text()) == (
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
    assert _spans(program, _python(program, "HL201")) == [("HL201", "info", "{a3}")]
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
    found = _python(program)
    assert _spans(program, found) == [("HL102", "info", "$HOME")]
    assert found[0].start == program.index("$HOME")
    assert _run_with_fake_ssh(tmp_path, program) == "remote: echo /home/local-user\n"


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
