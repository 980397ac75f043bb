"""fabric 1: fabric.api run/sudo are remote, local is layer 0."""

from fabric.api import local, run, sudo


def legacy(name):
    run("pkill -f legacy_app; ./start.sh")
    sudo(f"systemctl restart {name}")
    local("pgrep -f legacy_local; true")
