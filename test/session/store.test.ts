// The session store (`ctx.sessions`): live sessions, fork boundaries, flush
// through the write-behind log, backend swaps, shutdown, id prefixes of live sessions.

import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { isDshError } from '../../src/core/errors.js'
import { resolveSessionId } from '../../src/history/ids.js'
import { MemorySessionBackend } from '../../src/persistence/memory/memory-backend.js'
import { SessionErrorCode } from '../../src/session/errors.js'
import type {} from '../../src/session/index.js'
import { completedPrefixLength, SessionStore } from '../../src/session/store.js'
import type { SessionEventMap } from '../../src/session/types.js'
import { type Harness, LogBuilder, plain, startHarness } from '../persistence/fixtures.js'
import { rejectionOf } from '../support/thrown.js'

const running: Harness[] = []
afterEach(async () => {
  for (const harness of running.splice(0)) await harness.dispose()
})

async function start(): Promise<Harness> {
  const harness = await startHarness({ plugin: MemorySessionBackend, config: undefined, durable: false })
  running.push(harness)
  return harness
}

function appendAll(
  session: { append(type: keyof SessionEventMap, data: never): unknown },
  log: LogBuilder,
): void {
  for (const event of log.events) session.append(event.type as keyof SessionEventMap, event.data as never)
}

