"""HL109 sudo-redirect: `sudo CMD > f` opens f in the caller's shell, not as root.

Anchors computed from the text, negatives, the `sudo tee` fix (safe for echo/printf/cat
into a system path, unsafe otherwise) re-checked and applied twice, and at run time, as
an unprivileged user created by the test with passwordless sudo: the redirection fails
(or writes a user-owned file), the fixed `sudo tee` writes the file as root.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.engine import check_shell, check_text, fix_shell
from heredoc_lint.model import Applicability, Finding, Severity
from heredoc_lint.rules.hl109_sudo_redirect import INVALID, VALID

CODE = "HL109"
USER = "hl109-tester"
SUDOERS = Path("/etc/sudoers.d/heredoc-lint-hl109")


def hl109(text: str) -> list[Finding]:
    return kit.findings(text, CODE, every_rule=True)


# Positives, negatives and fixes: INVALID and VALID in the rule's module, run there with
# HL109 alone selected; here with every rule on, and each fix's applicability.
def test_every_rule_on_each_invalid_example_is_one_error() -> None:
    for example in INVALID:
        span = kit.occurrence_span(example.text, example.at)
        f = kit.assert_single(hl109(example.text), span, Severity.ERROR)
        assert "calling shell" in f.message and "tee" in f.message


def test_every_rule_on_each_valid_example_is_clean() -> None:
    for text in VALID:
        assert hl109(text) == []


# The INVALID examples whose fix is unsafe (a command that may fail, or a file the caller
# may write); every other fix there is safe: echo, printf or cat into a system path.
UNSAFE_FIXES = (
    "sudo echo x >> f\n",
    "sudo grep -v old /etc/hosts > /etc/hosts.new\n",
    "sudo grep -v old /etc/hosts > /etc/hosts.new 2>/dev/null; echo next\n",
    "sudo systemctl status nginx &> /var/log/status.log\n",
    "sudo -E env FOO=1 sed s/a/b/ /etc/a > /etc/b\n",
    'ssh h "cd /etc/apt && sudo echo deb x > x.list"\n',
    "sudo echo deb x > x.list\ncd /etc/apt\nsudo mv x.list sources.list.d/\n",
)


def test_fix_applicability_and_every_rule_on() -> None:
    assert set(UNSAFE_FIXES) <= {example.text for example in INVALID}
    for example in INVALID:
        if example.fixed is None:
            continue
        unsafe = example.text in UNSAFE_FIXES
        kit.single_fix(hl109(example.text), Applicability.UNSAFE if unsafe else Applicability.SAFE)
        outcome = kit.assert_fixed_clean_and_idempotent(
            example.text, CODE, unsafe=unsafe, every_rule=True
        )
        assert outcome == example.fixed


def test_message() -> None:
    (f,) = hl109(kit.case_text("sysctl.sh"))
    assert f.message.startswith(
        "`> /proc/sys/net/ipv4/ip_forward` is opened by the calling shell, with the caller's "
        "rights, before sudo starts: only `echo` runs as root."
    )
    assert '"Permission denied"' in f.message
    assert "`sudo tee /proc/sys/net/ipv4/ip_forward > /dev/null`" in f.message
    (f,) = hl109("sudo -u www echo x >> /etc/x\n")
    assert "only `echo` runs as www" in f.message and "tee -a" in f.message


def test_cli_json_line_and_column(tmp_path: Path) -> None:
    text = "#!/bin/bash\nset -e\nsudo echo 1 > /proc/sys/net/ipv4/ip_forward\n"
    path = tmp_path / "sysctl.sh"
    path.write_text(text)
    (item,) = [f for f in kit.cli_json(path) if f["code"] == CODE]
    kit.assert_json_position(item, text, kit.span_of(text, "> /proc", 1), (3, 13))


def test_clean_case_file() -> None:
    assert hl109(kit.case_text("clean_ok.sh")) == []


# -- a script that has established it runs as root (WILD pattern 2) ------------------------
GUARDS = [
    '[ "$EUID" -ne 0 ] && { echo "run as root"; exit 1; }\n',
    "[[ $EUID -ne 0 ]] && exit 1\n",
    'if [ "$(id -u)" != 0 ]; then\n  echo "run as root" >&2\n  exit 1\nfi\n',
    "if [ `id -u` -ne 0 ]; then echo no; exit 2; fi\n",
    '[ "$(id -u)" -eq 0 ] || { echo "run as root"; exit 1; }\n',
    "(( EUID != 0 )) && exit 1\n",
    'if ! [ "$EUID" = 0 ]; then exit 1; fi\n',
    'if [ "$(whoami)" != "root" ]; then echo "not root"; exit 1; fi\n',
    '[ "$EUID" -ne 0 ] && exec sudo bash "$0" "$@"\n',  # re-run as root
    "if [ $EUID -eq 0 ]; then :; else echo no; exit 1; fi\n",
    'if [[ $EUID != 0 ]]; then\n  exec sudo "$0" "$@"\nfi\n',
]
GUARDED = "sudo echo 127.0.0.1 web >> /etc/hosts\n"


@pytest.mark.parametrize("guard", GUARDS)
def test_after_a_root_guard_it_is_info(guard: str) -> None:
    text = "#!/bin/bash\n" + guard + GUARDED
    f = kit.assert_single(hl109(text), kit.span_of(text, ">> /etc", 2), Severity.INFO)
    assert "the root check on line 2 exits unless that shell is root" in f.message


def test_a_guard_covers_the_functions_and_a_function_guard_its_own_rest() -> None:
    text = (
        "#!/bin/bash\nsetup() {\n  " + GUARDED + "}\n"
        '[ "$EUID" -ne 0 ] && { echo "run as root"; exit 1; }\nsetup\n'
    )
    assert [f.severity for f in hl109(text)] == [Severity.INFO]
    inside = "f() {\n  [ $EUID -ne 0 ] && exit 1\n  " + GUARDED + "}\n" + GUARDED
    found = hl109(inside)
    assert [f.severity for f in found] == [Severity.INFO, Severity.ERROR]  # the second: outside


NOT_GUARDS = [
    '[ "$EUID" -ne 0 ] && echo "you should be root"\n',  # warns, goes on
    "[ $EUID -eq 0 ] && exit 1\n",  # refuses root: the rest runs as a user
    "if [ $EUID -ne 0 ]; then echo warn; fi\n",
    'if [ "$(id -u)" = 0 ]; then exit 1; fi\n',
    "exit_if_root() { :; }\n",
]


@pytest.mark.parametrize("line", NOT_GUARDS)
def test_no_guard_keeps_the_error(line: str) -> None:
    text = "#!/bin/bash\n" + line + GUARDED
    kit.assert_single(hl109(text), kit.span_of(text, ">> /etc", 2), Severity.ERROR)


def test_a_guard_after_the_command_does_not_count() -> None:
    text = "#!/bin/bash\n" + GUARDED + '[ "$EUID" -ne 0 ] && exit 1\n'
    kit.assert_single(hl109(text), kit.span_of(text, ">> /etc", 2), Severity.ERROR)


def test_shellcheck_sc2024_directive_suppresses() -> None:
    assert hl109("# shellcheck disable=SC2024\n" + GUARDED) == []


@pytest.mark.parametrize(
    "text",
    [
        # stderr keeps the old stdout: a pipe would change that
        "sudo make 2>&1 > /etc/build.log\n",
        "sudo cmd > /etc/a > /etc/b\n",
        "nohup sudo echo x > /etc/x &\n",
    ],
)
def test_no_fix_for_tangled_redirections(text: str) -> None:
    found = hl109(text)
    assert found and all(f.fix is None for f in found)


def test_cli_fix_of_the_case_file(tmp_path: Path) -> None:
    path = kit.copy_case("sysctl.sh", tmp_path)
    assert kit.cli_fix(path) == (
        "#!/bin/bash\necho 1 | sudo tee /proc/sys/net/ipv4/ip_forward > /dev/null\n"
    )


# -- runtime: an unprivileged user with passwordless sudo ----------------------------------
@dataclass(frozen=True)
class SudoUser:
    name: str
    uid: int
    root_dir: Path  # under /var/lib, owned by root, mode 755: only root may create files
    user_dir: Path  # owned by the user

    def run(self, text: str) -> subprocess.CompletedProcess[str]:
        script = self.user_dir / "script.sh"
        script.write_text(text)
        os.chown(script, self.uid, -1)
        argv = ["runuser", "-u", self.name, "--", "bash", "--norc", "--noprofile", str(script)]
        return kit.run_script(argv, self.user_dir, timeout=60)


@pytest.fixture(scope="module")
def sudo_user() -> Iterator[SudoUser]:
    missing = [
        tool
        for tool in ("sudo", "useradd", "userdel", "runuser", "visudo")
        if shutil.which(tool) is None
    ]
    if os.geteuid() != 0 or missing:
        message = (
            "HL109 runtime tests need root and "
            + ", ".join(missing or ["root"])
            + " (apt-get install sudo)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    created = False
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--no-create-home", "--shell", "/bin/bash", USER], check=True)
        created = True
    SUDOERS.write_text(f"{USER} ALL=(ALL:ALL) NOPASSWD: ALL\n")
    SUDOERS.chmod(0o440)
    # Under /var/lib, a system directory: there the fix of `sudo echo > f` is safe.
    base = Path(tempfile.mkdtemp(prefix="heredoc-lint-hl109-", dir="/var/lib"))
    try:
        subprocess.run(["visudo", "-c", "-f", str(SUDOERS)], check=True, capture_output=True)
        base.chmod(0o755)
        root_dir = base / "root-only"
        root_dir.mkdir(mode=0o755)
        user_dir = base / "user"
        user_dir.mkdir()
        entry = pwd.getpwnam(USER)
        os.chown(user_dir, entry.pw_uid, entry.pw_gid)
        yield SudoUser(USER, entry.pw_uid, root_dir, user_dir)
    finally:
        shutil.rmtree(base, ignore_errors=True)
        SUDOERS.unlink(missing_ok=True)
        if created:
            subprocess.run(["userdel", USER], check=False, capture_output=True)


def test_runtime_setup_is_unprivileged(sudo_user: SudoUser) -> None:
    proc = sudo_user.run("id -u; sudo id -u\n")
    assert proc.stdout.split() == [str(sudo_user.uid), "0"], proc.stderr


def test_runtime_redirection_fails_and_fixed_tee_writes_as_root(sudo_user: SudoUser) -> None:
    target = sudo_user.root_dir / "ip_forward"
    text = f"#!/bin/bash\nsudo echo 1 > {target}\necho status=$?\n"
    (f,) = hl109(text)
    proc = sudo_user.run(text)
    assert "Permission denied" in proc.stderr
    assert "status=1" in proc.stdout
    assert not target.exists()

    fixed = kit.fix_text(text, CODE, every_rule=True)  # safe: --fix applies it
    assert f"echo 1 | sudo tee {target} > /dev/null" in fixed
    proc = sudo_user.run(fixed)
    assert "status=0" in proc.stdout, proc.stderr
    assert target.read_text() == "1\n"
    assert target.stat().st_uid == 0


def test_runtime_heredoc_into_sudo_cat(sudo_user: SudoUser) -> None:
    target = sudo_user.root_dir / "motd"
    text = f"#!/bin/bash\nsudo cat > {target} << EOF\nWelcome\nEOF\n"
    proc = sudo_user.run(text)
    assert proc.returncode != 0 and "Permission denied" in proc.stderr
    assert not target.exists()
    fixed = kit.fix_text(text, CODE, every_rule=True)
    assert f"sudo tee {target} > /dev/null << EOF" in fixed
    proc = sudo_user.run(fixed)
    assert proc.returncode == 0, proc.stderr
    assert target.read_text() == "Welcome\n"
    assert target.stat().st_uid == 0


def test_runtime_writable_file_is_written_by_the_user(sudo_user: SudoUser) -> None:
    """Where the caller may write, the file is the caller's although the command ran as root;
    the (unsafe) fix makes it root's: that change of owner is why it is unsafe there."""
    target = sudo_user.user_dir / "who.txt"
    proc = sudo_user.run(f"#!/bin/bash\nsudo id -u >> {target}\n")
    assert proc.returncode == 0, proc.stderr
    assert target.read_text() == "0\n"  # the command ran as root...
    assert target.stat().st_uid == sudo_user.uid  # ...the file was opened by the user
    target.unlink()

    text = "#!/bin/bash\nsudo echo x >> who.txt\n"  # run in user_dir
    kit.single_fix(hl109(text), Applicability.UNSAFE)
    proc = sudo_user.run(text)
    assert proc.returncode == 0, proc.stderr
    assert target.stat().st_uid == sudo_user.uid
    target.unlink()
    proc = sudo_user.run(kit.fix_text(text, CODE, unsafe=True, every_rule=True))
    assert proc.returncode == 0, proc.stderr
    assert target.read_text() == "x\n"
    assert target.stat().st_uid == 0


