"""`heredoc-lint hook AGENT`: a pre-execution gate for the shell commands of coding agents.

The agent runs this before each shell command, with the tool call as JSON on stdin.
When the command has an error-severity finding, the hook answers "deny" in the agent's
own format, naming the findings and the fixed command; otherwise it lets the command run.

Exit status: always 0 once the arguments are understood, also on bad input and on
internal errors (then the command is allowed and one line goes to stderr). Claude Code
and Codex read exit 2 as "block", and an interpreter or library failure that exited 2
would block every command the agent tries; a gate that cannot check must fail open.
A usage error (unknown agent or option) exits 1: a non-blocking hook error that the agent
shows to the user, so a misconfigured hook is noticed without stopping the agent.

Start-up latency counts (it runs before every command when no server answers): only json,
os, sys and the option tables (options.py) are imported up front; argparse and the engine
are imported once there is something to do, and a command without any rule's trigger
(`ls`, `git status`) is allowed without the engine.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from heredoc_lint.agents.commands import command_text, unwrap_shell_c
from heredoc_lint.cli.options import (
    FIX_STRATEGIES,
    FIX_STRATEGY,
    IGNORE,
    SELECT,
    VERBOSE,
    Opt,
    UsageError,
    codes,
    parse,
)

if TYPE_CHECKING:
    from pathlib import Path

    from heredoc_lint.engine import Settings
    from heredoc_lint.model import Finding, Severity, Strategy
    from heredoc_lint.run.config import Config, Finder

Agent = Literal["claude", "codex", "gemini", "cursor"]
AGENTS: tuple[Agent, ...] = ("claude", "codex", "gemini", "cursor")
WarningMode = Literal["ignore", "context", "deny"]  # what a warning-only finding does
WARNING_MODES: tuple[WarningMode, ...] = ("ignore", "context", "deny")
# allow; context: allow, with a message for the agent; deny; rewrite: run the fixed command
Decision = Literal["allow", "context", "deny", "rewrite"]
DEFAULT_TIMEOUT = 10.0  # seconds for checking and fixing, then fail open
MAX_LISTED = 20  # findings listed in a reason; the rest are counted
MAX_FIXED = 6_000  # characters of a fixed command shown in a reason
# Claude Code cuts hook output at 10,000 characters (and the JSON escapes of a reason
# are longer than the reason): answers are kept under this many characters of JSON.
MAX_ANSWER = 9_000
MAX_POSITIONS = 5  # positions listed for one finding repeated at several places

# Tool names whose input is a shell command, per agent.
# Monitor (Claude Code 2.1.98 and later) runs a shell command in the background and
# streams its output to the model; its input has `command` like Bash's.
CLAUDE_TOOLS = frozenset({"Bash", "Monitor"})
CODEX_TOOLS = frozenset(
    {"Bash", "shell", "shell_command", "exec_command", "local_shell", "container.exec"}
)
GEMINI_TOOLS = frozenset({"run_shell_command"})
CURSOR_TOOLS = frozenset({"Shell"})
# Codex's legacy tools run an argv (`["bash", "-lc", SCRIPT]`) without an outer shell.
CODEX_ARGV_TOOLS = frozenset({"shell", "local_shell", "container.exec"})
# Cursor runs the hooks of `.claude/settings.json` with its own events and input.
CURSOR_EVENTS = frozenset({"preToolUse", "beforeShellExecution"})

Json = dict[str, Any]


class InputError(Exception):
    """Hook input that is not what the agent documents: allow, with a note."""


class _Timeout(Exception):
    pass


@dataclass(frozen=True)
class HookOptions:
    agent: Agent
    warnings: WarningMode = "ignore"
    select: frozenset[str] | None = None
    ignore: frozenset[str] = frozenset()
    fix_strategy: Strategy = "base64"
    timeout: float = DEFAULT_TIMEOUT
    fix: bool = True
    verbose: bool = False
    rewrite: bool = False


@dataclass(frozen=True)
class Verdict:
    """What the hook decided; `render` turns it into the agent's JSON."""

    decision: Decision
    reason: str = ""  # the full text for the agent
    summary: str = ""  # one line for the user
    notes: tuple[str, ...] = field(default=())  # one-line stderr notes
    command: str | None = None  # "rewrite": the command to run instead


