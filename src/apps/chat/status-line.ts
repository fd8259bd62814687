// The status line under the input: model, permission mode (unless `auto`), short session id,
// context used (from the context service, after each step and compaction), the session's tokens
// and cost (the one usage derivation over the log, src/usage: nothing counted twice), folder.

import { homedir } from 'node:os'
import { type ContextUsage, contextPercent } from '../../context/index.js'
import { toTerminalId } from '../../core/terminal-text.js'
import type { PermissionMode } from '../../permissions/index.js'
import type { AgentHandle } from '../../plugin-api/index.js'
import type { SessionEvent } from '../../session/types.js'
import { DEFAULT_PRICE_TABLE, deriveUsage, formatCost, type PriceTable } from '../../usage/index.js'
import type { Colors } from '../shared/render.js'

/** `42%` of the window, or `12.3k` tokens when the window is unknown; undefined without a context service. */
export function contextCell(usage: ContextUsage | undefined): string | undefined {
  if (!usage) return undefined
  const percent = contextPercent(usage)
  return percent !== undefined ? `${percent}%` : formatTokens(usage.tokens)
}

export interface SessionTokens {
  /** Prompt + completion tokens of every model request in the session. */
  total: number
  prompt: number
  completion: number
  cached: number
  /** The last request's prompt + completion: how much of the context window is in use. */
  context: number
  /** The session's estimated cost (paid tool calls included); null when a model has no price. */
  cost: number | null
  currency: string
}

/** The session's usage totals from its log, priced with `table`. */
export function tokensFrom(
  events: readonly SessionEvent[],
  table: PriceTable = DEFAULT_PRICE_TABLE,
): SessionTokens {
  const totals = deriveUsage(events, table).session
  let context = 0
  for (let i = events.length - 1; i >= 0; i--) {
    const usage =
      events[i]!.type === 'assistant/message'
        ? (events[i]!.data as { usage?: Record<string, number> }).usage
        : undefined
    if (!usage) continue
    context = (usage.promptTokens ?? 0) + (usage.completionTokens ?? 0)
    break
  }
  return {
    total: totals.inputTokens + totals.outputTokens,
    prompt: totals.inputTokens,
    completion: totals.outputTokens,
    cached: totals.cacheHitTokens,
    context,
    cost: totals.cost,
    currency: table.currency,
  }
}

/** `12.3k` */
export function formatTokens(count: number): string {
  if (count < 1000) return String(count)
  if (count < 1_000_000) return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k`
  return `${(count / 1_000_000).toFixed(1)}M`
}

export interface StatusFacts {
  model: string
  /** How full the window is (`42%`), or the tokens of the next request when the window is unknown. */
  context?: string
  effort: string
  sessionId: string
  tokens: SessionTokens
  cwd: string
  /** The permission mode, shown when it is not dsh's default (`auto`). */
  mode?: PermissionMode | undefined
  /** Prompts waiting for the running turn. */
  queued: number
}

export function renderStatusLine(facts: StatusFacts, colors: Colors, columns: number): string {
  const home = homedir()
  const cwd = facts.cwd.startsWith(home) ? `~${facts.cwd.slice(home.length)}` : facts.cwd
  const parts = [
    `${facts.model} (${facts.effort})`,
    ...(facts.mode !== undefined && facts.mode !== 'auto' ? [`${facts.mode} mode`] : []),
    `session ${toTerminalId(facts.sessionId.slice(0, 8))}`,
    `ctx ${facts.context ?? formatTokens(facts.tokens.context)}`,
    `${formatTokens(facts.tokens.total)} tokens ${formatCost(facts.tokens.cost, facts.tokens.currency)}`,
    cwd,
  ]
  if (facts.queued > 0) parts.push(`${facts.queued} queued`)
  let line = parts.join(' · ')
  if (line.length > columns - 1) line = `${line.slice(0, Math.max(0, columns - 2))}…`
  return colors.dim(line)
}

/**
 * What the status line shows of the live agent, kept up to date from its log: the token
 * totals after each reply or charge, the `ctx` cell after each step, compaction and turn end
 * (measured then, not per frame).
 */
export class StatusMeter {
  tokens: SessionTokens = tokensFrom([])
  private context: string | undefined
  private unsubscribe: (() => void) | undefined

  /** Follows `agent` from now on, instead of the one before (resume, fork, clear). */
  follow(agent: AgentHandle, table: PriceTable): void {
    this.stop()
    this.tokens = tokensFrom(agent.session.events, table)
    this.measure(agent)
    this.unsubscribe = agent.session.onAppend((_session, event) => {
      if (event.type === 'assistant/message' || event.type === 'usage/charge')
        this.tokens = tokensFrom(agent.session.events, table)
      if (event.type === 'step/end' || event.type === 'context/compacted' || event.type === 'turn/end')
        this.measure(agent)
    })
  }

  /** Measures the `ctx` cell now (after agent work ends, finished or cancelled). */
  measure(agent: AgentHandle): void {
    this.context = contextCell(agent.contextUsage())
  }

  /** Stops following the log (idempotent). */
  stop(): void {
    this.unsubscribe?.()
    this.unsubscribe = undefined
  }

  render(facts: Omit<StatusFacts, 'tokens' | 'context'>, colors: Colors, columns: number): string {
    const context = this.context !== undefined ? { context: this.context } : {}
    return renderStatusLine({ ...facts, tokens: this.tokens, ...context }, colors, columns)
  }
}
