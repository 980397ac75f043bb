"""Pinned behaviours of rules/__init__.py, rules/base.py and the rules of part A (issue
20, run 4a): each test kills a mutant that survived `bench/mutation.py`'s sample of 10
points a module, through the engine or the CLI, by exact spans and message parts."""

from __future__ import annotations

import subprocess

import pytest
from cli_process import run_cli

from heredoc_lint.engine import Settings, check_shell, fix_shell
from heredoc_lint.model import NewFile, Severity

_BODY = "#!/bin/bash\nssh h \"cat > /srv/app.conf << 'EOF'\nkey=1\nEOF\"\n"


def test_scp_fix_puts_the_body_beside_a_shell_script() -> None:
    """A shell script run as a file has a place for the body (`NAME.d/`): the scp fix
    is offered there; a command line (an agent's, no file of its own) has none."""
    outcome = fix_shell(_BODY, "deploy.sh", Settings(fix_strategy="scp"))
    assert (
        outcome.text == '#!/bin/bash\nscp "$(dirname "$0")/deploy.sh.d/app.conf" h:/srv/app.conf\n'
    )
    assert outcome.new_files == (NewFile("deploy.sh.d/app.conf", b"key=1\n", 0o644),)
    command = fix_shell(_BODY, "deploy.sh", Settings(fix_strategy="scp"), command=True)
    assert command.new_files == ()


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("ssh h bash <<'EOF'\necho (\nEOF\n", "The script fed to ssh"),
        ("echo 'echo (' | bash\n", "The script fed to bash"),
        ("ssh h 'echo ('\n", "The ssh command string"),
        ("bash -c 'echo ('\n", "The bash -c command string"),
    ],
)
def test_hl001_names_the_layer_that_does_not_parse(text: str, place: str) -> None:
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL001"]
    assert found.message.startswith(f"{place} does not parse near `(`: ")
    assert "the shell that runs it refuses it with a syntax error" in found.message
    assert found.severity is Severity.ERROR
    assert text[found.start : found.end] == "("


def test_hl001_at_the_end_of_the_text_points_at_its_last_character() -> None:
    text = "ssh h 'echo a |'\n"
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL001"]
    assert "does not parse near `end of text`" in found.message
    assert (found.start, found.end) == (14, 15)  # the `|`


def test_hl001_a_console_transcript_is_not_a_script() -> None:
    text = "root@web1:~# ssh h 'echo ('\n"
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL001"]
    assert found.severity is Severity.INFO
    assert "looks like a console transcript (the prompt `root@web1:~#`)" in found.message


@pytest.mark.parametrize("quote", ["'EOF'", "EOF"])
def test_hl001_a_template_field_in_a_heredoc_body_is_data(quote: str) -> None:
    """`{{ name }}` in a heredoc body is the body's text, not a template of the script:
    the string that does not parse is still an error; outside a body it is a template."""
    text = f'ssh h "cat > f <<{quote}\n{{{{ name }}}}\nEOF\necho ("\n'
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL001"]
    assert found.severity is Severity.ERROR
    assert text[found.start : found.end] == "("
    outside = "ssh h 'echo {{ name }} ('\n"
    (found,) = [f for f in check_shell(outside, "t.sh") if f.code == "HL001"]
    assert found.severity is Severity.INFO
    assert "looks like a template (the field `{{ name }}`)" in found.message


@pytest.mark.parametrize(("op", "body"), [("<<-", "\tx\n\tEOF"), ("<<", "x\nEOF")])
def test_hl101_spans_the_whole_operator(op: str, body: str) -> None:
    text = f'ssh h "cat {op}EOF\n{body}"\n'
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL101"]
    assert text[found.start : found.end] == op


@pytest.mark.parametrize("code", ["hl103", "HL103", " hl103"])
def test_rule_is_found_by_its_code_in_any_case(code: str) -> None:
    proc = run_cli("rule", code.strip())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# HL103 pkill-self-match\n")


@pytest.mark.parametrize("code", ["HL10", "HL1031", "HL999"])
def test_rule_needs_a_whole_code(code: str) -> None:
    proc = run_cli("rule", code)
    assert proc.returncode == 2
    assert f"unknown rule `{code}`" in proc.stderr


@pytest.mark.parametrize("size", [59, 60, 61])
def test_long_commands_are_cut_to_sixty_characters_in_messages(size: int) -> None:
    """A remote command quoted in a message (HL110's) is cut to 60 characters, the last
    three of them `...`; one of 60 or fewer is shown whole."""
    path = "/srv/" + "a" * (size - len("cd /srv/"))
    remote = f"cd {path}"
    assert len(remote) == size
    text = f"ssh h {remote} && make\n"
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL110"]
    shown = remote if size <= 60 else remote[:57] + "..."
    assert f"not by the remote one: `{shown}` only changes" in found.message


@pytest.mark.parametrize("blank", [" ", "\t"])
def test_hl106_a_quote_after_a_blank_never_closes(blank: str) -> None:
    """`"a<blank>'b"` as one ssh word: the remote shell reads an opening quote with no
    end (bash: unexpected EOF), whatever the blank before it is."""
    word = f"a{blank}'b"
    remote = f"echo {word} done"
    done = subprocess.run(["bash", "-c", remote], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "unexpected EOF" in done.stderr, done
    text = f'ssh h echo "{word}" done\n'
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL106"]
    assert (found.start, found.end) == (0, 3)
    assert "`a 'b` opens a quote that never closes on the remote side" in found.message


def test_hl106_counts_the_echo_words_that_change_past_the_reparse_limit() -> None:
    """Past three wrong words each word is read alone (hl106's `_alone`): still only the
    words whose echo output changes count.  bash says which: `echo WORD` in the remote
    shell prints the word back exactly for the single-spaced ones."""
    values = ["a  b", "c  d", "e  f", "g  h", "i j", "k  l", "m n"]
    changed = []
    for value in values:
        done = subprocess.run(["bash", "-c", f"echo {value}"], capture_output=True, text=True)
        changed.append(done.stdout != value + "\n")
    assert changed.count(True) == 5
    text = "ssh h echo " + " ".join(f'"{v}"' for v in values) + "\n"
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL106"]
    assert "`a b` arrives as 2 separate arguments (`a`, `b`) (and 4 more such word(s))" in (
        found.message
    )