@pytest.mark.parametrize("guard", [GUARDS[0], GUARDS[2], GUARDS[4], GUARDS[8]])
def test_runtime_the_guard_stops_a_user_and_root_writes_the_file(
    guard: str, sudo_user: SudoUser
) -> None:
    """Bash is the oracle: as a user the guard exits (or re-runs as root) before the write;
    as root the guarded `sudo echo >> f` writes the file, owned by root."""
    target = sudo_user.root_dir / "hosts"
    text = "#!/bin/bash\n" + guard + f"sudo echo 127.0.0.1 web >> {target}\necho wrote\n"
    (f,) = hl109(text)
    assert f.severity is Severity.INFO
    proc = sudo_user.run(text)
    if "exec sudo" in guard:  # re-run as root: the write succeeds
        assert proc.returncode == 0 and "wrote" in proc.stdout, proc.stderr
        assert target.stat().st_uid == 0
        target.unlink()
    else:
        assert proc.returncode != 0 and "wrote" not in proc.stdout
        assert not target.exists()  # no "Permission denied": the guard stopped first
        assert "Permission denied" not in proc.stderr
    script = sudo_user.user_dir / "as_root.sh"
    script.write_text(text)
    proc = kit.run_script(["bash", "--norc", "--noprofile", str(script)], sudo_user.user_dir)
    assert os.geteuid() == 0 and proc.returncode == 0, proc.stderr
    assert target.read_text() == "127.0.0.1 web\n"
    assert target.stat().st_uid == 0
    target.unlink()


