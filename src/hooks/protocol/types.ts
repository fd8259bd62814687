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
  | 'PostToolUse'
  | 'Stop'
  | 'SubagentStart'
  | 'SubagentStop'
  | 'SessionEnd'

/** One command hook from a settings file. */
export interface HookCommand {
  command: string
  /** Per-hook timeout in seconds (`timeout`, or Codex's `timeoutSec`); unset → the default. */
  timeoutSec?: number
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
}
