"""Crash-safe fixing: `heredoc-lint --fix` killed with SIGKILL at random moments.

A tree of fixable scripts (heredocs in ssh strings, pkill self-matches, sudo redirects,
CRLF, Latin-1, a BOM, no final newline; modes 0755/0750/0640/0600/0700/4755/2775 and, as root,
foreign owners) is fixed once to learn each file's new content.  Then, many times, a fresh
copy is fixed by the real CLI (worker processes included) and the whole process group is
killed with SIGKILL at a random moment of the run.  Afterwards every file must be exactly
its old or exactly its new content, with its mode and owner, and the only other files
allowed are the writer's temp files: dot-files named `.NAME.XXXX.heredoc-lint`, never
taken for scripts.  A final `--fix` completes the job.

The same is done with the scp strategy, whose new files (`<script>.d/<name>`) must be
absent or complete; and `writer.replace_atomically` is killed at each of its system calls
in turn (deterministic fault injection).  A file changed by someone else between read
and write: tests/test_robustness.py.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_process import CLI

from heredoc_lint.run.discover import TEMP_SUFFIX, kind_of

KILLS = 30
SCP_KILLS = 10
FILES = 240
SEED = 20261129

HEREDOC = """#!/bin/bash
# deploy {i}
ssh -p 2222 root@gpu-{i} "mkdir -p /w; cat > /w/launch{i}.sh << 'EOF'
export CUDA_VISIBLE_DEVICES=$1
exec python3 -m sglang.launch_server --port $2 --tag {i}
EOF
chmod +x /w/launch{i}.sh && echo ok"
echo done {i}
"""
PKILL = '#!/bin/bash\nssh h{i} "pkill -f sglang; sleep 2; echo started {i}"\n'
SUDO = "#!/bin/bash\nsudo echo {i} > /etc/motd{i}\n"


def sources() -> list[tuple[str, bytes, int]]:
    """(relative path, bytes, mode) of every file in the tree."""
    modes = [0o755, 0o750, 0o640, 0o600, 0o700, 0o4755, 0o644, 0o2775]  # read-only: not fixed
    files = []
    for i in range(FILES):
        shape = i % 8
        if shape in (0, 1, 2):
            data = HEREDOC.format(i=i).encode()
        elif shape == 3:
            data = PKILL.format(i=i).encode()
        elif shape == 4:
            data = HEREDOC.format(i=i).replace("\n", "\r\n").encode()
        elif shape == 5:
            data = ("# caf\xe9 \xa9\n" + PKILL.format(i=i)).encode("latin-1")
        elif shape == 6:
            data = b"\xef\xbb\xbf" + PKILL.format(i=i).rstrip("\n").encode()  # BOM, no final LF
        else:
            data = SUDO.format(i=i).encode()
        files.append((f"d{i % 6}/s{i:03d}.sh", data, modes[i % len(modes)]))
    files.append(("clean.sh", b"#!/bin/sh\necho clean\n", 0o755))
    return files


def owners() -> list[tuple[int, int]]:
    if os.geteuid() != 0:
        return [(os.geteuid(), os.getegid())]
    return [(0, 0), (65534, 65534), (1234, 5678), (0, 4321)]


def build(root: Path) -> None:
    ids = owners()
    for n, (relative, data, mode) in enumerate(sources()):
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        uid, gid = ids[n % len(ids)]
        if (uid, gid) != (os.geteuid(), os.getegid()):
            os.chown(path, uid, gid)
        path.chmod(mode)  # after chown, which clears set-user-ID


@dataclass(frozen=True)
class State:
    data: bytes
    mode: int
    uid: int
    gid: int


def snapshot(root: Path) -> dict[str, State]:
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            info = path.stat()
            found[path.relative_to(root).as_posix()] = State(
                path.read_bytes(), stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid
            )
    return found


def heredoc_lint(*args: str, cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*CLI, "--no-cache", *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: the kill takes the workers too
    )


def run_to_end(*args: str, cwd: Path) -> tuple[int, str, float]:
    start = time.monotonic()
    proc = heredoc_lint(*args, cwd=cwd)
    _, err = proc.communicate(timeout=600)
    return proc.returncode, err.decode(), time.monotonic() - start


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)


def is_temp_file(name: str) -> bool:
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


@dataclass
class Tally:
    kills: int = 0
    mid_run: int = 0  # kills that left some files old and some new
    stray: int = 0  # temp files left behind


def check_after_kill(
    root: Path, old: dict[str, State], new: dict[str, State], tally: Tally
) -> None:
    now = snapshot(root)
    fixed = 0
    for name, before in old.items():
        state = now.get(name)
        assert state is not None, f"{name} disappeared"
        assert state.data in (before.data, new[name].data), f"{name}: neither old nor new"
        fixed += state.data != before.data
        assert (state.mode, state.uid, state.gid) == (before.mode, before.uid, before.gid), name
    changed = sum(1 for n in old if old[n].data != new[n].data)
    if 0 < fixed < changed:
        tally.mid_run += 1
    for name, state in now.items():
        if name in old:
            continue
        if name in new:  # a file a fix creates (scp strategy): complete or absent
            assert state.data == new[name].data, f"{name}: incomplete"
            continue
        base = Path(name).name
        assert is_temp_file(base), f"unexpected file {name}"
        assert kind_of(root / name) is None, f"{name} would be checked as a script"
        tally.stray += 1


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pristine") / "tree"
    build(root)
    return root


def copy_tree(pristine: Path, target: Path) -> Path:
    shutil.copytree(pristine, target, symlinks=True)  # copy2: mode kept
    if os.geteuid() == 0:
        for source in pristine.rglob("*"):
            info = source.lstat()
            os.lchown(target / source.relative_to(pristine), info.st_uid, info.st_gid)
            if not source.is_symlink():
                os.chmod(target / source.relative_to(pristine), stat.S_IMODE(info.st_mode))
    return target


def kill_loop(
    pristine: Path, tmp_path: Path, kills: int, extra: tuple[str, ...], seed: int
) -> Tally:
    reference = copy_tree(pristine, tmp_path / "reference")
    old = snapshot(reference)
    code, err, full = run_to_end("--fix", *extra, ".", cwd=reference)
    assert code in (0, 1), err
    new = snapshot(reference)
    changed = sum(1 for n in old if old[n].data != new[n].data)
    assert changed >= FILES * 3 // 4, f"only {changed} files fixed: {err}"
    for name in old:
        assert (new[name].mode, new[name].uid, new[name].gid) == (
            old[name].mode,
            old[name].uid,
            old[name].gid,
        ), name
    assert not [n for n in new if is_temp_file(Path(n).name)]

    rng = random.Random(seed)
    tally = Tally()
    for attempt in range(kills):
        tree = copy_tree(pristine, tmp_path / f"kill{attempt}")
        inodes = {name: (tree / name).stat().st_ino for name in old}
        proc = heredoc_lint("--fix", *extra, ".", cwd=tree)
        if attempt % 2 == 0:  # at a random moment of a run as long as the reference one
            time.sleep(rng.uniform(0.0, full))
        else:
            # Once it has replaced a random number of files, up to half of them: a moment
            # while it writes, however much slower (or quicker) than the reference run
            # the load on the machine makes this one.
            wait_for_replaced(proc, tree, inodes, rng.randint(1, changed // 2))
        kill_group(proc)
        tally.kills += 1
        check_after_kill(tree, old, new, tally)
        # Running again completes the job.
        code, err, _ = run_to_end("--fix", *extra, ".", cwd=tree)
        assert code in (0, 1), err
        final = snapshot(tree)
        for name in new:
            assert final[name] == new[name], name
        shutil.rmtree(tree)
    return tally


def wait_for_replaced(
    proc: subprocess.Popen[bytes], root: Path, inodes: dict[str, int], count: int
) -> None:
    """Until `proc` has replaced `count` of the files whose inodes are `inodes` (a fix
    writes a temp file and renames it over the old one), or has ended."""
    deadline = time.monotonic() + 120
    while proc.poll() is None:
        replaced = 0
        for name, inode in inodes.items():
            with contextlib.suppress(FileNotFoundError):
                replaced += (root / name).stat().st_ino != inode
        if replaced >= count:
            return
        assert time.monotonic() < deadline, f"only {replaced} files replaced in 120 s"
        time.sleep(0.002)


def test_sigkill_during_fix_leaves_old_or_new(pristine: Path, tmp_path: Path) -> None:
    tally = kill_loop(pristine, tmp_path, KILLS, (), SEED)
    print(f"\n{tally.kills} kills, {tally.mid_run} mid-run, {tally.stray} stray temp files")
    assert tally.mid_run >= KILLS // 4, "the kills did not land while files were being written"


def test_sigkill_during_scp_fix_leaves_old_or_new(pristine: Path, tmp_path: Path) -> None:
    tally = kill_loop(pristine, tmp_path, SCP_KILLS, ("--fix-strategy", "scp"), SEED + 1)
    print(f"\n{tally.kills} kills, {tally.mid_run} mid-run, {tally.stray} stray temp files")


def group_members(pgid: int) -> list[int]:
    """The processes of a process group (from /proc)."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry.name))
    return members