# --- reading the agents' input --------------------------------------------------------


def _tool_command(payload: Json, tools: frozenset[str], events: frozenset[str]) -> str | None:
    """The command of a `tool_name`/`tool_input` payload, or None when not a shell call."""
    event = payload.get("hook_event_name")
    if event is not None and event not in events:
        return None
    if payload.get("tool_name") not in tools:
        return None
    tool_input = payload.get("tool_input")
    if isinstance(tool_input, str):  # some agents send the arguments still encoded
        try:
            tool_input = json.loads(tool_input)
        except ValueError:
            raise InputError("tool_input is a string that is not JSON") from None
    if not isinstance(tool_input, dict):
        raise InputError("tool_input is missing or not an object")
    value = tool_input.get("command")
    if value is None:
        value = tool_input.get("cmd")  # Codex exec_command
    if value is None:
        raise InputError("tool_input has no command")
    text = command_text(value)
    if text is None:
        raise InputError("tool_input.command is neither a string nor an argv list")
    return text


def command_of(agent: Agent, payload: object) -> str | None:
    """The shell command an agent is about to run, or None when the call is not one."""
    if not isinstance(payload, dict):
        raise InputError("hook input is not a JSON object")
    if agent == "claude":
        return _tool_command(payload, CLAUDE_TOOLS, frozenset({"PreToolUse"}))
    if agent == "codex":
        text = _tool_command(payload, CODEX_TOOLS, frozenset({"PreToolUse"}))
        if text is not None and payload.get("tool_name") in CODEX_ARGV_TOOLS:
            return unwrap_shell_c(text)
        return text
    if agent == "gemini":
        return _tool_command(payload, GEMINI_TOOLS, frozenset({"BeforeTool"}))
    # cursor: beforeShellExecution has the command at the top level; the generic
    # preToolUse event has tool_name "Shell" and tool_input.command.
    event = payload.get("hook_event_name")
    if event == "preToolUse":
        return _tool_command(payload, CURSOR_TOOLS, frozenset({"preToolUse"}))
    if event is not None and event != "beforeShellExecution":
        return None
    if "command" not in payload:
        raise InputError("no command in the beforeShellExecution input")
    text = command_text(payload["command"])
    if text is None:
        raise InputError("command is neither a string nor an argv list")
    return text


def speaker(agent: Agent, payload: object) -> Agent:
    """Whose protocol the answer must speak: Cursor runs `.claude/settings.json` hooks
    (`hook claude`) with its own events and reads its own answer."""
    if (
        agent == "claude"
        and isinstance(payload, dict)
        and payload.get("hook_event_name") in CURSOR_EVENTS
    ):
        return "cursor"
    return agent


def updated_input(payload: object, fixed: str) -> Json | None:
    """The tool input of `payload` with its command replaced by `fixed`, or None when the
    command is not a string or a `SHELL -c SCRIPT` argv (then there is no rewrite)."""
    if not isinstance(payload, dict):
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    key = "command" if "command" in tool_input else "cmd"
    value = tool_input.get(key)
    if isinstance(value, str):
        if payload.get("tool_name") in CODEX_ARGV_TOOLS and unwrap_shell_c(value) != value:
            return None  # a joined argv: which word to replace is not ours to guess
        return {**tool_input, key: fixed}
    if isinstance(value, list) and len(value) >= 3 and command_text(value) == value[-1]:
        return {**tool_input, key: [*value[:-1], fixed]}
    return None


# --- writing the agents' output -------------------------------------------------------


