// What the event wiring (tool-hooks.ts, lifecycle.ts, compaction-hooks.ts) needs from a
// bridge, and a bridge's config: types only, so the wiring files import no bridge code.

import type { Context } from 'cordis'
import type { AgentHandle } from '../../plugin-api/index.js'
import type { HookDialect, HookFacts, PayloadServices } from './dialect.js'
import type { HookRecordSink } from './records.js'
import type { HookEventName, HookWarn, MergedOutcome } from './types.js'

/** Config of a bridge plugin. */
export interface HookBridgeConfig {
  /** Settings files always read, in order (dsh's config, and the user-level file when opted in). */
  files: string[]
  /** Also read each session's project files (`.claude/settings*.json`, `.codex/hooks.json`), when the project is trusted. */
  projectFiles?: boolean
  /** The front end can ask the user (chat, ACP): PermissionRequest and permission Notifications fire only then. */
  interactive?: boolean
}

/** What the event wiring (tool-hooks.ts, lifecycle.ts) needs from the bridge. */
export interface BridgeRuntime {
  ctx: Context
  dialect: HookDialect
  config: HookBridgeConfig
  services: PayloadServices
  warn: HookWarn
  /** A line the user must see (sanitized for the terminal). */
  notify: (message: string) => void
  /** Fires one event for the facts' agent; resolves with the merged outcome (none when nothing matched). */
  fire(event: HookEventName, facts: HookFacts, record?: HookRecordSink): Promise<MergedOutcome>
  /** Whether any hook for the event could run for this agent (config or its project). */
  has(event: HookEventName, agent: AgentHandle): Promise<boolean>
  /** Claude Code gives sub-agent sessions Subagent* events instead of their own lifecycle events. */
  isSubagent(agent: AgentHandle): boolean
  /** `continue: false` from a tool hook: the agent stops before its next model request. */
  requestStop(agent: AgentHandle, outcome: MergedOutcome): void
}
