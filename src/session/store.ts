// The session store service (`ctx.sessions`): creates, opens, forks, flushes and
// closes live sessions, routing durability through the current persistence backend.

import { randomUUID } from 'node:crypto'
import { type Context, Service } from 'cordis'
import { DshError } from '../core/errors.js'
import { currentService } from '../core/service-ref.js'
// layer-exception: ctx.sessions is the service built on the persistence seam; it lives here
// with the session it opens, so it reaches up to persistence's seam and write-behind log.
import { matchesPrefix, type SessionPersistence } from '../persistence/persistence.js'
// layer-exception: (the same) the write-behind log over the seam.
import { WriteBehindLog } from '../persistence/write-behind.js'
import { SessionErrorCode } from './errors.js'
import { imageHashesIn } from './images.js'
import { Session, validateSessionId } from './session.js'
import {
  SESSION_FORMAT_VERSION,
  type SessionEvent,
  type SessionHeader,
  type SessionId,
  type SessionSummary,
} from './types.js'

export interface CreateSessionInit {
  id: SessionId
  cwd?: string
  parentSession?: SessionId
  origin?: 'subagent'
  delegationDepth?: number
  /** Completed turns copied from a parent; they become the first events of the new log. */
  seed?: readonly SessionEvent[]
}

interface LiveSession {
  session: Session
  log: WriteBehindLog
}

export class SessionStore extends Service {
  private readonly live = new Map<SessionId, LiveSession>()
  private readonly backend: () => SessionPersistence | undefined
  private readonly newLog: (
    session: Session,
    durable?: { backend: SessionPersistence; count: number },
  ) => WriteBehindLog

  constructor(ctx: Context) {
    super(ctx, 'sessions')
    const backend = currentService(ctx, 'sessionPersistence')
    this.backend = backend
    // The logs get the getter from this closure: read through `this` in a method, Cordis
    // would hand out a tracing wrapper that costs microseconds on every flush.
    this.newLog = (session, durable) => new WriteBehindLog(session, backend, durable)
    ctx.effect(
      () => async () => {
        await Promise.allSettled([...this.live.values()].map(({ session }) => this.close(session)))
      },
      'sessions: flush on shutdown',
    )
  }

  /** Creates a new live session. The backend may write nothing until the first flush. */
  async create(init: CreateSessionInit): Promise<Session> {
    validateSessionId(init.id)
    this.assertNotLive(init.id)
    const header: SessionHeader = {
      version: SESSION_FORMAT_VERSION,
      id: init.id,
      createdAt: Date.now(),
      delegationDepth: init.delegationDepth ?? 0,
    }
    if (init.cwd !== undefined) header.cwd = init.cwd
    if (init.parentSession !== undefined) header.parentSession = init.parentSession
    if (init.seed && init.seed.length > 0) header.seedLength = init.seed.length
    if (init.origin !== undefined) header.origin = init.origin

    const session = new Session(header, init.seed ? [...init.seed] : [])
    const backend = this.backend()
    if (backend) await backend.create({ ...header })
    this.assertNotLive(init.id)
    // A fork's seed may name images: they are copied into the child's store, so each
    // session owns its images and removing one never takes another's.
    if (backend && init.seed && init.parentSession !== undefined) {
      for (const sha256 of imageHashesIn(init.seed)) {
        const data = await backend.getImage(init.parentSession, sha256)
        if (data) await backend.putImage(init.id, sha256, data)
      }
    }
    const log = this.newLog(session, backend && { backend, count: 0 })
    this.live.set(init.id, { session, log })
    return session
  }

  /**
   * Opens a stored session for writing and makes it live: the backend takes its
   * writer lease (PERSISTENCE_LOCKED while another process writes it) and repairs a
   * crashed tail. `close` releases it.
   */
  async open(id: SessionId): Promise<Session> {
    validateSessionId(id)
    this.assertNotLive(id)
    const backend = this.backend()
    if (!backend) {
      throw new DshError(
        `cannot open session ${JSON.stringify(id)}: no persistence backend`,
        SessionErrorCode.NotFound,
        {
          userFacing: true,
        },
      )
    }
    const loaded = await backend.open(id)
    if (this.live.has(id)) {
      await backend.release(id)
      this.assertNotLive(id)
    }
    const session = new Session(loaded.header, loaded.events)
    const log = this.newLog(session, { backend, count: loaded.events.length })
    this.live.set(id, { session, log })
    return session
  }

  /**
   * A snapshot of a session, live here or stored, for reading only (the source of a
   * fork): nothing is written, no lease taken, an open turn stays open. Not made live.
   */
  async read(id: SessionId): Promise<Session> {
    validateSessionId(id)
    const live = this.live.get(id)
    if (live) return live.session
    const backend = this.backend()
    if (!backend) {
      throw new DshError(
        `cannot read session ${JSON.stringify(id)}: no persistence backend`,
        SessionErrorCode.NotFound,
        {
          userFacing: true,
        },
      )
    }
    const loaded = await backend.load(id)
    return new Session(loaded.header, loaded.events)
  }

  /** Whether a session is live here or stored by the current backend. */
  async exists(id: SessionId): Promise<boolean> {
    if (this.live.has(id)) return true
    return (await this.backend()?.exists(id)) ?? false
  }

  /**
   * Ids of live or stored sessions starting with `prefix` and not with `except`, at most
   * `limit` (the id resolver's candidates).
   */
  async idsWithPrefix(prefix: string, limit: number, except?: string): Promise<SessionId[]> {
    const live = [...this.live.keys()].filter((id) => matchesPrefix(id, prefix, except))
    const stored = (await this.backend()?.idsWithPrefix(prefix, limit, except)) ?? []
    return [...new Set([...live, ...stored])].slice(0, limit)
  }

