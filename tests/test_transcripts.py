"""`heredoc-lint transcript`: saved sessions of Claude Code, Codex and opencode.

Each test writes a small session in the agent's own format (JSONL lines, Codex's
double-encoded `arguments`, opencode's part files and its SQLite database), with one
broken and one clean shell command, and runs the real CLI on it.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_process import CLI

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "tests" / "cases" / "seed000.sh"
BROKEN = SEED.read_text().split("\n", 1)[1]  # seed 000 as the agent ran it
CLEAN = "cd /srv/app && git pull --ff-only && ssh build-1 'systemctl restart app'"
SCP = "scp -p 2222 dist.tar.gz deploy@web-1:/srv/"  # HL108: -p is not the port

CLAUDE_SESSION = "7f1c2a9e-5b4d-4c3e-9a8b-1d2e3f4a5b6c"
CODEX_SESSION = "0199a213-81c0-7800-8aa1-bbab2a035a53"
CODEX_OLD_SESSION = "5973b6c0-94b8-487b-a530-2aeb6098ae0e"
OPENCODE_SESSION = "ses_5a1b2c3d4e5fXyZ"
OPENCODE_DB_SESSION = "ses_6b2c3d4e5f6aAbC"


def jsonl(path: Path, lines: list[Any], tail: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + tail)
    return path


def write_claude(root: Path) -> Path:
    """~/.claude/projects/<project>/<session>.jsonl"""
    common = {"sessionId": CLAUDE_SESSION, "cwd": "/home/u/app", "version": "2.0.14"}

    def assistant(uuid: str, message_id: str, content: list[Any]) -> dict[str, Any]:
        message = {"id": message_id, "type": "message", "role": "assistant", "content": content}
        return {**common, "type": "assistant", "uuid": uuid, "message": message}

    def user(uuid: str, content: Any) -> dict[str, Any]:
        return {
            **common,
            "type": "user",
            "uuid": uuid,
            "message": {"role": "user", "content": content},
        }

    lines = [
        {"type": "summary", "summary": "Deploy the model server", "leafUuid": "u-9"},
        user("u-1", f"Why does this fail?\n{BROKEN}"),  # user text is not a command
        assistant(
            "a-1",
            "msg_01BrokenLaunch",
            [
                {"type": "text", "text": "I'll write the launch script on the box."},
                {
                    "type": "tool_use",
                    "id": "toolu_01BrokenLaunch",
                    "name": "Bash",
                    "input": {"command": BROKEN, "description": "Write launch script"},
                },
            ],
        ),
        user(
            "u-2", [{"type": "tool_result", "tool_use_id": "toolu_01BrokenLaunch", "content": ""}]
        ),
        assistant(
            "a-2",
            "msg_02Read",
            [
                {
                    "type": "tool_use",
                    "id": "toolu_02Read",
                    "name": "Write",
                    "input": {"file_path": "/home/u/app/launch.sh", "content": BROKEN},
                }
            ],
        ),
        assistant(
            "a-3",
            "msg_03Clean",
            [
                {
                    "type": "tool_use",
                    "id": "toolu_03Clean",
                    "name": "Bash",
                    "input": {"command": CLEAN, "description": "Deploy"},
                }
            ],
        ),
    ]
    # A session being written ends in a partial line.
    return jsonl(
        root / ".claude" / "projects" / "-home-u-app" / f"{CLAUDE_SESSION}.jsonl",
        lines,
        tail='{"type": "assistant", "mess',
    )


def codex_call(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    # `arguments` is itself a JSON string inside the JSON line.
    return {
        "type": "function_call",
        "name": name,
        "arguments": json.dumps(arguments),
        "call_id": call_id,
    }


def write_codex(root: Path) -> Path:
    """~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl (payload wrapper)."""

    def item(payload: dict[str, Any], kind: str = "response_item") -> dict[str, Any]:
        return {"timestamp": "2026-01-02T10:00:00.000Z", "type": kind, "payload": payload}

    lines = [
        item(
            {
                "id": CODEX_SESSION,
                "cwd": "/home/u/app",
                "cli_version": "0.77.0",
                "originator": "codex_cli_rs",
            },
            "session_meta",
        ),
        item({"cwd": "/home/u/app", "model": "gpt-5-codex"}, "turn_context"),
        item(
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": BROKEN}]}
        ),
        item(
            codex_call(
                "shell",
                {
                    "command": ["bash", "-lc", BROKEN],
                    "workdir": "/home/u/app",
                    "timeout_ms": 120000,
                },
                "call_BrokenShell",
            )
        ),
        item(
            {
                "type": "function_call_output",
                "call_id": "call_BrokenShell",
                "output": json.dumps({"output": "", "metadata": {"exit_code": 255}}),
            }
        ),
        item(
            codex_call(
                "shell_command",
                {"command": CLEAN, "workdir": "/home/u/app"},
                "call_CleanShellCommand",
            )
        ),
        item(codex_call("exec_command", {"cmd": SCP, "yield_time_ms": 1000}, "call_ExecScp")),
        item(
            {
                "type": "local_shell_call",
                "call_id": "call_Local",
                "status": "completed",
                "action": {"type": "exec", "command": ["bash", "-lc", "ls -la"]},
            }
        ),
        item(
            {
                "type": "custom_tool_call",
                "name": "apply_patch",
                "call_id": "call_Patch",
                "input": "*** Begin Patch\n*** End Patch\n",
            }
        ),
        item({"type": "token_count", "info": None}, "event_msg"),
    ]
    return jsonl(
        root
        / ".codex"
        / "sessions"
        / "2026"
        / "01"
        / "02"
        / f"rollout-2026-01-02T10-00-00-{CODEX_SESSION}.jsonl",
        lines,
    )


def write_codex_old(root: Path) -> Path:
    """An older rollout file: no `payload` wrapper, a bare session object first."""
    lines = [
        {
            "id": CODEX_OLD_SESSION,
            "timestamp": "2025-05-01T09:00:00.000Z",
            "instructions": None,
            "git": {"branch": "main"},
        },
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
        codex_call("shell", {"command": ["bash", "-lc", BROKEN]}, "call_OldBroken"),
        codex_call("shell", {"command": ["git", "status"]}, "call_OldClean"),
    ]
    return jsonl(
        root / ".codex" / "sessions" / f"rollout-2025-05-01-{CODEX_OLD_SESSION}.jsonl", lines
    )


def opencode_part(
    part_id: str, message_id: str, session: str, command: str | None
) -> dict[str, Any]:
    if command is None:
        return {
            "id": part_id,
            "sessionID": session,
            "messageID": message_id,
            "type": "text",
            "text": BROKEN,
        }
    return {
        "id": part_id,
        "sessionID": session,
        "messageID": message_id,
        "type": "tool",
        "callID": f"call_{part_id}",
        "tool": "bash",
        "state": {
            "status": "completed",
            "input": {"command": command, "description": "run"},
            "output": "",
            "title": command[:20],
            "metadata": {},
        },
    }


def write_opencode_parts(root: Path) -> Path:
    """~/.local/share/opencode/storage/part/<message>/<part>.json"""
    storage = root / ".local" / "share" / "opencode" / "storage"
    parts = [
        ("prt_0Text", "msg_A1", None),
        ("prt_1Broken", "msg_A1", BROKEN),
        ("prt_2Clean", "msg_B2", CLEAN),
    ]
    for part_id, message_id, command in parts:
        path = storage / "part" / message_id / f"{part_id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(opencode_part(part_id, message_id, OPENCODE_SESSION, command)))
    # Other storage folders hold no parts: not read even when the JSON looks like one.
    other = storage / "message" / "ses_x" / "msg_A1.json"
    other.parent.mkdir(parents=True, exist_ok=True)
    other.write_text(json.dumps(opencode_part("prt_9", "msg_A1", "ses_x", BROKEN)))
    return storage


def write_opencode_db(root: Path) -> Path:
    """~/.local/share/opencode/opencode.db, made with the sqlite3 module."""
    path = root / ".local" / "share" / "opencode" / "opencode.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT, time_created INTEGER,
                              time_updated INTEGER);
        CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL,
                              time_created INTEGER, time_updated INTEGER, data TEXT NOT NULL);
        CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL,
                           session_id TEXT NOT NULL, time_created INTEGER,
                           time_updated INTEGER, data TEXT NOT NULL);
        """
    )
    db.execute("INSERT INTO session VALUES (?, 'deploy', 1, 1)", (OPENCODE_DB_SESSION,))
    for message_id in ("msg_DbBroken", "msg_DbClean"):
        db.execute(
            "INSERT INTO message VALUES (?, ?, 1, 1, '{}')", (message_id, OPENCODE_DB_SESSION)
        )
    rows = [
        ("prt_DbText", "msg_DbBroken", None),
        ("prt_DbBroken", "msg_DbBroken", BROKEN),
        ("prt_DbClean", "msg_DbClean", CLEAN),
    ]
    for part_id, message_id, command in rows:
        data = opencode_part(part_id, message_id, OPENCODE_DB_SESSION, command)
        for key in ("id", "sessionID", "messageID"):  # the columns hold these
            del data[key]
        db.execute(
            "INSERT INTO part VALUES (?, ?, ?, 1, 1, ?)",
            (part_id, message_id, OPENCODE_DB_SESSION, json.dumps(data)),
        )
    db.commit()
    db.close()
    return path


