"""Record the hook payloads that real coding agents send, for tests/data/agents/.

Each agent runs non-interactively against a fake model service on 127.0.0.1 written
here (Anthropic Messages for Claude Code, OpenAI Responses for Codex, Gemini
generateContent for Gemini CLI, OpenAI Chat Completions for opencode). The fake model
answers a request that offers the case's tool, and holds no tool result yet, with one
call of that tool (a case of several steps makes its next call once the previous result
is back); every other request (the one carrying the tool's result, titles, summaries)
gets the text "done". The agent's pre-tool hook is a small recorder that saves its stdin
byte for byte and allows (opencode: a plugin that saves the `tool.execute.before`
arguments). The payload for the case's tool (its last step's) is written to
OUT/<agent>/<version>/<case>.json, with the temporary directory's path replaced by
/tmp/agent-record. A stand-in `ssh` first on PATH notes what ran: the output says
whether a DENY command did.

    python scripts/record_agent_payloads.py --agent claude --version 2.1.337 \\
        --bin /tmp/agents-npm/node_modules/.bin/claude --out tests/data/agents

`--hook real` puts `python -m heredoc_lint hook AGENT` (with `--hook-args`, e.g.
`--rewrite`) behind the recorder instead, writes nothing, and prints what the model was
told about each call: the deny reason, or the output of the (rewritten) command.
Nothing here needs a login: each agent gets a fake API key and a fresh HOME.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PLACEHOLDER = "/tmp/agent-record"  # what the temporary directory's path becomes
DENY = 'ssh h "pkill -f sglang; ./restart"'  # HL103, with a safe fix
CLEAN = "ls -la"
Json = dict[str, Any]


@dataclass(frozen=True)
class Case:
    name: str
    tool: str
    args: Json | str  # the tool's arguments; "{dir}" in a string is the project directory
    extra: tuple[str, ...] = ()  # more arguments for the agent, before its last one
    # Further calls (tool, arguments), each made once the previous call's result is back;
    # a "{session}" value is the session ID that result named (Codex's write_stdin).
    then: tuple[tuple[str, Json], ...] = ()
    # False: the agent is known to make the last call without asking its hook, and the
    # case shows whether the command ran (a hook call, should one come, is recorded).
    hooked: bool = True


CASES: dict[str, tuple[Case, ...]] = {
    "claude": (
        Case("bash_deny", "Bash", {"command": DENY, "description": "Restart app"}),
        Case("bash_clean", "Bash", {"command": CLEAN, "description": "List files"}),
        Case(
            "monitor_deny",
            "Monitor",
            {"command": DENY, "description": "Restart app", "timeout_ms": 10000},
        ),
        Case("read", "Read", {"file_path": "{dir}/notes.txt"}),
        Case("write", "Write", {"file_path": "{dir}/out.txt", "content": "hello\n"}),
    ),
    "codex": (
        Case("exec_command_deny", "exec_command", {"cmd": DENY}),
        Case("exec_command_clean", "exec_command", {"cmd": CLEAN}),
        Case("exec_command_workdir_deny", "exec_command", {"cmd": DENY, "workdir": "{dir}/sub"}),
        Case(
            "apply_patch",
            "apply_patch",
            "*** Begin Patch\n*** Add File: out.txt\n+hello\n*** End Patch\n",
        ),
        # A clean `bash` started with a terminal, then the command typed into it: 0.171.0
        # asks the hook about the `bash` only, and the command runs (see docs/agents.md).
        Case(
            "write_stdin_deny",
            "exec_command",
            {"cmd": "bash", "tty": True, "yield_time_ms": 1000},
            then=(("write_stdin", {"session_id": "{session}", "chars": DENY + "\n"}),),
            hooked=False,
        ),
    ),
    "gemini": (
        Case("run_shell_command_deny", "run_shell_command", {"command": DENY}),
        Case("run_shell_command_clean", "run_shell_command", {"command": CLEAN}),
        Case(
            "run_shell_command_dir_deny", "run_shell_command", {"command": DENY, "dir_path": "sub"}
        ),
        Case("read_file", "read_file", {"file_path": "{dir}/notes.txt"}),
        Case("write_file", "write_file", {"file_path": "{dir}/out.txt", "content": "hello\n"}),
    ),
    "opencode": (
        Case("bash_deny", "bash", {"command": DENY, "description": "Restart app"}),
        Case("bash_clean", "bash", {"command": CLEAN, "description": "List files"}),
        Case("read", "read", {"filePath": "{dir}/notes.txt"}),
        Case("write", "write", {"filePath": "{dir}/out.txt", "content": "hello\n"}),
    ),
}
MODELS = {
    "claude": "claude-sonnet-4-5",
    "codex": "gpt-5.5",
    "gemini": "gemini-2.5-flash",
    "opencode": "fake/fake-model",
}
PROTOCOLS = {"claude": "anthropic", "codex": "responses", "gemini": "gemini", "opencode": "chat"}


# --- the fake model ---------------------------------------------------------------------


def offered(protocol: str, body: Json) -> set[str]:
    """The names of the tools a request offers the model."""
    tools = body.get("tools") or []
    if protocol == "gemini":
        names = [d.get("name") for t in tools for d in t.get("functionDeclarations") or []]
    elif protocol == "chat":
        names = [(t.get("function") or {}).get("name") for t in tools]
    else:
        names = [t.get("name") or t.get("type") for t in tools]
    return {name for name in names if isinstance(name, str)}


def results(protocol: str, body: Json) -> list[str]:
    """The tool results a request carries back to the model, as text."""
    found: list[Any] = []
    if protocol == "anthropic":
        for message in body.get("messages") or []:
            content = message.get("content")
            if isinstance(content, list):
                found += [b.get("content") for b in content if b.get("type") == "tool_result"]
    elif protocol == "responses":
        items = body.get("input") or []
        found = [i.get("output") for i in items if str(i.get("type")).endswith("call_output")]
    elif protocol == "chat":
        found = [m.get("content") for m in body.get("messages") or [] if m.get("role") == "tool"]
    else:
        for content in body.get("contents") or []:
            found += [
                p["functionResponse"] for p in content.get("parts") or [] if "functionResponse" in p
            ]
    return [x if isinstance(x, str) else json.dumps(x) for x in found]


def sse(events: list[Json], named: bool) -> bytes:
    lines = []
    for event in events:
        if named:
            lines.append(f"event: {event['type']}")
        lines.append("data: " + json.dumps(event))
        lines.append("")
    return ("\n".join(lines) + "\n").encode()


def answer(
    protocol: str, body: Json, call: tuple[str, Json | str] | None, path: str, number: int = 1
) -> bytes:
    """The fake model's reply: `call` (tool name, arguments) or the text "done". `number`
    makes the ids of a case's second or later call differ from the first's."""
    model = body.get("model", "fake-model")
    if protocol == "anthropic":
        if call is None:
            block: Json = {"type": "text", "text": ""}
            delta: Json = {"type": "text_delta", "text": "done"}
        else:
            block = {"type": "tool_use", "id": "toolu_01", "name": call[0], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(call[1])}
        stop = "end_turn" if call is None else "tool_use"
        if not body.get("stream"):
            done = {**block, "text": "done"} if call is None else {**block, "input": call[1]}
            message = {
                "id": "msg_01",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [done],
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            }
            return json.dumps(message).encode()
        return sse(
            [
                {
                    "type": "message_start",
                    "message": {
                        "id": "msg_01",
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 1, "output_tokens": 1},
                    },
                },
                {"type": "content_block_start", "index": 0, "content_block": block},
                {"type": "content_block_delta", "index": 0, "delta": delta},
                {"type": "content_block_stop", "index": 0},
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 1},
                },
                {"type": "message_stop"},
            ],
            named=True,
        )
    if protocol == "responses":
        if call is None:
            item: Json = {
                "type": "message",
                "role": "assistant",
                "id": "msg_1",
                "content": [{"type": "output_text", "text": "done", "annotations": []}],
            }
        elif isinstance(call[1], str):  # a freeform ("custom") tool such as apply_patch
            item = {
                "type": "custom_tool_call",
                "id": f"ctc_{number}",
                "call_id": f"call_{number}",
                "name": call[0],
                "input": call[1],
            }
        else:
            item = {
                "type": "function_call",
                "id": f"fc_{number}",
                "call_id": f"call_{number}",
                "name": call[0],
                "arguments": json.dumps(call[1]),
            }
        usage = {
            "input_tokens": 1,
            "input_tokens_details": None,
            "output_tokens": 1,
            "output_tokens_details": None,
            "total_tokens": 2,
        }
        return sse(
            [
                {"type": "response.created", "response": {"id": "resp_1"}},
                {"type": "response.output_item.done", "output_index": 0, "item": item},
                {"type": "response.completed", "response": {"id": "resp_1", "usage": usage}},
            ],
            named=True,
        )
    if protocol == "chat":
        if call is None:
            delta = {"role": "assistant", "content": "done"}
        else:
            delta = {
                "role": "assistant",
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": call[0], "arguments": json.dumps(call[1])},
                    }
                ],
            }
        finish = "stop" if call is None else "tool_calls"
        head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": model}
        if not body.get("stream"):
            message = {k: v for k, v in delta.items() if k != "tool_calls"}
            if call is not None:
                message["tool_calls"] = [
                    {k: v for k, v in delta["tool_calls"][0].items() if k != "index"}
                ]
            return json.dumps(
                {
                    **head,
                    "object": "chat.completion",
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                }
            ).encode()
        chunks = [
            {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {
                **head,
                "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            },
        ]
        return sse(chunks, named=False) + b"data: [DONE]\n\n"
    # gemini
    if path.split("?")[0].endswith(":countTokens"):
        return json.dumps({"totalTokens": 1}).encode()
    config = body.get("generationConfig") or {}
    if call is not None:
        part: Json = {"functionCall": {"name": call[0], "args": call[1]}}
    elif config.get("responseMimeType") == "application/json":
        part = {"text": json.dumps({"next_speaker": "user", "reasoning": "done"})}
    else:
        part = {"text": "done"}
    reply = {
        "candidates": [
            {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
        "modelVersion": model,
    }
    if ":streamGenerateContent" in path:
        return sse([reply], named=False)
    return json.dumps(reply).encode()


class FakeModel:
    """A model service on 127.0.0.1 that makes each call of `steps` (tool, arguments) once,
    in order, each after the previous one's result is back, then says "done"."""

    def __init__(self, protocol: str, steps: list[tuple[str, Json | str]], log: Path) -> None:
        self.protocol, self.steps, self.log = protocol, steps, log
        self.requests: list[Json] = []
        self.offered: set[str] = set()
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: object) -> None:
                pass

            def do_GET(self) -> None:  # model lists and the like
                self.reply(200, json.dumps({"data": [], "models": []}).encode(), "application/json")

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(size) if size else b""
                if self.headers.get("Content-Encoding") == "zstd":
                    self.reply(415, b"{}", "application/json")
                    return
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                data, kind = model.respond(self.path, body)
                self.reply(200, data, kind)

            def reply(self, status: int, data: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def respond(self, path: str, body: Json) -> tuple[bytes, str]:
        self.requests.append(body)
        number = len(self.requests)
        (self.log / f"request-{number:02d}.json").write_text(
            json.dumps({"path": path, "body": body})
        )
        names = offered(self.protocol, body)
        self.offered |= names
        back = results(self.protocol, body)
        call = None
        if len(back) < len(self.steps) and self.steps[len(back)][0] in names:
            tool, args = self.steps[len(back)]
            if isinstance(args, dict) and back:
                session = re.search(r"session ID (\d+)", back[-1])
                value = int(session.group(1)) if session else None
                args = {k: value if v == "{session}" else v for k, v in args.items()}
            call = (tool, args)
        data = answer(self.protocol, body, call, path, len(back) + 1)
        streamed = data.startswith((b"event:", b"data:"))
        return data, "text/event-stream" if streamed else "application/json"

    def told(self) -> list[str]:
        """The last tool result the agent sent back to the model (one at most)."""
        return [text for body in self.requests for text in results(self.protocol, body)][-1:]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --- the hook recorder and the agents' configuration ------------------------------------

RECORDER = """\
import os, subprocess, sys, time
data = sys.stdin.buffer.read()
name = os.path.join(sys.argv[1], "%d.json" % time.time_ns())
with open(name, "wb") as f:
    f.write(data)
if len(sys.argv) > 2:  # forward to the real hook and pass its answer on
    run = subprocess.run(sys.argv[2:], input=data, capture_output=True)
    with open(name + ".answer", "wb") as f:
        f.write(run.stdout + b"\\n--- stderr\\n" + run.stderr)
    sys.stdout.buffer.write(run.stdout)
    sys.stderr.buffer.write(run.stderr)
    sys.exit(run.returncode)
"""

OPENCODE_PLUGIN = """\
import { appendFileSync } from "node:fs"
export const Recorder = async () => ({
  "tool.execute.before": async (input, output) => {
    appendFileSync(%s, JSON.stringify({ input, output }) + "\\n")
  },
})
"""


def hook_command(root: Path, agent: str, real: list[str] | None) -> str:
    recorder = root / "recorder.py"
    recorder.write_text(RECORDER)
    argv = [sys.executable, str(recorder), str(root / "hooks")]
    if real is not None:
        argv += [sys.executable, "-m", "heredoc_lint", "hook", agent, *real]
    return shlex.join(argv)


def write_json(path: Path, value: Json) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n")


def setup(
    agent: str, root: Path, url: str, binary: str, real: list[str] | None, model: str
) -> list[str]:
    """Configure `agent` under `root` (HOME and the project) and return its command line."""
    home, project = root / "home", root / "project"
    prompt = "Use the tool you are asked for."
    if agent == "claude":
        hook = {"type": "command", "command": hook_command(root, "claude", real), "timeout": 60}
        write_json(
            project / ".claude" / "settings.json",
            {
                "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [hook]}]},
            },
        )
        tools = "Bash,Monitor,Read,Write,Edit"
        return [binary, "-p", prompt, "--model", model, "--allowedTools", tools]
    if agent == "codex":
        hook = {"type": "command", "command": hook_command(root, "codex", real), "timeout": 60}
        write_json(
            home / ".codex" / "hooks.json",
            {
                "hooks": {"PreToolUse": [{"matcher": ".*", "hooks": [hook]}]},
            },
        )
        (home / ".codex" / "config.toml").write_text(
            'model_provider = "fake"\n'
            "[model_providers.fake]\n"
            'name = "fake"\n'
            f'base_url = "{url}/v1"\n'
            'wire_api = "responses"\n'
            'env_key = "FAKE_API_KEY"\n'
        )
        return [
            binary,
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-hook-trust",
            "--dangerously-bypass-approvals-and-sandbox",
            "-m",
            model,
            prompt,
        ]
    if agent == "gemini":
        hook = {
            "name": "recorder",
            "type": "command",
            "command": hook_command(root, "gemini", real),
            "timeout": 60000,
        }
        write_json(
            home / ".gemini" / "settings.json",
            {
                "hooksConfig": {"enabled": True},
                "hooks": {"BeforeTool": [{"matcher": ".*", "hooks": [hook]}]},
                "security": {"auth": {"selectedType": "gemini-api-key"}},
            },
        )
        return [binary, "-p", prompt, "-m", model, "--approval-mode", "yolo"]
    # opencode
    plugins = project / ".opencode" / "plugin"
    plugins.mkdir(parents=True)
    (root / "hooks").mkdir(exist_ok=True)
    record = json.dumps(str(root / "hooks" / "opencode.jsonl"))
    (plugins / "recorder.js").write_text(OPENCODE_PLUGIN % record)
    if real is not None:
        source = Path(__file__).resolve().parent.parent / "integrations" / "opencode"
        shutil.copy(source / "heredoc-lint.js", plugins / "heredoc-lint.js")
    write_json(
        project / "opencode.json",
        {
            "$schema": "https://opencode.ai/config.json",
            "permission": {"*": "allow", "bash": "allow", "edit": "allow", "read": "allow"},
            "provider": {
                "fake": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Fake",
                    "options": {"baseURL": f"{url}/v1", "apiKey": "fake"},
                    "models": {"fake-model": {"name": "fake-model", "tool_call": True}},
                }
            },
            "model": "fake/fake-model",
            "small_model": "fake/fake-model",
        },
    )
    return [binary, "run", "-m", model, prompt]


