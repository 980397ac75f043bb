"""`heredoc-lint explain`: the layers of the seed commands, checked against bash itself."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from cli_process import run_cli

from heredoc_lint.report.explain import JOINED, explain

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "cases"
CASES = Path(__file__).parent / "cases"
SEED000 = CASES / "seed000.sh"
SEED003 = CASES / "seed003.sh"
SEED004 = ROOT / "fixtures" / "broken" / "launch_glm_seed004.sh"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, stdin=stdin, cwd=ROOT)


def report(path: Path) -> str:
    return explain(path.read_text(), "shell", str(path.relative_to(ROOT)))


def gutter_block(text: str, heading: str) -> str:
    """The text shown behind `│ ` right after the line starting with `heading`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(heading))
    body = []
    for line in lines[start + 1 :]:
        if "│ " not in line:
            break
        body.append(line.split("│ ", 1)[1])
    shown = "\n".join(body)
    return shown[:-1] + "\n" if shown.endswith("⏎") else shown


def sent_by_ssh(script: Path, skip: int) -> str:
    """What bash really passes to ssh as the command (the words after the host)."""
    stub = f'ssh() {{ shift {skip}; printf %s "$*"; }}; source "$0"'  # no arguments: $1 unset
    return subprocess.run(
        ["bash", "-c", stub, str(script)], capture_output=True, text=True, check=True
    ).stdout


def unmarked(shown: str) -> str:
    """The displayed string with local values taken as empty and deleted joins removed."""
    return re.sub(r"⟨[^⟩]*⟩", "", shown.replace(JOINED, ""))


