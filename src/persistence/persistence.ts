// The persistence seam: the one service that decides where sessions live.
// Backends extend SessionPersistence and register as `ctx.sessionPersistence`.
// Reading (`load`, `list`, `locate`) never writes; writing a stored session starts
// with `open` (lease + crash repair) and ends with `release`. See docs/persistence.md.

import { randomUUID } from 'node:crypto'
import { type Context, Service } from 'cordis'
import { DshError, errorMessage } from '../core/errors.js'
import type { SessionEvent, SessionHeader, SessionId, SessionSummary } from '../session/types.js'
import { PersistenceErrorCode } from './errors.js'
import type { WriterOwner } from './owner.js'
import { DocumentWalker, type SearchDocument, type SearchRequest, type SessionBound } from './search-text.js'
import type { LoadedSession, SessionLocation } from './types.js'

export abstract class SessionPersistence extends Service {
  /** Stable identity of this backend instance (Cordis hands out a fresh proxy on each access). */
  readonly instanceId: string = randomUUID()

  constructor(ctx: Context) {
    super(ctx, 'sessionPersistence')
  }

  /**
   * Where this backend would keep the session's dedicated log, or undefined when it
   * keeps none. Synchronous and side-effect free: no I/O, creates and flushes nothing.
   */
  abstract locate(header: SessionHeader): SessionLocation | undefined

  /** Registers a new session. May write nothing until the first append. */
  abstract create(header: SessionHeader): Promise<void>

  /** Appends events; resolves once they are durable. The first seq must follow the stored tail. */
  abstract append(id: SessionId, events: SessionEvent[]): Promise<void>

  /**
   * Read-only load (`sessions show/path`, hook transcript lookups, the source of a
   * fork): never writes and takes no lease. A torn tail is left out of the result and
   * an open turn is returned open, as stored. Rejects with NotFound when absent.
   */
  abstract load(id: SessionId): Promise<LoadedSession>

  /**
   * Opens a stored session for writing (resume). Takes the session's writer lease —
   * rejects with PERSISTENCE_LOCKED, naming the holder, while a live process (or
   * another backend instance) holds it; a lease whose owner is provably gone is
   * taken over — then repairs a crash durably: a torn tail is cut and an open turn is
   * closed with `closersForOpenTurn`. The returned events include the closers. The
   * lease is kept, and later `append`s use it, until `release(id)`.
   * Rejects with NotFound when absent.
   */
  abstract open(id: SessionId): Promise<LoadedSession>

  /** Summaries of every stored session. */
  abstract list(): Promise<SessionSummary[]>

  /**
   * `dsh sessions rm` and `prune`: deletes a stored session (header, events, its writer
   * lock or lease record). Rejects with NotFound when absent, and with PERSISTENCE_LOCKED,
   * naming the holder, while a live process — this one included — holds its writer lease;
   * a lease whose holder is provably gone goes with the session. Removes nothing else
   * (sub-agent sessions and spill files are the caller's).
   */
  abstract remove(id: SessionId): Promise<void>

  /**
   * Stores an image's bytes for a session under their SHA-256 (lowercase hex), once: the
   * same hash again is a no-op. Durable on resolve. Callers store an image before the event
   * that names it, so a crash leaves at most an unnamed image, never a name without bytes.
   * This default keeps them in memory (the memory backend); the others keep them beside
   * the session (JSONL) or in a blob table (SQLite, PostgreSQL), and `remove` deletes them.
   */
  async putImage(id: SessionId, sha256: string, data: Buffer): Promise<void> {
    let images = this.memoryImages.get(id)
    if (!images) {
      images = new Map()
      this.memoryImages.set(id, images)
    }
    if (!images.has(sha256)) images.set(sha256, Buffer.from(data))
  }

  /** The bytes stored under `sha256` for the session, or undefined when there are none. */
  async getImage(id: SessionId, sha256: string): Promise<Buffer | undefined> {
    return this.memoryImages.get(id)?.get(sha256)
  }

  /** Images of the default in-memory store, by session. */
  protected readonly memoryImages = new Map<SessionId, Map<string, Buffer>>()

  /** Whether a session with this id is stored. */
  async exists(id: SessionId): Promise<boolean> {
    try {
      await this.load(id)
      return true
    } catch (error) {
      if (error instanceof DshError && error.code === PersistenceErrorCode.NotFound) return false
      throw error
    }
  }

  /**
   * Session search's candidates: passes to `visit` every stored document that may match
   * `request` — a superset of the matches; the history service decides and ranks. Never
   * writes. This generic version loads each session in scope; indexed backends override it.
   */
  async searchDocuments(request: SearchRequest, visit: (doc: SearchDocument) => void): Promise<void> {
    for (const summary of await this.list()) {
      const id = summary.header.id
      if (request.cwd !== undefined && summary.header.cwd !== request.cwd) continue
      let loaded: LoadedSession
      try {
        loaded = await this.load(id)
      } catch (error) {
        request.onSkipped?.(id, errorMessage(error))
        continue
      }
      const walker = new DocumentWalker(id, request.reasoning, visit)
      for (const event of loaded.events) walker.event(event)
    }
  }

  /**
   * An indexed backend's bounds of each session's candidates (see `SessionBound`), read
   * without the documents' text, so the history service reads the text of only the sessions
   * that can still reach the results (`searchDocumentsOf`). Undefined: not offered, the
   * service reads every candidate through `searchDocuments`. Never writes.
   */
  async searchBounds(_request: SearchRequest): Promise<SessionBound[] | undefined> {
    return undefined
  }

