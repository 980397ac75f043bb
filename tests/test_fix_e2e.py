"""`heredoc-lint --fix` end to end: the fixed scripts run against a real OpenSSH sshd.

For every fixable heredoc case of tests/cases (seed000, seed003, push_env, write_cron) and
every strategy (base64, scp, stdin), the case is fixed with the real CLI, the fixed script is
run unmodified (`run_local`: the ssh/scp wrappers on PATH send every host and port to the
loopback server) and the file the "remote" side wrote is compared byte for byte with the
INTENDED body, written out by hand below from the case text: the source text with the
outer layer's escapes undone and nothing expanded, as the author meant it.

The cases are adapted only where they must be:
* remote paths go under a temp dir (`/workspace/...` -> `<tmp>/remote/workspace/...`);
* `pkill -9 -f sglang` becomes `pgrep -af sglang`, which kills nothing and shows what pkill
  would have hit;
* the login user becomes the test server's user (`app@web-4` -> `root@web-4`): sshd allows
  only that account.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import stat
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_process import CLI
from sshd import SshServer, run_local, strict

REPO_ROOT = Path(__file__).resolve().parents[1]
STRATEGIES = ("base64", "scp", "stdin")

# --- the cases, byte for byte as in tests/cases --------------------------------------------

SEED000 = """\
#!/bin/bash
ssh -p 19248 root@154.59.156.20 "pkill -9 -f sglang 2>/dev/null; sleep 2; cat > /workspace/dflash/scripts/launch_mtp.sh << 'EOF'
#!/bin/bash
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
export CUDA_VISIBLE_DEVICES=$1
exec /workspace/dflash/venv/bin/python3 -m sglang.launch_server \\
  --model-path /workspace/dflash/models/Qwen3.6-27B \\
  --mem-fraction-static 0.92 \\
  --port $2
