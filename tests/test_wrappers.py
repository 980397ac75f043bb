"""The wrapper table: where a wrapper's command starts, and what runs it.

Uncertainty: when a word of unknown count (`$SSH_EXTRA`, `"${EXTRA[@]}"`, an f-string
field) or an option the manual does not list stands before ssh's host, the remote command
may start at different words; nothing is reported then.  A word whose name says options
(`$SSH_OPTS`, `"${SSH_ARGS[@]}"`) is read as options only. ssh's, scp's and sftp's option
letters (`wrappers.OPTION_GRAMMARS`) are checked against the real clients' getopt.

The table (`grammars.FORMS` and the resolvers in `wrappers`): one example per row, from
the tool's manual, with the layer it makes; the layer's text, run by the shell the
wrapper would start (a container runtime is not needed: `sh -c` is the layer), does
what the example means. Shapes the table cannot know make no layer. Here-strings and
`bash <(cat <<'EOF' ...)` feed a shell its script, as bash shows.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.engine import check_shell, check_text
from heredoc_lint.layers.grammars import FORMS, READERS, Form
from heredoc_lint.layers.layer import child_layers, file_layer
from heredoc_lint.layers.wrappers import (
    _READERS,
    OPTION_GRAMMARS,
    Invocation,
    Role,
    brace_expand,
    command_name,
    ifs_split,
    parse_ssh,
    read_form,
    resolve,
    split_string,
)
from heredoc_lint.model import Severity
from heredoc_lint.shell.syntax import parse_script
from heredoc_lint.shell.words import Word


def _resolve(line: str) -> Invocation | None:
    return resolve(parse_script(line).commands[0].words)


def _remote(line: str) -> list[str] | None:
    """The words of the layer the command starts (None: no layer)."""
    found = _resolve(line)
    return None if found is None else [w.value for w in found.words]


# -- where ssh's remote command starts ---------------------------------------------------
UNCERTAIN = [
    'ssh $SSH_EXTRA "$host" "uptime; df -h"',  # $SSH_EXTRA: options, or the host?
    'ssh "${EXTRA[@]}" "$host" "a && b"',
    'ssh ${SSH_EXTRA} user@web-1 "a && b"',
    'ssh "$@" "$host" "a; b"',
    'ssh -Z host "a; b"',  # -Z: not in ssh(1)
    'ssh -$FLAGS host "a; b"',  # letters known only at run time
    # the Python f-string `f"ssh {proxy_opts} -i {key} {user}@{ip} '...'"`, as its fragment
    "ssh ${__hl_0} -i ${__hl_1} ${__hl_2}@${__hl_3} 'find . | xargs cat'",
]


@pytest.mark.parametrize("line", UNCERTAIN)
def test_uncertain_command_start_makes_no_layer(line: str) -> None:
    assert _resolve(line) is None
    assert list(child_layers(file_layer(line + "\n"))) == []


CERTAIN = [
    # (line, the remote words): the other reading leaves no command, or no host
    ('ssh $h "uptime; df -h"', ["uptime; df -h"]),
    ("ssh $h uptime", ["uptime"]),  # `uptime` is no host name with a user, domain or address
    ('ssh $h ls "my dir"', ["ls", "my dir"]),
    ('ssh "$host" "$cmd"', ["$cmd"]),
    ('ssh -p "$PORT" "$host" "a; b"', ["a; b"]),  # an option's value is one word
    ('ssh -p$PORT "$host" "a; b"', ["a; b"]),
    ("ssh -B eth0 h cmd", ["cmd"]),  # -B takes a value (OpenSSH 8.9)
    # `-P tag` since OpenSSH 9.4; before, a flag that did nothing: a script means the tag
    ('ssh -P tag host "a; b"', ["a; b"]),
    ("ssh -o BatchMode=yes -- h -x", ["-x"]),
    ('ssh h -l ops "a; b"', ["a; b"]),  # ssh reads options after the host too
    # a word of unknown count named as options is read as options, never as the host
    ('ssh $SSH_OPTS "$host" "uptime; df -h"', ["uptime; df -h"]),
    ('ssh "${OPTS[@]}" "$host" "a && b"', ["a && b"]),
    ('ssh -p "$P" ${SSH_ARGS} user@web-1 "a && b"', ["a && b"]),
    ("ssh $OPTS $host 'ls \"my dir\"' x", ['ls "my dir"', "x"]),
]


@pytest.mark.parametrize(("line", "remote"), CERTAIN)
def test_certain_command_start(line: str, remote: list[str]) -> None:
    assert _remote(line) == remote


def test_attached_value_keeps_its_expansion() -> None:
    call = parse_ssh(parse_script('ssh -p$PORT h "a"').commands[0].words, 0)
    assert call is not None
    (option,) = call.options
    letter, value, _ = option
    assert letter == "p" and value is not None
    assert value.value == "$PORT" and not value.static


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('ssh $SSH_EXTRA "$host" git commit -m "fix the build"\n', "HL106"),
        ('ssh "${EXTRA[@]}" "$host" ls "/srv/my dir"\n', "HL106"),
        ('ssh $SSH_EXTRA "$host" "nohup ./server &"\n', "HL104"),
        ('ssh $SSH_EXTRA "$host" cd /srv && make\n', "HL110"),
        ('while read h; do ssh $SSH_EXTRA "$h" "uptime"; done < hosts\n', "HL105"),
        ('ssh $SSH_EXTRA "$host" "x=1; echo $x"\n', "HL102"),
    ],
)
def test_uncertain_shapes_give_no_finding(text: str, code: str) -> None:
    found = [f for f in check_shell(text, "t.sh", None) if f.code == code]
    assert found == [], found
    # ...where the same command with a known shape does report it: without the word, or
    # with the word named as options (round n: `ssh -p "$P" $SSH_OPTS "$U@$H" "..."`).
    # (HL105 excepted: the options may hold `-n`.)
    known = text.replace("$SSH_EXTRA ", "").replace('"${EXTRA[@]}" ', "")
    named = text.replace("$SSH_EXTRA ", "$SSH_OPTS ").replace("${EXTRA[@]}", "${OPTS[@]}")
    assert [f.code for f in kit.findings(known, code)] == [code]
    expected = [] if code == "HL105" else [code]
    assert [f.code for f in kit.findings(named, code)] == expected


def test_certain_unquoted_host_still_reported() -> None:
    text = 'ssh $h ls "my dir"\n'
    kit.assert_single(kit.findings(text, "HL106"), kit.span_of(text, "ssh"), kit.Severity.INFO)


# -- the option table agrees with the real ssh client -------------------------------------
def _getopt_says(command: str, *args: str) -> str:
    """What the client's own option parser (getopt) says about `args`, before any
    connection: `ssh -G` prints the configuration and exits; scp and sftp are given no
    destination, or fail on the option first."""
    argv = [f"/usr/bin/{command}", *(("-G",) if command == "ssh" else ()), *args]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    return proc.stderr


def _openssh_version() -> tuple[int, int]:
    said = subprocess.run(["ssh", "-V"], capture_output=True, text=True, check=True).stderr
    found = re.match(r"OpenSSH_(\d+)\.(\d+)", said)
    assert found, said
    return int(found[1]), int(found[2])


@pytest.mark.parametrize("command", ["ssh", "scp", "sftp"])
def test_option_letters_match_the_client(command: str) -> None:
    grammar = OPTION_GRAMMARS[command]
    for letter in grammar.flags if command != "sftp" else ():  # sftp would connect
        said = _getopt_says(command, f"-{letter}", "h")
        assert "unknown option" not in said and "requires an argument" not in said, letter
    for letter in grammar.values:
        if (command, letter) == ("ssh", "P") and _openssh_version() < (9, 4):
            continue  # `-P tag` came in 9.4: this older client reads a flag
        said = _getopt_says(command, f"-{letter}")
        assert f"requires an argument -- {letter}" in said, (letter, said)
    for letter in "HjUuZz":
        assert not grammar.known(letter)
        said = _getopt_says(command, f"-{letter}", "h")
        assert f"unknown option -- {letter}" in said or "illegal option" in said, letter


def test_runtime_options_in_a_variable_are_options(sshd: SshServer) -> None:
    """`$SSH_OPTS` holding options: the remote command is the last word, one string, and it
    runs whole (what HL106 would have called "2 words" is the host and the command)."""
    script = 'SSH_OPTS="-o BatchMode=yes -T"\nhost=h\nssh $SSH_OPTS "$host" "echo a; echo b"\n'
    result = run_local(script, sshd)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["a", "b"]


# -- the wrapper table: one example per row, from the tool's manual ----------------------
# (command line, the wrapper as messages name it, the layer's text, remote, its shell)
ROWS = [
    ('ssh web-1 "echo a; echo b"', "ssh", "echo a; echo b", True, "bash"),
    ('autossh -M 0 -f web-1 "echo a; echo b"', "autossh", "echo a; echo b", True, "bash"),
    ('sshpass -p pw ssh web-1 "echo a; echo b"', "ssh", "echo a; echo b", True, "bash"),
    ('mosh web-1 -- sh -c "echo a; echo b"', "mosh sh -c", "echo a; echo b", True, "sh"),
    (
        'gcloud compute ssh example-instance --zone=us-central1-a --command="echo a; echo b"',
        "gcloud compute ssh",
        "echo a; echo b",
        True,
        "bash",
    ),
    ('vagrant ssh -c "echo a; echo b"', "vagrant ssh", "echo a; echo b", True, "bash"),
    # script(1)'s own example is `script -c 'ls -l'`; -q and a log file as scripts write it
    ("script -qc 'echo a; echo b' /dev/null", "script", "echo a; echo b", False, "sh"),
    (
        'docker exec -it my_container sh -c "echo a; echo b"',
        "docker exec sh -c",
        "echo a; echo b",
        True,
        "sh",
    ),
    (
        'docker container exec -u www my_container sh -c "echo a; echo b"',
        "docker container exec sh -c",
        "echo a; echo b",
        True,
        "sh",
    ),
    (
        'docker run --rm -v /srv:/srv debian bash -c "echo a; echo b"',
        "docker run bash -c",
        "echo a; echo b",
        True,
        "bash",
    ),
    (
        'docker container run --rm debian bash -c "echo a; echo b"',
        "docker container run bash -c",
        "echo a; echo b",
        True,
        "bash",
    ),
    (
        'docker compose exec -T web sh -c "echo a; echo b"',
        "docker compose exec sh -c",
        "echo a; echo b",
        True,
        "sh",
    ),
    (
        'docker compose -f prod.yml run --rm web sh -c "echo a; echo b"',
        "docker compose run sh -c",
        "echo a; echo b",
        True,
        "sh",
    ),
    (
        'docker-compose exec -T web sh -c "echo a; echo b"',
        "docker-compose exec sh -c",
        "echo a; echo b",
        True,
        "sh",
    ),
    (
        'docker-compose run --rm web sh -c "echo a; echo b"',
        "docker-compose run sh -c",
        "echo a; echo b",
        True,
        "sh",
    ),
    (
        'podman-compose exec web sh -c "echo a; echo b"',
        "podman-compose exec sh -c",
        "echo a; echo b",
        True,
        "sh",
    ),
    (
        'podman-compose run web sh -c "echo a; echo b"',
        "podman-compose run sh -c",
        "echo a; echo b",
        True,
        "sh",
    ),
    (
        'podman exec -it ctr sh -c "echo a; echo b"',
        "podman exec sh -c",
        "echo a; echo b",
        True,
        "sh",
    ),
    (
        'podman container exec ctr sh -c "echo a; echo b"',
        "podman container exec sh -c",
        "echo a; echo b",
        True,
        "sh",
    ),
    (
        'podman run --rm fedora bash -c "echo a; echo b"',
        "podman run bash -c",
        "echo a; echo b",
        True,
        "bash",
    ),
    (
        'podman container run --rm fedora bash -c "echo a; echo b"',
        "podman container run bash -c",
        "echo a; echo b",
        True,
        "bash",
    ),
    (
        'kubectl -n prod exec deploy/api -c app -- sh -c "echo a; echo b"',
        "kubectl exec sh -c",
        "echo a; echo b",
        True,
        "sh",
    ),
    (
        'kubectl debug mypod -it --image=busybox -- sh -c "echo a; echo b"',
        "kubectl debug sh -c",
        "echo a; echo b",
        True,
        "sh",
    ),
    (
        'kubectl run t --image=busybox --rm -i --command -- sh -c "echo a; echo b"',
        "kubectl run sh -c",
        "echo a; echo b",
        True,
        "sh",
    ),
    (
        'oc exec mypod -- bash -c "echo a; echo b"',
        "oc exec bash -c",
        "echo a; echo b",
        True,
        "bash",
    ),
    (
        'oc debug node/n1 -- sh -c "echo a; echo b"',
        "oc debug sh -c",
        "echo a; echo b",
        True,
        "sh",
    ),
    (
        'oc run t --image=ubi --command -- sh -c "echo a; echo b"',
        "oc run sh -c",
        "echo a; echo b",
        True,
        "sh",
    ),
    ('lxc exec c1 -- sh -c "echo a; echo b"', "lxc exec sh -c", "echo a; echo b", True, "sh"),
    (
        'incus exec c1 --env A=1 -- bash -c "echo a; echo b"',
        "incus exec bash -c",
        "echo a; echo b",
        True,
        "bash",
    ),
    (
        'nsenter -t 1 -m -u -n sh -c "echo a; echo b"',
        "nsenter sh -c",
        "echo a; echo b",
        False,
        "sh",
    ),
    (
        'systemd-run --user --wait -p MemoryMax=1G bash -c "echo a; echo b"',
        "systemd-run bash -c",
        "echo a; echo b",
        False,
        "bash",
    ),
    ('chroot /mnt sh -c "echo a; echo b"', "sh -c", "echo a; echo b", False, "sh"),
    ("su - postgres -c 'echo a; echo b'", "su -c", "echo a; echo b", False, "sh"),
    ("runuser -u nobody -- sh -c 'echo a; echo b'", "sh -c", "echo a; echo b", False, "sh"),
    ("sudo -u www-data sh -c 'echo a; echo b'", "sh -c", "echo a; echo b", False, "sh"),
    ("doas -u root sh -c 'echo a; echo b'", "sh -c", "echo a; echo b", False, "sh"),
    ("env -i PATH=/bin sh -c 'echo a; echo b'", "sh -c", "echo a; echo b", False, "sh"),
    ("nohup sh -c 'echo a; echo b'", "sh -c", "echo a; echo b", False, "sh"),
    ("timeout -s KILL 10 sh -c 'echo a; echo b'", "sh -c", "echo a; echo b", False, "sh"),
    ("nice -n 10 sh -c 'echo a; echo b'", "sh -c", "echo a; echo b", False, "sh"),
    ("ionice -c 3 sh -c 'echo a; echo b'", "sh -c", "echo a; echo b", False, "sh"),
    ("setsid sh -c 'echo a; echo b'", "sh -c", "echo a; echo b", False, "sh"),
    ("stdbuf -oL sh -c 'echo a; echo b'", "sh -c", "echo a; echo b", False, "sh"),
    ("xargs -I{} sh -c 'echo a; echo b'", "sh -c", "echo a; echo b", False, "sh"),
    ("screen -dmS job sh -c 'echo a; echo b'", "sh -c", "echo a; echo b", False, "sh"),
    ("tmux new-session -d -s job 'echo a; echo b'", "tmux", "echo a; echo b", False, "sh"),
    ("watch -n 5 'echo a; echo b'", "watch", "echo a; echo b", False, "sh"),
    ("flock /tmp/lock -c 'echo a; echo b'", "flock -c", "echo a; echo b", False, "sh"),
    ("find . -maxdepth 0 -exec sh -c 'echo a; echo b' \\;", "sh -c", "echo a; echo b", False, "sh"),
    ("adb -s emulator-5554 shell 'echo a; echo b'", "adb shell", "echo a; echo b", True, "sh"),
    ("pdsh -w web[1-3] 'echo a; echo b'", "pdsh", "echo a; echo b", True, "bash"),
    ("clush -w @web -b 'echo a; echo b'", "clush", "echo a; echo b", True, "bash"),
    ("pssh -h hosts -i 'echo a; echo b'", "pssh", "echo a; echo b", True, "bash"),
    ("parallel-ssh -H n1 -P 'echo a; echo b'", "parallel-ssh", "echo a; echo b", True, "bash"),
    ("parallel -j 4 'echo a; echo b' ::: 1", "parallel", "echo a; echo b", False, "bash"),
    ("ansible all -m shell -a 'echo a; echo b'", "ansible", "echo a; echo b", True, "sh"),
    ("ansible all -b -m raw -a 'echo a; echo b'", "ansible", "echo a; echo b", True, "bash"),
]


@pytest.mark.parametrize(("line", "wrapper", "text", "remote", "shell"), ROWS)
def test_wrapper_row(line: str, wrapper: str, text: str, remote: bool, shell: str) -> None:
    (child,) = [c for c in child_layers(file_layer(line + "\n")) if c.kind == "string"]
    assert (child.wrapper, child.text, child.remote, child.shell) == (wrapper, text, remote, shell)
    # the layer, run by the shell the wrapper starts, is the command the example means
    ran = subprocess.run([shell, "-c", child.text], capture_output=True, text=True, check=True)
    assert ran.stdout == "a\nb\n"


# -- what runs a layer: its role, whatever the rows before it call it ---------------------
ROLES = [
    ('ssh h "echo a"', Role.SSH),
    ('autossh -M 0 h "echo a"', Role.SSH),
    ('gcloud compute ssh i --command="echo a"', Role.SSH),
    ('vagrant ssh -c "echo a"', Role.SSH),
    ('docker exec c ssh h "echo a"', Role.SSH),  # named "docker exec ssh"
    ('bash -c "echo a"', Role.SHELL),
    ('su - app -c "echo a"', Role.SHELL),
    ('flock /tmp/l -c "echo a"', Role.SHELL),
    ('docker exec c sh -c "echo a"', Role.SHELL),
    ('eval "echo a"', Role.EVAL),
    ("pdsh -w n1 'echo a'", Role.TOOL),
    ("script -qc 'echo a' /dev/null", Role.TOOL),
    ("tmux new-session -d 'echo a'", Role.MULTIPLEXER),
    ("watch 'echo a'", Role.RERUN),
]


@pytest.mark.parametrize(("line", "role"), ROLES)
def test_a_layer_has_the_role_of_what_runs_it(line: str, role: Role) -> None:
    (child,) = child_layers(file_layer(line + "\n"))
    assert (child.role, child.text) == (role, "echo a")


def test_every_role_of_the_shell_table_has_an_example() -> None:
    # CHANNEL is a Python library's: tests/test_python_frontend.py
    assert {role for _, role in ROLES} == set(Role) - {Role.CHANNEL}


@pytest.mark.parametrize(
    ("line", "apart"),
    [
        ("bash -c 'echo a'", False),
        ("systemd-run --unit=x bash -c 'echo a'", True),
        ("sudo systemd-run bash -c 'echo a'", True),
    ],
)
def test_a_service_managers_unit_runs_apart_from_the_caller(line: str, apart: bool) -> None:
    (child,) = child_layers(file_layer(line + "\n"))
    assert child.invocation is not None and child.invocation.apart is apart


@pytest.mark.parametrize(
    ("line", "wrapper"),
    [
        ("docker exec $C sh -c 'echo a; echo b'", "docker exec sh -c"),  # `sh`: no container
        ("kubectl exec $POD -n $NS -- sh -c 'echo a; echo b'", "kubectl exec sh -c"),
        ("ansible $HOSTS -m shell -a 'echo a; echo b'", "ansible"),
    ],
)
def test_operand_of_unknown_count(line: str, wrapper: str) -> None:
    """A `$VAR` operand leaves the command where it is: after `--`, in an option, or
    before a static word that is no container name."""
    (child,) = child_layers(file_layer(line + "\n"))
    assert (child.wrapper, child.text) == (wrapper, "echo a; echo b")


def test_every_reader_is_named_in_the_table() -> None:
    """grammars.READERS names each tool that a reader of wrappers.py reads; a reader that
    no command names is dead code, a name without a reader fails at import."""
    assert set(READERS.values()) == _READERS.keys()


def test_every_form_has_an_example() -> None:
    lines = [parse_script(line).commands[0].words for line, *_ in ROWS]
    for form in FORMS:
        assert any(read_form(words, 0, form, {}) is not None for words in lines), form.label


def _spellings(option: str, form: Form) -> list[str]:
    """How a command line can give `option` (with the value `val` where it takes one).
    An option listed both ways (adb's global `-t ID`, shell's `-t`) is read as taking one:
    the position that tells them apart is not in the row."""
    if option not in form.values | form.optional:
        return [option]
    attached = [f"{option}=val" if option.startswith("--") else f"{option}val"]
    return attached if option in form.optional else [f"{option} val", *attached]


def _exercised(form: Form) -> list[str]:
    """The options of a row that a line can carry beside its example: not those that
    select the form (`needs`), make it another (`forbids`) or hold the command (`option`)."""
    needed = {name for names, _ in form.needs for name in names}
    skipped = needed | form.forbids | form.option
    return sorted((form.values | form.flags | form.optional) - skipped)


def test_every_option_of_every_row_is_read_as_the_row_says() -> None:
    """Each option of each row, inserted after the tool's name into the row's example:
    a value-taking option consumes its value (`-w val`, `-wval`, `--workdir=val`), a flag
    does not, and the example still makes the same layer.  An option the table lost, or
    filed as a flag, moves the command or leaves no layer."""
    checked = 0
    for form in FORMS:
        examples = [(line, wrapper, text) for line, wrapper, text, *_ in ROWS]
        line, wrapper, text = next(
            (line, wrapper, text)
            for line, wrapper, text in examples
            if line.split(" ", 1)[0] == form.command
            and read_form(parse_script(line).commands[0].words, 0, form, {}) is not None
        )
        head, rest = line.split(" ", 1)
        for option in _exercised(form):
            for spelling in _spellings(option, form):
                variant = f"{head} {spelling} {rest}\n"
                layers = [c for c in child_layers(file_layer(variant)) if c.kind == "string"]
                assert [(c.wrapper, c.text) for c in layers] == [(wrapper, text)], variant
                checked += 1
    assert checked > 1000


# `--help` of the tools on this machine: docker's lists `-w, --workdir string` (a value:
# its type) and `-d, --detach` (a flag), kubectl's `-c, --container='':` and `-i,
# --stdin=false:` (a flag: a boolean default).
_DOCKER_HELP = re.compile(r"^ +(?:(-\w), )?(--[\w-]+)(?: ([a-z]+))? {2,}\S", re.MULTILINE)
_KUBECTL_HELP = re.compile(r"^ +(?:(-\w), )?(--[\w-]+)=(.*):$", re.MULTILINE)


def _help_options(form: Form) -> dict[str, bool] | None:
    """Each option that `TOOL PATH --help` lists, and whether it takes a value; None
    where the tool is not installed (docker's and kubectl's rows are read this way)."""
    if form.command not in ("docker", "kubectl") or shutil.which(form.command) is None:
        return None
    if form.path[:1] == ("compose",):
        return None  # the compose plugin: another program, not always beside the CLI
    shown = subprocess.run(
        [form.command, *form.path, "--help"], capture_output=True, text=True, check=False
    ).stdout
    options: dict[str, bool] = {}
    if form.command == "docker":
        for short, long, kind in _DOCKER_HELP.findall(shown):
            options.update(dict.fromkeys(filter(None, (short, long)), bool(kind)))
    else:
        for short, long, default in _KUBECTL_HELP.findall(shown):
            takes = default not in ("false", "true")
            options.update(dict.fromkeys(filter(None, (short, long)), takes))
    return options


@pytest.mark.parametrize("tool", ["docker", "kubectl"])
def test_rows_list_what_the_tools_help_says(tool: str) -> None:
    """Every option `--help` lists is in the row, a value where it takes one and a flag
    where not: an option the row lost (`docker exec -w DIR`) or filed as a flag would move
    the command word, or leave no layer."""
    if shutil.which(tool) is None:
        message = f"{tool} is not installed: its rows are not checked against its --help"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    rows = [form for form in FORMS if form.command == tool]
    read = [(form, _help_options(form)) for form in rows]
    assert any(options for _, options in read), f"no {tool} --help could be read"
    for form, options in read:
        for option, takes in (options or {}).items():
            if option == "--help":
                continue
            where = form.values | form.optional if takes else form.flags
            assert option in where, f"{form.label}: {option} ({'value' if takes else 'flag'})"


# ssh runs no command of the line with these: -N (none), -s (a subsystem), -G and -V
# (print the configuration or the version and exit).
SSH_RUNS_NOTHING = frozenset("NsGV")


def test_every_ssh_option_letter_is_read_as_the_manual_says() -> None:
    """`ssh -p val h CMD`, `ssh -pval h CMD`, `ssh -4 h CMD`: each letter of ssh's table
    before the host, the remote command still the same layer."""
    grammar = OPTION_GRAMMARS["ssh"]
    for letter in sorted(grammar.values | grammar.flags):
        spellings = (
            [f"-{letter} val", f"-{letter}val"] if letter in grammar.values else [f"-{letter}"]
        )
        for spelling in spellings:
            line = f"ssh {spelling} h 'echo a; echo b'\n"
            layers = [(c.wrapper, c.text) for c in child_layers(file_layer(line))]
            expected = [] if letter in SSH_RUNS_NOTHING else [("ssh", "echo a; echo b")]
            assert layers == expected, line


NO_LAYER = [
    "docker exec --bogus c sh -c 'x; y'",  # an option the table does not list
    "docker exec $DOCKER_OPTS \"$c\" sh -c 'x; y'",  # options of unknown count, then "$c"
    "pdsh $PDSH_OPTS 'x; y'",  # `-w hosts` in a variable, or the command?
    "parallel $PARALLEL_OPTS 'x; y' ::: 1",
    "docker run --entrypoint sh img -c 'x; y'",  # the words are the entrypoint's arguments
    "kubectl exec pod sh -c 'x; y'",  # no `--`: kubectl refuses it
    "kubectl run t --image=busybox -- sh -c 'x; y'",  # no --command: the image's arguments
    "kubectl debug pod --arguments-only -- sh -c 'x; y'",
    "lxc exec c1 sh -c 'x; y'",  # lxc reads `-c` as its own option
    "mosh web-1 sh -c 'x; y'",  # mosh reads `-c` as its own option
    "ansible all -m command -a 'x; y'",  # the command module runs no shell
    "parallel -q sh -c 'x; y' ::: 1",  # -q: the words are quoted, no shell parses them
    "scp 'a b' web-1:/tmp/",  # scp, sftp and rsync -e run no command
    "sftp web-1",
    "rsync -e 'ssh -p 2222' a web-1:b",
]


@pytest.mark.parametrize("line", NO_LAYER)
def test_no_layer_where_the_shape_is_unknown(line: str) -> None:
    assert [c for c in child_layers(file_layer(line + "\n")) if c.kind == "string"] == []


def test_parallel_runs_its_words_joined_by_a_shell() -> None:
    """`parallel ssh {} "uptime; df -h" ::: hosts`: the shell parallel starts sees
    `ssh {} uptime; df -h`, so `df -h` runs locally; the ssh inside is a layer again."""
    line = 'parallel ssh {} "uptime; df -h" ::: h1 h2\n'
    (outer,) = child_layers(file_layer(line))
    assert outer.text == "ssh {} uptime; df -h"
    (inner,) = child_layers(outer)
    assert (inner.wrapper, inner.text) == ("ssh", "uptime")


# -- findings through a wrapper, at the right line and column -----------------------------
def test_finding_inside_kubectl_exec() -> None:
    text = 'set -e\nkubectl -n prod exec deploy/api -c app -- sh -c "ssh db ls \\"/srv/my dir\\""\n'
    (found,) = kit.findings(text, "HL106")
    assert (found.start, found.end) == kit.span_of(text, "ssh db")
    assert "`/srv/my dir` arrives as 2 separate arguments" in found.message


def test_finding_in_a_here_string_to_ssh() -> None:
    text = 'ssh $m bash <<< "nohup ./server &"\n'
    (found,) = kit.findings(text, "HL104")
    assert found.start == text.index("nohup")
    children = [(c.kind, c.wrapper, c.text) for c in child_layers(file_layer(text))]
    assert children == [("string", "ssh", "bash"), ("stdin", "ssh", "nohup ./server &\n")]


# -- here-strings and process substitutions: bash reads them as a script ------------------
def _stdin_layer_text(text: str) -> list[str]:
    return [c.text for c in child_layers(file_layer(text)) if c.kind == "stdin"]


@pytest.mark.parametrize(
    "text",
    [
        'bash <<< "echo a; echo b"\n',
        "sh <<< 'echo a; echo b'\n",
        "bash <(cat <<'EOF'\necho a; echo b\nEOF\n)\n",
    ],
)
def test_script_from_here_string_or_substitution(text: str) -> None:
    (script,) = _stdin_layer_text(text)
    assert script == "echo a; echo b\n"
    ran = subprocess.run(["bash", "-c", text], capture_output=True, text=True, check=True)
    assert ran.stdout == "a\nb\n"


# A user's shell with no command reads its script from stdin: `sudo su`, `su -`,
# `sudo -i`, `sudo -s` (root runs them here without a password).
SHELLS_WITHOUT_COMMAND = [
    "su",
    "su -",
    "su - root",
    "sudo su",
    "sudo -i",
    "sudo -s",
    "sudo -u root -i",
]


@pytest.mark.parametrize("shell", SHELLS_WITHOUT_COMMAND)
def test_a_users_shell_without_a_command_reads_its_script_from_stdin(shell: str) -> None:
    text = f"ssh web-1 {shell} <<'EOF'\necho a; echo b\nEOF\n"
    (script,) = [c for c in child_layers(file_layer(text)) if c.kind == "stdin"]
    assert (script.text, script.remote) == ("echo a; echo b\n", True)
    if subprocess.run(["id", "-u"], capture_output=True, text=True).stdout.strip() != "0":
        pytest.fail("the oracle runs these shells as root, without a password")
    ran = subprocess.run(
        ["bash", "-c", f"{shell} <<'EOF'\necho a; echo b\nEOF\n"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    assert ran.stdout == "a\nb\n"


@pytest.mark.parametrize("command", ["su -c 'echo a'", "sudo -i ls", "su root other", "sudo -l"])
def test_a_user_shell_given_a_command_reads_no_script(command: str) -> None:
    text = f"ssh web-1 {command} <<'EOF'\necho a; echo b\nEOF\n"
    assert [c for c in child_layers(file_layer(text)) if c.kind == "stdin"] == []


@pytest.mark.parametrize(
    "text",
    [
        "ssh -n web-1 bash <<< 'echo a'\n",  # -n: ssh reads /dev/null, bash gets nothing
        "bash <(curl -fsSL https://example.com/install.sh)\n",  # printed at run time
        "bash script.sh <<< 'echo a'\n",  # the script is a file; stdin is its input
    ],
)
def test_no_script_layer(text: str) -> None:
    assert _stdin_layer_text(text) == []


def test_python_fstring_with_options_of_unknown_count() -> None:
    """WILD pattern 5 in Python: `{proxy_opts}` stands before the host; the quoted remote
    command is not taken for the host's arguments (no HL106 "2 words", no HL102)."""
    source = (
        "import subprocess\n"
        "def fetch(proxy_opts, key, user, ip):\n"
        "    subprocess.run(\n"
        "        f\"ssh {proxy_opts} -i {key} {user}@{ip} 'find /srv -name x | xargs cat'\",\n"
        "        shell=True,\n"
        "    )\n"
    )
    found = check_text(source, "python", "t.py", None)
    assert [f.code for f in found if f.code in ("HL102", "HL104", "HL106", "HL110")] == []