def render(agent: Agent, verdict: Verdict, updated: Json | None = None) -> Json | None:
    """The JSON to print for `verdict`, or None to print nothing (allow by silence).
    `updated` is the tool input to run instead, for a "rewrite" verdict."""
    if agent in ("claude", "codex"):
        if verdict.decision == "rewrite" and updated is not None:
            # Allow with `updatedInput`: the agent runs the fixed command. The reason is
            # shown to the user, `additionalContext` to the model.
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "permissionDecisionReason": verdict.summary,
                    "updatedInput": updated,
                    "additionalContext": verdict.reason,
                }
            }
        # Codex rejects unknown fields and `permissionDecision: "allow"` without
        # `updatedInput`; both accept this shape, and silence for allow.
        if verdict.decision == "deny":
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": verdict.reason,
                }
            }
        if verdict.decision == "context":
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "additionalContext": verdict.reason,
                }
            }
        return None
    if verdict.decision == "rewrite" and updated is not None:
        return _rewritten(agent, verdict, updated)
    if agent == "gemini":
        if verdict.decision == "deny":
            return {"decision": "deny", "reason": verdict.reason}
        if verdict.decision == "context":
            # BeforeTool has no channel to the model for an allowed call: tell the user.
            return {"systemMessage": verdict.reason}
        return None
    # cursor: blank stdout is not valid output (cursor-agent then fails closed), so
    # every answer, allow included, is a permission object.
    if verdict.decision == "deny":
        return {
            "permission": "deny",
            "user_message": verdict.summary,
            "agent_message": verdict.reason,
        }
    if verdict.decision == "context":
        return {"permission": "allow", "agent_message": verdict.reason}
    return {"permission": "allow"}


def _rewritten(agent: Agent, verdict: Verdict, updated: Json) -> Json:
    """Gemini CLI's and Cursor's answer that runs `updated` instead of the tool input."""
    if agent == "gemini":
        # BeforeTool: `hookSpecificOutput.tool_input` is merged over the model's arguments
        # (Object.assign) and the tool rebuilt from them. No `decision`: the user's own
        # confirmation of the command still applies. The model sees the command that ran
        # (the shell tool's result starts with it) and Gemini's own note that a hook
        # changed `command`; the why goes to the user.
        return {
            "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": updated},
            "systemMessage": verdict.reason,
        }
    # cursor, `preToolUse` only (beforeShellExecution has no tool input to replace):
    # `updated_input` is applied with `permission: "allow"`; agent_message is the model's.
    return {
        "permission": "allow",
        "updated_input": updated,
        "user_message": verdict.summary,
        "agent_message": verdict.reason,
    }


# --- checking -------------------------------------------------------------------------


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


def _listing(command: str, findings: Sequence[Finding]) -> list[str]:
    """One line per distinct finding (code, severity, message), with its positions: a
    command that repeats one mistake a hundred times gets one line, not a hundred."""
    places: dict[tuple[str, str, str], list[str]] = {}
    for finding in findings:
        line, column = _position(command, finding.start)
        key = (finding.code, finding.severity.value, finding.message)
        places.setdefault(key, []).append(f"{line}:{column}")
    lines = []
    for (code, severity, message), where in list(places.items())[:MAX_LISTED]:
        at = ", ".join(where[:MAX_POSITIONS])
        if len(where) > MAX_POSITIONS:
            at += f" and {len(where) - MAX_POSITIONS} more places"
        lines.append(f"- {at} {code} [{severity}] {message}")
    if len(places) > MAX_LISTED:
        lines.append(f"- ... and {len(places) - MAX_LISTED} other findings")
    return lines


def _codes(findings: Sequence[Finding]) -> str:
    return ", ".join(dict.fromkeys(f.code for f in findings))


