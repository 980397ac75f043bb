"""invoke: Context.run/sudo and invoke.run are layer 0 (/bin/bash -c)."""

import invoke
from invoke import Context, task


@task
def build(c):
    c.run("pkill -f webpack; npm run build")
    c.sudo("cat app.conf > /etc/app.conf")


def direct(target: str) -> None:
    invoke.run(f"make {target}")
    ctx = Context()
    ctx.run("pgrep -f invoke_ctx; true")
