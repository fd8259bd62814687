// The sessions page's rows: every stored session of the configured backend with its
// usage (priced from the ledger its summary carries). A search keeps the rows whose id,
// title or folder contain it, and those the history service finds (prompts, answers,
// tool calls and outputs, given titles: the same search as `dsh sessions search` and the
// chat's resume picker).

import type { Harness } from '../../harness/compose.js'
import { searchSessions } from '../../history/index.js'
import type { SessionSummary } from '../../session/types.js'
import {
  deriveUsage,
  type PriceTable,
  priceLedger,
  resolvePriceTable,
  type UsageTotals,
} from '../../usage/index.js'
import type { SessionRow } from './types.js'

/** Sessions a search of the sessions page considers from the history service, at most. */
const SEARCH_LIMIT = 1000

interface CachedLog {
  eventCount: number
  lastActivity: number
  /** Derived from the whole log: needed only when the price table cannot price a ledger. */
  usage: UsageTotals
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

  /** Every stored session, newest first; `query` keeps those whose id, title or folder contain it, or whose text matches it. */
  async list(query = '', hosted: (id: string) => 'running' | 'hosted' | undefined): Promise<SessionRow[]> {
    const needle = query.trim().toLowerCase()
    const found = needle === '' ? new Set<string>() : await this.search(query.trim())
    const rows: SessionRow[] = []
    for (const summary of await this.harness.sessions.listStored()) {
      const usage = priceLedger(summary.usage, this.table) ?? (await this.read(summary))?.usage
      const row = toRow(summary, usage, hosted(summary.header.id))
      if (needle === '' || rowMatches(row, needle) || found.has(row.id)) rows.push(row)
    }
    return rows
  }

  /** The history service's matches; a query it cannot take (only punctuation) matches no text. */
  private async search(query: string): Promise<Set<string>> {
    const persistence = this.harness.ctx.get('sessionPersistence')
    if (!persistence) return new Set()
    try {
      const results = await searchSessions(persistence, { query, limit: SEARCH_LIMIT })
      return new Set(results.map((result) => result.sessionId))
    } catch {
      return new Set()
    }
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