# -- words read as bash and env read them (issue 18, item 10) -----------------------------
ENV_SPLITS = [
    "a b  c",
    "'a b' \"c d\" e",
    "a\\ b",  # not an escape env knows: refused (None)
    "x\\tz 'q\\'r' \"s\\\"t\"",
    "one #two three",
    'sudo ssh h "a; b"',
]


@pytest.mark.parametrize("string", ENV_SPLITS)
def test_env_split_string_agrees_with_env(string: str) -> None:
    word = Word(0, len(string), string, tuple(range(len(string) + 1)))
    split = split_string(word)
    done = subprocess.run(
        ["env", "-S", "printf <%s>\\\\n " + string],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if split is None:
        assert done.returncode == 125 and "invalid sequence" in done.stderr, done
        return
    assert done.returncode == 0, done.stderr
    assert [w.value for w in split] == [line[1:-1] for line in done.stdout.splitlines()]
    for w in split:  # each character maps back to where it stands in the string
        assert all(string[k] in (w.value[n], "\\", "'", '"') for n, k in enumerate(w.offsets[:-1]))


BRACES = ["{ssh,}", "x{a,b}y", "{a,{b,c}}", "{1..3}", "{c..a}", "{a}", "a{b,}{,c}"]


@pytest.mark.parametrize("word", BRACES)
def test_brace_expansion_agrees_with_bash(word: str) -> None:
    done = subprocess.run(
        ["bash", "-c", f"printf '<%s>\\n' {word}"], capture_output=True, text=True, check=True
    )
    assert brace_expand(word) == [line[1:-1] for line in done.stdout.splitlines()]


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("$'ssh' h x", "ssh"),
        ('"ss"h h x', "ssh"),
        ("{ssh,} h x", "ssh"),
        ("{ssh,h} x", None),  # two words in the command's place: a static limit
        ("ss[h] h x", "ssh"),
        ("/usr/bin/ss? h x", "ssh"),
        ("ss[x] h x", None),
        ("s* h x", None),  # matches several names of the table
        ('"ss[h]" h x', "ss[h]"),  # quoted: no glob
    ],
)
def test_command_name_as_bash_reads_it(line: str, name: str | None) -> None:
    assert command_name(parse_script(line).commands[0].words[0]) == name