  /** The candidate documents of `sessions` (from `searchBounds`), as `searchDocuments` would pass them. */
  async searchDocumentsOf(
    _request: SearchRequest,
    _sessions: readonly SessionBound[],
    _visit: (doc: SearchDocument) => void,
  ): Promise<void> {
    throw new Error(`${this.constructor.name} offers no search bounds`)
  }

  /** The turns of several events (see `turnAt`), in order; a backend across a network asks once. */
  async turnsAt(events: readonly { sessionId: SessionId; seq: number }[]): Promise<number[]> {
    const turns: number[] = []
    for (const { sessionId, seq } of events) turns.push(await this.turnAt(sessionId, seq))
    return turns
  }

  /** The turn of event `seq` (the last `turn/start` at or before it; 0 before any). Never writes. */
  async turnAt(id: SessionId, seq: number): Promise<number> {
    let turn = 0
    for (const event of (await this.load(id)).events) {
      if (event.seq > seq) break
      const number = event.type === 'turn/start' ? (event.data as { turn?: unknown } | null)?.turn : undefined
      if (typeof number === 'number') turn = number
    }
    return turn
  }

  /**
   * Stored ids that start with `prefix` and not with `except` (the id resolver's candidates:
   * see src/history/ids.ts), at most `limit` of them, in no particular order. Never writes.
   * This generic version filters `list()`; the other backends answer from an index.
   */
  async idsWithPrefix(prefix: string, limit: number, except?: string): Promise<SessionId[]> {
    const ids: SessionId[] = []
    for (const summary of await this.list()) {
      if (ids.length >= limit) break
      if (matchesPrefix(summary.header.id, prefix, except)) ids.push(summary.header.id)
    }
    return ids
  }

  /** Summaries of those of `ids` that are stored (a search's hits), in no particular order. */
  async summariesOf(ids: ReadonlySet<SessionId>): Promise<SessionSummary[]> {
    return (await this.list()).filter((summary) => ids.has(summary.header.id))
  }

  /**
   * Releases the writer lease (and handles) of a session this instance created or
   * opened; a lease no longer ours is left alone. Idempotent.
   */
  async release(_id: SessionId): Promise<void> {}

  /**
   * `dsh sessions unlock`: removes a writer lease left behind by a process that is
   * gone. Rejects with PERSISTENCE_LOCKED while the holder provably or possibly runs
   * (another host, unknown), unless `force` — and even then never a lease of this
   * process. Resolves with the holder removed, or undefined when there was none.
   */
  async unlock(id: SessionId, _options: { force?: boolean } = {}): Promise<WriterOwner | undefined> {
    if (!(await this.exists(id))) throw notFound(id)
    return undefined
  }
}

/**
 * The exclusive upper bound of the ids starting with `prefix` in code point order (which is
 * UTF-8 byte order): the prefix with its last code point raised by one, or undefined when
 * none is higher (every id from `prefix` up matches). Indexed backends ask for
 * `prefix <= id < upper`, an index range scan.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const points = Array.from(prefix, (char) => char.codePointAt(0)!)
  while (points.length > 0) {
    const last = points.pop()!
    if (last >= 0x10ffff) continue
    // The surrogate range holds no code points: U+D7FF is followed by U+E000.
    points.push(last === 0xd7ff ? 0xe000 : last + 1)
    return String.fromCodePoint(...points)
  }
  return undefined
}

/** Whether `id` starts with `prefix` and not with `except`: `idsWithPrefix`'s filter. */
export function matchesPrefix(id: SessionId, prefix: string, except: string | undefined): boolean {
  return id.startsWith(prefix) && (except === undefined || !id.startsWith(except))
}

export function notFound(id: SessionId): DshError {
  return new DshError(`unknown session ${JSON.stringify(id)}`, PersistenceErrorCode.NotFound, {
    userFacing: true,
  })
}

/** The one-line refusal of `remove` while a writer holds the session. */
export function removeRefused(id: SessionId, holder: string): DshError {
  return new DshError(
    `session ${JSON.stringify(id)} is being written by ${holder}; it was not removed (stop that process first)`,
    PersistenceErrorCode.Locked,
    { userFacing: true },
  )
}

/**
 * The one-line refusal of `unlock` (`dsh sessions unlock`) while the holder may run:
 * `where` names the lock or lease; `ours` (this very process) is never broken, so it
 * gets no --force hint.
 */
export function unlockRefused(id: SessionId, holder: string, where: string, ours: boolean): DshError {
  return new DshError(
    `session ${JSON.stringify(id)} is held by ${holder}, which is still running (${where}); stop it first` +
      (ours ? '' : ', or pass --force if it is not really dsh writing this session'),
    PersistenceErrorCode.Locked,
    { userFacing: true },
  )
}

/** Checks that `events` continue a log whose stored length is `tail`, without gaps. */
export function checkContinuation(id: SessionId, tail: number, events: readonly SessionEvent[]): void {
  events.forEach((event, index) => {
    if (event.seq !== tail + index) {
      throw new DshError(
        `session ${JSON.stringify(id)}: append of seq ${event.seq} does not follow the stored tail ${tail + index}`,
        PersistenceErrorCode.SeqMismatch,
      )
    }
  })
}
