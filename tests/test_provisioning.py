"""What another file of the project says of how a script runs: Vagrant's shell
provisioners run their scripts as root (heredoc_lint.provisioning), so HL109's
`sudo echo > /etc/f` there works and is info; the answer is part of the cache key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_process import run_cli

from heredoc_lint.engine import check_text
from heredoc_lint.provisioning import provisioned_by

SCRIPT = "#!/bin/bash\nsudo echo 'nameserver 10.0.0.2' > /etc/resolv.conf\n"


def project(tmp_path: Path, vagrantfile: str | None, script: str = "files/dns.sh") -> Path:
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
    script = project(tmp_path, vagrantfile)
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
    path = project(tmp_path, vagrantfile, script)
    assert provisioned_by(str(path)) is None
    assert hl109(path) == [("error", "unprivileged-redirect")]


def test_the_project_top_ends_the_search(tmp_path: Path) -> None:
    """A Vagrantfile above the checkout's `.git` is another project's."""
    (tmp_path / "Vagrantfile").write_text('c.vm.provision "shell", path: "repo/files/dns.sh"\n')
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "files").mkdir()
    (repo / "files" / "dns.sh").write_text(SCRIPT)
    assert provisioned_by(str(repo / "files" / "dns.sh")) is None


def test_editing_the_vagrantfile_rechecks_its_scripts(tmp_path: Path) -> None:
    script = project(
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