@dataclass
class _Clock:
    """A deadline enforced with SIGALRM where there is one (the main thread on POSIX)."""

    seconds: float
    armed: bool = False

    def __enter__(self) -> _Clock:
        import signal

        if self.seconds > 0 and hasattr(signal, "setitimer"):

            def expire(signum: int, frame: object) -> None:
                raise _Timeout

            try:
                signal.signal(signal.SIGALRM, expire)
                signal.setitimer(signal.ITIMER_REAL, self.seconds)
                self.armed = True
            except ValueError:  # not the main thread
                pass
        return self

    def __exit__(self, *exc: object) -> None:
        import signal

        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)


def _shown() -> Severity:
    """The lowest severity the hook shows, and so the lowest whose fixes its fixed command
    applies: warning (the model imported only once a command needs checking)."""
    from heredoc_lint.model import Severity

    return Severity.WARNING


def _fixed_command(
    command: str, settings: Settings, findings: list[Finding]
) -> tuple[str | None, list[Finding]]:
    """The command with the safe fix of every finding the hook shows applied, and the
    shown findings left in it."""
    from heredoc_lint.engine import fix_kind
    from heredoc_lint.model import reported

    outcome = fix_kind(command, "command", settings=settings, findings=findings, threshold=_shown())
    if outcome.error or outcome.text == command or outcome.new_files:
        return None, []
    return outcome.text, reported(outcome.remaining, _shown())


def _diff(command: str, fixed: str) -> str:
    import difflib

    return "".join(
        difflib.unified_diff(
            (command + "\n").splitlines(keepends=True),
            (fixed + "\n").splitlines(keepends=True),
            "command",
            "fixed command",
            n=1,
        )
    )


@dataclass(frozen=True)
class _Checked:
    """What checking a command found: the findings shown, the decision, the fixed command."""

    shown: list[Finding]
    decision: Decision
    fixed: str | None = None
    left: list[Finding] = field(default_factory=list)  # findings left in `fixed`
    fix_note: str = ""  # why there is no fixed command, when that needs saying


def _decision(shown: list[Finding], warnings: WarningMode) -> Decision:
    from heredoc_lint.model import Severity

    if any(f.severity is Severity.ERROR for f in shown):
        return "deny"
    if any(f.severity is Severity.WARNING for f in shown) and warnings != "ignore":
        return "deny" if warnings == "deny" else "context"
    return "allow"


def _check(command: str, options: HookOptions, settings: Settings) -> _Checked | Verdict:
    """Check (and fix) `command` within the time limit; a Verdict when time ran out first."""
    from heredoc_lint.engine import check_text
    from heredoc_lint.model import reported

    checked: _Checked | None = None
    try:
        with _Clock(options.timeout):
            findings = check_text(command, "command", settings=settings)
            shown = reported(findings, _shown())
            checked = _Checked(shown, _decision(shown, options.warnings))
            if (
                checked.decision != "allow"
                and options.fix
                and any(f.fix is not None for f in shown)
            ):
                fixed, left = _fixed_command(command, settings, findings)
                checked = _Checked(shown, checked.decision, fixed, left)
    except _Timeout:
        limit = f"{options.timeout:g} s"
        if checked is None:
            note = f"heredoc-lint: hook: checking took longer than {limit}; "
            return Verdict("allow", notes=(note + "the command was allowed unchecked",))
        note = f"(No fixed command: computing it took longer than {limit}.)"
        return _Checked(checked.shown, checked.decision, fix_note=note)
    return checked


def _import_all() -> None:
    from heredoc_lint.engine import import_all  # only when a command needs the bound's worker

    import_all(("command",))


def _check_bounded(command: str, options: HookOptions, settings: Settings) -> _Checked | Verdict:
    """_check, held to the memory the command's size allows (heredoc_lint.run.memory); a
    command that needs more runs unchecked, as one whose check takes too long does."""
    from heredoc_lint.run import memory

    data = command.encode("utf-8", "surrogatepass")  # a lone surrogate: 3 bytes
    with memory.Bound(prepare=_import_all) as bound:
        checked = bound.run(_check, (command, options, settings), data)
    if isinstance(checked, _Checked | Verdict):
        return checked
    # Lost: the process checking it died.
    why = (
        memory.refusal(len(data))
        if checked.out_of_memory
        else f"internal error: the process checking it {checked.reason}"
    )
    note = f"heredoc-lint: hook: {why}; the command was allowed unchecked"
    return Verdict("allow", notes=(note,))


