"""Reading the shell commands out of saved agent sessions.

Formats (each reader yields `ShellCall`s; a file that cannot be read raises
`SessionError` and the caller goes on with the next one):

- Claude Code, `~/.claude/projects/*/*.jsonl`: one JSON object a line; `assistant`
  lines carry `message.content[*]` items of type `tool_use`, and those named `Bash` have
  the command in `.input.command`. The session is the line's `sessionId`.
- Codex, `~/.codex/sessions/**/rollout-*.jsonl`: `{"type": ..., "payload": {...}}` lines
  (older files have the payload object alone on the line). A `function_call` payload
  holds `arguments`, a JSON string to decode a second time: tool `shell` has an argv
  list in `command` (`["bash", "-lc", "..."]`), `shell_command` a string in `command`,
  `exec_command` a string in `cmd`. `local_shell_call` payloads hold
  `action.command`, an argv list. The session is the `session_meta` payload's `id`.
- opencode: one JSON file per message part under `storage/part/<message>/<part>.json`,
  and the SQLite database `opencode.db`, whose `part` table has `id`, `message_id`,
  `session_id` and a JSON `data` column. A part with `type == "tool"` and
  `tool == "bash"` has the command in `state.input.command`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal

from heredoc_lint.agents.commands import command_text

SQLITE_MAGIC = b"SQLite format 3\x00"
# The most of one JSONL line (or one opencode part file) held at once: a longer line is
# read past in chunks and counted in a note, so that memory stays bounded on any input
# (a file of zeros has no line end at all).  Claude Code's longest lines, a tool result
# with a whole file in it, are a few MB.
MAX_LINE = 64 * 1024 * 1024
_UUID_TAIL = re.compile(
    r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$", re.IGNORECASE
)
# Codex function-call tools that run a shell command, and the argument holding it.
CODEX_TOOLS = {
    "shell": "command",
    "container.exec": "command",
    "local_shell": "command",
    "shell_command": "command",
    "exec_command": "cmd",
}


class SessionError(Exception):
    """A session file that cannot be read at all."""


@dataclass(frozen=True)
class ShellCall:
    source: str  # claude, codex or opencode
    path: str  # the file the call was read from
    session: str
    message_id: str  # the message (Claude, opencode) or call (Codex) that holds it
    call_id: str  # the tool call's own id, where there is one
    command: str
    where: str  # where in the file: "line 12", "part prt_..."


@dataclass
class ReadStats:
    bad_lines: int = 0  # JSONL lines that are not JSON objects (a truncated last line...)
    long_lines: int = 0  # lines over MAX_LINE, not read
    failed: list[str] = field(default_factory=list)  # "line N: why", one per line not read


def open_regular(path: Path) -> BinaryIO:
    """`path` open for reading when it is a regular file: a FIFO or a device named as a
    session file is refused, not waited on (O_NONBLOCK) or read forever (/dev/zero)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise SessionError(error.strerror or str(error)) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise SessionError("not a regular file (a FIFO or a device is not read)")
    return os.fdopen(fd, "rb")


def bounded_lines(handle: BinaryIO, limit: int = MAX_LINE) -> Iterator[bytes | None]:
    """The lines of `handle`, each at most `limit` bytes; None for a longer one, which
    is read past without being held."""
    while line := handle.readline(limit + 1):
        if len(line) <= limit:
            yield line
            continue
        while line and not line.endswith(b"\n"):
            line = handle.readline(1 << 20)
        yield None


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _codex_session_from_name(path: Path) -> str:
    stem = path.name.removesuffix(".zst").removesuffix(".jsonl")
    match = _UUID_TAIL.search(stem)
    return match.group(1) if match else stem


# --- JSONL: Claude Code and Codex -----------------------------------------------------