EOF
chmod +x /workspace/dflash/scripts/launch_mtp.sh && echo ok"
"""  # noqa: E501

SEED003 = """\
#!/bin/bash
ssh root@10.1.230.174 'pkill -f sglang 2>/dev/null; sleep 2; cat > /root/run_tp8_cutlass_mla.sh << '\\''EOF'\\''
#!/bin/bash
python3 -m sglang.launch_server --model-path /models/GLM-5-NVFP4 --tp 8 --attention-backend cutlass_mla
EOF
chmod +x /root/run_tp8_cutlass_mla.sh
nohup bash /root/run_tp8_cutlass_mla.sh > /tmp/server_cutlass_mla.log 2>&1 &
echo "Launched PID: $!"'
"""  # noqa: E501

PUSH_ENV = """\
#!/bin/bash
ssh -o BatchMode=yes app@web-4 "cat > /srv/app/.env << 'ENV'
DATABASE_URL=postgres://app@db/app
SECRET_KEY=$SECRET_KEY
ENV"
"""

WRITE_CRON = """\
#!/bin/bash
ssh admin@db-2 "cat > /etc/cron.d/vacuum << 'CRON'
0 3 * * * postgres psql -c 'VACUUM ANALYZE' >> \\$HOME/vacuum.log 2>&1
CRON"
"""

# --- the intended bodies, by hand --------------------------------------------------------
# seed000: double-quoted layer, nothing escaped in the body: `$1`, `$2` stay, and each
# backslash-newline stays a backslash-newline.
SEED000_INTENDED = (
    b"#!/bin/bash\n"
    b"export LD_LIBRARY_PATH=/usr/local/cuda/lib64\n"
    b"export CUDA_VISIBLE_DEVICES=$1\n"
    b"exec /workspace/dflash/venv/bin/python3 -m sglang.launch_server \\\n"
    b"  --model-path /workspace/dflash/models/Qwen3.6-27B \\\n"
    b"  --mem-fraction-static 0.92 \\\n"
    b"  --port $2\n"
)
# seed003: single-quoted layer: the value the remote shell receives.
SEED003_INTENDED = (
    b"#!/bin/bash\n"
    b"python3 -m sglang.launch_server --model-path /models/GLM-5-NVFP4 --tp 8"
    b" --attention-backend cutlass_mla\n"
)
# push_env: `$SECRET_KEY` unescaped in a quoted-delimiter heredoc: literal.
PUSH_ENV_INTENDED = b"DATABASE_URL=postgres://app@db/app\nSECRET_KEY=$SECRET_KEY\n"
# write_cron: `\$HOME` -> `$HOME`; the single quotes are plain characters in "...".
WRITE_CRON_INTENDED = b"0 3 * * * postgres psql -c 'VACUUM ANALYZE' >> $HOME/vacuum.log 2>&1\n"

# What the ORIGINAL seed000 really delivers (no arguments): `$1`/`$2` expanded locally to
# nothing, and every backslash-newline deleted by the local shell inside the double quotes.
SEED000_ORIGINAL_DELIVERS = (
    b"#!/bin/bash\n"
    b"export LD_LIBRARY_PATH=/usr/local/cuda/lib64\n"
    b"export CUDA_VISIBLE_DEVICES=\n"
    b"exec /workspace/dflash/venv/bin/python3 -m sglang.launch_server"
    b"   --model-path /workspace/dflash/models/Qwen3.6-27B"
    b"   --mem-fraction-static 0.92"
    b"   --port \n"
)

PGREP = "pgrep -af sglang"


@dataclass(frozen=True)
class Adapted:
    name: str
    text: str
    remote: Path  # the file the heredoc writes on the "remote" side
    intended: bytes
    dirs: tuple[Path, ...]  # remote directories that exist before the run
    stdout: Callable[[str], bool]  # what the fixed script prints

    def prepare(self) -> None:
        for d in self.dirs:
            d.mkdir(parents=True, exist_ok=True)


def replace_all(text: str, old: str, new: str, count: int) -> str:
    assert text.count(old) == count, (old, text)
    return text.replace(old, new)


def last_line_is(expected: str) -> Callable[[str], bool]:
    return lambda out: out.splitlines()[-1:] == [expected]


def adapt(name: str, root: Path, user: str, standin: str = PGREP) -> Adapted:
    """The case `name` with its remote paths under `root` (see the module doc)."""
    if name == "seed000":
        text = replace_all(SEED000, "pkill -9 -f sglang", standin, 1)
        text = replace_all(text, "cat > /workspace/", f"cat > {root}/workspace/", 1)
        text = replace_all(text, "chmod +x /workspace/", f"chmod +x {root}/workspace/", 1)
        scripts = root / "workspace/dflash/scripts"
        return Adapted(
            name, text, scripts / "launch_mtp.sh", SEED000_INTENDED, (scripts,), last_line_is("ok")
        )
    if name == "seed003":
        text = replace_all(SEED003, "pkill -f sglang", standin, 1)
        text = replace_all(text, "> /tmp/server", f"> {root}/tmp/server", 1)
        text = replace_all(text, " /root/", f" {root}/root/", 3)
        return Adapted(
            name,
            text,
            root / "root/run_tp8_cutlass_mla.sh",
            SEED003_INTENDED,
            (root / "root", root / "tmp"),
            lambda out: re.search(r"^Launched PID: \d+$", out, re.M) is not None,
        )
    if name == "push_env":
        text = replace_all(PUSH_ENV, "app@web-4", f"{user}@web-4", 1)
        text = replace_all(text, "cat > /srv/", f"cat > {root}/srv/", 1)
        return Adapted(
            name,
            text,
            root / "srv/app/.env",
            PUSH_ENV_INTENDED,
            (root / "srv/app",),
            lambda out: out == "",
        )
    if name == "write_cron":
        text = replace_all(WRITE_CRON, "admin@db-2", f"{user}@db-2", 1)
        text = replace_all(text, "cat > /etc/", f"cat > {root}/etc/", 1)
        return Adapted(
            name,
            text,
            root / "etc/cron.d/vacuum",
            WRITE_CRON_INTENDED,
            (root / "etc/cron.d",),
            lambda out: out == "",
        )
    raise AssertionError(name)


CASES = ("seed000", "seed003", "push_env", "write_cron")


def checked_root(tmp_path: Path) -> Path:
    # The paths end up in command lines that pgrep searches, in quoted strings, and in
    # scp's `host:PATH` (the scp strategy only takes plain paths).
    assert "sglang" not in str(tmp_path) and not set("'\"$\\ `") & set(str(tmp_path))
    return tmp_path


def heredoc_lint(
    *args: str, cwd: Path | None = None, prefix: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """The real command line (`python -m heredoc_lint`), never through a shell."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env.pop("NO_COLOR", None)
    return subprocess.run(
        [*prefix, *CLI, *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


def my_remote_shell_lines(pgrep_output: str, root: Path) -> list[str]:
    """`pgrep -af` lines of the remote login shell (`bash -c <the string>`) of this test.

    Client and server share this host, so pgrep also lists the local ssh client (its argv
    holds the same string), and possibly processes of other test runs: only lines of a
    `sh -c pgrep ...` shell whose string is this test's (it names `root`, or it is the
    `PRE` string `... sleep 2` that the scp strategy splits off) count.
    """
    return [
        line
        for line in pgrep_output.splitlines()
        if re.match(r"^\d+ \S*sh -c (?:pgrep|pkill) ", line)
        and (str(root) in line or line.endswith("; sleep 2"))
    ]


def remote_mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def check_strategy_shape(strategy: str, script: Path, fixed: str, case: Adapted) -> None:
    """What each strategy's rewrite looks like: base64 piped to a file, scp then exec,
    or the body on ssh's stdin."""
    if strategy == "base64":
        assert re.search(r"printf %s '?[A-Za-z0-9+/=]*'? \| base64 -d > ", fixed), fixed
        assert "<<" not in fixed, fixed
        assert not (script.parent / f"{script.name}.d").exists()
    elif strategy == "scp":
        local = f"{script.name}.d/{case.remote.name}"
        assert "scp " in fixed and f'"$(dirname "$0")/{local}" ' in fixed, fixed
        assert f":{case.remote}" in fixed, fixed
        assert "<<" not in fixed, fixed
        # The body is written beside the script, exactly.
        assert (script.parent / local).read_bytes() == case.intended
    else:
        assert re.search(r"""["'] <<'EOF(?:_\d+)?'\n""", fixed), fixed
        assert not (script.parent / f"{script.name}.d").exists()


# --- the originals, run once per case -----------------------------------------------------


@dataclass(frozen=True)
class OriginalRun:
    content: bytes
    mode: int
    proc: subprocess.CompletedProcess[str]
    root: Path


@pytest.fixture(scope="module")
def original_runs(
    sshd: SshServer, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], OriginalRun]:
    cache: dict[str, OriginalRun] = {}

    def get(name: str) -> OriginalRun:
        if name not in cache:
            root = checked_root(tmp_path_factory.mktemp(f"orig_{name}"))
            case = adapt(name, root / "remote", sshd.user)
            case.prepare()
            script = root / f"{name}.sh"
            script.write_text(case.text)
            proc = run_local(script, sshd)
            assert proc.returncode == 0, proc.stderr
            cache[name] = OriginalRun(
                case.remote.read_bytes(), remote_mode(case.remote), proc, root
            )
        return cache[name]

    return get


# --- 1. every fixable case x strategy, through sshd ---------------------------------------

# (case, strategy, stand-in for pkill): all that must be fixed and delivered exactly.
MATRIX = [(c, s, PGREP) for c in CASES for s in STRATEGIES]


@pytest.mark.parametrize(
    ("name", "strategy", "standin"), MATRIX, ids=[f"{c}-{s}-{p.split()[0]}" for c, s, p in MATRIX]
)
def test_fixed_case_delivers_intended_body(
    sshd: SshServer,
    tmp_path: Path,
    original_runs: Callable[[str], OriginalRun],
    name: str,
    strategy: str,
    standin: str,
) -> None:
    root = checked_root(tmp_path)
    case = adapt(name, root / "remote", sshd.user, standin)
    case.prepare()
    local = root / "local"
    local.mkdir()
    script = local / f"{name}.sh"
    script.write_text(case.text)

    lint = heredoc_lint("--fix", "--fix-strategy", strategy, str(script), cwd=local)

    assert lint.returncode == 0, lint.stdout + lint.stderr  # nothing left
    fixed = script.read_text()
    assert fixed != case.text
    check_strategy_shape(strategy, script, fixed, case)

    proc = run_local(script, sshd)

    assert proc.returncode == 0, (proc.stdout, proc.stderr, fixed)
    assert case.remote.read_bytes() == case.intended, fixed
    assert case.stdout(proc.stdout), (proc.stdout, fixed)
    # pkill/pgrep no longer matches the remote shell that runs it.
    assert my_remote_shell_lines(proc.stdout, root) == [], (proc.stdout, fixed)
    # The file mode is what the original command gives it (`cat >` then `chmod +x`).
    original = original_runs(name)
    assert remote_mode(case.remote) == original.mode


def test_original_seed000_delivers_something_else(
    sshd: SshServer, original_runs: Callable[[str], OriginalRun]
) -> None:
    original = original_runs("seed000")
    assert original.content == SEED000_ORIGINAL_DELIVERS
    assert original.content != SEED000_INTENDED
    assert b"export CUDA_VISIBLE_DEVICES=\n" in original.content  # `$1` was empty
    assert original.content.count(b"\n") == 4 and b"\\" not in original.content  # joined
    assert original.proc.stdout.endswith("ok\n")
    # and pgrep -f lists the remote shell running it: pkill -9 would have killed it.
    [line] = my_remote_shell_lines(original.proc.stdout, original.root)
    assert "pgrep -af sglang 2>/dev/null; sleep 2; cat > " in line


def test_originals_that_work_deliver_the_same_as_the_fix(
    sshd: SshServer, original_runs: Callable[[str], OriginalRun]
) -> None:
    """seed003 (single quotes) and write_cron (`\\$HOME`) already deliver the intended body:
    the fix must keep that. push_env's original expands `$SECRET_KEY` locally."""
    assert original_runs("seed003").content == SEED003_INTENDED
    assert original_runs("write_cron").content == WRITE_CRON_INTENDED
    secret = os.environ.get("SECRET_KEY", "").encode()
    assert original_runs("push_env").content == (
        b"DATABASE_URL=postgres://app@db/app\nSECRET_KEY=" + secret + b"\n"
    )


# --- scp carries the ssh options -----------------------------------------------------------

OPTIONS_CASE = """\
#!/bin/bash
ssh -p 2222 -i {key} -o BatchMode=yes {user}@deploy-host "mkdir -p {remote} && cat > {remote}/app.conf << 'EOF'
listen=\\"0.0.0.0:\\$PORT\\" user=$1 it's
path=\\\\srv\\\\app \\`date\\` \\
EOF
echo copied"
"""  # noqa: E501
# `\"`->`"`, `\$`->`$`, `\\`->`\`, `` \` ``->`` ` ``; `$1` and the backslash-newline stay.
OPTIONS_INTENDED = b'listen="0.0.0.0:$PORT" user=$1 it\'s\npath=\\srv\\app `date` \\\n'


def logging_server(sshd: SshServer, directory: Path) -> SshServer:
    """The same server, with `ssh`/`scp` wrappers that log their argv (NUL-separated)."""
    directory.mkdir()
    for tool in ("ssh", "scp"):
        wrapper = directory / tool
        wrapper.write_text(
            "#!/bin/sh\n"
            f"printf '%s\\0' \"$@\" >> {shlex.quote(str(directory / tool))}.log\n"
            f"printf '\\n' >> {shlex.quote(str(directory / tool))}.log\n"
            f'exec {shlex.quote(str(sshd.bin_dir / tool))} "$@"\n'
        )
        wrapper.chmod(0o755)
    return dataclasses.replace(sshd, bin_dir=directory)


def logged_argvs(directory: Path, tool: str) -> list[list[str]]:
    log = directory / f"{tool}.log"
    if not log.exists():
        return []
    # Each call is its arguments, each followed by NUL, then a newline.
    return [entry.split("\0") for entry in log.read_text().split("\0\n")[:-1]]


def test_scp_carries_port_identity_and_options(sshd: SshServer, tmp_path: Path) -> None:
    root = checked_root(tmp_path)
    remote = root / "remote/opts"
    text = OPTIONS_CASE.format(key=sshd.key, user=sshd.user, remote=remote)
    local = root / "local"
    local.mkdir()
    script = local / "deploy.sh"
    script.write_text(text)

    lint = heredoc_lint("--fix", "--fix-strategy", "scp", str(script), cwd=local)

    assert lint.returncode == 0, lint.stdout + lint.stderr
    fixed = script.read_text()
    assert f"scp -P 2222 -i {sshd.key} -o BatchMode=yes " in fixed, fixed
    assert (local / "deploy.sh.d/app.conf").read_bytes() == OPTIONS_INTENDED

    logs = root / "logbin"
    proc = run_local(script, logging_server(sshd, logs))

    assert proc.returncode == 0, (proc.stderr, fixed)
    assert proc.stdout == "copied\n"
    assert (remote / "app.conf").read_bytes() == OPTIONS_INTENDED
    [scp_argv] = logged_argvs(logs, "scp")
    assert scp_argv == [
        "-P",
        "2222",
        "-i",
        str(sshd.key),
        "-o",
        "BatchMode=yes",
        str(local / "deploy.sh.d/app.conf"),
        f"{sshd.user}@deploy-host:{remote}/app.conf",
    ]
    ssh_argvs = logged_argvs(logs, "ssh")
    assert [a[:6] for a in ssh_argvs] == [
        ["-p", "2222", "-i", str(sshd.key), "-o", "BatchMode=yes"]
    ] * 2, ssh_argvs
    assert [a[6:] for a in ssh_argvs] == [
        [f"{sshd.user}@deploy-host", f"mkdir -p {remote}"],
        [f"{sshd.user}@deploy-host", "echo copied"],
    ]


# --- the port, the user and the key reach a server that checks them ------------------------

# Each spelling names a port other than 22, the user and the key: the strict server
# (sshd.strict) answers only on that port, knows no default user and has no default key,
# so a fix that drops or misplaces one of them fails as it would for a user.
SPELLINGS = {
    "short": "-p {port} -i {key} {user}@deploy-host",
    "attached": "-l {user} -p{port} -i{key} deploy-host",
    "config": "-o Port={port} -o User={user} -o IdentityFile={key} deploy-host",
    "uri": "-i {key} ssh://{user}@deploy-host:{port}",
}
PORT = 2222


def fixed_run_strictly(
    sshd: SshServer, script: Path, code: str, *options: str
) -> tuple[str, subprocess.CompletedProcess[str]]:
    """`script` after `--fix OPTIONS` of rule `code` alone (nothing left to report), and
    its run against the strict server listening on PORT.  The rule alone, as an editor's
    quick fix applies it: with every rule, another rule's fix could mend what it wrote."""
    lint = heredoc_lint("--fix", "--select", code, *options, str(script), cwd=script.parent)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fixed = script.read_text()
    proc = run_local(script, strict(sshd, script.parent.parent, [PORT]))
    assert proc.returncode == 0, (proc.stderr, fixed)
    return fixed, proc


def test_the_strict_server_refuses_what_a_real_one_would(sshd: SshServer, tmp_path: Path) -> None:
    server = strict(sshd, tmp_path, [PORT])
    key, user = sshd.key, sshd.user

    def runs(command: str) -> bool:
        return run_local(command, server).returncode == 0

    assert runs(f"ssh -p {PORT} -i {key} {user}@h true")
    assert not runs(f"ssh -i {key} {user}@h true")  # port 22: closed
    assert not runs(f"ssh -p {PORT + 1} -i {key} {user}@h true")
    assert not runs(f"ssh -p {PORT} -i {key} h true")  # no user named: not one sshd knows
    assert not runs(f"ssh -p {PORT} {user}@h true")  # no key
    assert not runs(f"scp -p {PORT} -i {key} /etc/hostname {user}@h:{tmp_path}/x")  # -p: times


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_fix_keeps_port_user_and_key(
    sshd: SshServer, tmp_path: Path, strategy: str, spelling: str
) -> None:
    root = checked_root(tmp_path)
    remote = root / "remote/opts"
    options = SPELLINGS[spelling].format(port=PORT, key=sshd.key, user=sshd.user)
    text = OPTIONS_CASE.replace("-p 2222 -i {key} -o BatchMode=yes {user}@deploy-host", options)
    local = root / "local"
    local.mkdir()
    script = local / "deploy.sh"
    script.write_text(text.format(remote=remote))

    fixed, proc = fixed_run_strictly(sshd, script, "HL101", "--fix-strategy", strategy)

    assert proc.stdout == "copied\n", fixed
    assert (remote / "app.conf").read_bytes() == OPTIONS_INTENDED, fixed


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_loop_fix_keeps_port_user_and_key(sshd: SshServer, tmp_path: Path, spelling: str) -> None:
    """HL105's `-n` goes beside the options the command has: every line is read."""
    root = checked_root(tmp_path)
    options = SPELLINGS[spelling].format(port=PORT, key=sshd.key, user=sshd.user)
    log = root / "log"
    script = root / "local/t.sh"
    script.parent.mkdir()
    script.write_text(
        f"printf 'a\\nb\\n' | while read -r x; do ssh {options} \"echo $x >> {log}\"; done\n"
    )

    fixed, _ = fixed_run_strictly(sshd, script, "HL105")

    assert log.read_text() == "a\nb\n", fixed


@pytest.mark.parametrize(
    "options",
    [
        "-p {port} -i {key} {source} {user}@h:{target}",
        "-i{key} -p{port} -o User={user} {source} h:{target}",
    ],
)
def test_scp_port_fix_reaches_the_port(sshd: SshServer, tmp_path: Path, options: str) -> None:
    """HL108: scp's port is `-P`; `-p` keeps the times and leaves the port at 22."""
    root = checked_root(tmp_path)
    source, target = root / "source.txt", root / "target.txt"
    source.write_text("payload\n")
    words = options.format(port=PORT, key=sshd.key, user=sshd.user, source=source, target=target)
    script = root / "local/t.sh"
    script.parent.mkdir()
    script.write_text(f"scp {words}\n")

    fixed, _ = fixed_run_strictly(sshd, script, "HL108")

    assert target.read_text() == "payload\n", fixed


# --- the scp path is relative to the script, not to the working directory ------------------

CWD_CASE = """\
#!/bin/bash
ssh {user}@cwd-host "cat > {remote} << 'EOF'
from \\"elsewhere\\": \\$0 $1
EOF
echo done"
"""
CWD_INTENDED = b'from "elsewhere": $0 $1\n'


@pytest.mark.parametrize(
    "how", ["absolute-from-root-dir", "relative-from-parent", "dot-slash-from-own-dir"]
)
def test_scp_fixed_script_runs_from_another_directory(
    sshd: SshServer, tmp_path: Path, how: str
) -> None:
    root = checked_root(tmp_path)
    remote = root / "remote" / "out.txt"
    remote.parent.mkdir()
    scripts = root / "project" / "my scripts"  # a space in the directory name
    scripts.mkdir(parents=True)
    script = scripts / "push it.sh"
    script.write_text(CWD_CASE.format(user=sshd.user, remote=remote))

    lint = heredoc_lint("--fix", "--fix-strategy", "scp", str(script), cwd=root)

    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert '"$(dirname "$0")/push it.sh.d/out.txt"' in script.read_text()
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    if how == "absolute-from-root-dir":
        proc = run_local(script, sshd, cwd="/")
    elif how == "relative-from-parent":
        proc = run_local(Path("my scripts/push it.sh"), sshd, cwd=scripts.parent)
    else:
        proc = run_local(Path("./push it.sh"), sshd, cwd=scripts)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"
    assert remote.read_bytes() == CWD_INTENDED


@pytest.mark.parametrize(
    "script_name",
    [
        "deploy$HOME.sh",
        'say "hi".sh',
        "tick`id`.sh",
        "back\\slash.sh",
        "it's $(id).sh",
    ],
)
def test_scp_local_path_with_special_script_name(
    sshd: SshServer, tmp_path: Path, script_name: str
) -> None:
    """The script's own name goes into `"$(dirname "$0")/NAME.d/..."`: it must stay literal."""
    root = checked_root(tmp_path)
    remote = root / "remote" / "out.txt"
    remote.parent.mkdir()
    script = root / script_name
    script.write_text(CWD_CASE.format(user=sshd.user, remote=remote))

    lint = heredoc_lint("--fix", "--fix-strategy", "scp", str(script), cwd=root)

    assert lint.returncode == 0, lint.stdout + lint.stderr
    proc = run_local(script, sshd)
    assert (root / f"{script_name}.d" / "out.txt").read_bytes() == CWD_INTENDED
    assert (proc.returncode, proc.stdout) == (0, "done\n"), (proc.stderr, script.read_text())
    assert remote.read_bytes() == CWD_INTENDED


# --- the fix keeps what happens after a failing command -----------------------------------

AND_CASE = """\
#!/bin/bash
ssh {user}@and-host "test -d {root}/missing && cat > {root}/remote/f << 'EOF'
body
EOF
echo post-ran"
"""


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_fix_keeps_list_semantics(sshd: SshServer, tmp_path: Path, strategy: str) -> None:
    root = checked_root(tmp_path)
    (root / "remote").mkdir()
    text = AND_CASE.format(user=sshd.user, root=root)
    original = run_local(text, sshd)
    assert original.returncode == 0 and original.stdout == "post-ran\n", original
    script = root / "and.sh"
    script.write_text(text)

    # The heredoc arrives as written (HL101 at info): fixed where info is reported.
    lint = heredoc_lint(
        "--fix", "--severity", "info", "--fix-strategy", strategy, str(script), cwd=root
    )

    assert script.read_text() != text, lint.stdout + lint.stderr
    proc = run_local(script, sshd)
    assert (proc.stdout, proc.returncode) == (original.stdout, original.returncode)
    assert not (root / "remote/f").exists()


# --- limits of the rewrites -------------------------------------------------------------------

BIG_LINE = "x" * 99 + "\n"
BIG_CASE = """\
#!/bin/bash
ssh {user}@big-host "cat > {remote} << 'EOF'
{body}EOF
echo ok"
"""


def test_base64_fix_of_a_big_body_still_runs(sshd: SshServer, tmp_path: Path) -> None:
    root = checked_root(tmp_path)
    remote = root / "remote" / "big.txt"
    remote.parent.mkdir()
    body = BIG_LINE * 1000  # 100 000 bytes
    text = BIG_CASE.format(user=sshd.user, remote=remote, body=body)
    script = root / "big.sh"
    script.write_text(text)
    original = run_local(script, sshd)  # control: as written, it works
    assert (original.returncode, original.stdout) == (0, "ok\n"), original.stderr
    assert remote.read_bytes() == body.encode()
    remote.unlink()

    heredoc_lint("--fix", "--fix-strategy", "base64", script.name, cwd=root)

    proc = run_local(script, sshd)
    assert (proc.returncode, proc.stdout) == (0, "ok\n"), proc.stderr
    assert remote.read_bytes() == body.encode()


def test_stdin_strategy_not_used_with_forced_tty(tmp_path: Path) -> None:
    # Checked statically: running the fixed script hangs (see the reason).
    text = (
        "#!/bin/bash\nssh -tt root@tty-host \"cat > /tmp/hl-tty.txt << 'EOF'\n"
        'tty \\$1\nEOF\necho ok"\n'
    )
    script = tmp_path / "tty.sh"
    script.write_text(text)

    heredoc_lint("--fix", "--fix-strategy", "stdin", script.name, cwd=tmp_path)

    fixed = script.read_text()
    fed_on_stdin = re.search(r"""["'] <<'EOF(?:_\d+)?'\n""", fixed) is not None
    assert not fed_on_stdin, fixed


# --- where the stdin strategy puts the body -------------------------------------------------

TWO_SSH_ONE_LINE = """\
#!/bin/bash
ssh {user}@h1 "cat > {root}/remote/t1.txt << 'EOF'
t1 $1
EOF
"; ssh {user}@h2 "cat > {root}/remote/t2.txt << 'EOF'
t2 $2
EOF
"
"""

LOCAL_HEREDOC_FIRST = """\
#!/bin/bash
cat <<'L' > {root}/remote/local.txt; ssh {user}@h "cat > {root}/remote/r.txt << 'EOF'
remote $1
EOF
echo ok"
local body
L
"""

CMDSUBST = """\
#!/bin/bash
out=$(ssh {user}@h "cat > {root}/remote/cs.txt << 'EOF'
cs $1
EOF
echo ok")
echo "got $out"
"""


def fix_and_run(
    sshd: SshServer, root: Path, template: str, strategy: str
) -> tuple[subprocess.CompletedProcess[str], str]:
    (root / "remote").mkdir()
    script = root / "s.sh"
    script.write_text(template.format(user=sshd.user, root=root))
    heredoc_lint("--fix", "--fix-strategy", strategy, script.name, cwd=root)
    return run_local(script, sshd), script.read_text()


@pytest.mark.parametrize("strategy", ["base64"])
def test_two_ssh_heredocs_on_one_line(sshd: SshServer, tmp_path: Path, strategy: str) -> None:
    root = checked_root(tmp_path)
    proc, fixed = fix_and_run(sshd, root, TWO_SSH_ONE_LINE, strategy)
    assert (proc.returncode, proc.stderr) == (0, ""), (proc.stderr, fixed)
    assert (root / "remote/t1.txt").read_bytes() == b"t1 $1\n", fixed
    assert (root / "remote/t2.txt").read_bytes() == b"t2 $2\n", fixed


@pytest.mark.parametrize("strategy", ["base64"])
def test_stdin_body_after_a_pending_local_heredoc(
    sshd: SshServer, tmp_path: Path, strategy: str
) -> None:
    root = checked_root(tmp_path)
    proc, fixed = fix_and_run(sshd, root, LOCAL_HEREDOC_FIRST, strategy)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "ok\n", ""), fixed
    assert (root / "remote/local.txt").read_bytes() == b"local body\n", fixed
    assert (root / "remote/r.txt").read_bytes() == b"remote $1\n", fixed