def _fixed_lines(command: str, checked: _Checked) -> list[str]:
    """The part of the reason that shows the fixed command (or says why there is none)."""
    from heredoc_lint.model import Severity

    fixed = checked.fixed
    if fixed is None:
        if checked.fix_note:
            return [checked.fix_note]
        if checked.decision == "deny":
            return ["No automatic fix; `heredoc-lint rule CODE` explains each rule."]
        return []
    diff = _diff(command, fixed) if len(fixed) > MAX_FIXED else ""
    if diff and len(diff) <= MAX_FIXED:
        return [
            f"The fixed command is {len(fixed)} characters long; its changes "
            "(heredoc-lint's safe fixes), as a unified diff of the command:",
            diff.rstrip("\n"),
        ]
    if diff:
        return [
            f"A fixed command exists but is {len(fixed)} characters long, too long to "
            "show; rewrite the command (for example send file contents as base64 or "
            "with scp instead of a heredoc inside the remote command string)."
        ]
    still = [f for f in checked.left if f.severity is Severity.ERROR]
    label = (
        f"Partly fixed command (still has {_codes(still)}):"
        if still
        else "Fixed command (heredoc-lint's safe fixes applied); run this instead:"
        if checked.decision == "deny"
        else "The same command with heredoc-lint's safe fixes applied (for a next time):"
    )
    how = dict.fromkeys(f.fix.message for f in checked.shown if f.fix is not None)
    return [label, fixed, *[f"({message}.)" for message in list(how)[:3]]]


def project_settings(options: HookOptions, cwd: object) -> tuple[Settings, tuple[str, ...]]:
    """The settings for a command run in `cwd` (the payload's): the project's configuration
    found from there, as `check` finds it, with the hook's options over it (as in ruff,
    `--select` replaces the configuration's selection and ignores)."""
    from heredoc_lint.engine import Settings

    notes: tuple[str, ...] = ()
    select, ignore = options.select, options.ignore
    strategy, wrappers = options.fix_strategy, {}
    directives = False  # the agent writes the command: its own suppressions do not count
    if isinstance(cwd, str) and cwd:
        from pathlib import Path

        from heredoc_lint.run.config import ConfigError, Finder

        try:
            config = _project_config(Path(cwd), Finder)
        except (ConfigError, OSError) as error:
            notes = (f"heredoc-lint: hook: {error}; the configuration was not used",)
        else:
            if options.select is None:
                select, ignore = config.select, ignore | config.ignore
            wrappers = dict(config.wrappers)
            directives = config.hook_suppressions
            if config.fix_strategy and config.fix_strategy != "scp":
                strategy = config.fix_strategy if options.fix_strategy == "base64" else strategy
    settings = Settings(
        select=select,
        ignore=ignore,
        fix_strategy=strategy,
        wrappers=wrappers,
        directives=directives,
    )
    return settings, notes


_CONFIGS: dict[Path, tuple[tuple[tuple[str, int, int, int], ...], Config]] = {}
CONFIG_NAMES = (".heredoc-lint.toml", "pyproject.toml")  # those config.Finder looks for


def _project_config(cwd: Path, finder: Callable[[], Finder]) -> Config:
    """config.Finder's answer for `cwd`, reused while no configuration file on the way
    up from it was created, changed or removed (a resident server answers many calls
    from one project; parsing a pyproject.toml costs a millisecond, the stats 20 us)."""
    import os

    directory = cwd.resolve()
    stamps = []
    for folder in (directory, *directory.parents):
        for name in CONFIG_NAMES:
            try:
                info = os.stat(folder / name)
            except OSError:
                continue
            stamps.append((str(folder / name), info.st_mtime_ns, info.st_size, info.st_ino))
    key = tuple(stamps)
    cached = _CONFIGS.get(directory)
    if cached is not None and cached[0] == key:
        return cached[1]
    config = finder().for_directory(directory)
    if len(_CONFIGS) > 64:
        _CONFIGS.clear()
    _CONFIGS[directory] = (key, config)
    return config


