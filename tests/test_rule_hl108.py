"""HL108 scp-port-flag: `scp -p N` takes N as a file, not as a port.

Anchors are computed from the text; the fix (`-p` -> `-P`, safe) is re-checked and
applied twice; and against the real sshd the original command fails (the number is a
missing source file, the connection goes to port 22) while the fixed one copies the file.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest
import rulekit as kit
from sshd import SCP, SshServer, run_local

from heredoc_lint.model import Applicability, Finding
from heredoc_lint.rules.hl108_scp_port_flag import INVALID

CODE = "HL108"


def hl108(text: str) -> list[Finding]:
    return kit.findings(text, CODE, every_rule=True)


def test_message_says_the_number_becomes_a_file() -> None:
    (f,) = hl108("scp -p 2022 a h:/b\n")
    assert "`2022` becomes a source file" in f.message
    assert "port 22" in f.message


def test_cli_json_line_and_column(tmp_path: Path) -> None:
    text = "#!/bin/bash\nset -e\n  scp -rp 2022 dist/app.tgz ops@edge-1:/opt/app/\n"
    path = tmp_path / "deploy.sh"
    path.write_text(text)
    (item,) = [f for f in kit.cli_json(path, returncode=1) if f["code"] == CODE]
    kit.assert_json_position(item, text, kit.span_of(text, "-rp", 3), (3, 7))
    assert item["fix"]["applicability"] == "safe"


# Positives, negatives and fixes: INVALID and VALID in the rule's module.
def test_every_fix_is_safe() -> None:
    for example in INVALID:
        for f in hl108(example.text):
            assert f.fix is not None and f.fix.applicability is Applicability.SAFE


def test_two_commands_are_fixed_in_one_pass() -> None:
    text = "scp -p 2022 a h:/b; scp -p 2023 c h:/d\n"
    fixed = kit.assert_fixed_clean_and_idempotent(text, CODE, unsafe=False, every_rule=True)
    assert fixed == "scp -P 2022 a h:/b; scp -P 2023 c h:/d\n"


def test_cli_fix_on_the_case_file(tmp_path: Path) -> None:
    path = kit.copy_case("cp_port.sh", tmp_path)
    assert kit.cli_fix(path) == "#!/bin/bash\nscp -P 2022 dist/app.tgz ops@edge-1:/opt/app/\n"


# -- runtime: the real scp against the real sshd -----------------------------------------
def _no_port_config(server: SshServer, tmp_path: Path) -> Path:
    """The direct client config without its `Port` line: the port comes from the command."""
    lines = [
        line
        for line in server.config.read_text().splitlines()
        if not line.strip().startswith("Port ")
    ]
    config = tmp_path / "ssh_config.noport"
    config.write_text("\n".join(lines) + "\n")
    config.chmod(0o600)
    return config


def _scp_wrapper(config: Path, tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "scp"
    wrapper.write_text(f'#!/bin/sh\nexec {SCP} -F {shlex.quote(str(config))} "$@"\n')
    wrapper.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env.pop("SSH_AUTH_SOCK", None)
    return env


def test_runtime_scp_takes_the_port_as_a_file(sshd: SshServer, tmp_path: Path) -> None:
    """Every host reaches the server (ProxyCommand): scp looks for a local file `2022`."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "app.tgz").write_bytes(b"payload\n")
    dest = tmp_path / "dest"
    dest.mkdir()
    script = f"#!/bin/bash\nscp -p 2022 app.tgz {sshd.user}@edge-1:{dest}/\n"
    assert len(hl108(script)) == 1
    proc = run_local(script, sshd, cwd=work)
    assert proc.returncode != 0
    assert 'stat local "2022": No such file or directory' in proc.stderr


