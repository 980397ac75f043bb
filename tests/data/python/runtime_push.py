"""Pushing a file to a host the ways public code does it (run by test_python_runtime.py).

Each function breaks for some contents: a line `EOF`, a missing final newline, quotes.
"""

import subprocess

import paramiko


def push_heredoc(client: paramiko.SSHClient, path: str, content: str) -> None:
    _, stdout, _ = client.exec_command(f"cat > {path} << 'EOF'\n{content}\nEOF")
    stdout.channel.recv_exit_status()


def push_glued(client: paramiko.SSHClient, path: str, content: str) -> None:
    # counts on the content ending with a newline
    _, stdout, _ = client.exec_command(f"cat > {path} << 'EOF'\n{content}EOF\n")
    stdout.channel.recv_exit_status()


def push_printf(client, path, content):
    _, stdout, _ = client.exec_command(f"printf %s '{content}' > {path}")
    stdout.channel.recv_exit_status()


def push_motd(client: paramiko.SSHClient, path: str) -> None:
    _, stdout, _ = client.exec_command(f"""cat > {path} << 'EOF'
Welcome $USER \\o/ `date` "quoted" 'single'
EOF
""")
    stdout.channel.recv_exit_status()


def push_ssh(config: str, path: str, content: str) -> None:
    subprocess.run(
        ["ssh", "-F", config, "testhost", f"cat > {path} << 'EOF'\n{content}\nEOF"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )


def write_local(path: str, content: str) -> None:
    subprocess.run(f"cat > {path} <<'EOF'\n{content}\nEOF", shell=True, capture_output=True)
