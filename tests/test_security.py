"""Security of what heredoc-lint reads and writes.

1. It never runs the code it reads.  Files of every kind (shell, Python, Markdown, a
   workflow with an unsafe YAML tag, an agent transcript, a hook payload, `--command`,
   stdin) are full of commands that would create a marker file if anything ran them; they
   go through check, `--fix`, `--unsafe-fixes`, `--diff`, every strategy and format,
   `explain`, `hook claude` and `transcript`, with fake `ssh`, `scp`, `sh`, `python3`... first
   on PATH that record any call, and a `bash` that only lets `bash -n` (parse only) through.
   A git checkout whose config names a command for git to run is walked too.
2. The scp strategy writes only below the script's directory, whatever the remote path
   (`..`, absolute paths, newlines in names) and whatever is already on disk (a `.d`
   folder or file that is a symlink out of the tree, a file with other content).
3. The shell the fixes write cannot be turned into something else: hypothesis draws
   hostile heredoc bodies (`$(touch ...)`, backticks, `'; touch x; '`, a line `EOF`...),
   remote paths and ssh host specs (a host with `;`, a `-l` user with `;`, a host made by
   `$(...)`); each script is fixed with each strategy and the fixed script runs in real
   bash against the real sshd (tests/sshd.py; any host reaches the loopback server).
   Afterwards the intended file holds the intended body, no marker of an injected command
   exists, and a `$(...)` in the ssh command line ran as often as in the original script.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_process import CLI
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sshd import SshServer, multiplexed, run_local

from heredoc_lint.model import NewFile, Severity
from heredoc_lint.run.runner import Options, run
from heredoc_lint.run.writer import WriteError, create_beside

# ------------------------------------------------------------------------------------------
# 1. never runs what it reads

FAKED = [
    "ssh",
    "scp",
    "sudo",
    "su",
    "runuser",
    "pkill",
    "pgrep",
    "kill",
    "docker",
    "podman",
    "kubectl",
    "sh",
    "dash",
    "zsh",
    "ksh",
    "python",
    "python3",
    "perl",
    "cat",
    "tee",
    "touch",
    "rm",
    "base64",
    "printf",
    "env",
    "nohup",
    "timeout",
    "xargs",
    "curl",
    "make",
    "node",
]


def evil_shell(m: Path) -> str:
    return f"""#!/bin/bash
touch {m}/sh1
x=$(touch {m}/sh2)
y=`touch {m}/sh3`
ssh h "touch {m}/sh4; pkill -f touch; echo $(touch {m}/sh5)"
ssh -p 22 root@h "cat > /tmp/f << 'EOF'
$(touch {m}/sh6) `touch {m}/sh7`
EOF
bash /tmp/f"
cat <<EOF
$(touch {m}/sh8)
EOF
eval "touch {m}/sh9"
bash -c 'touch {m}/sh10'
sudo sh -c "touch {m}/sh11" > /dev/null
sudo echo hi > {m}/sh12
python3 -c 'open("{m}/sh13", "w")'
case x in @(a|b)) touch {m}/sh14;; esac
echo ${{x:-$(touch {m}/sh15)}} <(touch {m}/sh16) >(touch {m}/sh17)
while read -r h; do ssh "$h" "touch {m}/sh18"; done < hosts
scp -p 22 {m}/sh19 h:/tmp/
ssh h "if true; then touch {m}/sh20"
"""


def evil_python(m: Path) -> str:
    return f"""import os, subprocess
open("{m}/py1", "w").close()
os.system("touch {m}/py2")
subprocess.run("ssh h 'pkill -f x; touch {m}/py3'", shell=True)
subprocess.run(["ssh", "h", "cat > /f << 'EOF'\\n$(touch {m}/py4)\\nEOF"])
subprocess.run(f"ssh {{host}} touch {m}/py5", shell=True)
if __name__ == "__main__":
    open("{m}/py6", "w").close()
"""


def evil_markdown(m: Path) -> str:
    return f"""# Deploy

```bash
ssh h "pkill -f x; touch {m}/md1"
touch {m}/md2
```

```console
$ ssh h "cat > /f << 'EOF'
> $(touch {m}/md3)
> EOF"
output
```
"""


def evil_workflow(m: Path) -> str:
    return f"""on: push
