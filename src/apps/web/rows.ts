// The sessions page's rows: every stored session of the configured backend with its
// usage (priced from the ledger its summary carries) and, for a search, its message text
// (read from its log, read-only), cached per log length.

import type { Harness } from '../../harness/compose.js'
import type { SessionEvent, SessionEventMap, SessionSummary } from '../../session/types.js'
import {
  deriveUsage,
  type PriceTable,
  priceLedger,
  resolvePriceTable,
  type UsageTotals,
} from '../../usage/index.js'
import type { SessionRow } from './types.js'

/** The most text of one session kept for search, in characters. */
const MAX_SEARCH_CHARS = 200_000

interface CachedLog {
  eventCount: number
  lastActivity: number
  /** Derived from the whole log: needed only when the price table cannot price a ledger. */
  usage: UsageTotals
  /** Lower-cased message text, for search. */
  text: string
}

/** Reads rows for the API; one instance per server, its cache lives as long as it. */
export class SessionRows {
  private readonly cache = new Map<string, CachedLog>()
  private readonly table: PriceTable

  constructor(private readonly harness: Harness) {
    this.table = resolvePriceTable(harness.config.pricing)
  }

  get currency(): string {
    return this.table.currency
  }

  /** The resolved price table (config `pricing` over the defaults). */
  get prices(): PriceTable {
    return this.table
  }

  /** Every stored session, newest first; `query` keeps those whose title, id, folder or messages contain it. */
  async list(query = '', hosted: (id: string) => 'running' | 'hosted' | undefined): Promise<SessionRow[]> {
    const needle = query.trim().toLowerCase()
    const rows: SessionRow[] = []
    for (const summary of await this.harness.sessions.listStored()) {
      const usage = priceLedger(summary.usage, this.table) ?? (await this.read(summary))?.usage
      const row = toRow(summary, usage, hosted(summary.header.id))
      // Message text only for a search that the row's own fields do not answer.
      if (needle === '' || rowMatches(row, needle) || (await this.read(summary))?.text.includes(needle))
        rows.push(row)
    }
    return rows
  }

  private async read(summary: SessionSummary): Promise<CachedLog | undefined> {
    const id = summary.header.id
    const cached = this.cache.get(id)
    if (cached && cached.eventCount === summary.eventCount && cached.lastActivity === summary.lastActivity)
      return cached
    const persistence = this.harness.ctx.get('sessionPersistence')
    try {
      const { events } = await persistence!.load(id)
      const log: CachedLog = {
        eventCount: summary.eventCount,
        lastActivity: summary.lastActivity,
        usage: deriveUsage(events, this.table).session,
        text: searchText(events),
      }
      this.cache.set(id, log)
      return log
    } catch {
      // A damaged or unreadable log still lists; its usage shows as unknown.
      return undefined
    }
  }
}

function toRow(
  summary: SessionSummary,
  usage: UsageTotals | undefined,
  hosted: 'running' | 'hosted' | undefined,
): SessionRow {
  const { header } = summary
  return {
    id: header.id,
    title: summary.title ?? null,
    cwd: header.cwd ?? null,
    status: hosted ?? summary.status ?? 'idle',
    turns: summary.turns,
    events: summary.eventCount,
    tokens: usage ? usage.inputTokens + usage.outputTokens : null,
    cost: usage?.cost ?? null,
    createdAt: header.createdAt,
    updatedAt: summary.lastActivity,
    parentSession: header.parentSession ?? null,
    origin: header.origin ?? null,
    host: summary.host ?? null,
  }
}

function rowMatches(row: SessionRow, needle: string): boolean {
  return (
    row.id.toLowerCase().includes(needle) ||
    (row.title ?? '').toLowerCase().includes(needle) ||
    (row.cwd ?? '').toLowerCase().includes(needle)
  )
}

function searchText(events: readonly SessionEvent[]): string {
  const parts: string[] = []
  let size = 0
  for (const event of events) {
    let text: string | undefined
    if (event.type === 'user/message') text = (event.data as SessionEventMap['user/message']).text
    if (event.type === 'assistant/message')
      text = (event.data as SessionEventMap['assistant/message']).message.content
    if (text === undefined) continue
    parts.push(text.toLowerCase())
    size += text.length
    if (size > MAX_SEARCH_CHARS) break
  }
  return parts.join('\n')
}