def transcript(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "transcript", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def findings(*args: str | Path) -> tuple[int, list[dict[str, Any]], str]:
    result = transcript("--format", "json", *args)
    return result.returncode, json.loads(result.stdout), result.stderr


def calls(items: list[dict[str, Any]]) -> dict[tuple[str, str, str], set[str]]:
    """(session, message id, call id) -> the codes found there."""
    out: dict[tuple[str, str, str], set[str]] = {}
    for item in items:
        out.setdefault((item["session"], item["message_id"], item["call_id"]), set()).add(
            item["code"]
        )
    return out


SEED_CODES = {"HL101", "HL102", "HL103"}


def test_claude_code_session(tmp_path: Path) -> None:
    path = write_claude(tmp_path)
    code, items, stderr = findings(path)
    assert code == 1
    assert calls(items) == {
        (CLAUDE_SESSION, "msg_01BrokenLaunch", "toolu_01BrokenLaunch"): SEED_CODES
    }
    first = items[0]
    assert first["source"] == "claude"
    assert first["path"] == str(path)
    assert first["command"] == BROKEN
    assert first["where"] == "line 3"
    assert (first["code"], first["line"], first["column"]) == ("HL103", 1, 34)
    assert first["layer"] == {"depth": 1, "wrapper": "ssh"}
    assert "skipped 1 line that is not JSON" in stderr


def test_codex_session_with_double_encoded_arguments(tmp_path: Path) -> None:
    code, items, _ = findings(write_codex(tmp_path))
    assert code == 1
    assert calls(items) == {
        (CODEX_SESSION, "call_BrokenShell", "call_BrokenShell"): SEED_CODES,
        (CODEX_SESSION, "call_ExecScp", "call_ExecScp"): {"HL108"},
    }
    # The argv's script is what is checked: positions are inside it.
    hl103 = next(i for i in items if i["code"] == "HL103")
    assert (hl103["line"], hl103["column"], hl103["command"]) == (1, 34, BROKEN)
    assert all(i["source"] == "codex" for i in items)


def test_codex_old_session_without_payload(tmp_path: Path) -> None:
    code, items, _ = findings(write_codex_old(tmp_path))
    assert code == 1
    assert calls(items) == {(CODEX_OLD_SESSION, "call_OldBroken", "call_OldBroken"): SEED_CODES}


def test_opencode_part_files(tmp_path: Path) -> None:
    storage = write_opencode_parts(tmp_path)
    code, items, _ = findings(storage)
    assert code == 1
    assert calls(items) == {(OPENCODE_SESSION, "msg_A1", "call_prt_1Broken"): SEED_CODES}
    assert {i["where"] for i in items} == {"part prt_1Broken"}
    # A part file named on the command line is read too.
    code, items, _ = findings(storage / "part" / "msg_A1" / "prt_1Broken.json")
    assert code == 1 and {i["session"] for i in items} == {OPENCODE_SESSION}
    code, items, _ = findings(storage / "part" / "msg_B2" / "prt_2Clean.json")
    assert (code, items) == (0, [])


def test_opencode_sqlite_database(tmp_path: Path) -> None:
    code, items, _ = findings(write_opencode_db(tmp_path))
    assert code == 1
    assert calls(items) == {(OPENCODE_DB_SESSION, "msg_DbBroken", "call_prt_DbBroken"): SEED_CODES}


def write_all(root: Path) -> None:
    write_claude(root)
    write_codex(root)
    write_codex_old(root)
    write_opencode_parts(root)
    write_opencode_db(root)


def test_directories_are_walked_and_summarised(tmp_path: Path) -> None:
    write_all(tmp_path)
    result = transcript(tmp_path)
    assert result.returncode == 1, result.stderr
    out = result.stdout
    claude_file = tmp_path / ".claude" / "projects" / "-home-u-app" / f"{CLAUDE_SESSION}.jsonl"
    header = (
        f"{claude_file}:3: session {CLAUDE_SESSION} message msg_01BrokenLaunch "
        f"call toolu_01BrokenLaunch: ssh -p 19248 root@154.59.156.20"
    )
    assert header in out
    assert "  1:34: HL103 [error] `pkill -f sglang`" in out
    assert "  4:29: HL102 [error] `$1`" in out
    assert CLEAN not in out
    summary = out[out.index("Per session:") :]
    for source, session in [
        ("claude", CLAUDE_SESSION),
        ("codex", CODEX_SESSION),
        ("codex", CODEX_OLD_SESSION),
        ("opencode", OPENCODE_SESSION),
        ("opencode", OPENCODE_DB_SESSION),
    ]:
        assert f"  {source} {session}: " in summary
    assert f"  codex {CODEX_SESSION}: 2 of 4 commands: " in summary
    assert "Per code:" in summary
    assert "  HL103      5  pkill-self-match" in summary
    assert "  HL108      1  scp-port-flag" in summary
    assert summary.rstrip().endswith("in 6 of 12 commands (5 sessions, 7 files).")
    # JSON has every finding of the text output, with the same ids.
    code, items, _ = findings(tmp_path)
    assert code == 1
    assert len(calls(items)) == 6
    assert {i["session"] for i in items} == {
        CLAUDE_SESSION,
        CODEX_SESSION,
        CODEX_OLD_SESSION,
        OPENCODE_SESSION,
        OPENCODE_DB_SESSION,
    }


def test_severity_option(tmp_path: Path) -> None:
    path = write_claude(tmp_path)
    _, items, _ = findings("--severity", "error", path)
    assert {i["code"] for i in items} == {"HL102", "HL103"}  # HL101 is a warning
    _, items, _ = findings("--select", "HL103", path)
    assert {i["code"] for i in items} == {"HL103"}
    code, items, _ = findings("--ignore", "HL1", path)
    assert (code, items) == (0, [])


def test_clean_sessions_exit_0(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "clean.jsonl",
        [
            {
                "type": "assistant",
                "sessionId": "s-clean",
                "message": {
                    "id": "m1",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "t1",
                            "name": "Bash",
                            "input": {"command": CLEAN},
                        }
                    ],
                },
            }
        ],
    )
    result = transcript(path)
    assert result.returncode == 0
    assert result.stdout == "No findings in 1 command (1 session, 1 file).\n"
    assert result.stderr == ""