jobs:
  build:
    runs-on: ubuntu-latest
    env:
      X: !!python/object/apply:os.system ["touch {m}/yml1"]
    steps:
      - run: |
          ssh h "pkill -f x; touch {m}/yml2"
          touch {m}/yml3
      - run: ssh h "cat > /f << 'EOF'
          $(touch {m}/yml4)
          EOF"
"""


def evil_command(m: Path) -> str:
    return f'touch {m}/cmd1; ssh h "pkill -f touch; touch {m}/cmd2 $(touch {m}/cmd3)"'


@dataclass(frozen=True)
class Sandbox:
    root: Path
    markers: Path
    env: dict[str, str]

    def cli(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*CLI, *args],
            cwd=self.root,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def ran(self) -> list[str]:
        found = sorted(p.name for p in self.markers.iterdir())
        if "called" in found:
            found.append((self.markers / "called").read_text())
        return found


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    markers = tmp_path / "markers"
    markers.mkdir()
    fake = tmp_path / "fakebin"
    fake.mkdir()
    called = markers / "called"
    for name in FAKED:
        (fake / name).write_text(f'#!/bin/sh\necho "{name} $*" >> {called}\nexit 97\n')
        (fake / name).chmod(0o755)
    bash = fake / "bash"  # only `bash -n`: read commands, run none
    bash.write_text(
        '#!/bin/sh\nfor a in "$@"; do [ "$a" = -n ] && exec /bin/bash "$@"; done\n'
        f'echo "bash $*" >> {called}\nexit 97\n'
    )
    bash.chmod(0o755)
    root = tmp_path / "project"
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / "evil.sh").write_text(evil_shell(markers))
    (root / "evil-noext").write_text(evil_shell(markers))
    (root / "evil.py").write_text(evil_python(markers))
    (root / "evil.md").write_text(evil_markdown(markers))
    (root / ".github" / "workflows" / "evil.yml").write_text(evil_workflow(markers))
    env = dict(os.environ, PATH=f"{fake}{os.pathsep}{os.environ.get('PATH', '')}", NO_COLOR="1")
    env["HOME"] = str(tmp_path / "home")
    return Sandbox(root, markers, env)


CHECK_ARGS = [
    [],
    ["--format", "json"],
    ["--format", "sarif"],
    ["--format", "github"],
    ["--severity", "info", "--statistics"],
    ["--diff"],
    ["--diff", "--fix-strategy", "scp"],
    ["--fix"],
    ["--fix", "--unsafe-fixes"],
    ["--fix", "--unsafe-fixes", "--fix-strategy", "scp"],
    ["--fix", "--unsafe-fixes", "--fix-strategy", "stdin"],
    ["--jobs", "2", "--fix"],
]


@pytest.mark.parametrize("args", CHECK_ARGS, ids=lambda a: " ".join(a) or "check")
def test_files_of_every_kind_are_never_run(sandbox: Sandbox, args: list[str]) -> None:
    result = sandbox.cli(*args, ".")
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (0, 1, 2), result.stderr
    assert sandbox.ran() == []
    named = sandbox.cli(
        *args, "evil.sh", "evil-noext", "evil.py", "evil.md", ".github/workflows/evil.yml"
    )
    assert "Traceback" not in named.stderr, named.stderr
    assert sandbox.ran() == []


@pytest.mark.parametrize(
    "name", ["evil.sh", "evil.py", "evil.md", ".github/workflows/evil.yml", "evil-noext"]
)
@pytest.mark.parametrize("fix", [[], ["--fix"], ["--diff"]], ids=["check", "fix", "diff"])
def test_stdin_of_every_kind_is_never_run(sandbox: Sandbox, name: str, fix: list[str]) -> None:
    text = (sandbox.root / name).read_text()
    result = sandbox.cli(*fix, "--stdin-filename", name, "-", stdin=text)
    assert "Traceback" not in result.stderr, result.stderr
    assert sandbox.ran() == []


@pytest.mark.parametrize("fix", [[], ["--fix"], ["--fix", "--unsafe-fixes"], ["--diff"]])
def test_command_is_never_run(sandbox: Sandbox, fix: list[str]) -> None:
    result = sandbox.cli(*fix, "--command", evil_command(sandbox.markers))
    assert "Traceback" not in result.stderr, result.stderr
    assert sandbox.ran() == []


def test_explain_hook_and_transcript_never_run(sandbox: Sandbox) -> None:
    m = sandbox.markers
    command = evil_command(m)
    for args in (
        ["explain", "--command", command],
        ["explain", "evil.sh"],
        ["explain", "evil.sh:5"],
        ["rule", "HL103"],
        ["rules"],
    ):
        result = sandbox.cli(*args)
        assert "Traceback" not in result.stderr, (args, result.stderr)
    payload = {
        "session_id": "s",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": str(sandbox.root),
    }
    hook = sandbox.cli("hook", "claude", stdin=json.dumps(payload))
    assert hook.returncode == 0, hook.stderr
    session = sandbox.root / "session.jsonl"
    line = {
        "type": "assistant",
        "sessionId": "s",
        "uuid": "u",
        "message": {
            "id": "m",
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": command}}
            ],
        },
    }
    session.write_text(json.dumps(line) + "\n")
    transcript = sandbox.cli("transcript", str(session))
    assert "Traceback" not in transcript.stderr, transcript.stderr
    assert sandbox.ran() == []


def test_a_checkout_whose_git_config_runs_a_command(sandbox: Sandbox) -> None:
    """`core.fsmonitor` in .git/config is a command git runs for `ls-files`: never here."""
    subprocess.run(["git", "init", "-q", str(sandbox.root)], check=True, env=sandbox.env)
    subprocess.run(
        [
            "git",
            "-C",
            str(sandbox.root),
            "config",
            "core.fsmonitor",
            f"touch {sandbox.markers}/git1; false",
        ],
        check=True,
        env=sandbox.env,
    )
    result = sandbox.cli("--fix", ".")
    assert "Traceback" not in result.stderr, result.stderr
    assert sandbox.ran() == []


# ------------------------------------------------------------------------------------------
# 2. the scp strategy writes only beside the script

SCP_TEMPLATE = """#!/bin/bash
ssh -p 2222 root@h "mkdir -p /w; cat > {path} << 'EOF'
body of {label}
EOF
chmod 600 {path}"
"""

REMOTE_PATHS = [
    "/etc/passwd",
    "/../../etc/passwd",
    "/w/../../../etc/shadow",
    "/w/..",
    "/w/.",
    "/",
    "/w/sub/",
    "~/../../etc/passwd",
    "~/.ssh/authorized_keys",
    "'/w/a\nb'",
    "$'/w/a\\nb'",
    '"/w/../x"',
    "/w/-rf",
    "/w/.hidden",
    "/w/" + "x" * 300,
]


def tree_snapshot(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


@pytest.mark.parametrize("path", REMOTE_PATHS, ids=repr)
def test_scp_fix_writes_only_below_the_script(tmp_path: Path, path: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    project = tmp_path / "project" / "scripts"
    project.mkdir(parents=True)
    script = project / "deploy.sh"
    script.write_text(SCP_TEMPLATE.format(path=path, label="x"))
    before_outside = tree_snapshot(tmp_path)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "heredoc_lint",
            "--no-cache",
            "--fix",
            "--fix-strategy",
            "scp",
            str(script),
        ],
        cwd=outside,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr
    created = tree_snapshot(tmp_path) - before_outside
    for name in created:
        assert name.startswith("project/scripts/"), (name, result.stderr)
    assert not list(outside.iterdir())


def test_create_beside_refuses_every_way_out(tmp_path: Path) -> None:
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    script = scripts / "s.sh"
    script.write_text("x\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    for hostile in [
        "../outside/x",
        "/etc/passwd",
        str(outside / "y"),
        "s.sh.d/../../x",
        "..",
        ".",
        "",
        "s.sh.d/..",
        "./../outside/z",
    ]:
        with pytest.raises(WriteError):
            create_beside(script, NewFile(hostile, b"pwned\n"))
    # A `.d` folder that is a symlink out of the tree.
    (scripts / "s.sh.d").symlink_to(outside, target_is_directory=True)
    with pytest.raises(WriteError, match="refusing to write outside"):
        create_beside(script, NewFile("s.sh.d/f", b"pwned\n"))
    (scripts / "s.sh.d").unlink()
    # A file in it that is a symlink out of the tree.
    (scripts / "s.sh.d").mkdir()
    (scripts / "s.sh.d" / "f").symlink_to(outside / "target")
    with pytest.raises(WriteError):
        create_beside(script, NewFile("s.sh.d/f", b"pwned\n"))
    # A file with other content is never overwritten; the same content is fine.
    (scripts / "s.sh.d" / "g").write_bytes(b"mine\n")
    with pytest.raises(WriteError, match="not overwritten"):
        create_beside(script, NewFile("s.sh.d/g", b"theirs\n"))
    assert (scripts / "s.sh.d" / "g").read_bytes() == b"mine\n"
    create_beside(script, NewFile("s.sh.d/g", b"mine\n"))
    # Strange but inside: a newline in the name.
    create_beside(script, NewFile("s.sh.d/a\nb", b"ok\n", 0o640))
    assert (scripts / "s.sh.d" / "a\nb").read_bytes() == b"ok\n"
    assert list(outside.iterdir()) == []
    assert not [p for p in scripts.rglob(".*")]  # no temp file left


# ------------------------------------------------------------------------------------------
# 3. generated shell is injection-proof (real bash, real sshd)

HOSTILE_LINES = [
    "$(touch {m}/pwned_subst)",
    "`touch {m}/pwned_backtick`",
    "'; touch {m}/pwned_sq; '",
    '"; touch {m}/pwned_dq; "',
    "$(touch {m}/pwned_a)$(touch {m}/pwned_b)",
    "${{x:-$(touch {m}/pwned_default)}}",
    "$1 $@ $* $$ $HOME ${{HOME}}",
    "\\",
    "\\\\",
    "EOF",  # only drawn with the delimiter END
    "EOF_1",
    "'EOF'",
    " EOF",
    "END",
    "\\$(touch {m}/pwned_escaped)",
    "it's 'quoted' \"twice\"",
    "'\\''",
    "#!/bin/sh",
    "; touch {m}/pwned_semicolon",
    "| touch {m}/pwned_pipe",
    "&& touch {m}/pwned_and",
    "\t\x0b\x0c",
    "é 中文 😀",
    "",
    "!! !$ !touch",
    "$'\\x41' $\"x\"",
]


def spell(body: str, spelling: str) -> str:
    """The body as written inside the ssh command's double- or single-quoted string."""
    if spelling == "sq":
        return body.replace("'", "'\\''")
    if spelling == "dq":  # escaped correctly: the original script also delivers it
        return "".join("\\" + c if c in '\\$`"' else c for c in body)
    # careless: `$` and backticks left as they are (the original expands them locally)
    return "".join("\\" + c if c in '\\"' else c for c in body)


