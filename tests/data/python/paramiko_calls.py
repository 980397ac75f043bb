"""paramiko: exec_command on any receiver runs the string in the remote login shell."""

import paramiko


class Deployer:
    def __init__(self, host: str) -> None:
        self.ssh = paramiko.SSHClient()
        self.ssh.connect(host)

    def push(self, path: str, content: str) -> None:
        self.ssh.exec_command(f"cat > {path} << 'EOF'\n{content}\nEOF")
        self.ssh.exec_command(command="pkill -f deployer; systemctl restart app")


def write_motd(client: paramiko.SSHClient) -> None:
    client.exec_command("""cat > /etc/motd << 'MOTD'
Welcome to $(hostname)
MOTD
""")
    client.exec_command("nohup ./worker.sh &")
