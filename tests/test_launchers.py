"""What other files of the project say of how a script runs (heredoc_lint.project.launchers): a
README's `sudo ./x.sh`, a driver's `ssh node sudo ./x.sh`, a Dockerfile's `CMD`, a Vagrant
shell provisioner (heredoc_lint.project.provisioning). A script run as root opens HL109's
redirection as root, so the finding is info; the answer is part of the cache key. And a
file the script itself hands to chmod or chown. A script that another file runs as the
command of an ssh session holds that session with a background job (HL104)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from cli_process import run_cli

from heredoc_lint.engine import check_text
from heredoc_lint.project.launchers import runs_as_root_by, runs_over_ssh_by
from heredoc_lint.project.provisioning import provisioned_by

SCRIPT = "#!/bin/bash\nsudo echo 'nameserver 10.0.0.2' > /etc/resolv.conf\n"


def project(tmp_path: Path, files: dict[str, str], script: str = "bin/dns.sh") -> Path:
    """A git project holding `files` (path: text) and the script at `script`."""
    (tmp_path / ".git").mkdir(parents=True)
    for name, text in {script: SCRIPT, **files}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path / script


def vagrant_project(tmp_path: Path, vagrantfile: str | None, script: str = "files/dns.sh") -> Path:
    """A git project whose Vagrantfile (if any) sits in vm/, with `script` under it."""
    (tmp_path / ".git").mkdir()
    vm = tmp_path / "vm"
    (vm / script).parent.mkdir(parents=True)
    (vm / script).write_text(SCRIPT)
    if vagrantfile is not None:
        (vm / "Vagrantfile").write_text(vagrantfile)
    return vm / script


def hl109(path: Path) -> list[tuple[str, str]]:
    return [
        (f.severity.value, f.evidence)
        for f in check_text(path.read_text(), "shell", str(path))
        if f.code == "HL109"
    ]


@pytest.mark.parametrize(
    ("files", "evidence"),
    [
        ({"README.md": "Run `sudo ./bin/dns.sh` once.\n"}, "root-by-caller"),
        # From the script's own directory, through a checkout placed elsewhere.
        ({"bin/run-all.sh": 'ssh "$NODE" sudo ./repo/bin/dns.sh 8\n'}, "root-by-caller"),
        ({"NOTES.txt": "cd bin && sudo -E bash dns.sh\n"}, "root-by-caller"),
        ({"Makefile": "dns:\n\tsudo $(PWD)/bin/dns.sh\n"}, "root-by-caller"),
        ({"setup.py": 'subprocess.run(["sudo", "bin/dns"])\n'}, "root-by-caller"),
        (
            {
                "docs/x.md": "",
                "INSTALL": "curl -fsSL https://raw.githubusercontent.com/o/r/"
                "main/bin/dns.sh | sudo bash\n",
            },
            "root-by-caller",
        ),
        # A variable named for the privilege command, in a heredoc sent to the host where
        # a copy of the script lies at a path of its own.
        (
            {"deploy.sh": "ssh h <<EOF\n$suCommand bash /opt/vpn/shell/dns.sh\nEOF\n"},
            "root-by-caller",
        ),
        ({"README.md": "SUDO=sudo\n${SUDO} ./bin/dns.sh\n"}, "root-by-caller"),
        (
            {"Dockerfile": 'FROM debian\nCOPY . /src\nCMD ["/src/bin/dns.sh"]\n'},
            "root-by-container",
        ),
        (
            {"Dockerfile": "FROM debian\nRUN apt-get update && \\\n    ./bin/dns.sh\nUSER app\n"},
            "root-by-container",
        ),
    ],
)
def test_a_script_another_file_runs_as_root_is_info(
    tmp_path: Path, files: dict[str, str], evidence: str
) -> None:
    script = project(tmp_path, files)
    launcher = runs_as_root_by("shell", str(script), SCRIPT)
    assert launcher is not None and launcher.evidence == evidence
    assert hl109(script) == [("info", evidence)]


@pytest.mark.parametrize(
    "files",
    [
        {},
        {"README.md": "Run `./bin/dns.sh` as yourself, then `sudo reboot`.\n"},
        {"README.md": "sudo chmod +x bin/dns.sh\n"},
        {"README.md": "sudo -u nobody ./bin/dns.sh\n"},
        {"README.md": "sudo -unobody ./bin/dns.sh\n"},  # the user attached
        {"README.md": "sudo -Eu nobody ./bin/dns.sh\n"},  # in a cluster of flags
        # Another project's install.sh, not this one's bin/dns.sh.
        {"README.md": "curl https://example.org/bin/dns.sh | sudo bash\n"},
        {"README.md": "sudo ./bin/db.sh\n"},
        {"README.md": "$RUNNER ./bin/dns.sh\n"},  # a variable not named for sudo
        {"Dockerfile": 'FROM debian\nUSER app\nCMD ["/src/bin/dns.sh"]\n'},
        # Only copied: COPY runs nothing.
        {"Dockerfile": "FROM debian\nCOPY bin/dns.sh /dns.sh\n"},
        # Beside the script but not above it: docs/ is not read.
        {"docs/README.md": "sudo ../bin/dns.sh\n"},
    ],
)
def test_a_script_nothing_runs_as_root_is_reported(tmp_path: Path, files: dict[str, str]) -> None:
    script = project(tmp_path, files)
    assert runs_as_root_by("shell", str(script), SCRIPT) is None
    assert hl109(script) == [("error", "unprivileged-redirect")]


PROGRAM = "import os\n\nos.system(\"sudo echo 'nameserver 10.0.0.2' > /etc/resolv.conf\")\n"


@pytest.mark.parametrize(
    ("caller", "root"),
    [
        ("sudo python3 bin/dns.py\n", True),
        ("sudo -E python3 -u ./bin/dns.py --fast\n", True),
        ("sudo /home/vagrant/repo/bin/dns.py\n", True),
        ("python3 bin/dns.py\n", False),
        ("sudo python3 bin/other.py\n", False),
        ("sudo -u www python3 bin/dns.py\n", False),
    ],
)
def test_a_python_program_run_as_root_runs_its_shells_as_root(
    tmp_path: Path, caller: str, root: bool
) -> None:
    """The shell of `os.system` is the program's child: root when the program is run
    with sudo (round ab: a lab's `sudo /home/vagrant/data/executables/x.py`)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "bin").mkdir()
    (tmp_path / "setup.sh").write_text("#!/bin/bash\n" + caller)
    program = tmp_path / "bin" / "dns.py"
    program.write_text(PROGRAM)
    launcher = runs_as_root_by("python", str(program), PROGRAM)
    assert (launcher is not None and launcher.evidence == "root-by-caller") is root
    found = [
        (f.severity.value, f.evidence)
        for f in check_text(PROGRAM, "python", str(program))
        if f.code == "HL109"
    ]
    assert found == ([("info", "root-by-caller")] if root else [("error", "unprivileged-redirect")])


def test_a_vagrant_provisioner_runs_shell_scripts_not_python(tmp_path: Path) -> None:
    script = vagrant_project(tmp_path, 'config.vm.provision "shell", path: "files/dns.py"\n')
    assert runs_as_root_by("python", str(script.with_suffix(".py")), PROGRAM) is None


def test_the_message_names_the_file_and_line(tmp_path: Path) -> None:
    script = project(tmp_path, {"README.md": "# Setup\n\n    sudo ./bin/dns.sh\n"})
    [found] = [f for f in check_text(SCRIPT, "shell", str(script)) if f.code == "HL109"]
    assert f"{tmp_path / 'README.md'} line 3 runs it as `sudo ./bin/dns.sh`" in found.message
    assert "so that shell is root and the write works" in found.message


def test_the_project_top_ends_the_search(tmp_path: Path) -> None:
    """A README above the checkout's `.git` is another project's."""
    (tmp_path / "README.md").write_text("sudo ./repo/bin/dns.sh\n")
    script = project(tmp_path / "repo", {})
    assert runs_as_root_by("shell", str(script), SCRIPT) is None


def test_text_without_sudo_needs_no_answer(tmp_path: Path) -> None:
    script = project(tmp_path, {"README.md": "sudo ./bin/dns.sh\n"})
    assert runs_as_root_by("shell", str(script), "echo hi > /tmp/x\n") is None
    assert runs_as_root_by("markdown", str(script), SCRIPT) is None


def test_a_relative_path_searches_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tool run from the project's top on `.`, as pre-commit and the bench run it."""
    project(tmp_path, {"README.md": "sudo ./bin/dns.sh\n"})
    monkeypatch.chdir(tmp_path)
    launcher = runs_as_root_by("shell", "./bin/dns.sh", SCRIPT)
    assert (
        launcher is not None and launcher.why == "README.md line 1 runs it as `sudo ./bin/dns.sh`"
    )


def test_editing_the_caller_rechecks_the_script(tmp_path: Path) -> None:
    script = project(tmp_path, {"README.md": "sudo ./bin/dns.sh\n"})
    cache = str(tmp_path / "cache")

    def severities() -> list[str]:
        ran = run_cli("--format", "json", "--severity", "info", "--cache-dir", cache, script)
        return [f["severity"] for f in json.loads(ran.stdout) if f["code"] == "HL109"]

    assert severities() == ["info"]
    (tmp_path / "README.md").write_text("./bin/dns.sh\n")
    assert severities() == ["error"]


@pytest.mark.parametrize(
    "script",
    [
        "sudo chmod 777 /srv/app/state\nsudo echo ok > /srv/app/state\n",
        'sudo echo "$v" > "$DIR/../set/last"\nsudo chown pi:www-data "$DIR/../set/last"\n',
    ],
)
def test_a_file_the_script_hands_to_chmod_or_chown_is_info(script: str) -> None:
    found = [(f.severity.value, f.evidence) for f in check_text(script) if f.code == "HL109"]
    assert found == [("info", "target-made-writable")]


def test_another_file_given_to_chmod_leaves_the_finding() -> None:
    script = "sudo chmod 755 /srv/app/run\nsudo echo ok > /srv/app/state\n"
    found = [(f.severity.value, f.evidence) for f in check_text(script) if f.code == "HL109"]
    assert found == [("error", "unprivileged-redirect")]


@pytest.mark.parametrize(
    ("script", "evidence"),
    [
        (
            "sudo chmod 777 -R /etc/nagios/\nsudo echo x >> /etc/nagios/nrpe.cfg\n",
            "target-made-writable",
        ),
        (
            "sudo chown --recursive pi /srv/app\nsudo echo x > /srv/app/state\n",
            "target-made-writable",
        ),
        ("sudo chmod -Rf 777 /srv/app\nsudo echo x > /srv/app/a/b\n", "target-made-writable"),
        # the directory alone: its files keep their modes
        (
            "sudo chmod 777 /etc/nagios/\nsudo echo x >> /etc/nagios/nrpe.cfg\n",
            "unprivileged-redirect",
        ),
        # a directory that is not above the file, though its name starts the same
        (
            "sudo chmod -R 777 /etc/nag\nsudo echo x >> /etc/nagios/nrpe.cfg\n",
            "unprivileged-redirect",
        ),
    ],
)
def test_a_directory_handed_over_with_r_holds_its_files(script: str, evidence: str) -> None:
    """Round t: `sudo chmod 777 -R /etc/nagios/` before `sudo echo ... >> /etc/nagios/nrpe.cfg`
    (a Nagios setup sent over ssh): the redirect then works for the caller."""
    (finding,) = [f for f in check_text(script) if f.code == "HL109"]
    assert finding.evidence == evidence


def test_bash_shows_a_recursive_chmod_lets_the_caller_append() -> None:
    """As nobody: appending to a root file under a directory fails, and still fails after
    `chmod 777` of the directory alone; after `chmod -R 777` of it, it works."""
    if os.geteuid() != 0:
        pytest.fail("the oracle switches to nobody, which needs root")
    top = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        top.chmod(0o755)
        (top / "nagios").mkdir()
        (top / "nagios" / "nrpe.cfg").write_text("a\n")

        def append() -> int:
            line = f"echo x >> {top}/nagios/nrpe.cfg"
            return subprocess.run(["runuser", "-u", "nobody", "--", "bash", "-c", line]).returncode

        assert append() != 0
        subprocess.run(["chmod", "777", f"{top}/nagios"], check=True)
        assert append() != 0
        subprocess.run(["chmod", "-R", "777", f"{top}/nagios"], check=True)
        assert append() == 0
        assert (top / "nagios" / "nrpe.cfg").read_text() == "a\nx\n"
    finally:
        shutil.rmtree(top)


# -- Vagrant: a shell provisioner runs its scripts as root ----------------------------------
@pytest.mark.parametrize(
    "vagrantfile",
    [
        'Vagrant.configure("2") do |c|\n  c.vm.provision "shell", path: "files/dns.sh"\nend\n',
        # A path built at run time: every script under its literal start.
        "Vagrant.configure('2') do |c|\n  c.vm.provision :shell do |s|\n"
        "    s.path = 'files/' + opts[:boot]\n  end\nend\n",
        # Inline, through the synced folder /vagrant (the Vagrantfile's directory).
        'Vagrant.configure("2") do |c|\n  c.vm.provision("shell", inline: '
        '"bash /vagrant/files/dns.sh")\nend\n',
    ],
)
def test_a_script_a_privileged_provisioner_runs_is_root(tmp_path: Path, vagrantfile: str) -> None:
    script = vagrant_project(tmp_path, vagrantfile)
    assert provisioned_by(str(script)) == str(tmp_path / "vm" / "Vagrantfile")
    assert hl109(script) == [("info", "root-by-provisioner")]


@pytest.mark.parametrize(
    ("vagrantfile", "script"),
    [
        (None, "files/dns.sh"),
        # The user asked for the login user: the script runs with its rights.
        (
            'Vagrant.configure("2") do |c|\n  c.vm.provision "shell", path: "files/dns.sh",'
            " privileged: false\nend\n",
            "files/dns.sh",
        ),
        # Another script: this one is not provisioned.
        (
            'Vagrant.configure("2") do |c|\n  c.vm.provision "shell", path: "files/db.sh"\nend\n',
            "files/dns.sh",
        ),
        (
            'Vagrant.configure("2") do |c|\n  c.vm.provision "shell", path: "files/"\nend\n',
            "host/dns.sh",
        ),
        # No shell provisioner: the file provisioner only copies it.
        (
            'Vagrant.configure("2") do |c|\n  c.vm.provision "file", source: "files/dns.sh",'
            ' destination: "/tmp/dns.sh"\nend\n',
            "files/dns.sh",
        ),
    ],
)
def test_a_script_no_provisioner_runs_as_root_is_reported(
    tmp_path: Path, vagrantfile: str | None, script: str
) -> None:
    path = vagrant_project(tmp_path, vagrantfile, script)
    assert provisioned_by(str(path)) is None
    assert hl109(path) == [("error", "unprivileged-redirect")]


def test_a_vagrantfile_above_the_project_top_is_not_read(tmp_path: Path) -> None:
    """A Vagrantfile above the checkout's `.git` is another project's."""
    (tmp_path / "Vagrantfile").write_text('c.vm.provision "shell", path: "repo/files/dns.sh"\n')
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "files").mkdir()
    (repo / "files" / "dns.sh").write_text(SCRIPT)
    assert provisioned_by(str(repo / "files" / "dns.sh")) is None


