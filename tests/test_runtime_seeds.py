"""The seed incidents, run for real against a loopback sshd, then linted.

Seeds 000 and 003 (tests/cases/seed000.sh and seed003.sh) are adapted in two ways only:
remote files go under
a temp dir instead of /workspace, /root and /tmp, and `pgrep -af sglang` stands in for
`pkill -9 -f sglang`, so that the test kills nothing and shows what pkill would have
killed. The host and port in the scripts stay as written: the `ssh` wrapper on PATH sends
every host to the test server (ProxyCommand).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

from cli_process import CLI
from sshd import SshServer, run_local

REPO_ROOT = Path(__file__).resolve().parents[1]

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

# What seed 000's remote file really holds: the local shell expanded $1 and $2 (no
# arguments: empty) and deleted every backslash-newline inside the double quotes.
SEED000_REMOTE_FILE = (
    "#!/bin/bash\n"
    "export LD_LIBRARY_PATH=/usr/local/cuda/lib64\n"
    "export CUDA_VISIBLE_DEVICES=\n"
    "exec /workspace/dflash/venv/bin/python3 -m sglang.launch_server"
    "   --model-path /workspace/dflash/models/Qwen3.6-27B"
    "   --mem-fraction-static 0.92"
    "   --port \n"
)


def replace_all(text: str, old: str, new: str, count: int) -> str:
    assert text.count(old) == count, (old, text)
    return text.replace(old, new)


def adapt_seed000(root: Path) -> tuple[str, Path]:
    """The seed script, and the remote file it writes."""
    text = replace_all(SEED000, "pkill -9 -f sglang", "pgrep -af sglang", 1)
    text = replace_all(text, "cat > /workspace/", f"cat > {root}/workspace/", 1)
    text = replace_all(text, "chmod +x /workspace/", f"chmod +x {root}/workspace/", 1)
    return text, root / "workspace/dflash/scripts/launch_mtp.sh"


def adapt_seed003(root: Path) -> tuple[str, Path]:
    text = replace_all(SEED003, "pkill -f sglang", "pgrep -af sglang", 1)
    text = replace_all(text, "> /tmp/server", f"> {root}/tmp/server", 1)
    text = replace_all(text, " /root/", f" {root}/root/", 3)
    return text, root / "root/run_tp8_cutlass_mla.sh"


def heredoc_body(text: str, opener: str) -> str:
    """The source text between the heredoc's opening line and its `EOF` line."""
    after = text.split(opener + "\n", 1)[1]
    return after.split("\nEOF\n", 1)[0] + "\n"


def checked_root(tmp_path: Path) -> Path:
    # The paths end up in command lines that pgrep searches, and in quoted strings.
    assert "sglang" not in str(tmp_path) and not set("'\"$\\ ") & set(str(tmp_path))
    return tmp_path


def remote_shell_lines(pgrep_output: str, remote_file: Path) -> list[str]:
    """The `pgrep -af sglang` lines of the remote login shell (`bash -c <the string>`).

    Client and server share this host, so pgrep also lists the local ssh client, whose
    argv holds the same string (`/usr/bin/ssh -F ... root@host pgrep -af sglang ...`).
    On a real remote host only the shell line would be there; it is the one pkill -9
    would have killed, ending the session before `cat >` ran. pgrep prints the argv
    joined by spaces, with newlines as spaces. pgrep sees the whole machine, so only the
    lines that write this test's `remote_file` count: another run of this test at the same
    time (a second test session on the machine) has its own.
    """
    writes = re.escape(f"cat > {remote_file} ")
    shell = r"^\d+ \S*sh -c pgrep -af sglang 2>/dev/null; sleep 2; "
    return re.findall(shell + writes + ".*$", pgrep_output, re.M)


def test_runtime_seed000_expands_locally_and_self_matches(sshd: SshServer, tmp_path: Path) -> None:
    root = checked_root(tmp_path)
    script, remote_file = adapt_seed000(root)
    remote_file.parent.mkdir(parents=True)
    path = root / "seed000.sh"
    path.write_text(script)

    proc = run_local(path, sshd)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith("\nok\n"), proc.stdout
    # (a) the file the remote side received is not the body the author wrote.
    intended = heredoc_body(script, "<< 'EOF'")
    assert "CUDA_VISIBLE_DEVICES=$1\n" in intended and "--port $2\n" in intended
    assert intended.count("\\\n") == 3
    received = remote_file.read_text()
    assert received != intended
    assert received == SEED000_REMOTE_FILE
    assert "export CUDA_VISIBLE_DEVICES=\n" in received.splitlines(keepends=True)
    assert received.endswith("--port \n")
    assert "\\" not in received and "$" not in received
    assert len(intended.splitlines()) == 7 and len(received.splitlines()) == 4  # joined
    # (b) pgrep -f, run by the remote shell, lists that shell itself.
    [line] = remote_shell_lines(proc.stdout, remote_file)
    assert f"cat > {remote_file} << 'EOF'" in line
    assert "CUDA_VISIBLE_DEVICES= " in line  # its argv is the locally expanded string