def environment(agent: str, root: Path, url: str, real: list[str] | None) -> dict[str, str]:
    home = root / "home"
    # A stand-in ssh first on PATH notes its arguments in ssh.log: whether a DENY command
    # ran is seen there, and none connects anywhere. ~/.profile puts it first again in a
    # login shell (Codex runs `bash -lc CMD`), whose /etc/profile may reset PATH.
    stand_in = root / "bin" / "ssh"
    stand_in.parent.mkdir(exist_ok=True)
    stand_in.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{root}/ssh.log"\necho ssh-stand-in\n')
    stand_in.chmod(0o755)
    home.mkdir(exist_ok=True)
    (home / ".profile").write_text(f'PATH="{stand_in.parent}:$PATH"\n')
    env = {
        "PATH": f"{stand_in.parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "TERM": "dumb",
        "LANG": "C.UTF-8",
    }
    if real is not None and agent == "opencode":
        wrapper = root / "heredoc-lint-hook"
        wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m heredoc_lint hook "$@"\n')
        wrapper.chmod(0o755)
        env["HEREDOC_LINT_HOOK"] = str(wrapper)
    if agent == "claude":
        env |= {
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": "sk-ant-fake",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "ENABLE_TOOL_SEARCH": "false",
        }
    elif agent == "codex":
        env |= {"CODEX_HOME": str(home / ".codex"), "FAKE_API_KEY": "fake"}
    elif agent == "gemini":
        env |= {
            "GEMINI_API_KEY": "fake",
            "GOOGLE_GEMINI_BASE_URL": url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
        }
    else:
        env |= {"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1"}
    return env