@pytest.mark.parametrize("strategy", ["base64"])
def test_fix_inside_command_substitution(sshd: SshServer, tmp_path: Path, strategy: str) -> None:
    root = checked_root(tmp_path)
    proc, fixed = fix_and_run(sshd, root, CMDSUBST, strategy)
    assert (root / "remote/cs.txt").read_bytes() == b"cs $1\n", fixed
    assert (proc.returncode, proc.stdout) == (0, "got ok\n"), fixed
    assert proc.stderr == "", (proc.stderr, fixed)


@pytest.mark.parametrize(
    ("template", "unplaceable"),
    [
        (TWO_SSH_ONE_LINE, "t2.txt << 'EOF'"),
        (LOCAL_HEREDOC_FIRST, "r.txt << 'EOF'"),
        (CMDSUBST, "cs.txt << 'EOF'"),
    ],
    ids=["second-ssh-on-the-line", "after-a-local-heredoc", "in-substitution"],
)
def test_stdin_declines_where_the_body_cannot_go(
    sshd: SshServer, tmp_path: Path, template: str, unplaceable: str
) -> None:
    """Where a body moved to the local side would land in the wrong place (inside a later
    string on the same line, before another heredoc's body, inside `$( )`), the stdin
    strategy leaves that heredoc as it was: the script still runs, the finding stays."""
    root = checked_root(tmp_path)
    proc, fixed = fix_and_run(sshd, root, template, "stdin")
    assert unplaceable in fixed, fixed
    assert proc.returncode == 0, (proc.stderr, fixed)
    assert "warning" not in proc.stderr and "not found" not in proc.stderr, proc.stderr
    recheck = heredoc_lint("--format", "concise", "s.sh", cwd=root)
    assert "HL101" in recheck.stdout, recheck.stdout