@dataclass(frozen=True)
class HostSpec:
    text: str  # the words between `ssh` and the command, as written in the script
    reaches_server: bool  # the original logs in (so the intended file is written)


def host_specs(user: str, m: str) -> dict[str, HostSpec]:
    return {
        "plain": HostSpec(f"-p 2222 {user}@prop-host", True),
        "hostile host": HostSpec(f"'{user}@h;touch {m}/pwned_host;'", False),  # ssh refuses it
        "hostile -l": HostSpec(f"-l '{user};touch {m}/pwned_user;' h", False),
        "$( ) host": HostSpec(f'"$(mktemp {m}/ran.XXXXXX >/dev/null; echo {user}@h)"', True),
        "$( ) option": HostSpec(
            f'-o "ConnectTimeout=$(mktemp {m}/ran.XXXXXX >/dev/null; echo 20)" {user}@h', True
        ),
    }


REMOTE_NAMES = ["out.txt", "sub/../out.txt", "-dash", ".hidden", "a+b,c:d@e%f"]


@dataclass(frozen=True)
class Case:
    number: int
    spelling: str
    body: str
    name: str
    host: str
    script: Path  # the original script, fixed in place
    original: Path  # an unfixed copy, run in its own scratch
    remote: Path
    markers: Path
    original_markers: Path


