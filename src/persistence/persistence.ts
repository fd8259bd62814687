// The persistence seam: the one service that decides where sessions live.
// Backends extend SessionPersistence and register as `ctx.sessionPersistence`.

import { randomUUID } from 'node:crypto'
import { type Context, Service } from 'cordis'
import { DshError } from '../core/errors.js'
import type { SessionEvent, SessionHeader, SessionId, SessionSummary } from '../session/types.js'
import { PersistenceErrorCode } from './errors.js'
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

  /** Loads a stored session, repairing a crashed tail. Rejects with NotFound when absent. */
  abstract load(id: SessionId): Promise<LoadedSession>

  /** Summaries of every stored session. */
  abstract list(): Promise<SessionSummary[]>

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

  /** Releases whatever the backend holds for a session it was writing (locks, handles). */
  async release(_id: SessionId): Promise<void> {}
}

export function notFound(id: SessionId): DshError {
  return new DshError(`unknown session ${JSON.stringify(id)}`, PersistenceErrorCode.NotFound, {
    userFacing: true,
  })
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