def test_editing_the_vagrantfile_rechecks_its_scripts(tmp_path: Path) -> None:
    script = vagrant_project(
        tmp_path, 'Vagrant.configure("2") do |c|\n  c.vm.provision "shell", path: "files/"\nend\n'
    )
    cache = str(tmp_path / "cache")

    def severities() -> list[str]:
        ran = run_cli("--format", "json", "--severity", "info", "--cache-dir", cache, script)
        return [f["severity"] for f in json.loads(ran.stdout) if f["code"] == "HL109"]

    assert severities() == ["info"]
    vagrantfile = tmp_path / "vm" / "Vagrantfile"
    vagrantfile.write_text(vagrantfile.read_text().replace('"files/"', '"other/"'))
    assert severities() == ["error"]


JOB = "#!/bin/bash\ncd /data\n(\n  ocrd process -m mets.xml\n  ocrd validate\n) &\n"


def hl104(path: Path) -> list[tuple[str, str, int]]:
    return [
        (f.severity.value, f.evidence, f.start)
        for f in check_text(path.read_text(), "shell", str(path))
        if f.code == "HL104"
    ]


def test_a_script_run_over_ssh_is_read_even_when_it_names_no_wrapper(tmp_path: Path) -> None:
    # No word of it starts a layer (no `ssh`, no `bash`): the launcher alone says that its
    # first line runs in the session.
    script = project(
        tmp_path,
        {"deploy.py": "os.system('ssh %s \"sh /home/ops/bin/job.sh\"' % server)\n"},
        "bin/job.sh",
    )
    text = "cd /data\nnohup ./server &\n"
    script.write_text(text)
    assert hl104(script) == [("warning", "background-command", text.index("nohup"))]
    [found] = [f for f in check_text(text, "shell", str(script)) if f.code == "HL104"]
    assert "runs it over ssh: `ssh %s sh /home/ops/bin/job.sh`" in found.message