def script_text(
    case_dir: Path, spelling: str, body: str, name: str, host: HostSpec, delimiter: str
) -> str:
    remote_dir = case_dir / "remote"
    target = f"{remote_dir}/{name}"
    spelled = spell(body, spelling)
    if spelling == "sq":
        return (
            f"#!/bin/bash\nssh {host.text} 'mkdir -p {remote_dir}/sub; cat > {target} << "
            f"'\\''{delimiter}'\\''\n{spelled}{delimiter}\necho ok'\n"
        )
    return (
        f'#!/bin/bash\nssh {host.text} "mkdir -p {remote_dir}/sub; cat > {target} << '
        f"'{delimiter}'\n{spelled}{delimiter}\necho ok\"\n"
    )


@pytest.fixture(scope="module")
def fast_sshd(sshd: SshServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshServer]:
    """The session's server behind ssh master connections: the same sessions, faster."""
    with multiplexed(sshd, tmp_path_factory.mktemp("secmux")) as server:
        yield server


STRATEGIES = ["base64", "scp", "stdin"]
EXAMPLES = 12
KNOWN_BUGS: dict[tuple[str, str], str] = {}  # every family passes
# The scp fix would copy a `$(...)` of the host or an option into scp and the second ssh,
# running it three times: it declines those commands, and the test says so.
DECLINED_BY_DESIGN = {("scp", "$( ) host"), ("scp", "$( ) option")}