def test_sigkill_only_the_main_process(tmp_path: Path) -> None:
    """Only the main process dies (kill -9 PID) while its workers run: they must not
    outlive it for long, and every file is still old or new."""
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs /proc")
    tree = tmp_path / "tree"
    tree.mkdir()
    count = 3000
    for i in range(count):
        (tree / f"f{i:04d}.sh").write_text(PKILL.format(i=i))
    proc = heredoc_lint("--fix", "--jobs", "2", ".", cwd=tree)
    deadline = time.monotonic() + 60
    while len(group_members(proc.pid)) < 2 and proc.poll() is None:  # main + 1 forked worker
        assert time.monotonic() < deadline, "no worker processes started"
        time.sleep(0.01)
    assert proc.poll() is None, "the run ended before its workers were seen"
    time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    deadline = time.monotonic() + 10
    while group_members(proc.pid):
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail("worker processes were still running 10 s after the main one was killed")
        time.sleep(0.2)
    fixed = PKILL.replace("pkill -f sglang", "pkill -f '[s]'glang")
    for i in range(count):
        text = (tree / f"f{i:04d}.sh").read_text()
        assert text in (PKILL.format(i=i), fixed.format(i=i)), text


# ------------------------------------------------------------------------------------------
# deterministic fault injection in the writer