def test_ifs_split_cuts_at_unquoted_ifs_only() -> None:
    words = parse_script('pkill${IFS}-f$IFS"x" "a${IFS}b" c$IFS$d').commands[0].words
    assert [w.value for w in ifs_split(words)] == ["pkill", "-f", "x", "a${IFS}b", "c$IFS$d"]
    (pattern,) = [w for w in ifs_split(words) if w.value == "x"]
    assert pattern.offsets == (18, 19)  # the x inside its quotes, and its end


def test_env_split_string_with_a_variable_gives_no_layer() -> None:
    assert _resolve('env -S "$X" ssh h "a; b"') is None  # $X may be `echo`: not known
    assert _resolve("env -S 'ssh h ${X}'") is None
    found = _resolve("env -S '' ssh h \"a; b\"")
    assert found is not None and [w.value for w in found.words] == ["a; b"]


# -- wrappers.py: env -S escapes ------------------------------------------------------------


def test_env_split_string_reads_a_carriage_return_escape() -> None:
    """coreutils `env -S` reads `\\r` as a carriage return (env prints it): `ss\\rh` is
    no ssh (env: no such file, 127), so the string after it is no remote command; the
    same words with `ssh` are, HL103 at their `pkill` (wrappers `_ENV_ESCAPES`)."""
    printed = subprocess.run(
        ["env", "-S", r"printf %s a\rb"], capture_output=True, check=True, timeout=30
    )
    assert printed.stdout == b"a\rb"
    missing = subprocess.run(
        ["env", "-S", r"ss\rh -V"], capture_output=True, check=False, timeout=30
    )
    assert missing.returncode == 127
    template = "env -S '{name} h \"pkill -f hlmutf; echo after\"'\n"
    assert kit.findings(template.format(name="ss\\rh"), "HL103") == []
    text = template.format(name="ssh")
    at = text.index("pkill")
    (f,) = kit.findings(text, "HL103")
    assert (f.start, f.end) == (at, at + len("pkill"))


