"""Calls that are fine: nothing at warning or above."""

import shlex
import subprocess

import paramiko


class Other:
    def run(self, command: str) -> None:
        print(command)


def fine(host: str, path: str, count: int, client: paramiko.SSHClient) -> None:
    subprocess.run(["ssh", host, "uptime"])
    subprocess.run(["ls", "-l", path])
    subprocess.run(f"ls {shlex.quote(path)}", shell=True)
    subprocess.run("ls " + shlex.quote(path), shell=True)
    subprocess.run("head -n %d log" % count, shell=True)
    subprocess.run(f"seq {count:d} {len(path)}", shell=True)
    subprocess.run(shlex.join(["ls", path]), shell=True)
    client.exec_command("pkill -f '[s]glang'; sleep 1")
    client.exec_command(f"cat {shlex.quote(path)}")
    quoted = shlex.quote(path)
    client.exec_command(f"rm -f {quoted}")
    subprocess.run("cat > /tmp/f << 'EOF'\nliteral $1\nEOF", shell=True)
    subprocess.run(path, shell=True)
    subprocess.run(f"{path} --version", shell=True)
    subprocess.run(["bash", "-s"], input=b"echo hi")
    subprocess.run("pkill -f x_worker; true", shell=False)
    Other().run("pkill -f not_a_shell; true")
    client.exec_command("pkill -f lonely_worker")