describe('SessionStore', () => {
  it('creates live sessions with a full header and refuses a second live one with the same id', async () => {
    const { store } = await start()
    const session = await store().create({
      id: 's1',
      cwd: '/w',
      origin: 'subagent',
      delegationDepth: 2,
      parentSession: 'p',
    })
    expect(session.header).toEqual({
      version: 1,
      id: 's1',
      createdAt: expect.any(Number),
      cwd: '/w',
      parentSession: 'p',
      origin: 'subagent',
      delegationDepth: 2,
    })
    expect(store().get('s1')).toBe(session)
    expect(store().list()).toEqual([session])
    const error = await rejectionOf(store().create({ id: 's1' }))
    expect(isDshError(error, SessionErrorCode.AlreadyLive)).toBe(true)
    expect(isDshError(await rejectionOf(store().create({ id: '' })), SessionErrorCode.InvalidId)).toBe(true)
  })

  it('flush makes everything appended so far durable; nothing is stored before', async () => {
    const { store, backend } = await start()
    const session = await store().create({ id: 'f' })
    appendAll(session, new LogBuilder().completedTurn(0, 'one'))
    expect(await backend().exists('f')).toBe(false)
    await Promise.all([store().flush(session), store().flush('f')])
    expect(plain((await backend().load('f')).events)).toEqual(plain(session.events))
    session.append('turn/start', { turn: 1 })
    session.append('turn/end', { turn: 1, reason: 'completed' })
    await store().flush(session)
    expect((await backend().load('f')).events).toHaveLength(session.length)
  })

  it('forks at the last completed turn by default, with lineage, seed length and cwd', async () => {
    const { store } = await start()
    const parent = await store().create({ id: 'parent', cwd: '/p', delegationDepth: 1 })
    appendAll(parent, new LogBuilder().completedTurn(0, 'a').completedTurn(1, 'b'))
    parent.append('turn/start', { turn: 2 })
    expect(completedPrefixLength(parent.events)).toBe(18)

    const child = await store().fork(parent)
    expect(child.id).not.toBe('parent')
    expect(child.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(child.header).toMatchObject({
      parentSession: 'parent',
      seedLength: 19,
      cwd: '/p',
      delegationDepth: 1,
    })
    expect(plain(child.events.slice(0, 18))).toEqual(plain(parent.events.slice(0, 18)))
    expect(child.events[18]).toMatchObject({ type: 'session/forked', ignorable: true })

    const named = await store().fork('parent', 9, 'named')
    expect(named.id).toBe('named')
    expect(named.length).toBe(10)
    const empty = await store().fork(parent, 0, 'empty')
    expect(empty.length).toBe(0)
    expect(empty.header.seedLength).toBeUndefined()
  })

  it('a default fork takes the compactions after the last turn, never those of an open turn', async () => {
    const { store } = await start()
    const parent = await store().create({ id: 'parent' })
    appendAll(parent, new LogBuilder().completedTurn(0, 'a').completedTurn(1, 'b'))
    // A manual /compact between turns: part of the history the session has now.
    parent.append('context/compacted', {
      trigger: 'manual',
      summary: 'the user asked a and b',
      keptFrom: 9,
      tokensBefore: 900,
      tokensAfter: 100,
    })
    parent.append('context/compacted', {
      trigger: 'manual',
      pruned: ['c1'],
      tokensBefore: 100,
      tokensAfter: 90,
    })
    expect(completedPrefixLength(parent.events)).toBe(20)
    const child = await store().fork(parent, undefined, 'after-compact')
    // The seed is the parent's log and the marker that ends it (the copied usage is the parent's).
    expect(plain(child.events.slice(0, 20))).toEqual(plain(parent.events))
    expect(child.events[20]).toMatchObject({ type: 'session/forked', data: { parentSession: 'parent' } })
    expect(child.header.seedLength).toBe(21)

    // An automatic compaction inside the turn still open stays out.
    parent.append('turn/start', { turn: 2 })
    parent.append('user/message', { text: 'open' })
    parent.append('context/compacted', { trigger: 'auto', pruned: ['c0'], tokensBefore: 90, tokensAfter: 80 })
    expect(completedPrefixLength(parent.events)).toBe(20)
    const again = await store().fork(parent, undefined, 'open-turn')
    expect(again.length).toBe(21)
    // With no compaction after the last turn, the prefix ends at its turn/end.
    expect(completedPrefixLength(parent.events.slice(0, 18))).toBe(18)
  })

  it.each([
    ['inside an open turn', 19],
    ['inside a completed turn', 4],
    ['past the end', 100],
    ['negative', -1],
    ['fractional', 1.5],
  ])('refuses a fork boundary %s', async (_name, boundary) => {
    const { store } = await start()
    const parent = await store().create({ id: 'parent' })
    appendAll(parent, new LogBuilder().completedTurn(0, 'a').completedTurn(1, 'b'))
    parent.append('turn/start', { turn: 2 })
    parent.append('user/message', { text: 'open' })
    const error = await rejectionOf(store().fork(parent, boundary, 'child'))
    expect(isDshError(error, SessionErrorCode.BadBoundary)).toBe(true)
    expect(store().get('child')).toBeUndefined()
  })

  it('close flushes and forgets; open loads it again (repairing an open turn)', async () => {
    const { store, backend } = await start()
    const session = await store().create({ id: 'c' })
    session.append('turn/start', { turn: 0 })
    await store().close(session)
    expect(store().get('c')).toBeUndefined()
    const reopened = await store().open('c')
    expect(reopened.events.map((event) => event.type)).toEqual(['turn/start', 'turn/end'])
    expect((await backend().load('c')).events).toHaveLength(2)
    expect(await store().exists('c')).toBe(true)
    expect(await store().exists('nope')).toBe(false)
  })

  it('discard forgets a live session without writing it', async () => {
    const { store, backend } = await start()
    const session = await store().create({ id: 'd' })
    session.append('turn/start', { turn: 0 })
    await store().discard(session)
    expect(store().get('d')).toBeUndefined()
    expect(await backend().exists('d')).toBe(false)
  })

  it('a swapped backend receives the header and the whole log on the next flush', async () => {
    const ctx = new Context()
    const first = ctx.plugin(MemorySessionBackend)
    const storeFiber = ctx.plugin(SessionStore)
    await first.await()
    await storeFiber.await()
    const store = ctx.get('sessions')!
    const session = await store.create({ id: 'moving', cwd: '/m' })
    session.append('turn/start', { turn: 0 })
    await store.flush(session)
    await first.dispose()

    const second = ctx.plugin(MemorySessionBackend)
    await second.await()
    session.append('turn/end', { turn: 0, reason: 'completed' })
    await store.flush(session)
    const stored = await ctx.get('sessionPersistence')!.load('moving')
    expect(plain(stored.header)).toEqual(plain(session.header))
    expect(stored.events.map((event) => event.type)).toEqual(['turn/start', 'turn/end'])
    await storeFiber.dispose()
    await second.dispose()
  })

  it('flushes live sessions when the store unloads', async () => {
    const ctx = new Context()
    const backendFiber = ctx.plugin(MemorySessionBackend)
    const storeFiber = ctx.plugin(SessionStore)
    await backendFiber.await()
    await storeFiber.await()
    const session = await ctx.get('sessions')!.create({ id: 'shutdown' })
    session.append('user/message', { text: 'keep me' })
    await storeFiber.dispose()
    expect(ctx.get('sessions')).toBeUndefined()
    expect((await ctx.get('sessionPersistence')!.load('shutdown')).events).toHaveLength(1)
    await backendFiber.dispose()
  })

  it("resolves a live session's prefix past its own live and stored sub-agents", async () => {
    const { store } = await start()
    const parent = await store().create({ id: 'a1b2c3d4-parent' })
    parent.append('turn/start', { turn: 1 })
    const stored = await store().create({ id: 'a1b2c3d4-parent-sub-stored' })
    stored.append('turn/start', { turn: 1 })
    await store().flush(stored)
    await store().create({ id: 'a1b2c3d4-parent-sub-live' })
    expect(await store().idsWithPrefix('a1b2c3', 5, 'a1b2c3d4-parent-sub-')).toEqual(['a1b2c3d4-parent'])
    expect(await resolveSessionId(store(), 'a1b2c3')).toBe('a1b2c3d4-parent')
    await store().create({ id: 'a1b2c3d4-other' })
    expect(isDshError(await rejectionOf(resolveSessionId(store(), 'a1b2c3')), 'HISTORY_AMBIGUOUS_ID')).toBe(
      true,
    )
  })

  it('works without a backend: flush is a no-op, open is a clear error', async () => {
    const ctx = new Context()
    const fiber = ctx.plugin(SessionStore)
    await fiber.await()
    const store = ctx.get('sessions')!
    const session = await store.create({ id: 'ephemeral' })
    session.append('turn/start', { turn: 0 })
    await store.flush(session)
    const error = await rejectionOf(store.open('other'))
    expect(isDshError(error, SessionErrorCode.NotFound)).toBe(true)
    await fiber.dispose()
  })
})
