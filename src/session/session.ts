// A live session: the header plus its append-only event log, held in memory.
// Durability is the store's job; a Session only validates and orders events.

import { DshError } from '../core/errors.js'
import { SessionErrorCode } from './errors.js'
import { isKnownEventType } from './event-types.js'
import { sessionIdProblem } from './id.js'
import { findNonJson } from './plain-json.js'
import type { SessionEvent, SessionEventMap, SessionHeader, SessionId } from './types.js'

export type AppendListener = (session: Session, event: SessionEvent) => void

export class Session {
  readonly header: Readonly<SessionHeader>
  private readonly log: SessionEvent[]
  private readonly listeners = new Set<AppendListener>()
  /** The last event of each type, kept on append: the latest config or instructions without a scan. */
  private readonly lastByType = new Map<string, SessionEvent>()

  constructor(header: SessionHeader, events: SessionEvent[] = []) {
    validateSessionId(header.id)
    this.header = Object.freeze({ ...header })
    this.log = []
    for (const event of events) this.push(event)
  }

  /** The id lives in the header only. */
  get id(): SessionId {
    return this.header.id
  }

  get events(): readonly SessionEvent[] {
    return this.log
  }

  get length(): number {
    return this.log.length
  }

  /**
   * Appends one event with the next seq and the current time. Rejects data that is
   * not plain JSON and unknown types not marked ignorable, naming the event type.
   */
  append<K extends keyof SessionEventMap>(type: K, data: SessionEventMap[K]): SessionEvent<SessionEventMap[K]>
  append(type: string, data: unknown, options: { ignorable: true }): SessionEvent
  append(type: string, data: unknown, options?: { ignorable?: true }): SessionEvent {
    const event: SessionEvent = { seq: this.log.length, type, time: Date.now(), data }
    if (options?.ignorable) event.ignorable = true
    this.push(event)
    return event
  }

  /** The last event of `type`, or undefined when none was appended; costs no scan of the log. */
  last<K extends keyof SessionEventMap>(type: K): SessionEvent<SessionEventMap[K]> | undefined {
    return this.lastByType.get(type) as SessionEvent<SessionEventMap[K]> | undefined
  }

  /** Subscribes to appended events; returns the unsubscribe function. */
  onAppend(listener: AppendListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private push(event: SessionEvent): void {
    validateEvent(event, this.log.length)
    const stored = Object.freeze({ ...event })
    this.log.push(stored)
    this.lastByType.set(stored.type, stored)
    for (const listener of this.listeners) listener(this, stored)
  }
}

/** Enforces the one id rule (`sessionIdProblem`); SESSION_INVALID_ID otherwise. */
export function validateSessionId(id: unknown): asserts id is SessionId {
  const problem = sessionIdProblem(id)
  if (problem === undefined) return
  const shown =
    typeof id === 'string' ? ` ${JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id)}` : ''
  throw new DshError(`invalid session id${shown}: ${problem}`, SessionErrorCode.InvalidId, {
    userFacing: true,
  })
}

/** Validates one event against the seq it must carry; used for appends and for stored logs alike. */
export function validateEvent(event: SessionEvent, expectedSeq: number): void {
  if (typeof event.type !== 'string' || event.type.length === 0) {
    throw new DshError('event type must be a non-empty string', SessionErrorCode.InvalidEvent)
  }
  if (event.seq !== expectedSeq) {
    throw new DshError(
      `event ${event.type} has seq ${event.seq}, expected ${expectedSeq}`,
      SessionErrorCode.InvalidEvent,
    )
  }
  if (!Number.isInteger(event.time)) {
    throw new DshError(`event ${event.type} has a non-integer time`, SessionErrorCode.InvalidEvent)
  }
  if (!isKnownEventType(event.type) && event.ignorable !== true) {
    throw new DshError(
      `unknown event type ${JSON.stringify(event.type)} (not marked ignorable)`,
      SessionErrorCode.UnknownEventType,
    )
  }
  const problem = findNonJson(event.data)
  if (problem) {
    throw new DshError(
      `event ${event.type}: ${problem}; event data must be plain JSON`,
      SessionErrorCode.InvalidEvent,
    )
  }
}
