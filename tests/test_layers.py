"""Layers: the wrapper table, recursion, and offsets back into the file."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import rulekit as kit

from heredoc_lint.engine import Settings, check_shell, check_text
from heredoc_lint.layers.layer import Layer, file_layer, walk_layers
from heredoc_lint.model import Severity
from heredoc_lint.shell.syntax import parse_script


def layers(text: str) -> list[Layer]:
    return list(walk_layers(file_layer(text)))


def inner_texts(text: str) -> list[tuple[int, str | None, str]]:
    return [(layer.depth, layer.wrapper, layer.text) for layer in layers(text)[1:]]


@pytest.mark.parametrize(
    ("command", "wrapper", "inner"),
    [
        ("ssh host 'uptime; df'", "ssh", "uptime; df"),
        ("ssh -p 2222 -i key -o BatchMode=yes -l root host ls /tmp", "ssh", "ls /tmp"),
        ("ssh -p2222 -tt host -- 'echo hi'", "ssh", "echo hi"),
        ('ssh -J jump -F cfg host echo "a  b" c', "ssh", "echo a  b c"),
        ("bash -c 'echo 1'", "bash -c", "echo 1"),
        ("/bin/sh -ec 'echo 1'", "sh -c", "echo 1"),
        ("bash -lc 'echo 1'", "bash -c", "echo 1"),
        ("zsh -o pipefail -c 'echo 1'", "zsh -c", "echo 1"),
        ("sudo -u app -E bash -c 'echo 1'", "bash -c", "echo 1"),
        ("env A=1 B=2 timeout -s KILL 5 nice -n 10 nohup sh -c 'echo 1'", "sh -c", "echo 1"),
        ("su - app -c 'echo 1'", "su -c", "echo 1"),
        ("runuser -u app -- sh -c 'echo 1'", "sh -c", "echo 1"),
        ("docker exec -it -u root web sh -c 'echo 1'", "docker exec sh -c", "echo 1"),
        ("kubectl exec -n prod pod-1 -- bash -c 'echo 1'", "kubectl exec bash -c", "echo 1"),
        ("eval 'echo' \"1\"", "eval", "echo 1"),
        ("gcloud compute ssh vm --zone z --command 'echo 1'", "gcloud compute ssh", "echo 1"),
        ("vagrant ssh default -c 'echo 1'", "vagrant ssh", "echo 1"),
        ("tmux new-session -d -s job 'echo 1'", "tmux", "echo 1"),
        ("find . -name x -exec sh -c 'echo 1' \\;", "sh -c", "echo 1"),
        ("xargs -I{} -P 4 sh -c 'echo 1'", "sh -c", "echo 1"),
        ("watch -n 5 'echo 1'", "watch", "echo 1"),
        ("flock /tmp/l -c 'echo 1'", "flock -c", "echo 1"),
        ("sshpass -p pw ssh h 'echo 1'", "ssh", "echo 1"),
    ],
)
def test_wrapper_table(command: str, wrapper: str, inner: str) -> None:
    assert inner_texts(command)[0] == (1, wrapper, inner)


@pytest.mark.parametrize(
    "command",
    [
        "ssh host",
        "ssh -N -L 8080:x:80 host",
        "bash script.sh",
        "echo ssh host ls",
        "command -v ssh",
        "scp a host:b",
        "sudo ls",
        "docker run --entrypoint sh img -c x",  # the words are the entrypoint's arguments
        "docker ps",
    ],
)
def test_no_layer(command: str) -> None:
    assert [layer for layer in layers(command)[1:] if layer.kind == "string"] == []


def test_stdin_script_layer_for_quoted_heredoc() -> None:
    text = "ssh h bash -s <<'EOF'\necho $HOME\nEOF\n"
    command, inner = layers(text)[1:]
    assert (command.kind, command.text) == ("string", "bash -s")
    assert (inner.kind, inner.text, inner.depth) == ("stdin", "echo $HOME\n", 1)
    assert inner.file_offset(inner.text.index("$HOME")) == text.index("$HOME")


def test_recursion_to_depth_three_maps_offsets_to_the_file() -> None:
    text = """ssh a "ssh b 'bash -c \\"pkill -f zq; echo\\"'"\n"""
    all_layers = layers(text)
    assert [layer.depth for layer in all_layers] == [0, 1, 2, 3]
    innermost = all_layers[-1]
    assert innermost.text == "pkill -f zq; echo"
    assert innermost.file_offset(0) == text.index("pkill")
    (finding,) = [f for f in check_shell(text) if f.code == "HL103"]
    assert text[finding.start : finding.end] == "pkill"
    assert finding.depth == 3


def test_offsets_through_escapes_and_quote_chains() -> None:
    text = "ssh h 'a'\\''b \"$x\" \\\n  c'\n"
    (inner,) = layers(text)[1:]
    assert inner.text == 'a\'b "$x" \\\n  c'
    for index, char in enumerate(inner.text):
        assert text[inner.file_offset(index)] == char


def test_double_quoted_layer_keeps_expansions_as_written() -> None:
    text = 'ssh h "echo \\$HOME $USER \\"q\\" `hostname`"'
    (inner,) = layers(text)[1:]
    assert inner.text == 'echo $HOME $USER "q" `hostname`'
    local = [inner.text[e.start : e.end] for e in inner.local_expansions]
    assert local == ["$USER", "`hostname`"]


def test_commands_inside_the_parents_own_substitution_are_the_parents() -> None:
    text = 'eval "$(eval "$X" list)"'
    assert [layer.depth for layer in layers(text)] == [0, 1, 1]
    assert all(layer.script.commands == () for layer in layers(text)[1:2])


def test_custom_wrapper_from_settings() -> None:
    from heredoc_lint.engine import Settings

    text = 'myssh host "pkill -f zq; echo"\n'
    assert check_shell(text) == []
    found = check_shell(text, settings=Settings(wrappers={"myssh": "ssh"}))
    assert [f.code for f in found] == ["HL103"]


def test_may_be_never_misses_a_command_name_on_real_scripts() -> None:
    """`Command.may_be` lets rules skip de-quoting commands: it must say yes to every
    command whose de-quoted static name (directory dropped) is one of the names asked,
    on every command of the real corpus; and no to most others.  (Names asked for are
    plain words: one holding a quote or a backslash is left out.)"""
    from corpus import corpus_files

    from heredoc_lint.shell.syntax import parse_script

    checked = skipped = 0
    for corpus_file in corpus_files():
        for command in parse_script(corpus_file.text).commands:
            words = command.words
            if not words or not words[0].static:
                continue
            name = words[0].value.rsplit("/", 1)[-1]
            if any(c in name for c in "'\"\\\n"):
                continue
            assert command.may_be({name}), (corpus_file.name, command.head)
            checked += 1
            skipped += not command.may_be({name + "x"})
    assert checked > 10_000 and skipped > 0.99 * checked, (checked, skipped)


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("pkill -f x", True),
        ("/usr/bin/pkill -f x", True),
        ("'pkill' -f x", True),
        ('"pk"ill -f x', True),
        ("p\\kill -f x", True),
        ("$tool -f x", False),  # not static: rules never take it for pkill
        ("`which pkill` -f x", False),
        ("pgrep x", False),
        ("/" + "d" * 300 + "/pkill x", True),  # a head cut short may be anything
    ],
)
def test_may_be(script: str, expected: bool) -> None:
    from heredoc_lint.shell.syntax import parse_script

    command = parse_script(script).commands[0]  # the outer one: `which pkill` comes after
    assert command.start == 0 and command.may_be({"pkill"}) is expected


@pytest.mark.parametrize(
    ("snippet", "reads"),
    [
        ("head -c 4", True),
        ("head -c 4 < /dev/null", False),
        ("head -c 4 <<< word", False),
        ("head -c 4 <<'EOF'\nbody\nEOF", False),
        ("echo piped | head -c 4", False),
        ("echo piped |\n  head -c 4", False),
        ("head -c 4 & wait", False),  # bash without job control: /dev/null
        ("false || head -c 4", True),
        ("{ head -c 4; }", True),
    ],
)
def test_reads_stdin_as_bash_does(snippet: str, reads: bool) -> None:
    """`Command.reads_stdin` of the `head`, against bash fed DATA on its stdin."""
    (head,) = [c for c in parse_script(snippet + "\n").commands if c.name == "head"]
    assert head.reads_stdin is reads
    ran = subprocess.run(
        ["bash", "-c", snippet], input="DATA", capture_output=True, text=True, check=True
    )
    assert ("DATA" in ran.stdout) is reads


# A command kept in a variable set to literal text: the layer holds the value, and bash,
# with `ssh` a function that prints what it is given, agrees on the text it receives.
_PRINTING_SSH = 'ssh() { shift; printf "%s\\n" "$*"; }\n'


@pytest.mark.parametrize(
    "script",
    [
        'cmd="pkill -f \'torch.run\'; sleep 1"\nssh h "$cmd"\n',
        "cmd='cd /srv && ./run'\nssh h \"${cmd}\"\n",
        'cmd="systemctl restart app"\nssh h $cmd\n',  # unquoted: split, rejoined as it was
        'dir=/srv/app\nssh h "cd $dir && ls -l $dir/logs"\n',
        'a="echo one"\nb="echo two"\nssh h "$a; $b; echo $UNSET"\n',
    ],
)
def test_a_literal_variable_is_the_text_the_remote_shell_receives(script: str) -> None:
    (child,) = layers(script)[1:]
    ran = subprocess.run(
        ["bash", "-c", _PRINTING_SSH + script], capture_output=True, text=True, check=True
    )
    received = ran.stdout[:-1]
    unknown = [e.expansion.name for e in child.local_expansions]
    assert child.text.replace("$UNSET", "") == received
    assert unknown == (["UNSET"] if "UNSET" in script else [])
    # Each character of the value maps to where the assignment writes it.
    for start, end, name in child.literal_values:
        value = child.text[start:end]
        assigned = script.index(name + "=") + len(name) + 1
        first = child.file_offset(start)
        assert assigned <= first and script[first : first + len(value)] == value


@pytest.mark.parametrize(
    "script",
    [
        'ssh h "$cmd"\ncmd="uptime"\n',  # set after the command
        'cmd="uptime"\ncmd="df"\nssh h "$cmd"\n',  # set twice
        'cmd="uptime"\nread -r cmd\nssh h "$cmd"\n',  # rebound
        'f() { local cmd=x; }\ncmd="uptime"\nssh h "$cmd"\n',  # a local of that name
        'cmd="uptime"\nssh h "${cmd:-df}"\n',  # another value than the variable's
        'cmd="echo  two  blanks"\nssh h $cmd\n',  # unquoted: splitting changes it
        'cmd="ls *.log"\nssh h $cmd\n',  # unquoted: a pattern
        'cmd="echo $HOME"\nssh h "$cmd"\n',  # not literal
        'cmd=(uptime -p)\nssh h "$cmd"\n',  # an array
        'cmd="uptime"\nssh h "cmd=df; $cmd"\n',  # bound in the string: the remote one is meant
        'cmd="uptime"\nssh h "for cmd in a b; do $cmd; done"\n',
    ],
)
def test_a_variable_whose_value_is_not_known_stays_a_local_expansion(script: str) -> None:
    (child,) = [layer for layer in layers(script)[1:] if layer.wrapper == "ssh"]
    assert not child.literal_values
    assert [e.expansion.name for e in child.local_expansions] == ["cmd"]


def test_a_finding_in_a_variables_value_is_anchored_on_the_assignment() -> None:
    script = 'cmd="pkill -f worker; ./worker"\nssh h "$cmd"\n'
    (found,) = [f for f in check_shell(script) if f.code == "HL103"]
    assert script[found.start : found.end] == "pkill"
    assert found.start < script.index("\n")
    assert found.message.endswith("(this text is the value of `cmd`, given to ssh)")
    assert found.fix is None  # the value is not in the ssh command's own words


# -- layers.py: a nested layer finds the run-time values of its root -----------------------


def test_a_python_field_after_a_blank_in_an_ssh_string_is_no_local_expansion() -> None:
    """Round y (a Django backup command): `'ssh %(host)s "rm %(a)s; ln -s %(b)s %(a)s"' %
    d`, the last field after a blank inside the ssh string's double quotes."""
    text = "import os\nd = dict(h='x', a='y', b='z')\n"
    text += "os.system('ssh %(h)s \"rm %(a)s; ln -s %(b)s %(a)s\"' % d)\n"
    found = check_text(text, "python", "t.py", Settings())
    assert [f for f in found if f.code == "HL102"] == []
    assert not any("__hl" in f.message for f in found)