def params() -> Iterator[object]:
    for strategy in STRATEGIES:
        for family in host_specs("u", "m"):
            reason = KNOWN_BUGS.get((strategy, family))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(strategy, family, marks=marks, id=f"{strategy}-{family}")


TALLY: dict[str, int] = {"hostile inputs": 0, "fixed": 0, "declined": 0}


@pytest.mark.parametrize(("strategy", "family"), list(params()))
def test_fixed_shell_is_injection_proof(
    fast_sshd: SshServer,
    tmp_path: Path,
    strategy: str,
    family: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cases: list[Case] = []
    declined = [0]
    counter = [0]

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(
        lines=st.lists(st.sampled_from(HOSTILE_LINES), min_size=1, max_size=6),
        spelling=st.sampled_from(["dq", "careless", "sq"]),
        name=st.sampled_from(REMOTE_NAMES),
        delimiter=st.sampled_from(["EOF", "END"]),
    )
    def fix_one(lines: list[str], spelling: str, name: str, delimiter: str) -> None:
        lines = [line for line in lines if line != delimiter]
        counter[0] += 1
        number = counter[0]
        fixed_dir = tmp_path / f"ex{number:03d}" / "fixed"
        original_dir = tmp_path / f"ex{number:03d}" / "original"
        paths = {}
        for where in (fixed_dir, original_dir):
            (where / "markers").mkdir(parents=True)
            (where / "remote").mkdir()
            m = str(where / "markers")
            body = "".join(line.format(m=m) + "\n" for line in lines)
            host = host_specs(fast_sshd.user, m)[family]
            script = where / "t.sh"
            script.write_text(script_text(where, spelling, body, name, host, delimiter))
            paths[where] = (script, body)
        script, body = paths[fixed_dir]
        before = script.read_text()
        result = run(Options(fix=True, unsafe_fixes=True, fix_strategy=strategy), [script])
        assert not result.failed, result.notes
        if script.read_text() == before:
            declined[0] += 1
            return
        cases.append(
            Case(
                number,
                spelling,
                body,
                name,
                family,
                script,
                paths[original_dir][0],
                Path(os.path.normpath(fixed_dir / "remote" / name)),
                fixed_dir / "markers",
                original_dir / "markers",
            )
        )

    fix_one()

    def check(case: Case) -> str | None:
        original = run_local(case.original, fast_sshd, timeout=120)
        fixed = run_local(case.script, fast_sshd, timeout=120)
        problems = []
        pwned = sorted(p.name for p in case.markers.iterdir() if p.name.startswith("pwned"))
        if pwned:
            problems.append(f"injected commands ran: {pwned}")
        ran = len([p for p in case.markers.iterdir() if p.name.startswith("ran.")])
        ran_before = len([p for p in case.original_markers.iterdir() if p.name.startswith("ran.")])
        if ran != ran_before:
            problems.append(f"$(...) in the ssh command line ran {ran} times, not {ran_before}")
        spec = host_specs(fast_sshd.user, "m")[case.host]
        if spec.reaches_server:
            if fixed.returncode != 0 or fixed.stdout != "ok\n":
                problems.append(f"exit {fixed.returncode}: {fixed.stdout!r} {fixed.stderr!r}")
            elif not case.remote.exists() or case.remote.read_bytes() != case.body.encode():
                got = case.remote.read_bytes() if case.remote.exists() else None
                problems.append(f"remote file holds {got!r}")
        others = {p.name for p in case.remote.parent.iterdir()} - {"sub", case.remote.name}
        if others:
            problems.append(f"other remote files: {sorted(others)}")
        if not problems:
            return None
        return (
            f"example {case.number} ({case.spelling}, {case.name!r}): {problems}\n"
            f"  original exit {original.returncode}\n"
            f"  fixed script:\n{case.script.read_text()}"
        )

    with ThreadPoolExecutor(4) as pool:
        problems = [p for p in pool.map(check, cases) if p is not None]
    TALLY["hostile inputs"] += counter[0]
    TALLY["fixed"] += len(cases)
    TALLY["declined"] += declined[0]
    with capsys.disabled():
        print(
            f"\n[{strategy} / {family}] {counter[0]} hostile scripts, {len(cases)} fixed and "
            f"run through sshd, {declined[0]} not rewritten, {len(problems)} failed"
        )
    assert not problems, f"{len(problems)} of {len(cases)}:\n" + "\n".join(problems[:3])
    if (strategy, family) in DECLINED_BY_DESIGN:
        assert not cases and declined[0] == counter[0], "these must be left as they are"
    else:
        assert cases, "no example was rewritten: nothing was tested"


def test_scp_fix_quotes_the_ssh_user(tmp_path: Path) -> None:
    """Minimal reproduction, without ssh: the fixed line must not run `touch`."""
    marker = tmp_path / "pwned"
    script = tmp_path / "t.sh"
    script.write_text(
        f"#!/bin/bash\nssh -l 'u;touch {marker};' h \"mkdir -p /w; cat > /w/f << 'EOF'\n"
        'x\nEOF\necho ok"\n'
    )
    run(Options(fix=True, fix_strategy="scp"), [script])
    fixed = script.read_text()
    assert "scp" in fixed
    fake = tmp_path / "bin"
    fake.mkdir()
    for name in ("ssh", "scp"):
        (fake / name).write_text("#!/bin/sh\nexit 0\n")
        (fake / name).chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}{os.pathsep}{os.environ['PATH']}")
    subprocess.run(["bash", str(script)], env=env, capture_output=True, timeout=30, check=False)
    assert not marker.exists(), fixed