def _rewritable(checked: _Checked, options: HookOptions) -> bool:
    """Whether the fixed command may run in place of the command: only safe fixes were
    applied (fix_kind applies no other), and nothing that would deny it is left."""
    if not options.rewrite or checked.decision != "deny" or checked.fixed is None:
        return False
    left = _decision(checked.left, options.warnings)
    return left != "deny"


def decide(command: str, options: HookOptions, cwd: object = None) -> Verdict:
    """Check `command` (run in `cwd`) and say what the agent should do with it."""
    if not command.strip():
        return Verdict("allow")
    from heredoc_lint.layers.triggers import ALL_TRIGGERS, holds_trigger

    if not holds_trigger(command, ALL_TRIGGERS):
        return Verdict("allow")  # no rule has anything to look at: the engine stays unloaded
    settings, notes = project_settings(options, cwd)
    checked = _check_bounded(command, options, settings)
    if isinstance(checked, Verdict):
        return checked
    if checked.decision == "allow":
        return Verdict("allow", notes=notes)
    shown = checked.shown
    if _rewritable(checked, options):
        return _rewrite_verdict(command, checked, notes)
    count = len(shown)
    plural = "s" if count != 1 else ""
    if checked.decision == "deny":
        make = "makes" if count == 1 else "make"
        head = (
            f"heredoc-lint blocked this command: {count} shell-quoting finding{plural} "
            f"({_codes(shown)}) that {make} it fail or do something other than intended."
        )
    else:
        head = f"heredoc-lint allowed this command, with {count} warning{plural} ({_codes(shown)}):"
    listing = _listing(command, shown)
    lines = [head, *listing, *_fixed_lines(command, checked)]
    reason = "\n".join(lines)
    if len(json.dumps(reason)) > MAX_ANSWER - 500:
        # The fixed command does not fit under the agent's cap: the findings do.
        size = len(checked.fixed or "")
        short = f"A fixed command exists but is {size} characters long, too long to show here."
        reason = "\n".join([head, *listing, short] if size else [head, *listing])
    verb = "blocked" if checked.decision == "deny" else "warned about"
    return Verdict(
        checked.decision,
        reason=_fit(reason),
        summary=f"heredoc-lint {verb} a shell command: {_codes(shown)}",
        notes=notes,
    )