@pytest.mark.parametrize(
    "text",
    ["sudo echo > OUT hello\n", 'ssh h "sudo echo > $PWD/OUT hello"\n', "sudo echo >> OUT a b\n"],
)
def test_no_fix_when_words_follow_the_target(text: str, tmp_path: Path) -> None:
    """bash gives the words after `> OUT` to the command (`echo > OUT hello` writes hello),
    but tree-sitter-bash keeps them in the redirection: a tee rewrite made from it would
    drop them, so the finding stays and no fix is offered."""
    out = tmp_path / "OUT"
    plain = text.replace("sudo ", "").replace('ssh h "', "").replace('"\n', "\n")
    subprocess.run(["bash", "-c", plain], cwd=tmp_path, check=True)
    assert out.read_text().strip() in ("hello", "a b")  # the words reached the command
    (finding,) = hl109(text)
    assert finding.severity is Severity.ERROR
    assert finding.fix is None


# -- documentation placeholders: `<NAME>` glued inside a word is no redirection -------------

# Runbooks and READMEs write `cp /tmp/app-<VERSION>/app /usr/local/bin`; tree-sitter-bash
# (and bash) read `<VERSION` and `>/app ...` as redirections, which no author means.
PLACEHOLDER_LINES = [
    "sudo cp /tmp/app-<VERSION>/app /usr/local/bin\n",
    "sudo mv ~/Downloads/<your-user>/key.pem /etc/ssl/private/\n",
    "sudo ln -s /opt/app-<VERSION> /opt/app\n",  # glued after `-`, a blank behind it
    "sudo chown <user>:<group> /var/www\n",  # glued before `:`
    "sudo echo node-<N>.example.com\n",
    "sudo cp build/<target>/app /usr/local/bin/ && echo done\n",
    "sudo -u deploy echo token=<api_token>/x\n",
    "sudo install -m 0644 app.conf /etc/<env_name>/app.conf\n",
]