  get(id: SessionId): Session | undefined {
    return this.live.get(id)?.session
  }

  /** Live sessions. */
  list(): Session[] {
    return [...this.live.values()].map(({ session }) => session)
  }

  /** Summaries of stored sessions, newest activity first. */
  async listStored(): Promise<SessionSummary[]> {
    const summaries = (await this.backend()?.list()) ?? []
    return summaries.sort((a, b) => b.lastActivity - a.lastActivity)
  }

  /**
   * Forks a session: copies its events up to `boundary` (default: the end of the last
   * completed turn, with the compactions after it) into a new live session with
   * `parentSession` lineage and the same cwd.
   */
  async fork(source: Session | SessionId, boundary?: number, childId?: SessionId): Promise<Session> {
    const parent = typeof source === 'string' ? this.require(source) : source
    return this.create({
      id: childId ?? randomUUID(),
      cwd: parent.header.cwd,
      parentSession: parent.id,
      delegationDepth: parent.header.delegationDepth,
      seed: forkSeed(parent, boundary),
    })
  }

  /** Stores image bytes for the session in the backend (see SessionPersistence.putImage). */
  async putImage(id: SessionId, sha256: string, data: Buffer): Promise<void> {
    const backend = this.backend()
    if (!backend)
      throw new DshError(
        `cannot store an image for session ${JSON.stringify(id)}: no persistence backend`,
        SessionErrorCode.NotFound,
      )
    await backend.putImage(id, sha256, data)
  }

  /** The image bytes stored for the session, or undefined. */
  async getImage(id: SessionId, sha256: string): Promise<Buffer | undefined> {
    return this.backend()?.getImage(id, sha256)
  }

  /** Resolves when everything appended to the session so far is durable. */
  flush(session: Session | SessionId): Promise<void> {
    return this.entry(session).log.flush()
  }

  /** Flushes, releases the backend's hold, and forgets the live session. */
  async close(session: Session | SessionId): Promise<void> {
    const entry = this.live.get(typeof session === 'string' ? session : session.id)
    if (!entry) return
    try {
      await entry.log.flush()
    } finally {
      this.live.delete(entry.session.id)
      await this.backend()?.release(entry.session.id)
    }
  }

  /** Forgets a live session without flushing (rollback of a failed creation). */
  async discard(session: Session | SessionId): Promise<void> {
    const id = typeof session === 'string' ? session : session.id
    if (!this.live.delete(id)) return
    await this.backend()?.release(id)
  }

  private require(id: SessionId): Session {
    const session = this.get(id)
    if (!session) throw new DshError(`session ${JSON.stringify(id)} is not live`, SessionErrorCode.NotFound)
    return session
  }

  private entry(session: Session | SessionId): LiveSession {
    const id = typeof session === 'string' ? session : session.id
    const entry = this.live.get(id)
    if (!entry) throw new DshError(`session ${JSON.stringify(id)} is not live`, SessionErrorCode.NotFound)
    return entry
  }

  private assertNotLive(id: SessionId): void {
    if (this.live.has(id)) {
      throw new DshError(`session ${JSON.stringify(id)} is already live`, SessionErrorCode.AlreadyLive, {
        userFacing: true,
      })
    }
  }
}

/**
 * Length of the prefix that ends with the last completed turn (0 when none completed), taking
 * along any compaction appended after it (a manual /compact between turns): a fork starts
 * from the history the session has now. Never an event of an open turn.
 */
export function completedPrefixLength(events: readonly SessionEvent[]): number {
  let compactedEnd = 0
  for (let i = events.length - 1; i >= 0; i--) {
    const type = events[i]!.type
    if (type === 'turn/end') return Math.max(i + 1, compactedEnd)
    // Everything seen so far belongs to a turn still open.
    if (type === 'turn/start') compactedEnd = 0
    else if (type === 'context/compacted' && compactedEnd === 0) compactedEnd = i + 1
  }
  return compactedEnd
}

/**
 * The events a fork of `session` starts with: the prefix up to `boundary` (default: the
 * end of the last completed turn, with the compactions after it). Rejects a boundary outside
 * the log or inside a turn.
 */
export function forkSeed(session: Session, boundary?: number): SessionEvent[] {
  const seedLength = boundary ?? completedPrefixLength(session.events)
  assertForkBoundary(session, seedLength)
  const seed = session.events.slice(0, seedLength)
  if (seed.length === 0) return seed
  // The copied turns' usage stays the parent's: the ledger moves it aside at this marker.
  const marker: SessionEvent = {
    seq: seed.length,
    type: 'session/forked',
    time: Date.now(),
    data: { parentSession: session.id },
    ignorable: true,
  }
  return [...seed, marker]
}

function assertForkBoundary(session: Session, boundary: number): void {
  if (!Number.isInteger(boundary) || boundary < 0 || boundary > session.length) {
    throw new DshError(
      `fork boundary ${boundary} is outside the log (0..${session.length})`,
      SessionErrorCode.BadBoundary,
    )
  }
  let open = false
  for (let i = 0; i < boundary; i++) {
    const type = session.events[i]!.type
    if (type === 'turn/start') open = true
    if (type === 'turn/end') open = false
  }
  if (open) {
    throw new DshError(`fork boundary ${boundary} is inside an open turn`, SessionErrorCode.BadBoundary)
  }
}