def caret_under(text: str, cmdline_start: str) -> str:
    """The characters of the command-line line that the caret line underlines."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(cmdline_start))
    carets = lines[at + 1]
    begin = carets.index("^")
    end = carets.rindex("^") + 1
    return lines[at][begin:end]


def test_seed000_shows_1_and_2_arriving_empty() -> None:
    text = report(SEED000)
    assert "Layer 0 · the local shell (bash)" in text
    assert "Layer 1 · the string ssh sends" in text
    # Every local expansion is named, with where it is and what it becomes.
    first = r"the local shell's 1st positional parameter: EMPTY when there is none"
    assert re.search(r"5:29\s+\$1\s+" + first, text)
    assert re.search(r"9:10\s+\$2\s+the local shell's 2nd positional parameter", text)
    # Beside each expansion, the verdict check reports for it (here HL102's error).
    assert re.search(first + r"\n\s+HL102 \[error\] `\$1` is expanded by the local shell", text)
    assert "at 6:65, 7:53, 8:30; the lines around each arrive joined" in text
    # The heredoc body as it arrives: marked, then byte for byte with the values empty.
    marked = gutter_block(text, "the body as it will arrive:")
    assert "export CUDA_VISIBLE_DEVICES=⟨$1⟩\n" in marked
    assert f"launch_server {JOINED}  --model-path" in marked
    empty = gutter_block(text, "byte for byte, with $1, $2 empty")
    assert empty.splitlines()[2] == "export CUDA_VISIBLE_DEVICES="
    assert empty.endswith("--mem-fraction-static 0.92   --port \n")
    assert "\\" not in empty


def test_seed000_exact_string_is_what_bash_passes_to_ssh() -> None:
    text = report(SEED000)
    shown = gutter_block(text, "the exact string ssh sends")
    assert unmarked(shown) == sent_by_ssh(SEED000, skip=3)
    body = sent_by_ssh(SEED000, skip=3).split("<< 'EOF'\n", 1)[1].split("EOF\n", 1)[0]
    assert gutter_block(text, "byte for byte, with $1, $2 empty") == body


@pytest.mark.parametrize("seed", [SEED000, SEED003, SEED004], ids=["000", "003", "004"])
def test_seed_pkill_matches_the_remote_shells_own_command_line(seed: Path) -> None:
    text = report(seed)
    assert "✗ SELF-MATCH: `pkill -f sglang`" in text
    assert "the layer-1 shell that runs it has this command line:" in text
    assert "✗ HL103: pkill matches its own shell" in text
    # The caret is under the pattern inside `bash -c <the string ssh sends>`.
    assert caret_under(text, "bash -c pkill") == "sglang"
    assert "the commands after it never run" in text
    # The pattern is also in the heredoc body: the bracket trick alone cannot help.
    assert "also matches elsewhere" in text and "[sglang].launch_server" in text


@pytest.mark.parametrize(("seed", "skip"), [(SEED003, 1), (SEED004, 1)], ids=["003", "004"])
def test_seed_exact_string(seed: Path, skip: int) -> None:
    shown = gutter_block(report(seed), "the exact string ssh sends")
    assert shown == sent_by_ssh(seed, skip)


def test_seed003_and_seed004_delimiters() -> None:
    seed003 = report(SEED003)
    assert "heredoc `<< 'EOF'`" in seed003
    assert "its delimiter is quoted" in seed003
    assert "'Launched PID: $!'" in seed003  # the remote shell's own $!: not marked
    assert "⟨" not in seed003.split("Findings")[0]
    seed004 = report(SEED004)
    assert "heredoc `<< EOF`" in seed004
    assert "its delimiter arrives UNQUOTED" in seed004
    assert "(this body has none of them)" in seed004


def test_fixed_command_is_shown_beside_it() -> None:
    text = report(SEED000)
    fixed = text.split("Fixed\n", 1)[1]
    assert "heredoc-lint --fix" in fixed
    assert '- ssh -p 19248 root@154.59.156.20 "pkill -9 -f sglang' in fixed
    assert "+ ssh -p 19248 root@154.59.156.20 \"pkill -9 -f '[s]'glang" in fixed
    assert "| base64 -d > /workspace/dflash/scripts/launch_mtp.sh" in fixed
    seed004 = report(SEED004).split("Fixed\n", 1)[1]
    assert "with --unsafe-fixes too" in seed004
    assert "2>/dev/null'; ssh root@10.1.230.174 'sleep 2;" in seed004


def test_findings_are_listed_with_positions() -> None:
    text = report(SEED000).split("Findings (7)\n", 1)[1]
    assert "2:34 HL103 [error]" in text
    assert "5:29 HL102 [error]" in text
    assert "[fix: safe, base64]" in text


def test_command_string_nested_layers_and_stdin_script() -> None:
    command = "ssh a \"ssh b 'pkill -f worker; echo $HOME'\" && ssh h bash -s <<'EOF'\necho $1\nEOF"
    text = explain(command, "command")
    assert "Layer 2 · the string ssh sends" in text
    # $HOME was substituted by the local shell before the first ssh: marked in layer 2 too.
    assert "│ pkill -f worker; echo ⟨$HOME⟩" in text
    assert "the local value of HOME: EMPTY if it is not set there" in text
    assert "the script fed on stdin to `ssh`" in text
    assert "│ echo $1⏎" in text
    assert caret_under(text, "bash -c pkill -f worker") == "worker"
    assert "│ ssh a \"ssh b 'pkill -f \\\\[w]orker; echo $HOME'\"" in text


def test_no_self_match_and_nothing_to_explain() -> None:
    text = explain("ssh h \"pkill -f '[s]glang'; echo\"", "command")
    assert "does not match the command line of the shell running it" in text
    assert "SELF-MATCH" not in text
    assert "no command here" in explain("", "command")


def test_file_line_selects_the_command_on_that_line() -> None:
    runbook = ROOT / "fixtures" / "docs" / "runbook.md"
    text = explain(runbook.read_text(), "markdown", "fixtures/docs/runbook.md", 21)
    assert "19 │    ssh root@gpu-1 \"cat > /w/launch.sh << 'EOF'" in text
    assert "sglang 2>/dev/null" not in text.split("Findings")[0]  # another block
    assert re.search(r"21:32\s+\$1\s+the local shell's 1st positional parameter", text)
    assert "Findings (3)" in text
    assert "no shell command on line 3" in explain(runbook.read_text(), "markdown", None, 3)


def test_cli_explain() -> None:
    by_file = run("explain", "tests/cases/seed000.sh:2")
    assert by_file.returncode == 0, by_file.stderr
    assert "✗ SELF-MATCH" in by_file.stdout
    by_command = run("explain", "--command", "ssh h 'pkill -f app; true'")
    assert by_command.returncode == 0 and "✗ SELF-MATCH: `pkill -f app`" in by_command.stdout
    by_stdin = run("explain", "-", stdin='ssh h "echo $1"\n')
    assert by_stdin.returncode == 0 and "│ echo ⟨$1⟩" in by_stdin.stdout
    workflow = run("explain", "fixtures/.github/workflows/deploy.yml:20")
    assert workflow.returncode == 0
    assert caret_under(workflow.stdout, "bash -c pkill") == "celery worker"
    assert run("explain").returncode == 2
    assert run("explain", "nope.sh").returncode == 2


def test_shared_cases_match_the_test_copies() -> None:
    """tests/cases is a copy of the project's shared/cases: they must not drift apart."""
    if not SHARED.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI lays shared/ beside the checkout; {SHARED} is missing")
        pytest.skip("no shared/ beside the checkout")
    for path in sorted(SHARED.iterdir()):
        assert path.read_bytes() == (CASES / path.name).read_bytes(), path.name