INJECT = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from heredoc_lint.run import writer

    step = int(sys.argv[1])
    calls = 0
    def dying(real):
        def call(*args, **kwargs):
            global calls
            calls += 1
            if calls == step:
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*args, **kwargs)
        return call
    for name in ("replace", "fsync", "fchmod", "fchown", "chmod", "open", "write", "close",
                 "link", "unlink", "mkdir", "fdopen", "stat"):
        if hasattr(os, name):
            setattr(os, name, dying(getattr(os, name)))
    path = Path(sys.argv[2])
    if sys.argv[3] == "replace":
        writer.replace_atomically(path, b"new content\\n" * 1000, path.read_bytes())
    else:
        from heredoc_lint.model import NewFile
        writer.create_beside(path, NewFile("s.sh.d/body", b"body\\n" * 1000, 0o640))
    print("done", calls)
    """
)


@pytest.mark.parametrize("operation", ["replace", "create"])
def test_writer_killed_at_every_system_call(tmp_path: Path, operation: str) -> None:
    old = b"old content\n" * 1000
    new = b"new content\n" * 1000
    body = b"body\n" * 1000
    step = 1
    while True:
        folder = tmp_path / f"step{step}"
        folder.mkdir()
        script = folder / "s.sh"
        script.write_bytes(old)
        script.chmod(0o751)
        done = subprocess.run(
            [sys.executable, "-c", INJECT, str(step), str(script), operation],
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert done.returncode in (0, -signal.SIGKILL), done.stderr.decode()
        if operation == "replace":
            assert script.read_bytes() in (old, new), step
            assert stat.S_IMODE(script.stat().st_mode) == 0o751
        else:
            assert script.read_bytes() == old
            created = folder / "s.sh.d" / "body"
            if created.exists():
                assert created.read_bytes() == body, step
                assert stat.S_IMODE(created.stat().st_mode) == 0o640
        for other in folder.rglob("*"):
            if other.is_file() and other not in (script, folder / "s.sh.d" / "body"):
                assert other.name.startswith("."), f"step {step}: stray {other.name}"
                assert kind_of(other) is None
        if done.returncode == 0:
            assert (
                script.read_bytes() == new
                if operation == "replace"
                else (folder / "s.sh.d" / "body").read_bytes() == body
            )
            break
        step += 1
        assert step < 200
    print(f"\n{operation}: killed at each of {step - 1} system calls, then completed")
    assert step > 3  # the kills did hit the writer's calls