def test_runtime_seed003_single_quotes_deliver_body_but_self_match(
    sshd: SshServer, tmp_path: Path
) -> None:
    root = checked_root(tmp_path)
    script, remote_file = adapt_seed003(root)
    remote_file.parent.mkdir(parents=True)
    (root / "tmp").mkdir()
    path = root / "seed003.sh"
    path.write_text(script)

    # The background job runs `python3 -m sglang.launch_server`; without sglang installed
    # it exits at once with ModuleNotFoundError into the temp log.
    proc = run_local(path, sshd)

    assert proc.returncode == 0, proc.stderr
    # Single quotes: the remote file is exactly the body as written, and `$!` reached
    # the remote shell unexpanded.
    intended = heredoc_body(script, "<< '\\''EOF'\\''")
    assert remote_file.read_text() == intended
    assert re.search(r"^Launched PID: \d+$", proc.stdout, re.M), proc.stdout
    [line] = remote_shell_lines(proc.stdout, remote_file)
    assert f"cat > {remote_file} << 'EOF'" in line


# --- the linter on the same scripts (the JSON output's keys and values) -----------------

KEYS = {
    "code",
    "name",
    "severity",
    "message",
    "path",
    "line",
    "column",
    "end_line",
    "end_column",
    "layer",
    "fix",
}


def lint_json(path: Path) -> tuple[list[dict[str, Any]], subprocess.CompletedProcess[str]]:
    proc = subprocess.run(
        [*CLI, "--format", "json", str(path)],
        cwd=REPO_ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    try:
        findings = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        raise AssertionError(f"no JSON (exit {proc.returncode}): {proc.stderr}") from exc
    assert isinstance(findings, list)
    for f in findings:
        assert f.keys() >= KEYS, f
        assert (REPO_ROOT / f["path"]).resolve() == path.resolve(), f
    return findings, proc


def where(text: str, line_marker: str, needle: str) -> tuple[int, int]:
    """1-based (line, column) of `needle` in the first line that contains `line_marker`."""
    for number, line in enumerate(text.split("\n"), 1):
        if line_marker in line:
            return number, line.index(needle) + 1
    raise AssertionError(f"{line_marker!r} not in the script")


def by_position(findings: list[dict[str, Any]]) -> dict[tuple[str, int, int], dict[str, Any]]:
    keyed = {(f["code"], f["line"], f["column"]): f for f in findings}
    assert len(keyed) == len(findings), f"duplicate findings: {findings}"
    return keyed


def assert_span(finding: dict[str, Any], widths: tuple[int, ...]) -> None:
    assert finding["end_line"] == finding["line"], finding
    assert finding["end_column"] - finding["column"] in widths, finding


def test_lint_seed000(tmp_path: Path) -> None:
    script, _ = adapt_seed000(checked_root(tmp_path))
    path = tmp_path / "seed000.sh"
    path.write_text(script)

    findings, proc = lint_json(path)

    pgrep = where(script, "pgrep -af sglang", "pgrep")
    heredoc = where(script, "<< 'EOF'", "<<")
    dollar1 = where(script, "CUDA_VISIBLE_DEVICES=$1", "$1")
    dollar2 = where(script, "--port $2", "$2")
    body = heredoc_body(script, "<< 'EOF'")
    backslashes = [
        (n, len(line))
        for n, line in enumerate(script.split("\n"), 1)
        if line.endswith(" \\") and line + "\n" in body
    ]
    assert len(backslashes) == 3
    expected = {
        ("HL103", *pgrep),
        ("HL101", *heredoc),
        ("HL102", *dollar1),
        ("HL102", *dollar2),
    } | {("HL102", *b) for b in backslashes}
    found = by_position(findings)
    assert set(found) == expected, findings

    assert_span(found[("HL103", *pgrep)], (len("pgrep"),))
    assert found[("HL103", *pgrep)]["severity"] == "error"
    assert_span(found[("HL101", *heredoc)], (2,))
    for pos in (dollar1, dollar2):
        assert_span(found[("HL102", *pos)], (1, 2))  # the `$`, or `$1` as a whole
    for pos in backslashes:
        assert_span(found[("HL102", *pos)], (1,))
    for key, f in found.items():
        assert f["layer"] == {"depth": 1, "wrapper": "ssh"}, f
        if key[0] == "HL102":
            assert f["severity"] == "error", f
    assert proc.returncode == 1, proc.stderr


def test_lint_seed003(tmp_path: Path) -> None:
    script, _ = adapt_seed003(checked_root(tmp_path))
    path = tmp_path / "seed003.sh"
    path.write_text(script)

    findings, proc = lint_json(path)

    pgrep = where(script, "pgrep -af sglang", "pgrep")
    heredoc = where(script, "<< '\\''EOF", "<<")
    ssh = where(script, "ssh root@", "ssh")
    assert ssh == (2, 1)
    assert [f for f in findings if f["code"] == "HL102"] == [], findings
    found = by_position(findings)
    # No HL102: `$!` and the body sit in single quotes and reach the remote shell intact.
    assert set(found) == {("HL103", *pgrep), ("HL101", *heredoc), ("HL111", *ssh)}, findings
    assert_span(found[("HL103", *pgrep)], (len("pgrep"),))
    assert found[("HL103", *pgrep)]["severity"] == "error"
    assert_span(found[("HL101", *heredoc)], (2,))
    assert_span(found[("HL111", *ssh)], (len("ssh"),))
    for key in (("HL103", *pgrep), ("HL101", *heredoc)):
        assert found[key]["layer"] == {"depth": 1, "wrapper": "ssh"}, found[key]
    assert proc.returncode == 1, proc.stderr
