// Session: the id lives in the header, seqs are contiguous, data must be plain JSON.

import { describe, expect, it } from 'vitest'
import { isDshError } from '../../src/core/errors.js'
import { SessionErrorCode } from '../../src/session/errors.js'
import { Session, validateEvent } from '../../src/session/session.js'
import type { SessionEvent } from '../../src/session/types.js'
import { LogBuilder, makeHeader } from '../persistence/fixtures.js'
import { thrownBy } from '../support/thrown.js'

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

describe('Session', () => {
  it('derives its id from the header and keeps no second copy', () => {
    const session = new Session(makeHeader('abc', { cwd: '/w' }))
    expect(session.id).toBe('abc')
    expect(Object.keys(session)).not.toContain('id')
    expect(Object.getOwnPropertyDescriptor(Session.prototype, 'id')?.get).toBeTypeOf('function')
    expect(Object.isFrozen(session.header)).toBe(true)
  })

  it('rejects an empty id', () => {
    expect(
      isDshError(
        thrownBy(() => new Session(makeHeader(''))),
        SessionErrorCode.InvalidId,
      ),
    ).toBe(true)
  })

  it('appends with contiguous seqs from 0, integer times, frozen events, and notifies listeners', () => {
    const session = new Session(makeHeader('s'))
    const seen: number[] = []
    const stop = session.onAppend((_session, event) => seen.push(event.seq))
    session.append('turn/start', { turn: 0 })
    session.append('user/message', { text: 'hi' })
    stop()
    session.append('turn/end', { turn: 0, reason: 'completed' })
    expect(session.events.map((event) => event.seq)).toEqual([0, 1, 2])
    expect(session.events.every((event) => Number.isInteger(event.time))).toBe(true)
    expect(Object.isFrozen(session.events[0])).toBe(true)
    expect(seen).toEqual([0, 1])
    expect(session.length).toBe(3)
  })

  it.each([
    ['undefined', { text: undefined }, 'data.text is undefined'],
    ['NaN', { turn: Number.NaN }, 'data.turn is NaN'],
    ['Infinity', { turn: Number.POSITIVE_INFINITY }, 'data.turn is Infinity'],
    ['a class instance', { at: new Point(1, 2) }, 'data.at is an instance of Point'],
    ['a Date', { at: new Date(0) }, 'data.at is an instance of Date'],
    ['a Map', { map: new Map() }, 'data.map is an instance of Map'],
    ['a function', { run: () => 1 }, 'data.run is a function'],
    ['a bigint', { big: 1n }, 'data.big is a bigint'],
    ['a nested undefined in an array', { list: [1, undefined] }, 'data.list[1] is undefined'],
  ])('rejects %s in event data, naming the event type', (_name, data, problem) => {
    const session = new Session(makeHeader('s'))
    const error = thrownBy(() => session.append('hook/invoked', data as never))
    expect(isDshError(error, SessionErrorCode.InvalidEvent)).toBe(true)
    expect((error as Error).message).toContain('hook/invoked')
    expect((error as Error).message).toContain(problem)
    expect(session.length).toBe(0)
  })

  it('rejects a cycle but accepts a shared (acyclic) reference', () => {
    const session = new Session(makeHeader('s'))
    const cyclic: Record<string, unknown> = { name: 'loop' }
    cyclic.self = cyclic
    const error = thrownBy(() => session.append('x/cycle', cyclic, { ignorable: true }))
    expect(isDshError(error, SessionErrorCode.InvalidEvent)).toBe(true)
    expect((error as Error).message).toMatch(/x\/cycle.*cycle/)
    const shared = { text: 'same' }
    session.append('x/shared', { a: shared, b: shared, c: Object.create(null) }, { ignorable: true })
    expect(session.length).toBe(1)
  })

  it('refuses unknown event types unless marked ignorable', () => {
    const session = new Session(makeHeader('s'))
    const error = thrownBy(() => session.append('made/up' as 'turn/start', { turn: 0 }))
    expect(isDshError(error, SessionErrorCode.UnknownEventType)).toBe(true)
    expect((error as Error).message).toContain('made/up')
    const event = session.append('made/up', { fine: true }, { ignorable: true })
    expect(event).toMatchObject({ seq: 0, type: 'made/up', ignorable: true })
  })

  it('validates stored events on construction: seqs must be contiguous', () => {
    const events = new LogBuilder().completedTurn(0, 'x').events
    expect(new Session(makeHeader('s'), events).length).toBe(events.length)
    const gap: SessionEvent[] = [events[0]!, events[2]!]
    expect(
      isDshError(
        thrownBy(() => new Session(makeHeader('s'), gap)),
        SessionErrorCode.InvalidEvent,
      ),
    ).toBe(true)
  })

  it('validateEvent checks seq, integer time and type', () => {
    const event: SessionEvent = { seq: 3, type: 'turn/start', time: 5, data: { turn: 0 } }
    expect(() => validateEvent(event, 3)).not.toThrow()
    expect(() => validateEvent(event, 4)).toThrow(/seq 3, expected 4/)
    expect(() => validateEvent({ ...event, time: 1.5 }, 3)).toThrow(/non-integer time/)
    expect(() => validateEvent({ ...event, type: '' }, 3)).toThrow(/non-empty/)
  })

  it('knows the last event of each type, loaded or appended, without a scan', () => {
    const stored = new LogBuilder()
      .add('request/config', { model: 'a', system: 'first', tools: [] })
      .completedTurn(0, 'q')
      .add('request/config', { model: 'b', system: 'second', tools: [] }).events
    const session = new Session(makeHeader('s'), stored)
    expect(session.last('request/config')?.data.system).toBe('second')
    expect(session.last('request/config')?.seq).toBe(stored.length - 1)
    expect(session.last('instructions/loaded')).toBeUndefined()
    session.append('instructions/loaded', { files: ['AGENTS.md'], text: 'be brief' })
    expect(session.last('instructions/loaded')?.data.text).toBe('be brief')
    expect(session.last('instructions/loaded')).toBe(session.events.at(-1))
  })
})