@pytest.mark.parametrize(
    "caller",
    [
        {"Makefile": "test:\n\tssh -Tn -p $(PORT) ocrd@localhost job.sh 1 3 testdata\n"},
        {"README.md": "    ssh -T -p 9022 ocrd@manager bin/job.sh 1 3\n"},
        {"bin/all.sh": 'for h in a b; do ssh "$h" "bash $DIR/bin/job.sh"; done\n'},
        {"deploy.sh": "ssh -o BatchMode=yes web-1 'cd /srv && sudo ./bin/job.sh'\n"},
        {"deploy.sh": "ssh web-1 bash -s < bin/job.sh\n"},
        {"deploy.sh": 'ssh web-1 "./bin/job.sh &"\n'},  # the remote shell's background
        # From the script's own directory, through a checkout placed elsewhere.
        {"bin/all.sh": "ssh web-1 sudo ./repo/bin/job.sh\n"},
    ],
)
def test_a_script_another_file_runs_over_ssh_holds_the_session(
    tmp_path: Path, caller: dict[str, str]
) -> None:
    script = project(tmp_path, caller, "bin/job.sh")
    script.write_text(JOB)
    assert hl104(script) == [("warning", "background-group", JOB.index("(\n"))]
    [found] = [f for f in check_text(JOB, "shell", str(script)) if f.code == "HL104"]
    assert "the script exits, but ssh does not return" in found.message
    assert "runs it over ssh: `ssh " in found.message