def test_unreadable_inputs_exit_2_and_the_rest_is_checked(tmp_path: Path) -> None:
    good = write_claude(tmp_path / "good")
    bad_db = tmp_path / "bad" / "opencode.db"
    bad_db.parent.mkdir()
    bad_db.write_bytes(b"this is not a database" * 100)
    garbage = tmp_path / "bad" / "garbage.jsonl"
    garbage.write_bytes(b"\x00\x01\x02 not json\n{broken\n")
    missing = tmp_path / "missing.jsonl"
    result = transcript("--format", "json", missing, tmp_path / "bad", good)
    assert result.returncode == 2
    items = json.loads(result.stdout)
    assert {i["session"] for i in items} == {CLAUDE_SESSION}  # still checked
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 3
    assert any(str(missing) in e and "no such file" in e for e in errors)
    assert any(str(bad_db) in e for e in errors)
    assert any(str(garbage) in e and "not a JSONL session file" in e for e in errors)


def test_usage_errors(tmp_path: Path) -> None:
    result = transcript("--format", "yaml", tmp_path)
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
    result = transcript("--select", "ZZ1", tmp_path)
    assert result.returncode == 2 and "ZZ1" in result.stderr


def test_default_locations(tmp_path: Path) -> None:
    write_all(tmp_path)
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "XDG_DATA_HOME": "", "CODEX_HOME": ""}
    result = subprocess.run(
        [*CLI, "transcript", "--format", "json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    assert result.returncode == 1, result.stderr
    assert len({i["session"] for i in json.loads(result.stdout)}) == 5
    empty = tmp_path / "empty"
    empty.mkdir()
    env["HOME"] = str(empty)
    result = subprocess.run(
        [*CLI, "transcript"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    assert result.returncode == 2 and "no PATH given" in result.stderr


@pytest.mark.parametrize("repeat", [3])
def test_repeated_commands_are_reported_each_time(tmp_path: Path, repeat: int) -> None:
    lines = [
        {
            "type": "assistant",
            "sessionId": "s-rep",
            "message": {
                "id": f"m{i}",
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"t{i}",
                        "name": "Bash",
                        "input": {"command": BROKEN},
                    }
                ],
            },
        }
        for i in range(repeat)
    ]
    code, items, _ = findings(jsonl(tmp_path / "rep.jsonl", lines))
    assert code == 1
    assert {i["call_id"] for i in items} == {f"t{i}" for i in range(repeat)}


# --- where the agents keep sessions besides the plain files (issue 17, item 7) ----------


def _compress(path: Path) -> Path:
    """The file as Codex leaves a session idle for a week: `rollout-*.jsonl.zst`."""
    import zstandard

    packed = path.with_name(path.name + ".zst")
    packed.write_bytes(zstandard.ZstdCompressor().compress(path.read_bytes()))
    path.unlink()
    return packed


def test_a_compressed_codex_session_is_read_walked_and_named(tmp_path: Path) -> None:
    packed = _compress(write_codex(tmp_path))
    expected = {
        (CODEX_SESSION, "call_BrokenShell", "call_BrokenShell"): SEED_CODES,
        (CODEX_SESSION, "call_ExecScp", "call_ExecScp"): {"HL108"},
    }
    for target in (packed, tmp_path):  # named, and found in a walk
        code, items, stderr = findings(target)
        assert (code, calls(items)) == (1, expected), stderr
        assert {i["path"] for i in items} == {str(packed)}


def test_a_damaged_compressed_session_is_one_error(tmp_path: Path) -> None:
    packed = _compress(write_codex(tmp_path))
    packed.write_bytes(packed.read_bytes()[:40])
    result = transcript(packed)
    assert result.returncode == 2
    assert f"heredoc-lint: transcript: error: {packed}: cannot decompress" in result.stderr


def test_archived_codex_sessions_and_claude_config_dir_are_default_locations(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    write_codex(tmp_path / "codex")
    sessions = tmp_path / "codex" / ".codex" / "sessions"
    archived = home / ".codex" / "archived_sessions"
    archived.parent.mkdir(parents=True)
    sessions.rename(archived)
    write_claude(tmp_path / "claude")  # tmp/claude/.claude/projects/...
    env = {
        "HOME": str(home),
        "PATH": "/usr/bin:/bin",
        "XDG_DATA_HOME": "",
        "CODEX_HOME": "",
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude" / ".claude"),
    }
    result = subprocess.run(
        [*CLI, "transcript", "--format", "json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    assert result.returncode == 1, result.stderr
    sources = {(i["source"], i["session"]) for i in json.loads(result.stdout)}
    assert sources == {("codex", CODEX_SESSION), ("claude", CLAUDE_SESSION)}


def test_a_session_path_with_a_newline_is_one_escaped_line(tmp_path: Path) -> None:
    odd = tmp_path / "x\n::error::forged"
    path = write_claude(odd)
    result = transcript(path)
    assert result.returncode == 1
    assert not any(line.startswith("::error") for line in result.stdout.splitlines())
    assert f"{tmp_path}/x\\n::error::forged/" in result.stdout
    assert str(path.parent.name) in result.stdout


def test_opencode_session_message_table(tmp_path: Path) -> None:
    """Newer opencode databases keep a session's messages in `session_message` (one
    row per message: `type`, a JSON `data` whose assistant `content` holds the tool
    items), as a reader of opencode's v2 layout queries it."""
    path = tmp_path / "opencode.db"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, "
        "type TEXT NOT NULL, time_created INTEGER, data TEXT NOT NULL)"
    )

    def tool(call_id: str, name: str, given: Any) -> dict[str, Any]:
        return {
            "type": "tool",
            "id": call_id,
            "name": name,
            "state": {"status": "completed", "input": given},
        }

    rows = [
        ("smsg_1", "user", {"text": f"run this: {BROKEN}"}),  # the user's text: not run
        (
            "smsg_2",
            "assistant",
            {
                "content": [
                    {"type": "text", "text": "Deploying."},
                    tool("call_V2Broken", "bash", {"command": BROKEN, "description": "d"}),
                    tool("call_V2Read", "read", {"filePath": "/etc/bash.bashrc"}),
                    tool("call_V2Encoded", "bash", json.dumps({"command": SCP})),
                    tool("call_V2Clean", "bash", {"command": CLEAN}),
                ]
            },
        ),
    ]
    for row_id, kind, data in rows:
        db.execute(
            "INSERT INTO session_message VALUES (?, 'ses_v2', ?, 1, ?)",
            (row_id, kind, json.dumps(data)),
        )
    db.commit()
    db.close()
    code, items, stderr = findings(path)
    assert code == 1, stderr
    assert calls(items) == {
        ("ses_v2", "smsg_2", "call_V2Broken"): SEED_CODES,
        ("ses_v2", "smsg_2", "call_V2Encoded"): {"HL108"},
    }
    assert {i["where"] for i in items} == {"session_message smsg_2"}
