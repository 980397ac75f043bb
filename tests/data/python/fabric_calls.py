"""fabric 2: Connection.run/sudo are remote, Connection.local is local."""

from fabric import Connection, task


@task
def deploy(c):
    c.run("pkill -f gunicorn; systemctl start gunicorn")
    c.sudo("echo 1 > /proc/sys/net/ipv4/ip_forward")
    c.local("pgrep -f deploy_local || true")


def push(host: str, config: str) -> None:
    conn = Connection(host)
    conn.run(f"cat > /etc/app.conf << 'EOF'\n{config}\nEOF")
    with Connection(host) as cxn:
        cxn.run(f"ls {config}")