# --- HL103 when the bracket is not enough: the split (unsafe) --------------------------------

SPLIT_CASE = """\
#!/bin/bash
ssh -p 2222 {user}@gpu "pgrep -af sglang 2>{root}/pgrep.err; sleep 0; echo launching sglang in {root}"
echo local-done
"""  # noqa: E501


def test_hl103_split_is_unsafe_and_works(sshd: SshServer, tmp_path: Path) -> None:
    """The plain word stays in the string (`echo launching sglang`), so `[s]glang` alone
    would still match: the fix moves pgrep into an ssh call of its own, only with
    --unsafe-fixes."""
    root = checked_root(tmp_path)
    text = SPLIT_CASE.format(user=sshd.user, root=root)
    script = root / "split.sh"
    script.write_text(text)
    original = run_local(script, sshd)
    assert original.returncode == 0, original.stderr
    [line] = my_remote_shell_lines(original.stdout, root)  # control: it sees itself
    assert line.endswith(f"sleep 0; echo launching sglang in {root}")

    safe = heredoc_lint("--fix", script.name, cwd=root)
    assert safe.returncode == 1 and script.read_text() == text, safe.stdout + safe.stderr

    unsafe = heredoc_lint("--fix", "--unsafe-fixes", script.name, cwd=root)

    assert unsafe.returncode == 0, unsafe.stdout + unsafe.stderr
    fixed = script.read_text()
    assert fixed.count(f"ssh -p 2222 {sshd.user}@gpu ") == 2, fixed
    proc = run_local(script, sshd)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith(f"launching sglang in {root}\nlocal-done\n"), proc.stdout
    # (the stderr redirection names `root`, so the pgrep part's own shell would be found)
    assert my_remote_shell_lines(proc.stdout, root) == [], proc.stdout
