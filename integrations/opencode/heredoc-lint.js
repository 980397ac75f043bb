// heredoc-lint for opencode: a plugin that checks each shell command before it runs.
//
// opencode has no hook file; its plugins get `tool.execute.before(input, output)` with
// `input.tool` ("bash" for the shell tool) and `output.args.command`, and block a call
// by throwing: the error's message goes back to the model. This plugin sends the
// command to `heredoc-lint-hook claude` in Claude Code's PreToolUse shape and throws
// the reason when the hook denies it.
//
// Install: copy this file to `.opencode/plugin/` in a project, or to
// `~/.config/opencode/plugin/` for every project (docs/agents.md). HEREDOC_LINT_HOOK
// names another program than `heredoc-lint-hook` (for example `heredoc-lint hook`
// spelled as a path to a wrapper script).
//
// It fails open: when the hook cannot run or answers something unreadable, the
// command runs and one line goes to the console, as `heredoc-lint hook` does itself.

import { spawnSync } from "node:child_process"

const TIMEOUT_MS = 15000 // the hook's own limit is 10 s; then the command runs unchecked

export function decide(command, directory, program = process.env.HEREDOC_LINT_HOOK) {
  const payload = JSON.stringify({
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command },
    cwd: directory,
  })
  const run = spawnSync(program || "heredoc-lint-hook", ["claude"], {
    input: payload,
    encoding: "utf8",
    timeout: TIMEOUT_MS,
  })
  if (run.error || run.status !== 0) {
    const why = run.error ? run.error.message : `exit ${run.status}: ${run.stderr.trim()}`
    return { allow: true, note: `heredoc-lint: hook did not run (${why}); command allowed` }
  }
  if (run.stdout.trim() === "") return { allow: true } // Claude's silent allow
  let answer
  try {
    answer = JSON.parse(run.stdout).hookSpecificOutput
  } catch {
    return { allow: true, note: "heredoc-lint: unreadable hook answer; command allowed" }
  }
  if (answer && answer.permissionDecision === "deny") {
    return { allow: false, reason: answer.permissionDecisionReason }
  }
  return { allow: true }
}

export const HeredocLint = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    if (input.tool !== "bash" || typeof output?.args?.command !== "string") return
    const verdict = decide(output.args.command, directory)
    if (verdict.note) console.error(verdict.note)
    if (!verdict.allow) throw new Error(verdict.reason)
  },
})