# -- wrappers.py: `env -S STRING` splices words in; an anchor is a word of the command -----


# bash decodes `\U` escapes for the locale's encoding; the de-quoter models UTF-8.


_SPLIT = "env -S 'nice -n 5 ssh {host}' 'bash -c \"echo \\\"\\$HOME\\\"\"'\n"


def test_a_wrapper_inside_env_split_string_is_anchored_on_the_command_own_word(
    sshd: SshServer,
) -> None:
    """`env -S 'nice -n 5 ssh h' 'bash -c "..."'`: env splits the string into five words
    where the command has one, so the ssh it runs is word 4 of the spliced argv but not of
    the command.  HL111 (three shells: local, ssh's, bash -c's) is reported on `-S`, the
    command's word that the spliced words came from, not at an index of the spliced argv
    (past the command's four words: an internal error).  Through the real sshd the
    command runs, and the innermost shell expands `$HOME`.  (Run 7: the map from spliced
    words back to the command's words was not built.)"""
    text = _SPLIT.format(host="h")
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL111"]
    assert (found.start, found.end, found.severity) == (4, 6, Severity.INFO)
    assert text[found.start : found.end] == "-S"
    assert "three shells (local -> ssh -> bash -c)" in found.message
    host = f"{sshd.user}@gpu"
    home = kit.bash_bytes(f"ssh {host} 'echo \"$HOME\"'", sshd.env())
    assert home.startswith(b"/")
    assert kit.bash_bytes(_SPLIT.format(host=host), sshd.env()) == home
