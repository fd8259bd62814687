// Where the resume picker's rows come from: the stored sessions of the chat's folder (not
// empty ones, not sub-agents', not the one open now), priced from their ledgers; its search
// is the history service's, and a preview reads one log.

import { isEmptySession, searchSessions } from '../../history/index.js'
import type { SessionEvent, SessionEventMap } from '../../session/types.js'
import { formatCost, priceLedger, resolvePriceTable } from '../../usage/index.js'
import type { ChatHost } from './chat-host.js'
import type { PickerSource } from './resume-picker.js'

/** Sessions a search in the picker considers, at most. */
const SEARCH_LIMIT = 200

export async function pickerSource(chat: ChatHost): Promise<PickerSource> {
  const { harness, agent, plan } = chat
  const table = resolvePriceTable(plan.config.pricing)
  const stored = await harness.sessions.listStored()
  const rows = stored
    .filter(
      (summary) =>
        summary.header.cwd === agent.cwd &&
        summary.header.origin !== 'subagent' &&
        summary.header.id !== agent.id &&
        !isEmptySession(summary),
    )
    .map((summary) => ({
      id: summary.header.id,
      title: summary.title ?? '(no prompt yet)',
      folder: agent.cwd,
      lastActivity: summary.lastActivity,
      turns: summary.turns,
      cost: formatCost(priceLedger(summary.usage, table)?.cost ?? null, table.currency),
    }))
  const persistence = harness.ctx.get('sessionPersistence')
  return {
    rows,
    search: async (query) => {
      if (!persistence) return []
      const results = await searchSessions(persistence, { query, cwd: agent.cwd, limit: SEARCH_LIMIT })
      return results.map((result) => result.sessionId)
    },
    preview: async (id) => (persistence ? lastExchange((await persistence.load(id)).events) : []),
  }
}

/** `> ` the last prompt and `< ` the first line of the last answer, each one line. */
export function lastExchange(events: readonly SessionEvent[]): string[] {
  let prompt: string | undefined
  let answer: string | undefined
  for (let i = events.length - 1; i >= 0 && prompt === undefined; i--) {
    const event = events[i]!
    if (event.type === 'assistant/message' && answer === undefined) {
      const text = (event.data as SessionEventMap['assistant/message']).message.content
      if (text.trim() !== '') answer = text
    }
    if (event.type === 'user/message') prompt = (event.data as SessionEventMap['user/message']).text
  }
  const first = (text: string) => text.trim().split('\n')[0]!.slice(0, 200)
  const lines: string[] = []
  if (prompt !== undefined) lines.push(`> ${first(prompt)}`)
  if (answer !== undefined) lines.push(`< ${first(answer)}`)
  return lines.length > 0 ? lines : ['(no exchange yet)']
}