def run_agent(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> str:
    """Run the agent in its own process group; the group is killed when it is done."""
    with subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    ) as process:
        try:
            out, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            out = b"[timed out]"
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return out.decode(errors="replace")


def mangled(path: str) -> str:
    """A path as Claude Code names its folder under ~/.claude/projects."""
    return re.sub("[^A-Za-z0-9]", "-", path)


def recorded(agent: str, root: Path) -> list[tuple[str, str]]:
    """(tool name, exact payload text) of every hook call, in order."""
    hooks = root / "hooks"
    if agent == "opencode":
        record = hooks / "opencode.jsonl"
        text = record.read_bytes().decode() if record.exists() else ""
        lines = text.split("\n")[:-1]  # the plugin ends each with "\n"
        return [(json.loads(line)["input"].get("tool", ""), line + "\n") for line in lines]
    calls = []
    for path in sorted(hooks.glob("*.json"), key=lambda p: int(p.stem)):
        text = path.read_bytes().decode()  # byte for byte (read_text would turn \r\n)
        try:
            tool = json.loads(text).get("tool_name", "")
        except ValueError:
            tool = ""
        calls.append((tool, text))
    return calls


def record_case(
    agent: str,
    case: Case,
    binary: str,
    model_name: str,
    real: list[str] | None,
    timeout: float,
    keep: Path | None,
    say: Callable[[str], None],
    command: str | None = None,
) -> str | None:
    """Run one case; the recorded payload with paths replaced, or None."""
    root = Path(tempfile.mkdtemp(prefix=f"hl-{agent}-")).resolve()
    try:
        project = root / "project"
        project.mkdir()
        (root / "hooks").mkdir()
        (root / "log").mkdir()
        (project / "notes.txt").write_text("notes\n")
        (project / "sub").mkdir()
        steps: list[tuple[str, Json | str]] = []
        for tool, args in ((case.tool, case.args), *case.then):
            text = json.dumps(args).replace("{dir}", str(project))
            if command is not None:  # a live check: another command in place of DENY
                text = text.replace(json.dumps(DENY)[1:-1], json.dumps(command)[1:-1])
            steps.append((tool, json.loads(text)))
        model = FakeModel(PROTOCOLS[agent], steps, root / "log")
        try:
            argv = setup(agent, root, model.url, binary, real, model_name)
            argv[-1:-1] = case.extra  # before the prompt
            output = run_agent(argv, project, environment(agent, root, model.url, real), timeout)
        finally:
            model.close()
        # The case's payload is the hook call of its last step, in order (the agent may
        # name the tool otherwise in its hook input: Codex's exec_command is "Bash").
        calls = [text for _, text in recorded(agent, root)]
        names = [tool for tool, _ in recorded(agent, root)]
        tools = sorted(model.offered)
        last = len(case.then)
        if not {case.tool, *(tool for tool, _ in case.then)} <= model.offered:
            say(f"{case.name}: {agent} offered not all of the case's tools: {', '.join(tools)}")
        elif not calls:
            say(f"{case.name}: no hook call; agent output:\n{output[-2000:]}")
        elif len(calls) <= last:
            known = "" if case.hooked else " (as known; nothing is recorded)"
            say(f"{case.name}: no hook call for step {last + 1} of {last + 1}{known}")
        elif not case.hooked:
            say(f"{case.name}: the hook was called for step {last + 1}, which it was not before")
        elif len(calls) > last + 1:
            say(f"{case.name}: {len(calls)} hook calls; number {last + 1} is the case's")
        told = model.told()
        say(
            f"{case.name}: {len(calls)} hook call(s) {names}; the model was told: "
            + (repr(told[0][:600]) if told else "nothing")
        )
        ran = root / "ssh.log"  # written by the stand-in ssh (see environment)
        say(f"{case.name}: ssh ran: " + (repr(ran.read_text()) if ran.exists() else "no"))
        if keep is not None:
            shutil.copytree(
                root,
                keep / f"{agent}-{case.name}",
                dirs_exist_ok=True,
                ignore=shutil.ignore_patterns(".cache", "node_modules"),
            )
            (keep / f"{agent}-{case.name}" / "agent-output.txt").write_text(output)
        if len(calls) <= last:
            return None
        text = calls[last].replace(str(root), PLACEHOLDER)
        return text.replace(mangled(str(root)), mangled(PLACEHOLDER))  # Claude's project folder
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", choices=sorted(CASES), required=True)
    parser.add_argument("--version", required=True, help="the agent's version (the folder name)")
    parser.add_argument("--bin", help="the agent's executable (default: its name on PATH)")
    parser.add_argument("--out", type=Path, default=Path("tests/data/agents"))
    parser.add_argument("--model", help="the model name the agent asks for")
    parser.add_argument("--case", action="append", help="only these cases (repeatable)")
    parser.add_argument("--hook", choices=("record", "real"), default="record")
    parser.add_argument("--hook-args", default="", help="for --hook real, e.g. --rewrite")
    parser.add_argument(
        "--command",
        help="with --hook real: run this (or @FILE's text) in place "
        "of the deny cases' command; e.g. 'pkill -f hl-live; echo ran' in a file "
        "(not in argv, which it would match) shows that a rewrite ran",
    )
    parser.add_argument("--timeout", type=float, default=180)
    parser.add_argument(
        "--keep", type=Path, help="copy each run's directory (requests, hook calls) here"
    )
    options = parser.parse_args()
    # SIGTERM unwinds like an exception, so that run_agent kills the agent's group.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    command = options.command
    if command is not None and command.startswith("@"):
        command = Path(command[1:]).read_text().strip()
    binary = options.bin or shutil.which(options.agent) or options.agent
    real = shlex.split(options.hook_args) if options.hook == "real" else None
    folder = options.out / options.agent / options.version
    failed = 0
    for case in CASES[options.agent]:
        if options.case and case.name not in options.case:
            continue
        payload = record_case(
            options.agent,
            case,
            binary,
            options.model or MODELS[options.agent],
            real,
            options.timeout,
            options.keep,
            lambda line: print(f"{options.agent} {line}", flush=True),
            command if real is not None else None,
        )
        if payload is None:
            failed += case.hooked  # an unhooked case records nothing, as known
        elif real is None:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{case.name}.json").write_bytes(payload.encode())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