def run_with_fake_ssh(script: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run a fixed script with `ssh` and `scp` that do nothing: only local effects remain."""
    fake = tmp_path / "fakebin"
    fake.mkdir(exist_ok=True)
    for name in ("ssh", "scp"):
        (fake / name).write_text("#!/bin/sh\nexit 0\n")
        (fake / name).chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}{os.pathsep}{os.environ['PATH']}")
    return subprocess.run(
        ["bash", str(script)], env=env, capture_output=True, text=True, timeout=30, check=False
    )


def test_scp_fix_evaluates_the_host_once(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    script = tmp_path / "t.sh"
    script.write_text(
        f'#!/bin/bash\nssh "$(mktemp {runs}/r.XXXXXX >/dev/null; echo h)" "mkdir -p /w; '
        "cat > /w/f << 'EOF'\nx\nEOF\necho ok\"\n"
    )
    run(Options(fix=True, fix_strategy="scp"), [script])
    assert "scp" in script.read_text()
    run_with_fake_ssh(script, tmp_path)
    assert len(list(runs.iterdir())) == 1, script.read_text()


@pytest.mark.parametrize(
    "name",
    [
        'a"$(touch PWNED)".sh',
        "b`touch PWNED`.sh",
        "c$'\\n'd.sh",
        "d'e.sh",
        "e\nf.sh",
        "-g.sh",
        "h$HOME.sh",
        "i\\j.sh",
    ],
)
def test_scp_fix_quotes_a_hostile_script_name(tmp_path: Path, name: str) -> None:
    """The fixed command names the body file through the script's own name: quoted."""
    folder = tmp_path / "w"
    folder.mkdir()
    script = folder / name
    script.write_text(
        "#!/bin/bash\nssh h \"mkdir -p /w; cat > /w/body << 'EOF'\nx\nEOF\necho ok\"\n"
    )
    result = run(Options(fix=True, fix_strategy="scp", severity=Severity.INFO), [script])
    assert not result.failed, result.notes
    fixed = script.read_text()
    assert "scp" in fixed, fixed
    assert (folder / f"{name}.d" / "body").read_bytes() == b"x\n"
    # Run it where `scp` prints its arguments: the local path must be the body file.
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "ssh").write_text("#!/bin/sh\nexit 0\n")
    (fake / "scp").write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\0" "$a"; done\n')
    for tool in fake.iterdir():
        tool.chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(
        ["bash", str(script)], cwd=tmp_path, env=env, capture_output=True, timeout=30, check=False
    )
    args = done.stdout.split(b"\0")
    assert os.fsencode(folder / f"{name}.d" / "body") in args, (args, fixed)
    assert not list(tmp_path.rglob("PWNED*")), fixed
