// In-memory persistence backend for tests: sessions live in a Map for the life of the service.

import type { Context } from 'cordis'
import { DshError } from '../../core/errors.js'
import { validateSessionId } from '../../session/session.js'
import type { SessionEvent, SessionHeader, SessionId, SessionSummary } from '../../session/types.js'
import { copyLedger, emptyLedger, foldUsage, type UsageLedger } from '../../usage/ledger.js'
import { PersistenceErrorCode } from '../errors.js'
import { checkContinuation, notFound, removeRefused, SessionPersistence } from '../persistence.js'
import { closersForOpenTurn, lastTurnNumber, outcomeOf, sessionTitle } from '../repair.js'
import type { LoadedSession, SessionLocation } from '../types.js'

/** Events are kept as JSON lines, like a real log: callers can never share objects with it. */
interface StoredSession {
  header: SessionHeader
  lines: string[]
  materialized: boolean
  /** The usage ledger of `lines`, kept as they are appended. */
  usage: UsageLedger
}

export class MemorySessionBackend extends SessionPersistence {
  private readonly sessions = new Map<SessionId, StoredSession>()
  /** Sessions appended to and not yet released: their open turn is live, not crashed. */
  private readonly writing = new Set<SessionId>()

  constructor(ctx: Context) {
    super(ctx)
  }

  locate(_header: SessionHeader): SessionLocation | undefined {
    return undefined
  }

  async create(header: SessionHeader): Promise<void> {
    validateSessionId(header.id)
    const existing = this.sessions.get(header.id)
    if (existing?.materialized) {
      throw new DshError(
        `session ${JSON.stringify(header.id)} already exists`,
        PersistenceErrorCode.AlreadyExists,
      )
    }
    this.sessions.set(header.id, {
      header: structuredClone(header),
      lines: [],
      materialized: false,
      usage: emptyLedger(),
    })
  }

  async append(id: SessionId, events: SessionEvent[]): Promise<void> {
    validateSessionId(id)
    const stored = this.sessions.get(id)
    if (!stored) throw notFound(id)
    checkContinuation(id, stored.lines.length, events)
    for (const event of events) stored.lines.push(JSON.stringify(event))
    foldUsage(stored.usage, events)
    this.writing.add(id)
    stored.materialized = true
  }

  async load(id: SessionId): Promise<LoadedSession> {
    validateSessionId(id)
    const stored = this.sessions.get(id)
    if (!stored?.materialized) throw notFound(id)
    return { header: structuredClone(stored.header), events: parseLines(stored.lines) }
  }

  /** The writer lease is this instance's `writing` mark; an open turn is closed. */
  async open(id: SessionId): Promise<LoadedSession> {
    validateSessionId(id)
    const stored = this.sessions.get(id)
    if (!stored?.materialized) throw notFound(id)
    if (this.writing.has(id)) {
      throw new DshError(
        `session ${JSON.stringify(id)} is already open for writing in this process`,
        PersistenceErrorCode.Locked,
        { userFacing: true },
      )
    }
    const closers = closersForOpenTurn(parseLines(stored.lines))
    if (closers.length > 0) await this.append(id, closers)
    this.writing.add(id)
    return { header: structuredClone(stored.header), events: parseLines(stored.lines) }
  }

  override async exists(id: SessionId): Promise<boolean> {
    return this.sessions.get(id)?.materialized === true
  }

  override async release(id: SessionId): Promise<void> {
    this.writing.delete(id)
  }

  /** Refused while this instance writes the session (its lease). */
  async remove(id: SessionId): Promise<void> {
    validateSessionId(id)
    if (!this.sessions.get(id)?.materialized) throw notFound(id)
    if (this.writing.has(id)) throw removeRefused(id, 'this process')
    this.sessions.delete(id)
    this.memoryImages.delete(id)
  }

  async list(): Promise<SessionSummary[]> {
    return [...this.sessions.values()]
      .filter((stored) => stored.materialized)
      .map((stored) => {
        const events = parseLines(stored.lines)
        const summary: SessionSummary = {
          header: structuredClone(stored.header),
          eventCount: events.length,
          lastActivity: events.at(-1)?.time ?? stored.header.createdAt,
          title: sessionTitle(events, stored.header.seedLength),
          turns: lastTurnNumber(events),
          usage: copyLedger(stored.usage),
        }
        const outcome = outcomeOf(events)
        if (outcome !== undefined) summary.outcome = outcome
        return summary
      })
  }
}

function parseLines(lines: readonly string[]): SessionEvent[] {
  return lines.map((line) => JSON.parse(line) as SessionEvent)
}