def _fit(reason: str) -> str:
    """`reason` cut so that its JSON stays under MAX_ANSWER less room for the rest."""
    budget = MAX_ANSWER - 500
    if len(json.dumps(reason)) <= budget:
        return reason
    cut = reason[: budget // 6]  # \uXXXX: at most six characters of JSON per character
    while len(json.dumps(cut)) < budget - 100 and len(cut) < len(reason):
        cut = reason[: len(cut) + 500]
    return cut.rstrip() + "\n[... cut: the answer must stay under the agent's limit]"


def _rewrite_verdict(command: str, checked: _Checked, notes: tuple[str, ...]) -> Verdict:
    """Allow the fixed command instead of `command`, telling the model what changed."""
    fixed = checked.fixed or command
    how = list(dict.fromkeys(f.fix.message for f in checked.shown if f.fix is not None))
    lines = [
        f"heredoc-lint rewrote this shell command before it ran ({_codes(checked.shown)}): "
        "the command as written would fail or do something other than intended.",
        *_listing(command, checked.shown),
        *[f"Changed: {message}." for message in how[:3]],
    ]
    diff = _diff(command, fixed)
    if len(json.dumps(diff)) < MAX_ANSWER // 2:
        lines += ["The change, as a unified diff of the command:", diff.rstrip("\n")]
    return Verdict(
        "rewrite",
        reason=_fit("\n".join(lines)),
        summary=f"heredoc-lint rewrote a shell command ({_codes(checked.shown)})",
        notes=notes,
        command=fixed,
    )


# --- the command line -----------------------------------------------------------------


DESCRIPTION = (
    "Check the shell command of a coding agent's tool call (JSON on stdin) before it runs; "
    "deny it when it has an error-severity finding. Always exits 0 (1 on a usage error); "
    "never 2."
)
OPTIONS = (
    Opt(("agent",), "Whose hook protocol to speak.", choices=AGENTS),
    Opt(
        ("--warnings",),
        "What warning-severity findings do: nothing (default), go back to the agent as "
        "context while the command runs, or deny the command like errors.",
        default="ignore",
        choices=WARNING_MODES,
    ),
    SELECT,
    IGNORE,
    # scp writes the heredoc's body into a file beside the script: a command has none.
    FIX_STRATEGY.but(choices=tuple(s for s in FIX_STRATEGIES if s != "scp")),
    Opt(
        ("--timeout",),
        f"Seconds to spend before allowing the command unchecked "
        f"(default: {DEFAULT_TIMEOUT:g}; 0: no limit).",
        float,
        DEFAULT_TIMEOUT,
    ),
    Opt(("--no-fix",), "Do not compute a fixed command for the reason.", bool, False),
    Opt(
        ("--rewrite",),
        "Where the agent lets a hook replace the command (Claude Code, Codex, Gemini CLI, "
        "Cursor's preToolUse), run the command with the safe fixes applied instead of "
        "denying it, when no error is left in it.",
        bool,
        False,
    ),
    VERBOSE,
)


def parse_options(argv: Sequence[str]) -> HookOptions:
    values = parse("heredoc-lint hook", DESCRIPTION, OPTIONS, argv)
    return HookOptions(
        agent=values["agent"],
        warnings=values["warnings"],
        select=codes(values["select"]),
        ignore=codes(values["ignore"]) or frozenset(),
        fix_strategy=values["fix_strategy"] or "base64",
        timeout=max(0.0, values["timeout"]),
        fix=not values["no_fix"],
        verbose=values["verbose"],
        rewrite=values["rewrite"],
    )


@functools.lru_cache(maxsize=16)
def _parsed(argv: tuple[str, ...]) -> HookOptions:
    """parse_options, once per argument list: a resident server answers every call of
    an agent with the same arguments, and building the parser costs 0.7-1 ms of the
    3-5 ms of an answer. (Errors and --help raise: they are not cached.)"""
    return parse_options(argv)


def _write(
    agent: Agent, verdict: Verdict, out: Callable[[bytes], object], payload: object = None
) -> None:
    updated = None
    if verdict.decision == "rewrite":
        updated = updated_input(payload, verdict.command or "")
        if updated is None:  # run() asks for no rewrite then: a last guard
            verdict = Verdict("deny", verdict.reason, verdict.summary, verdict.notes)
    answer = render(agent, verdict, updated)
    if answer is not None:
        # ASCII-only JSON: readable whatever encoding the agent's pipe assumes.
        out((json.dumps(answer) + "\n").encode("ascii"))


def rewrite_where_possible(options: HookOptions, payload: object) -> HookOptions:
    """`options` without `--rewrite` when this call's answer cannot replace the command
    (Cursor's beforeShellExecution has no tool input; a joined argv): it is denied with
    the deny's own reason then."""
    if options.rewrite and updated_input(payload, "") is None:
        from dataclasses import replace

        return replace(options, rewrite=False)
    return options


def _note(message: str) -> None:
    first = " ".join(message.split())
    sys.stderr.write(f"heredoc-lint: hook: {first}\n")
    sys.stderr.flush()


def _directory(agent: Agent, payload: object) -> object:
    """Where the command runs: `cwd` (Claude Code, Codex, Gemini CLI), else Cursor's first
    `workspace_roots` entry. Gemini CLI's `run_shell_command` runs in its `dir_path`
    argument when the model gives one (relative to the project root, which is `cwd`);
    Codex puts `exec_command`'s `workdir` into `cwd` itself (both recorded, see
    tests/data/agents/)."""
    if not isinstance(payload, dict):
        return None
    roots = payload.get("workspace_roots")
    cwd = payload.get("cwd")
    if cwd is None and isinstance(roots, list) and roots:
        return roots[0]
    tool_input = payload.get("tool_input")
    if agent == "gemini" and isinstance(cwd, str) and isinstance(tool_input, dict):
        where = tool_input.get("dir_path")
        if isinstance(where, str) and where.strip():
            return os.path.join(cwd, where)  # an absolute dir_path replaces cwd
    return cwd


def run(options: HookOptions, data: bytes, out: Callable[[bytes], object]) -> None:
    """Answer one hook call: `data` is the raw stdin, `out` writes stdout."""
    try:
        payload = json.loads(data)
    except ValueError as error:
        _note(f"input is not JSON ({error}); the command was allowed unchecked")
        _write(options.agent, Verdict("allow"), out)
        return
    agent = speaker(options.agent, payload)
    try:
        command = command_of(agent, payload)
    except InputError as error:
        _note(f"{error}; the command was allowed unchecked")
        _write(agent, Verdict("allow"), out)
        return
    if command is None:  # not a shell command: not ours to judge
        _write(agent, Verdict("allow"), out)
        return
    cwd = _directory(agent, payload)
    verdict = decide(command, rewrite_where_possible(options, payload), cwd)
    for note in verdict.notes:
        sys.stderr.write(note + "\n")
    _write(agent, verdict, out, payload)


# bin/heredoc-lint-hook, handing over an input it has begun to read (one with a NUL
# byte), puts what it read, up to and without that NUL, on this file descriptor (a bash
# here-string: the text and a newline); the rest is still on stdin.  So no process of the
# client's feeds the hook, to outlive it.
INPUT_HEAD = "HEREDOC_LINT_HOOK_HEAD"


def _input_head() -> bytes | None:
    """The start of the input that heredoc-lint-hook read before it handed it over (see
    INPUT_HEAD), NUL included; None when it read none."""
    fd = os.environ.pop(INPUT_HEAD, None)
    if fd is None or not fd.isdigit():
        return None
    try:
        with open(int(fd), "rb") as handle:
            head = handle.read()
    except OSError:
        return None
    return head.removesuffix(b"\n") + b"\0"


def main(argv: list[str], data: bytes | None = None) -> int:
    """`heredoc-lint hook ARGV`, reading `data` (else stdin) and writing to sys.stdout."""
    try:
        options = _parsed(tuple(argv))
    except UsageError as error:  # exit 1: a non-blocking hook error the user sees
        sys.stderr.write(f"heredoc-lint: hook: {error}\n")
        return 1
    except SystemExit as stop:  # --help
        return 0 if stop.code in (0, None) else 1
    except Exception as error:  # e.g. the rules failed to import: still not 2
        _note(f"internal error: {type(error).__name__}: {error}")
        return 1
    out = sys.stdout.buffer.write
    try:
        if data is None:
            head = _input_head()
            if head is None and (sys.stdin is None or sys.stdin.isatty()):
                _note("reads the agent's hook JSON on stdin (see docs/agents.md)")
                _write(options.agent, Verdict("allow"), out)
                return 0
            data = (head or b"") + (sys.stdin.buffer.read() if sys.stdin is not None else b"")
        run(options, data, out)
    except Exception as error:  # fail open: the agent runs the command unchecked
        if options.verbose:
            import traceback

            traceback.print_exc()
        _note(
            f"internal error ({type(error).__name__}: {error}); the command was allowed unchecked"
        )
        with contextlib.suppress(Exception):
            _write(options.agent, Verdict("allow"), out)
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    return 0
