// The status line under the input: model, session (short id), context used, tokens of
// the session so far, and the folder. Token figures are read from the session log's
// `assistant/message` usage (the log is the one source; nothing is counted twice).

import { homedir } from 'node:os'
import type { SessionEvent } from '../../session/types.js'
import type { Colors } from '../cli/render.js'

export interface SessionTokens {
  /** Prompt + completion tokens of every model request in the session. */
  total: number
  prompt: number
  completion: number
  cached: number
  /** The last request's prompt + completion: how much of the context window is in use. */
  context: number
}

/** Sums the usage the log recorded for each model request. */
export function tokensFrom(events: readonly SessionEvent[]): SessionTokens {
  const sum: SessionTokens = { total: 0, prompt: 0, completion: 0, cached: 0, context: 0 }
  for (const event of events) {
    if (event.type !== 'assistant/message') continue
    const usage = (event.data as { usage?: Record<string, number> }).usage
    if (!usage) continue
    const prompt = usage.promptTokens ?? 0
    const completion = usage.completionTokens ?? 0
    sum.prompt += prompt
    sum.completion += completion
    sum.cached += usage.cachedTokens ?? 0
    sum.total += usage.totalTokens ?? prompt + completion
    sum.context = prompt + completion
  }
  return sum
}

/** `12.3k` */
export function formatTokens(count: number): string {
  if (count < 1000) return String(count)
  if (count < 1_000_000) return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k`
  return `${(count / 1_000_000).toFixed(1)}M`
}

export interface StatusFacts {
  model: string
  effort: string
  sessionId: string
  tokens: SessionTokens
  cwd: string
  /** Prompts waiting for the running turn. */
  queued: number
}

export function renderStatusLine(facts: StatusFacts, colors: Colors, columns: number): string {
  const home = homedir()
  const cwd = facts.cwd.startsWith(home) ? `~${facts.cwd.slice(home.length)}` : facts.cwd
  const parts = [
    `${facts.model} (${facts.effort})`,
    `session ${facts.sessionId.slice(0, 8)}`,
    `ctx ${formatTokens(facts.tokens.context)}`,
    `${formatTokens(facts.tokens.total)} tokens`,
    cwd,
  ]
  if (facts.queued > 0) parts.push(`${facts.queued} queued`)
  let line = parts.join(' · ')
  if (line.length > columns - 1) line = `${line.slice(0, Math.max(0, columns - 2))}…`
  return colors.dim(line)
}