def test_runtime_port_not_used_and_fixed_command_works(sshd: SshServer, tmp_path: Path) -> None:
    """Without a Port in the config, `-p PORT` goes to port 22; the fixed `-P PORT` copies."""
    env = _scp_wrapper(_no_port_config(sshd, tmp_path), tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    payload = b"payload \x00\xff bytes\n"
    (work / "app.tgz").write_bytes(payload)
    dest = tmp_path / "dest"
    dest.mkdir()
    script = f"#!/bin/bash\nscp -p {sshd.port} app.tgz {sshd.user}@edge-1:{dest}/\n"

    def run(text: str) -> subprocess.CompletedProcess[str]:
        path = work / "copy.sh"
        path.write_text(text)
        return kit.run_script(["bash", str(path)], work, env=env, timeout=60)

    before = run(script)
    assert before.returncode != 0
    assert list(dest.iterdir()) == []
    assert "port 22" in before.stderr or f'stat local "{sshd.port}"' in before.stderr

    fixed = kit.fix_text(script, CODE, every_rule=True, path="copy.sh")
    assert fixed == script.replace(f"-p {sshd.port}", f"-P {sshd.port}")
    after = run(fixed)
    assert after.returncode == 0, after.stderr
    assert (dest / "app.tgz").read_bytes() == payload


# -- the port in a variable named as one, written or through an array (WILD.md) -----------
@pytest.mark.parametrize(
    ("script", "anchor"),
    [
        ('scp -p "$port" f h:/tmp\n', "-p"),
        ("scp -p ${SSH_PORT} f h:/tmp\n", "-p"),
        (
            'opts=(-p "$port" -i key)\nssh "${opts[@]}" h uptime\nscp "${opts[@]}" f h:/tmp\n',
            '"${opts[@]}" f',
        ),
        (  # braced, one element a line, with another variable before it
            'ssh_opts=(\n  -i "${KEY}"\n  -p "${deploy_port}"\n)\nscp "${ssh_opts[@]}" f h:/tmp\n',
            '"${ssh_opts[@]}" f',
        ),
    ],
)
def test_a_port_variable_after_lower_p(script: str, anchor: str) -> None:
    (f,) = hl108(script)
    at = script.index(anchor)
    assert f.start == at
    assert "so the port in `$" in f.message and "the port flag of scp is `-P`" in f.message


@pytest.mark.parametrize(
    "script",
    [
        'scp -p "$report" f h:/tmp\n',  # not a port by its name
        'scp -p "$keep" f h:/tmp\n',
        'scp -P "$port" -p f h:/tmp\n',  # the port is given: -p is meant
        'opts=(-p $port)\nscp "${opts[@]}" f h:/tmp\n',  # unquoted: its words are not known
        'scp -p "${port}x" f h:/tmp\n',  # more than the variable
    ],
)
def test_a_variable_that_is_not_shown_to_be_the_port(script: str) -> None:
    assert hl108(script) == []


def test_runtime_port_variable_through_an_array(sshd: SshServer, tmp_path: Path) -> None:
    """`opts=(-p "$port")` serves ssh, where -p is the port, and scp, where it is not:
    the copy goes to port 22 and fails; with scp's `-P` it arrives."""
    env = _scp_wrapper(_no_port_config(sshd, tmp_path), tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    (work / "app.tgz").write_bytes(b"payload\n")
    dest = tmp_path / "dest"
    dest.mkdir()
    script = (
        f'#!/bin/bash\nport={sshd.port}\nopts=(-p "$port")\n'
        f'scp "${{opts[@]}}" app.tgz {sshd.user}@edge-1:{dest}/\n'
    )
    (f,) = hl108(script)
    assert f.fix is None  # the array serves other commands too
    path = work / "copy.sh"
    path.write_text(script)
    before = kit.run_script(["bash", str(path)], work, env=env, timeout=60)
    assert before.returncode != 0 and list(dest.iterdir()) == []
    path.write_text(script.replace('scp "${opts[@]}"', 'scp -P "$port"'))
    after = kit.run_script(["bash", str(path)], work, env=env, timeout=60)
    assert after.returncode == 0, after.stderr
    assert (dest / "app.tgz").read_bytes() == b"payload\n"


# -- HL108 --------------------------------------------------------------------------------


def _ssh_takes_port(number: str) -> bool:
    """Whether ssh accepts the port (`ssh -G` parses its options, connects nowhere)."""
    proc = subprocess.run(
        ["ssh", "-G", "-p", number, "h"], capture_output=True, timeout=30, check=False
    )
    return proc.returncode == 0


@pytest.mark.parametrize("number", ["0", "1", "22", "65535", "65536"])
@pytest.mark.parametrize("space", [" ", ""])
def test_hl108_reports_exactly_the_ports_ssh_accepts(number: str, space: str) -> None:
    """`scp -p N` is reported (its fix makes it `-P N`) exactly when ssh takes N as a
    port: not 0 nor 65536, which the fixed command would reject with `Bad port`."""
    text = f"scp -p{space}{number} f h:/tmp/\n"
    found = [(f.start, f.end) for f in kit.findings_selected(text, "HL108")]
    assert found == ([(4, 6)] if _ssh_takes_port(number) else [])


def test_hl108_options_end_at_double_dash(tmp_path: Path) -> None:
    """After `--` scp's getopt reads no more options: `-p 2022` there are two file names,
    not a `-p` flag (nothing to report); before it, the flag is reported."""
    # Real scp, a local copy (run as cp): `-p` after `--` is a source file.
    proc = subprocess.run(
        ["scp", "--", "-p", "2022", str(tmp_path)], capture_output=True, timeout=30, check=False
    )
    assert b"'-p': No such file" in proc.stderr
    assert kit.findings_selected("scp -- -p 2022 h:/tmp/\n", "HL108") == []
    found = kit.findings_selected("scp -p 2022 -- f h:/tmp/\n", "HL108")
    assert [(f.start, f.end) for f in found] == [(4, 6)]


@pytest.mark.parametrize(
    "port", ["-oPort=2022", "-o Port=2022", "-oport=2022", "-o 'Port 2022'", "-P 2022"]
)
def test_hl108_a_real_port_option_makes_p_the_preserve_flag(port: str) -> None:
    """With a port given by `-P` or `-o Port=` (attached or not, any case), `-p 10` is
    scp's preserve flag and a file `10`, as written: nothing is reported."""
    assert kit.findings_selected(f"scp {port} -p 10 f h:/tmp/\n", "HL108") == []
    assert len(kit.findings_selected("scp -p 10 f h:/tmp/\n", "HL108")) == 1


# -- HL108: `-p2022` and `-p 2022` fail in two different ways --------------------------------


def test_hl108_attached_digits_are_an_unknown_option_not_a_source_file(tmp_path: Path) -> None:
    """`scp -p2022 f h:/b`: scp reads the digits as more flags and stops with `unknown
    option` before it connects (checked with the real scp: exit 1, nothing copied).  HL108
    says that, not the story of `-p 2022`, where `2022` becomes a source file.  (Run 7:
    the attached message's `return` made `pass` gave both the detached one.)"""
    (tmp_path / "f").write_text("x\n")
    ran = subprocess.run(
        ["scp", "-p2022", "f", "nohost.invalid:/tmp/b"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=30,
        check=False,
    )
    assert ran.returncode == 1 and "unknown option" in ran.stderr
    text = "scp -p2022 f h:/b\nscp -p 2022 f h:/b\n"
    found = kit.findings(text, "HL108", every_rule=True)
    assert [text[f.start : f.end] for f in found] == ["-p", "-p"]
    assert found[0].message == (
        "`scp -p2022`: scp's `-p` preserves times and takes no port, so it reads the digits "
        "as more single-letter flags and exits with `unknown option`; the port flag of scp "
        "is `-P` (`-P2022`)"
    )
    assert found[1].message.startswith(
        "`scp -p 2022`: scp's `-p` preserves times and takes no port, so `2022` becomes a "
        'source file (`stat local "2022": No such file or directory`)'
    )