def test_a_python_field_in_an_ssh_string_is_no_local_expansion() -> None:
    """`os.system(f'ssh h "echo {name} $HOME"')`: the ssh string is a layer below the
    Python string; its `{name}` is filled in by Python (HL201's), not a `$` the local
    shell expands: HL102 is only at `$HOME`, and no message names the frontend's
    placeholder (layers `_root_index` walks up the parent offsets)."""
    text = (
        "import os\nimport sys\n\nname = sys.argv[1]\nos.system(f'ssh h \"echo {name} $HOME\"')\n"
    )
    found = check_text(text, "python", "t.py", Settings())
    home = text.index("$HOME")
    assert [(f.code, f.start, f.end) for f in found if f.code == "HL102"] == [
        ("HL102", home, home + len("$HOME"))
    ]
    assert not any("__hl" in f.message for f in found)
    field = text.index("{name}")
    assert [(f.code, f.start) for f in found if f.code == "HL201"] == [("HL201", field)]


# -- layers.py: a prefix command is read as the script's IFS splits it ----------------------


def test_an_empty_ifs_joins_sudo_to_its_command(tmp_path: Path) -> None:
    """With `IFS=` (empty) bash does not split `sudo${IFS}echo`: it runs a command named
    `sudoecho` (not found), so no sudo writes anything and HL109 has nothing to say
    (layers `calls_behind` reads the words as written, not split at a default IFS)."""
    text = "IFS=\nsudo${IFS}echo x > out\n"
    assert kit.findings(text, "HL109") == []
    ran = subprocess.run(
        ["bash", "-c", text], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert ran.returncode == 127
    assert "sudoecho: command not found" in ran.stderr


# -- layers.py: a script piped into a shell ------------------------------------------------


def test_a_script_piped_into_a_shell_is_read_as_one() -> None:
    """`echo 'S' | bash`, `printf '%s\\n' 'S' | ssh h`: the shell runs what the command
    before the pipe prints (bash shows it), so HL109 reads `sudo echo x > /etc/f` there,
    at the `>` inside the quotes; `echo | sh` prints an empty line: no script, no
    finding (layers `_piped_layer`'s empty-words test)."""
    ran = subprocess.run(
        ["bash", "-c", "echo 'echo ran-by-the-piped-shell' | bash"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    assert ran.stdout == "ran-by-the-piped-shell\n"
    for text in (
        "echo 'sudo echo x > /etc/f' | bash\n",
        "printf '%s\\n' 'sudo echo x > /etc/f' | ssh h\n",
    ):
        at = text.index("> /etc")
        (f,) = kit.findings(text, "HL109")
        assert (f.start, f.end, f.severity) == (at, at + 1, Severity.ERROR)
    assert check_shell("echo | sh\n", "t.sh") == []
