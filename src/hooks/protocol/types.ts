// Types of the hook protocol shared by the Claude Code and Codex bridges: parsed
// settings, one hook run, its interpreted outcome, and the merged decision.

import type { HookErrorCode } from './errors.js'

/** The hook dialects dsh speaks. Also the `dialect` of `hook/invoked` and `hook/result`. */
export type HookDialectName = 'claude-code' | 'codex'

/** Every event a bridge may fire; each dialect supports a subset. */
export type HookEventName =
  | 'SessionStart'
  | 'UserPromptSubmit'
  | 'PreToolUse'
  | 'PermissionRequest'
  | 'PostToolUse'
  | 'PostToolUseFailure'
  | 'Notification'
  | 'Stop'
  | 'StopFailure'
  | 'SubagentStart'
  | 'SubagentStop'
  | 'PreCompact'
  | 'PostCompact'
  | 'SessionEnd'

/** Events whose hooks see a tool call (matcher = tool name, `if` filters apply). */
export const TOOL_EVENTS: ReadonlySet<string> = new Set([
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PostToolUseFailure',
])

/** One command hook from a settings file. */
export interface HookCommand {
  /** Shell form: a bash command line. Exec form (with `args`): the program, found on PATH. */
  command: string
  /** Exec form: the program's arguments, passed as given, no shell. */
  args?: string[]
  /** Per-hook timeout in seconds (`timeout`, or Codex's `timeoutSec`); unset → the default. */
  timeoutSec?: number
  /** A permission rule (`Bash(git push *)`): on tool events the hook runs only when it matches. */
  if?: string
  /** Runs in the background: its output decides nothing. */
  async?: boolean
  /** Runs at most once per session. */
  once?: boolean
}

/** A matcher group: the hooks that run when `matcher` matches, in config order. */
export interface HookGroup {
  /** As written; undefined, `''` and `*` match everything. */
  matcher?: string
  hooks: HookCommand[]
  /** The settings file the group came from (for warnings). */
  source: string
}

/** Parsed settings: matcher groups per event name, in file order then config order. */
export type HookSettings = Map<string, HookGroup[]>

/** Reports a problem that must not stop the harness (bad file, bad matcher, bad output). */
export type HookWarn = (message: string, code: HookErrorCode) => void

/** What a hook process did, as the runner saw it. */
export interface HookRun {
  /** The exit code; null when a signal ended the hook or it never started. */
  exitCode: number | null
  /** Capped stdout (the executor keeps the tail). */
  stdout: string
  /** Capped stderr. */
  stderr: string
  timedOut: boolean
  /** True when the hook was killed on request (bridge unloaded). */
  killed: boolean
  durationMs: number
  /** Set when the hook could not run at all (no shell, spawn failure). */
  error?: string
  /** Set when the program could not be started (not found, not executable): bash's 127/126. */
  notStarted?: string
}

/** The decision one hook expressed. `deny` and `block` have the same (top) rank. */
export type HookDecision = 'allow' | 'deny' | 'ask' | 'block' | 'none' | 'error'

/** One hook run, interpreted. */
export interface HookOutcome {
  decision: HookDecision
  /** Why: the stderr of exit 2, `reason` / `permissionDecisionReason` of JSON, or the error. */
  reason?: string
  /** `additionalContext`, or plain stdout where the event treats it as context. */
  context: string[]
  /** Set by `continue: false`: stop the agent, with `stopReason`. */
  stop?: { reason: string }
  /** `systemMessage`: shown to the user, never to the model. */
  systemMessage?: string
  /** `hookSpecificOutput.updatedInput` (PreToolUse) or `decision.updatedInput` (PermissionRequest). */
  updatedInput?: Record<string, unknown>
  /** `suppressOutput: true`. */
  suppressOutput?: boolean
  /** Problems with the output (malformed JSON, bad fields); already non-fatal. */
  warnings: string[]
}

/** The merged decision of every hook that ran for one event. */
export type MergedDecision = 'deny' | 'ask' | 'allow' | 'none'

export interface MergedOutcome {
  /** deny (or block) > ask > allow > none. */
  decision: MergedDecision
  /** The reasons of the hooks at the winning rank, in run order, joined by newlines. */
  reason?: string
  /** Every hook's context, in run order. */
  context: string[]
  /** The first `continue: false` (its reason, or the joined reasons of all that asked). */
  stop?: { reason: string }
  systemMessages: string[]
  /** The `updatedInput` of the last hook in configuration order that gave one. */
  updatedInput?: Record<string, unknown>
  /** How many hooks gave an `updatedInput` (more than one earns a warning). */
  updatedInputCount: number
}
