"""subprocess: a shell=True string is layer 0 (/bin/sh); an argv list goes through the wrappers."""

import subprocess
import subprocess as sp
from subprocess import Popen
from subprocess import run as sh


def shell_strings(name: str, port: int) -> None:
    subprocess.run(f"systemctl restart {name}", shell=True)
    subprocess.call("pkill -f celery_worker; rm -f /run/celery.pid", shell=True)
    subprocess.check_call("tar czf /tmp/b.tgz %s" % name, shell=True)
    subprocess.check_output("ls -l {}".format(name), shell=True, text=True)
    Popen("du -sh " + name, shell=True)
    sh(f"echo {port:d} {name!r}", shell=True)
    sp.run(f"nc -z localhost {port}", shell=True, executable="/bin/bash")
    sp.run(["pgrep -f sp_worker; echo", "arg0"], shell=True)


def argv_lists(host: str, path: str) -> None:
    subprocess.run(["ssh", host, "pkill -f gunicorn; systemctl start app"], check=True)
    subprocess.run(["ssh", "-p", "2222", host, f"cat {path}"])
    subprocess.run(["bash", "-lc", f"cd {path} && make"])
    subprocess.run(["docker", "exec", "web", "sh", "-c", "pkill -f nginx; nginx"])
    cmd = ["ssh", host, f"cat > /etc/app.conf << 'EOF'\n{path}\nEOF"]
    subprocess.run(cmd)
    subprocess.run(["ssh", host, "uptime"])
    subprocess.run(["ls", path])