def test_python_remote_string_roots() -> None:
    source = 'client.exec_command("pkill -f worker; echo $HOME")\n'
    text = explain(source, "python", "remote.py")
    assert "Layer 1 · the string `exec_command` runs on the remote host" in text
    assert "│ pkill -f worker; echo $HOME" in text
    assert "the remote shell splits it into 2 command(s):" in text
    assert caret_under(text, "bash -c pkill -f worker") == "worker"


def test_python_argv_shell_runs_locally() -> None:
    """`subprocess.run(["sh", "-c", S])`: S is run by a local `sh`, not on a remote host."""
    source = 'import subprocess\nsubprocess.run(["sh", "-c", "pkill -f worker; echo done"])\n'
    text = explain(source, "python", "local.py")
    assert "Layer 1 · the string `sh -c` runs locally" in text
    assert "`sh -c` splits it into 2 command(s):" in text
    assert "remote" not in text.split("Findings")[0]


# -- shell/heredoc_body.py: what each expansion of an unquoted body stands for ----------------


def test_explain_names_what_each_expansion_of_an_unquoted_body_is() -> None:
    """`ssh h bash <<EOF` with `$$ $1 $# $?` in the body: the local shell substitutes them
    before ssh reads the body (bash shows it: `$1` arrives as the script's own first
    argument), and `explain` lists each under the stdin layer with what it is.  (Run 7:
    the special parameters of a body were read as nothing, and `explain` did not list a
    body's expansions at all.)"""
    script = "cat <<EOF\necho $$ $1 $# $?\nEOF\n"
    local = subprocess.run(
        ["bash", "-s", "--", "first"], input=script, capture_output=True, text=True, check=True
    )
    words = local.stdout.split()
    assert words[0] == "echo" and words[1].isdigit() and words[2:] == ["first", "1", "0"]
    done = run_cli("explain", "--command", "ssh h bash <<EOF\necho $$ $1 $# $?\nEOF")
    assert done.returncode == 0, done.stderr
    stdin_part = done.stdout.split("the script fed on stdin to `ssh`")[1].split("Findings")[0]
    listed = [
        line.split(None, 2)[1:] for line in stdin_part.splitlines() if line.strip().startswith("2:")
    ]
    assert listed == [
        ["$$", "the PID of the local shell, not of the shell that runs the string"],
        ["$1", "the local shell's 1st positional parameter: EMPTY when there is none"],
        ["$#", "how many positional parameters the local shell has"],
        ["$?", "the exit status of the local shell's last command"],
    ]
    assert "expanded by the local shell before the body is sent" in stdin_part