@pytest.mark.parametrize("text", PLACEHOLDER_LINES)
def test_a_placeholder_is_no_redirection(text: str) -> None:
    assert hl109("#!/bin/bash\n" + text) == []


def test_bash_reads_the_placeholder_as_redirections(tmp_path: Path) -> None:
    """The oracle: bash parses the line, then reads a file `VERSION` and writes `out`, giving
    the command what is left (`app-`): nobody writes that on purpose."""
    line = "echo cp app-<VERSION>out /usr/local/bin\n"
    script = tmp_path / "t.sh"
    script.write_text(line)
    assert subprocess.run(["bash", "-n", str(script)], check=False).returncode == 0
    proc = subprocess.run(["bash", str(script)], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode != 0 and "VERSION: No such file or directory" in proc.stderr
    (tmp_path / "VERSION").write_text("1.2\n")
    proc = subprocess.run(["bash", str(script)], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0
    assert (tmp_path / "out").read_text() == "cp app- /usr/local/bin\n"


# Real redirections next to `<` and `>` stay reported: (script, text at the anchor, width).
NOT_PLACEHOLDERS = [
    ("sudo echo 1 > /proc/sys/x\n", "> /proc", 1),
    ("sudo cat <<EOF > /etc/x\nhi\nEOF\n", "> /etc/x", 1),
    ("sudo cat <<EOF>/etc/x\nhi\nEOF\n", ">/etc/x", 1),  # `<EOF>`: a heredoc's word
    ("sudo cmd >/etc/f\n", ">/etc/f", 1),
    ("sudo sort 0<in>/etc/out\n", ">/etc/out", 1),  # `0<in`: stdin of sort
    ("sudo echo x > /etc/app-<VERSION>.conf\n", "> /etc/app-", 1),
    ("sudo echo x >/etc/<file>\n", ">/etc/", 1),
]


@pytest.mark.parametrize(("text", "needle", "width"), NOT_PLACEHOLDERS)
def test_real_redirections_by_placeholders_stay(text: str, needle: str, width: int) -> None:
    text = "#!/bin/bash\n" + text
    kit.assert_single(hl109(text), kit.span_of(text, needle, width), Severity.ERROR)


@pytest.mark.parametrize(
    ("text", "target"),
    [
        ("sudo echo x >/etc/<file>\n", "/etc/<file>"),
        ("sudo echo x > /etc/app-<VERSION>.conf\n", "/etc/app-<VERSION>.conf"),
        ("sudo printf '%s' x >> /etc/<name>.d/<NAME>-x\n", "/etc/<name>.d/<NAME>-x"),
    ],
)
def test_a_placeholder_in_the_target_is_part_of_its_name(text: str, target: str) -> None:
    """`> /etc/<file>` is a redirection into a file to be named: reported with the whole
    name, and with no fix (a rewrite would tear the placeholder from its path)."""
    (f,) = hl109(text)
    assert f.severity is Severity.ERROR
    tee = "tee -a" if ">>" in text else "tee"
    assert f"`{target}`" in f.message and f"{tee} {target} > /dev/null" in f.message
    assert f.fix is None


def markdown_hl109(block: str) -> list[Finding]:
    text = f"# Install\n\n```bash\n{block}```\n"
    return [f for f in check_text(text, "markdown", "x.md") if f.code == CODE]


@pytest.mark.parametrize("text", PLACEHOLDER_LINES)
def test_a_placeholder_in_markdown_is_no_redirection(text: str) -> None:
    assert markdown_hl109(text) == []


@pytest.mark.parametrize(("text", "needle", "width"), NOT_PLACEHOLDERS)
def test_real_redirections_in_markdown_stay(text: str, needle: str, width: int) -> None:
    doc = f"# Install\n\n```bash\n{text}```\n"
    (f,) = [f for f in check_text(doc, "markdown", "x.md") if f.code == CODE]
    assert (f.start, f.end) == kit.span_of(doc, needle, width)
    assert f.severity is Severity.ERROR


def test_cli_placeholder_in_a_script_and_a_runbook(tmp_path: Path) -> None:
    line = "sudo cp /tmp/app-<VERSION>/app /usr/local/bin\n"
    (tmp_path / "install.sh").write_text("#!/bin/bash\n" + line)
    (tmp_path / "README.md").write_text(f"# Install\n\n```bash\n{line}```\n")
    for name in ("install.sh", "README.md"):
        found = kit.cli_json(tmp_path / name, "--severity", "info")
        assert [f for f in found if f["code"] == CODE] == []


# -- a script that runs, without sudo, what only root may: it is run as root ---------------
ROOT_WORK = [
    "apt-get update\n",
    "apt-get install -y nginx\n",
    "systemctl restart nginx\n",
    "useradd -m app\n",
    "f() { dnf install -y git; }\nf\n",
    "rm -rf /etc/yum.repos.d/ceph*\n",  # hbulpf/ServerOps: files only root may change
    "mkdir -p /etc/app\n",
    "cp app.conf /etc/app/\n",
]


@pytest.mark.parametrize("work", ROOT_WORK)
def test_a_script_doing_root_work_without_sudo_is_info(work: str) -> None:
    text = "#!/bin/bash\n" + work + "sudo echo x >> /etc/hosts\n"
    (f,) = hl109(text)
    assert (f.severity, f.evidence) == (Severity.INFO, "root-by-action")
    assert "without sudo on line 2, which only root may do" in f.message


NOT_ROOT_WORK = [
    "sudo apt-get update\n",  # the script asks for root where it needs it
    "systemctl --user restart app\n",
    "systemctl status nginx\n",
    "apt-get -s install nginx\n",  # a simulation
    "echo $(apt-get --version)\n",
    "apt-cache policy nginx\n",
    "cp /etc/hosts /tmp/hosts.bak\n",  # reading /etc: any user may
    "rm -f /usr/local/bin/app\n",  # /usr/local is often the admin's own
    "mkdir -p ~/etc/app\n",
]


@pytest.mark.parametrize("work", NOT_ROOT_WORK)
def test_a_script_doing_no_root_work_keeps_the_error(work: str) -> None:
    text = "#!/bin/bash\n" + work + "sudo echo x >> /etc/hosts\n"
    assert [(f.severity, f.evidence) for f in hl109(text)] == [
        (Severity.ERROR, "unprivileged-redirect")
    ]


def test_only_root_may_do_that_work() -> None:
    """The oracle for the list: as `nobody`, these commands are refused."""
    if os.geteuid() != 0:
        pytest.fail("the oracle switches to nobody, which needs root")
    for command in ("apt-get install -y --no-download hello", "useradd hlzq-probe"):
        done = subprocess.run(
            ["su", "nobody", "-s", "/bin/sh", "-c", command],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode != 0, (command, done.stdout)
        assert "root" in (done.stdout + done.stderr).lower() or "denied" in done.stderr.lower()


# -- a transcript whose prompt is root's (`#`): root's shell opens the file -----------------
@pytest.mark.parametrize(
    ("transcript", "reported"),
    [
        ("root@kali:~# sudo echo 10.0.0.5 box >> /etc/hosts\n", []),
        ("[root@master bin]# sudo echo 1 > /proc/sys/net/ipv4/ip_forward\n", []),
        ("# sudo echo 1 > /proc/sys/vm/drop_caches\n", []),
        # `su` then a root prompt, then the user's prompt again: only the user's line.
        (
            "$ su root\nPassword:\nroot@kali:~# sudo echo a >> /etc/hosts\n"
            "kali@kali:~$ sudo echo b >> /etc/hosts\n",
            [4],
        ),
        # ssh from a root prompt logs in as the user it names.
        ("root@admin:~# ssh ops@web 'sudo echo x > /etc/motd'\n", [1]),
    ],
)
def test_a_root_prompt_in_a_transcript_is_a_root_shell(
    transcript: str, reported: list[int]
) -> None:
    doc = f"# Box\n\n```console\n{transcript}```\n"
    found = [f for f in check_text(doc, "markdown", "x.md") if f.code == CODE]
    assert [doc.count("\n", 0, f.start) - 2 for f in found] == reported


# -- sudo kept in a variable: `SUDO=""; [ "$EUID" -ne 0 ] && SUDO=sudo; $SUDO echo > f` -----
SUDO_SET = 'SUDO=""\nif [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi\n'


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("$SUDO echo 10.0.0.5 box >> /etc/hosts\n", ">>"),
        ("${SUDO} cat > /etc/app.conf <<EOF\na=1\nEOF\n", ">"),
        ("$SUDO env LC_ALL=C printf '%s\\n' x > /etc/motd\n", ">"),
    ],
)
def test_sudo_in_a_variable_is_sudo(line: str, needle: str) -> None:
    text = SUDO_SET + line
    (f,) = hl109(text)
    assert (f.start, f.end) == kit.span_of(text, needle, len(needle))
    tool = line.split()[0]  # `$SUDO` or `${SUDO}`, as written
    assert f.severity is Severity.ERROR and f"before {tool} starts" in f.message


@pytest.mark.parametrize(
    "assignments",
    [
        'SUDO=""\n',  # never sudo
        'SUDO=""\n[ -n "$x" ] && SUDO="sudo -u app"\n',  # another user
        "SUDO=sudo\nread -r SUDO\n",  # a value read at run time
        'SUDO=sudo\nSUDO="$(command -v doas)"\n',  # a value known at run time only
        "SUDO=sudo\nSUDO=nice\n",
    ],
)
def test_a_variable_that_may_hold_more_than_sudo_is_not_read(assignments: str) -> None:
    assert hl109(assignments + "$SUDO echo x >> /etc/hosts\n") == []


def test_sudo_in_a_variable_other_forms_are_not_read() -> None:
    assert hl109(SUDO_SET + '"${SUDO:-sudo}" echo x >> /etc/hosts\n') == []


def test_runtime_sudo_in_a_variable_fails_and_its_fix_writes(sudo_user: SudoUser) -> None:
    target = sudo_user.root_dir / "hosts"
    text = f"#!/bin/bash\n{SUDO_SET}$SUDO echo 10.0.0.5 box >> {target}\necho status=$?\n"
    (f,) = hl109(text)
    proc = sudo_user.run(text)
    assert "Permission denied" in proc.stderr and "status=1" in proc.stdout
    fixed = kit.fix_text(text, CODE, every_rule=True)
    assert f"echo 10.0.0.5 box | $SUDO tee -a {target} > /dev/null" in fixed
    proc = sudo_user.run(fixed)
    assert "status=0" in proc.stdout, proc.stderr
    assert target.read_text() == "10.0.0.5 box\n" and target.stat().st_uid == 0


# -- shell/evidence.py: root guards, `read` bindings, function names -----------------------


_ROOT_ONLY = "sudo echo x > /etc/motd\n"


def _as_nobody(script: str) -> subprocess.CompletedProcess[str]:
    """bash running `script` as the user nobody: what a root guard does for a non-root."""
    return subprocess.run(
        ["runuser", "-u", "nobody", "--", "bash", "-s"],
        input=script,
        capture_output=True,
        text=True,
        check=False,
        cwd="/",
    )


@pytest.mark.parametrize(
    ("guard", "is_guard"),
    [
        ('[ "$(id -u)" -ne 0 ] && { echo need root; exit 1; }\n', True),
        ('[ "$EUID" -eq 0 ] || exit 1\n', True),
        ("if [ $EUID -ne 0 ]; then\n  echo root only\n  exit 1\nfi\n", True),
        # Three commands: `exit` runs for root, after the test failed (not a guard).
        ("[ $EUID -ne 0 ] && echo hi || exit\n", False),
    ],
)
def test_hl109_after_a_root_guard(guard: str, is_guard: bool) -> None:
    """A root check that exits unless the shell is root makes the sudo redirection work:
    an info naming the check's line; without one it is an error.  bash shows which is a
    guard: run as `nobody`, the script stops before the next line exactly then."""
    as_nobody = _as_nobody(guard + "echo reached\n")
    assert as_nobody.stderr == ""
    assert ("reached" not in as_nobody.stdout) is is_guard, as_nobody
    text = guard + _ROOT_ONLY
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL109"]
    assert text[found.start : found.end].startswith(">")
    if is_guard:
        assert found.severity is Severity.INFO
        assert "the root check on line 1 exits unless that shell is root" in found.message
    else:
        assert found.severity is Severity.ERROR


# -- HL109 --------------------------------------------------------------------------------


def _argv_of(command: str) -> str:
    """The words bash makes of `command` (its redirection to /dev/null left out)."""
    command = command.removesuffix(" > /dev/null")
    proc = subprocess.run(
        ["bash", "-c", f"printf '<%s>' {command}"], capture_output=True, timeout=30, check=True
    )
    return proc.stdout.decode()


@pytest.mark.parametrize(
    ("script", "suggested"),
    [
        ('sudo echo x > "/etc/my file"\n', "<sudo><tee></etc/my file>"),
        ("sudo echo x >> /etc/my\\ file\n", "<sudo><tee><-a></etc/my file>"),
        # under a root check: an info, whose message shows the same command
        (
            '[ "$(id -u)" = 0 ] || exit 1\nsudo echo x > "/etc/my file"\n',
            "<sudo><tee></etc/my file>",
        ),
    ],
)
def test_hl109_suggested_tee_keeps_the_target_quoted(script: str, suggested: str) -> None:
    """The `sudo tee ...` the message suggests names the file as the script wrote it
    (quotes, escapes): bash makes one argument of it, the file the script writes."""
    (one,) = kit.findings_selected(script, "HL109")
    quoted = one.message.split("`sudo tee")[1].split("`")[0]
    assert _argv_of(f"sudo tee{quoted}") == suggested


@pytest.mark.parametrize(
    ("outer", "span"),
    [
        ("sudo", None),  # the inner shell is root's: its write works
        ("sudo -u root", None),
        ("sudo -u alice", (35, 36)),  # alice's shell opens /etc/f
        ("sudo --user=alice", (39, 40)),
    ],
)
def test_hl109_inner_shell_of_sudo_runs_as_its_target_user(
    outer: str, span: tuple[int, int] | None
) -> None:
    """`sudo -u alice bash -c 'sudo echo x > /etc/f'`: the shell that opens the file is
    alice's, so the write is reported; under plain `sudo` it is root's, and is not."""
    found = [
        (f.start, f.end)
        for f in kit.findings_selected(f"{outer} bash -c 'sudo echo x > /etc/f'\n", "HL109")
    ]
    assert found == ([span] if span else [])


# -- shell/evidence.py: a list with a comment inside is read, not taken as a guard ----------


def test_a_list_with_a_comment_is_no_root_guard() -> None:
    """`[ "$EUID" -eq 0 ] &&` / `# note` / `echo root`: a comment inside the and-list
    (tree-sitter gives it four children); it exits for no one, so bash run as `nobody`
    goes on to the next line, and the sudo redirection after it stays an error
    (evidence `_is_guard`: a list not of three children is no guard)."""
    guard = '[ "$EUID" -eq 0 ] &&\n  # note\n  echo root\n'
    as_nobody = _as_nobody(guard + "echo reached\n")
    assert (as_nobody.stdout, as_nobody.stderr) == ("reached\n", "")
    text = guard + "sudo echo x > /etc/motd\n"
    (found,) = kit.findings(text, "HL109")
    at = text.index("> /etc/motd")
    assert (found.start, found.severity) == (at, Severity.ERROR)


# -- shell/evidence.py: the branch of a root guard starts after `then` -----------------------


@pytest.mark.parametrize(
    "guard",
    [
        'if [ "$EUID" -ne 0 ] && echo "exit"; then\n  echo not root\nfi\n',
        'if [ "$EUID" -ne 0 ] || exit 0; then\n  echo not root\nfi\n',
        '[ "$EUID" -ne 0 ] && echo "run this as root, or exit"\n',
        '[ "$(id -u)" -ne 0 ] && ( echo need root; exit 1 )\n',
        'if [ "$EUID" -ne 0 ]; then\n  echo need root | tee /dev/null; exit 1 | cat\nfi\n',
    ],
)
def test_an_exit_that_does_not_leave_the_script_is_no_root_guard(guard: str) -> None:
    """A root test followed by the word `exit` that is not an `exit` of this shell: an
    argument (`echo "exit"`), an `exit` in the condition of an `if` (which leaves only as
    root), an `exit` in a subshell
    or in a pipeline (a child process).  bash, run as `nobody`, reaches the next line, so
    `sudo echo x > /etc/motd` after it is still the error.  (Run 7: the condition of an
    `if` was read as its branch; the word `exit` was looked for in the text.)"""
    as_nobody = _as_nobody(guard + "echo reached\n")
    assert as_nobody.stderr == ""
    assert as_nobody.stdout.splitlines()[-1] == "reached"
    text = guard + "sudo echo x > /etc/motd\n"
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL109"]
    assert found.severity is Severity.ERROR
    assert text[found.start : found.end].startswith(">")


def test_an_else_branch_that_exits_for_a_user_is_a_root_guard() -> None:
    """`if [ $EUID -eq 0 ]; then ...; else ...; exit 1; fi`: the test says "root", the
    `else` branch leaves: a guard, so the sudo redirection after it is an info naming the
    check.  bash, run as `nobody`, stops before the next line.  (Run 7: the `else` branch
    was not found, and the guard was not one.)"""
    guard = 'if [ "$EUID" -eq 0 ]; then\n  echo root\nelse\n  echo need root\n  exit 1\nfi\n'
    as_nobody = _as_nobody(guard + "echo reached\n")
    assert (as_nobody.stdout, as_nobody.returncode) == ("need root\n", 1)
    text = guard + "sudo echo x > /etc/motd\n"
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL109"]
    assert found.severity is Severity.INFO
    assert "the root check on line 1 exits unless that shell is root" in found.message


# -- HL109: `yes` needs no privilege, so `sudo -u USER yes > F` was meant for the write -------


def test_hl109_sudo_before_a_command_that_needs_no_privilege_is_for_the_write() -> None:
    """`sudo -u deploy yes n > /srv/app/answers`: `yes`, like `echo` and `printf`, needs no
    privilege, so `sudo -u deploy` can only have been meant for the file, which the
    calling shell opens: reported, and the safe fix moves the write into `sudo -u deploy
    tee`.  `sudo -u deploy cat a > F` is a command run as another user, whose output the
    caller keeps: not reported.  (Run 7: `'yes'` cut to `'es'` in the set of commands
    that need no privilege.)"""
    for name in ("yes n", "echo n", "printf n"):
        line = f"sudo -u deploy {name} > /srv/app/answers\n"
        text = line + "sudo -u deploy cat a > /srv/app/x\n"
        found = kit.findings(text, "HL109", every_rule=True)
        assert [(text[f.start : f.end], f.severity.value) for f in found] == [(">", "error")]
        assert f"only `{name.split()[0]}` runs as deploy" in found[0].message
        fixed = fix_shell(text, "t.sh")
        assert fixed.text == (
            f"{name} | sudo -u deploy tee /srv/app/answers > /dev/null\n"
            "sudo -u deploy cat a > /srv/app/x\n"
        )
        assert kit.bash_with_path(f"set -n\n{fixed.text}").returncode == 0


# -- HL109: a descriptor duplication is no file write ---------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "sudo echo x 2>&1\n",
        "sudo echo x >&2\n",
        "sudo echo x 1>&-\n",
        "sudo echo x 2>&1-\n",
        'ssh h "sudo echo x 2>&1"\n',
    ],
)
def test_hl109_descriptor_duplication_is_not_a_write(text: str) -> None:
    assert kit.findings(text, "HL109", every_rule=True) == []