def _claude_calls(obj: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(message id, call id, command) of the Bash tool uses of one Claude Code line."""
    if obj.get("type") != "assistant":
        return
    message = obj.get("message")
    if not isinstance(message, dict):
        return
    content = message.get("content")
    if not isinstance(content, list):
        return
    message_id = _str(message.get("id")) or _str(obj.get("uuid"))
    for item in content:
        if not isinstance(item, dict) or item.get("type") != "tool_use":
            continue
        if item.get("name") != "Bash":
            continue
        tool_input = item.get("input")
        if not isinstance(tool_input, dict):
            continue
        command = command_text(tool_input.get("command"))
        if command is not None:
            yield message_id, _str(item.get("id")), command


def _codex_command(item: dict[str, Any]) -> str | None:
    """The shell command of one Codex response item, or None."""
    kind = item.get("type")
    if kind == "local_shell_call":
        action = item.get("action")
        return command_text(action.get("command")) if isinstance(action, dict) else None
    if kind != "function_call":
        return None
    field = CODEX_TOOLS.get(_str(item.get("name")))
    if field is None:
        return None
    arguments = item.get("arguments")
    if isinstance(arguments, str):  # arguments are JSON inside the JSON line
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    if not isinstance(arguments, dict):
        return None
    value = arguments.get(field)
    if value is None:
        value = arguments.get("command", arguments.get("cmd"))
    return command_text(value)


def _zst_lines(handle: BinaryIO, limit: int = MAX_LINE) -> Iterator[bytes | None]:
    """The lines of a zstandard-compressed file (Codex compresses sessions idle for a
    week to `rollout-*.jsonl.zst`), decompressed as they are read; a file that ends
    inside a frame is an error, not a shorter session.  None for a line over `limit`
    bytes, as in `bounded_lines`."""
    try:
        import zstandard  # only where a compressed session exists
    except ImportError:
        raise SessionError("a .zst session needs the zstandard package") from None
    decompressor = zstandard.ZstdDecompressor()
    frame = decompressor.decompressobj()
    pending = b""
    started = False
    skipping = False  # inside a line over the limit: drop bytes up to its end
    while chunk := handle.read(1 << 16):
        while chunk:
            if frame.eof:  # another frame follows
                frame = decompressor.decompressobj()
            pending += frame.decompress(chunk)
            started = True
            chunk = frame.unused_data if frame.eof else b""
        *lines, pending = pending.split(b"\n")
        if skipping and lines:
            lines[0], skipping = b"", False
            yield None
            lines = lines[1:]
        yield from (None if len(line) >= limit else line + b"\n" for line in lines)
        if len(pending) >= limit:
            pending, skipping = b"", True
    if not started or not frame.eof:
        raise SessionError("cannot decompress: the file ends inside a zstandard frame")
    if skipping:
        yield None
    elif pending:
        yield pending


def _line_calls(
    obj: dict[str, Any], path: Path, where: str, codex_session: str
) -> tuple[list[ShellCall], str]:
    """The shell calls of one JSONL line, and the Codex session id as of that line."""
    calls = []
    # Claude Code
    for message_id, call_id, command in _claude_calls(obj):
        session = _str(obj.get("sessionId")) or path.stem
        calls.append(ShellCall("claude", str(path), session, message_id, call_id, command, where))
    # Codex, with or without the payload wrapper
    payload = obj.get("payload")
    item = payload if isinstance(payload, dict) else obj
    if obj.get("type") == "session_meta" and isinstance(payload, dict):
        codex_session = _str(payload.get("id")) or codex_session
    elif payload is None and "type" not in obj and isinstance(obj.get("id"), str):
        codex_session = _str(obj.get("id")) or codex_session  # old first line
    codex_command = _codex_command(item)
    if codex_command is not None:
        call_id = _str(item.get("call_id")) or _str(item.get("id"))
        session = codex_session or _codex_session_from_name(path)
        calls.append(ShellCall("codex", str(path), session, call_id, call_id, codex_command, where))
    return calls, codex_session


def read_jsonl(path: Path, stats: ReadStats | None = None) -> Iterator[ShellCall]:
    """Shell calls of a Claude Code or Codex JSONL session file (or `.jsonl.zst`)."""
    stats = stats or ReadStats()
    handle = open_regular(path)
    codex_session = ""
    good = 0
    with handle:
        lines = _zst_lines(handle) if path.name.endswith(".zst") else bounded_lines(handle)
        try:
            for number, raw in enumerate(lines, 1):
                if raw is None:
                    stats.long_lines += 1
                    continue
                if not raw.strip():
                    continue
                try:
                    obj = json.loads(raw)
                except (ValueError, RecursionError):  # RecursionError: nested too deep
                    stats.bad_lines += 1
                    continue
                if not isinstance(obj, dict):
                    stats.bad_lines += 1
                    continue
                good += 1
                try:
                    calls, codex_session = _line_calls(obj, path, f"line {number}", codex_session)
                except Exception as error:  # one odd line must not end the scan
                    stats.failed.append(f"line {number}: {type(error).__name__}: {error}")
                    continue
                yield from calls
        except OSError as error:
            raise SessionError(error.strerror or str(error)) from None
        except Exception as error:
            if type(error).__module__.startswith("zstandard"):  # a damaged .zst
                raise SessionError(f"cannot decompress: {error}") from None
            raise
    if good == 0 and stats.bad_lines:
        raise SessionError("not a JSONL session file (no line is a JSON object)")


# --- opencode -------------------------------------------------------------------------


def _opencode_command(data: object) -> str | None:
    if not isinstance(data, dict) or data.get("type") != "tool" or data.get("tool") != "bash":
        return None
    state = data.get("state")
    if not isinstance(state, dict):
        return None
    tool_input = state.get("input")
    if not isinstance(tool_input, dict):
        return None
    return command_text(tool_input.get("command"))


def read_part_file(path: Path) -> Iterator[ShellCall]:
    """The shell call of one opencode `storage/part/<message>/<part>.json` file."""
    with open_regular(path) as handle:
        try:
            raw = handle.read(MAX_LINE + 1)
        except OSError as error:
            raise SessionError(error.strerror or str(error)) from None
    if len(raw) > MAX_LINE:
        raise SessionError(f"larger than {MAX_LINE // (1024 * 1024)} MiB: not read")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as error:
        raise SessionError(f"not JSON ({error})") from None
    command = _opencode_command(data)
    if command is None:
        return
    assert isinstance(data, dict)
    part_id = _str(data.get("id")) or path.stem
    yield ShellCall(
        "opencode",
        str(path),
        _str(data.get("sessionID")),
        _str(data.get("messageID")) or path.parent.name,
        _str(data.get("callID")) or part_id,
        command,
        f"part {part_id}",
    )


def _v2_commands(raw: object) -> Iterator[tuple[str, str]]:
    """(call id, command) of the bash tool items of one `session_message` row's data:
    `content[*]` items `{"type": "tool", "id", "name": "bash", "state": {"input":
    {"command"}}}` (the input possibly still a JSON string)."""
    try:
        data = json.loads(raw) if isinstance(raw, (str, bytes)) else raw
    except (ValueError, RecursionError):  # RecursionError: nested too deep
        return
    content = data.get("content") if isinstance(data, dict) else None
    for item in content if isinstance(content, list) else []:
        if not isinstance(item, dict) or item.get("type") != "tool" or item.get("name") != "bash":
            continue
        state = item.get("state")
        given = state.get("input") if isinstance(state, dict) else None
        if isinstance(given, str):
            with contextlib.suppress(ValueError, RecursionError):
                given = json.loads(given)
        command = command_text(given.get("command")) if isinstance(given, dict) else None
        if command is not None:
            yield _str(item.get("id")), command


def read_opencode_db(path: Path) -> Iterator[ShellCall]:
    """Shell calls in an opencode SQLite database: the `part` table, and the
    `session_message` table of newer releases (assistant rows, tool items in
    `data.content`)."""
    import sqlite3

    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise SessionError(f"cannot open the database: {error}") from None
    try:
        try:
            tables = {
                row[0]
                for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            if not tables & {"part", "session_message"}:
                raise SessionError("no opencode `part` or `session_message` table")
            rows = []
            if "part" in tables:
                rows = connection.execute(
                    "SELECT id, message_id, session_id, data FROM part "
                    "WHERE data LIKE '%bash%' ORDER BY rowid"
                ).fetchall()
            messages = []
            if "session_message" in tables:
                messages = connection.execute(
                    "SELECT id, session_id, data FROM session_message "
                    "WHERE type = 'assistant' AND data LIKE '%bash%' ORDER BY rowid"
                ).fetchall()
        except sqlite3.Error as error:
            raise SessionError(f"no readable opencode table: {error}") from None
    finally:
        connection.close()
    for part_id, message_id, session_id, raw in rows:
        try:
            data = json.loads(raw)
        except (TypeError, ValueError, RecursionError):
            continue
        command = _opencode_command(data)
        if command is None:
            continue
        call_id = _str(data.get("callID")) if isinstance(data, dict) else ""
        yield ShellCall(
            "opencode",
            str(path),
            _str(session_id),
            _str(message_id),
            call_id or _str(part_id),
            command,
            f"part {part_id}",
        )
    for row_id, session_id, raw in messages:
        for call_id, command in _v2_commands(raw):
            yield ShellCall(
                "opencode",
                str(path),
                _str(session_id),
                _str(row_id),
                call_id or _str(row_id),
                command,
                f"session_message {row_id}",
            )


# --- finding the files ----------------------------------------------------------------

# A JSON-lines transcript (Claude Code, Codex, Gemini...), an opencode SQLite database, an
# opencode `part` JSON file.
SessionKind = Literal["jsonl", "db", "part"]


def kind_of(path: Path, explicit: bool) -> SessionKind | None:
    """jsonl, part, db or None (not a session file).

    Inside a walked directory only the documented names count: `*.jsonl`,
    `opencode*.db` and `*.json` under a `part` directory. A file named on the command
    line is taken by its content when its name says nothing.
    """
    name = path.name
    if name.endswith((".jsonl", ".jsonl.zst")) or (explicit and name.endswith(".zst")):
        return "jsonl"
    if name.endswith(".db") and (name.startswith("opencode") or explicit):
        return "db"
    if name.endswith(".json") and ("part" in path.parent.parts or explicit):
        return "part"
    if explicit:
        try:
            with open_regular(path) as handle:
                head = handle.read(len(SQLITE_MAGIC))
        except (OSError, SessionError):
            return "jsonl"  # reading it will say why it cannot be read
        return "db" if head == SQLITE_MAGIC else "jsonl"
    return None


def walk(root: Path) -> Iterator[tuple[Path, SessionKind]]:
    """Session files under `root`, in a stable order; symlinks are not followed."""
    for directory, subdirs, files in os.walk(root):
        subdirs.sort()
        for name in sorted(files):
            path = Path(directory, name)
            with contextlib.suppress(OSError):
                if not stat.S_ISREG(os.lstat(path).st_mode):
                    continue  # a symbolic link (never followed), a FIFO, a socket
            if path.is_symlink():
                continue
            kind = kind_of(path, explicit=False)
            if kind is not None:
                yield path, kind


def read(path: Path, kind: SessionKind, stats: ReadStats | None = None) -> Iterable[ShellCall]:
    if kind == "db":
        return read_opencode_db(path)
    if kind == "part":
        return read_part_file(path)
    return read_jsonl(path, stats)


def default_roots() -> list[Path]:
    """Where the agents keep their sessions, those that exist."""
    home = Path.home()
    claude = Path(os.environ.get("CLAUDE_CONFIG_DIR") or home / ".claude")
    codex = Path(os.environ.get("CODEX_HOME") or home / ".codex")
    data = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    candidates = [
        claude / "projects",
        codex / "sessions",
        codex / "archived_sessions",  # sessions archived from Codex's list
        data / "opencode",
    ]
    return [path for path in candidates if path.is_dir()]