@pytest.mark.parametrize(
    "caller",
    [
        {"README.md": "ssh -t ops@manager bin/job.sh\n"},  # a tty: the job is hung up
        {"README.md": "ssh -f ops@manager bin/job.sh\n"},  # ssh does not wait
        {"README.md": "ssh ops@manager bin/job.sh > job.log 2>&1\n"},
        {"README.md": "ssh ops@manager cat bin/job.sh\n"},  # an argument, not the command
        {"README.md": "rsync -e ssh bin/job.sh h:/srv/job.sh\n"},  # rsync's transport
        {"README.md": "./bin/job.sh\n"},  # run here
        {"README.md": "ssh ops@manager bin/job.sh 1 3 &\n"},  # no one waits for ssh
        # Another directory's job.sh: bin/nightly/job.sh from bin/notes.txt.
        {"bin/notes.txt": "ssh h 'cd /srv && sh nightly/job.sh'\n"},
    ],
)
def test_a_script_not_shown_to_run_over_ssh_is_left(tmp_path: Path, caller: dict[str, str]) -> None:
    script = project(tmp_path, caller, "bin/job.sh")
    script.write_text(JOB)
    assert runs_over_ssh_by("shell", str(script), JOB) is None
    assert hl104(script) == []


@pytest.mark.parametrize(
    ("text", "held"),
    [
        (JOB + "wait $!\n", False),  # the session is meant to wait
        (JOB + 'if [ -n "$ASYNC" ]; then\n  exit 1\nelse\n  wait $!\nfi\n', True),
        (JOB + "die() { echo failed; exit 1; }\nwait $! || die\n", False),  # a function's
        (JOB + "x=$(exit 3)\nwait\n", False),
        # A function's job runs where the function is called, after the `exit`.
        ('#!/bin/bash\nf() {\n  ocrd process &\n}\n[ -n "$1" ] || exit 1\nf\nwait\n', False),
        ('#!/bin/bash\nf() {\n  ocrd process &\n}\n[ -n "$1" ] || exit 1\nf\n', True),
    ],
)
def test_a_wait_that_an_exit_can_skip_leaves_the_job_holding_the_session(
    tmp_path: Path, text: str, held: bool
) -> None:
    script = project(tmp_path, {"README.md": "ssh h bin/job.sh\n"}, "bin/job.sh")
    script.write_text(text)
    assert bool(hl104(script)) is held


def test_a_script_run_over_ssh_that_starts_no_job_needs_no_answer(tmp_path: Path) -> None:
    script = project(tmp_path, {"README.md": "ssh h bin/job.sh\n"}, "bin/job.sh")
    assert runs_over_ssh_by("shell", str(script), "ocrd process 2>&1 && echo done\n") is None
    assert runs_over_ssh_by("shell", str(script), JOB) is not None