def test_hl109_file_write_next_to_a_dup_is_reported_at_its_operator() -> None:
    text = "sudo echo x > /etc/foo 2>&1\n"
    (f,) = kit.findings(text, "HL109", every_rule=True)
    assert (f.start, f.end) == kit.occurrence_span(text, ">")
    assert "/etc/foo" in f.message


# -- spans and messages --------------------------------------------------------------------


def test_hl109_inside_bash_c_string() -> None:
    """A `bash -c` layer has no ssh call (and so no login user): still reported."""
    text = 'bash -c "sudo echo x > /etc/f"\n'
    (f,) = kit.findings(text, "HL109", every_rule=True)
    assert (f.start, f.end) == kit.occurrence_span(text, ">")


def test_hl109_dup_like_file_target_is_a_write() -> None:
    """`>& /etc/log-` ends in `-` but is no descriptor: a file written for both streams."""
    text = "sudo echo x >& /etc/log-\n"
    (f,) = kit.findings(text, "HL109", every_rule=True)
    assert (f.start, f.end) == kit.occurrence_span(text, ">&")


# -- a relative file in a remote login shell's command is in the login's home --------------


def test_a_login_shell_starts_in_the_logins_home(sshd: SshServer) -> None:
    """Why `ssh h "sudo echo x > x.list"` is not reported: sshd starts the login shell in
    the login's home, where the file is the caller's own, as `~/x.list` is."""
    name = "hl109-relative-target.txt"
    home = Path(pwd.getpwnam(sshd.user).pw_dir)
    proc = run_local(f'ssh node-1 "echo staged > {name}; pwd"\n', sshd)
    try:
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == str(home)
        assert (home / name).read_text() == "staged\n"
    finally:
        (home / name).unlink(missing_ok=True)
    assert hl109(f'ssh node-1 "sudo echo staged > {name}"\n') == []
    assert hl109(f'ssh node-1 "cd /etc && sudo echo staged > {name}"\n') != []
