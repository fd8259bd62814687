// The one persistence contract every backend passes (SPEC §3): round trip, lazy
// creation, list, crash repair, append validation, resume keeps the location,
// fork gets its own; compaction boundaries (compaction-contract.ts).

import { afterEach, describe, expect, it } from 'vitest'
import { isDshError } from '../../src/core/errors.js'
import { PersistenceErrorCode } from '../../src/persistence/errors.js'
import { INTERRUPTED_TOOL_RESULT } from '../../src/persistence/repair.js'
import { SessionErrorCode } from '../../src/session/errors.js'
import { validateSessionId } from '../../src/session/session.js'
import type { SessionEvent, SessionEventMap, SessionId } from '../../src/session/types.js'
import { DEFAULT_PRICE_TABLE, deriveUsage, ledgerOf, priceLedger } from '../../src/usage/index.js'
import { thrownBy } from '../support/thrown.js'
import { compactionContract } from './compaction-contract.js'
import {
  type BackendFixture,
  type Harness,
  LogBuilder,
  makeHeader,
  plain,
  startHarness,
  T0,
} from './fixtures.js'

const HOSTILE_IDS: SessionId[] = [
  '../../etc/passwd',
  'a/b',
  '.',
  '..',
  '~',
  'ctrl\u0001byte',
  'Case',
  'case',
  'x'.repeat(1000),
  '💬 emoji',
]

/** Refused by the one id rule, identically by every backend. */
const REFUSED_IDS: SessionId[] = [
  '',
  'nul\u0000byte',
  'lone\ud800surrogate',
  'lone\udc00low',
  'x'.repeat(4097),
]

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  expect(isDshError(error, code), `expected ${code}, got ${String(error)}`).toBe(true)
  return error as Error
}

/**
 * Runs the contract against a backend. `makeBackend` is called once per test and
 * returns a plugin and config over fresh storage; durable fixtures are loaded a
 * second time to check what survives a restart.
 */
export function runPersistenceContract<C>(name: string, makeBackend: () => BackendFixture<C>): void {
  describe(`persistence contract: ${name}`, () => {
    const running: Harness[] = []
    let fixture: BackendFixture<C> | undefined

    afterEach(async () => {
      for (const harness of running.splice(0).reverse()) await harness.dispose()
      fixture = undefined
    })

    async function start(): Promise<Harness> {
      fixture ??= makeBackend()
      const harness = await startHarness(fixture)
      running.push(harness)
      return harness
    }

    /**
     * A restarted process over the same storage. Not durable: the same instance, with
     * every writer released, as a restart would.
     */
    async function restart(previous: Harness): Promise<Harness> {
      if (!fixture?.durable) {
        for (const summary of await previous.backend().list())
          await previous.backend().release(summary.header.id)
        return previous
      }
      await previous.dispose()
      running.splice(running.indexOf(previous), 1)
      return start()
    }

    it('round-trips header and events across appends and a restart', async () => {
      let harness = await start()
      const header = makeHeader('round-trip', { cwd: '/work/project', parentSession: 'p', seedLength: 0 })
      const log = new LogBuilder()
        .completedTurn(0, 'hello')
        .addIgnorable('x/custom', { any: ['json', 1, null, 'a NUL \u0000 in text', { z: 1, a: 2 }] })
      await harness.backend().create(header)
      await harness.backend().append(header.id, log.events.slice(0, 4))
      await harness.backend().append(header.id, log.events.slice(4))
      harness = await restart(harness)
      const loaded = await harness.backend().load(header.id)
      expect(plain(loaded.header)).toEqual(header)
      expect(plain(loaded.events)).toEqual(log.events)
    })

    it('round-trips hostile ids without collisions', async () => {
      let harness = await start()
      for (const [index, id] of HOSTILE_IDS.entries()) {
        await harness.backend().create(makeHeader(id, { cwd: '/tmp/hostile' }))
        await harness.backend().append(id, new LogBuilder().add('user/message', { text: `#${index}` }).events)
      }
      harness = await restart(harness)
      for (const [index, id] of HOSTILE_IDS.entries()) {
        const loaded = await harness.backend().load(id)
        expect(loaded.header.id).toBe(id)
        expect((loaded.events[0]!.data as { text: string }).text).toBe(`#${index}`)
      }
      const listed = (await harness.backend().list()).map((summary) => summary.header.id)
      expect(listed.sort()).toEqual([...HOSTILE_IDS].sort())
    })

    it('refuses the ids the one id rule refuses, and stores nothing', async () => {
      const harness = await start()
      for (const id of REFUSED_IDS) {
        const error = await harness
          .backend()
          .create(makeHeader(id))
          .then(
            () => undefined,
            (reason: unknown) => reason,
          )
        expect(error, JSON.stringify(id).slice(0, 40)).toBeInstanceOf(Error)
        expect((error as { userFacing?: boolean }).userFacing).toBe(true)
        expect((error as Error).message).toMatch(/session id/)
      }
      expect(await harness.backend().list()).toEqual([])
    })

    it('refuses a bad id with one code and one message on every method, like the session store', async () => {
      const harness = await start()
      for (const id of REFUSED_IDS) {
        const expected = thrownBy(() => validateSessionId(id)) as Error
        const label = JSON.stringify(id).slice(0, 40)
        const attempts: [string, () => Promise<unknown>][] = [
          ['create', () => harness.backend().create(makeHeader(id))],
          ['load', () => harness.backend().load(id)],
          ['open', () => harness.backend().open(id)],
          ['append', () => harness.backend().append(id, new LogBuilder().completedTurn(0, 'x').events)],
          ['remove', () => harness.backend().remove(id)],
        ]
        for (const [method, attempt] of attempts) {
          const error = await rejectsWith(attempt(), SessionErrorCode.InvalidId)
          expect(error.message, `${method} ${label}`).toBe(expected.message)
        }
      }
      expect(await harness.backend().list()).toEqual([])
    })

    it('creates lazily: nothing is stored until the first append', async () => {
      const harness = await start()
      const header = makeHeader('lazy')
      await harness.backend().create(header)
      expect(await harness.backend().exists('lazy')).toBe(false)
      expect(await harness.backend().list()).toEqual([])
      await rejectsWith(harness.backend().load('lazy'), PersistenceErrorCode.NotFound)
      await harness.backend().append('lazy', new LogBuilder().add('user/message', { text: 'hi' }).events)
      expect(await harness.backend().exists('lazy')).toBe(true)
      expect(await harness.backend().list()).toHaveLength(1)
    })

    it('refuses to create a session that is already stored', async () => {
      const harness = await start()
      await harness.backend().create(makeHeader('taken'))
      await harness.backend().append('taken', new LogBuilder().add('user/message', { text: 'x' }).events)
      await rejectsWith(harness.backend().create(makeHeader('taken')), PersistenceErrorCode.AlreadyExists)
      expect(plain((await harness.backend().load('taken')).events)).toHaveLength(1)
    })

    it('refuses to create a session an earlier process stored (after a restart)', async () => {
      let harness = await start()
      await harness.backend().create(makeHeader('stored-before', { cwd: '/work/project' }))
      await harness.backend().append('stored-before', new LogBuilder().completedTurn(0, 'kept').events)
      harness = await restart(harness)
      await rejectsWith(
        harness.backend().create(makeHeader('stored-before', { cwd: '/work/project' })),
        PersistenceErrorCode.AlreadyExists,
      )
      const loaded = await harness.backend().load('stored-before')
      expect(plain(loaded.events)).toEqual(new LogBuilder().completedTurn(0, 'kept').events)
    })

    it('lists stored sessions with count, last activity, title and last turn', async () => {
      let harness = await start()
      const first = new LogBuilder().completedTurn(0, '  first\n question  ').completedTurn(1, 'again')
      const second = new LogBuilder().add('turn/start', { turn: 2 })
      await harness.backend().create(makeHeader('one', { cwd: '/a' }))
      await harness.backend().append('one', first.events)
      await harness.backend().create(makeHeader('two', { cwd: '/b', createdAt: T0 + 5 }))
      await harness.backend().append('two', second.events)
      await harness.backend().create(makeHeader('never-written'))
      harness = await restart(harness)
      // The contract's fields only: a backend may add its own (PostgreSQL: host, status).
      const summaries = plain(await harness.backend().list())
        .map(({ header, eventCount, lastActivity, title, turns }) => ({
          header,
          eventCount,
          lastActivity,
          ...(title !== undefined ? { title } : {}),
          turns,
        }))
        .sort((a, b) => a.header.id.localeCompare(b.header.id))
      expect(summaries).toEqual([
        {
          header: makeHeader('one', { cwd: '/a' }),
          eventCount: first.events.length,
          lastActivity: first.events.at(-1)!.time,
          title: 'first question',
          turns: 1,
        },
        {
          header: makeHeader('two', { cwd: '/b', createdAt: T0 + 5 }),
          eventCount: 1,
          lastActivity: T0,
          turns: 2,
        },
      ])
    })

    it("lists how each session's last turn ended, and a fork's own title", async () => {
      let harness = await start()
      const done = new LogBuilder().completedTurn(0, 'done')
      const failed = new LogBuilder()
        .completedTurn(0, 'fine')
        .add('turn/start', { turn: 1 })
        .add('user/message', { text: 'then broke' })
        .add('turn/end', { turn: 1, reason: 'error', error: 'boom' })
        .addIgnorable('x/after', { note: 'an event after the turn end' })
      const open = new LogBuilder().completedTurn(0, 'done').openTurn(1, 'still going')
      const fresh = new LogBuilder().addIgnorable('x/first', {})
      const fork = new LogBuilder()
        .completedTurn(0, 'the parent asked this')
        .add('turn/start', { turn: 1 })
        .add('user/message', { text: 'the fork asks this' })
        .add('turn/end', { turn: 1, reason: 'max-cost' })
      const seedOnly = new LogBuilder().completedTurn(0, 'the parent asked this')
      const stored: [string, LogBuilder, object][] = [
        ['done', done, {}],
        ['failed', failed, {}],
        ['open', open, {}],
        ['fresh', fresh, {}],
        ['fork', fork, { parentSession: 'done', seedLength: 9 }],
        ['seed-only', seedOnly, { parentSession: 'done', seedLength: 9 }],
      ]
      for (const [id, log, extra] of stored) {
        await harness.backend().create(makeHeader(id, extra))
        // The seed in its own batch, as a fork's first checkpoint may write it.
        await harness.backend().append(id, log.events.slice(0, 9))
        if (log.events.length > 9) await harness.backend().append(id, log.events.slice(9))
        await harness.backend().release(id)
      }
      harness = await restart(harness)
      const byId = new Map((await harness.backend().list()).map((summary) => [summary.header.id, summary]))
      expect(byId.get('done')).toMatchObject({ outcome: 'completed', title: 'done' })
      expect(byId.get('failed')).toMatchObject({ outcome: 'error', title: 'fine' })
      expect(byId.get('open')).toMatchObject({ outcome: 'open' })
      expect(byId.get('fresh')?.outcome).toBeUndefined()
      expect(byId.get('fork')).toMatchObject({ outcome: 'max-cost', title: 'the fork asks this' })
      expect(byId.get('seed-only')?.title).toBeUndefined()
    })

    it('lists each session with the usage ledger of all its stored events: batches, restarts, forks, repairs', async () => {
      let harness = await start()
      // Two models, steps hours apart (peak and off-peak), charges; a batch ends inside a turn.
      const spender = new LogBuilder()
        .paidTurn(0, 'first', 'deepseek-flash', 1000)
        .paidTurn(1, 'second', 'deepseek-v4-pro', 3000)
      await harness.backend().create(makeHeader('spender'))
      await harness.backend().append('spender', spender.events.slice(0, 5))
      await harness.backend().append('spender', spender.events.slice(5, 14))
      await harness.backend().append('spender', spender.events.slice(14))
      await harness.backend().release('spender')
      // Crashed inside a paid step: the open turn's usage counts too.
      const crashed = new LogBuilder().paidTurn(0, 'ok', 'deepseek-flash', 500)
      crashed
        .add('turn/start', { turn: 1 })
        .add('request/config', { model: 'unpriced-model', system: '', tools: [] })
        .add('assistant/message', {
          message: { content: '' },
          usage: { promptTokens: 77, completionTokens: 7, totalTokens: 84 },
        })
      await harness.backend().create(makeHeader('crashed'))
      await harness.backend().append('crashed', crashed.events)
      await harness.backend().release('crashed')
      await harness.backend().create(makeHeader('unpaid'))
      await harness.backend().append('unpaid', new LogBuilder().completedTurn(0, 'free').events)
      await harness.backend().release('unpaid')

      // Another process appends a turn (and its model stays the last one logged).
      harness = await restart(harness)
      const more = new LogBuilder(spender.events.length).paidTurn(2, 'third', 'not-logged', 50, 5)
      more.events.splice(2, 1) // no request/config: its steps are priced with the model before
      more.events.forEach((event, index) => {
        event.seq = spender.events.length + index
      })
      await harness.backend().append('spender', more.events)
      await harness.backend().release('spender')
      // A fork through the session store: its log copies the parent's first turn.
      const source = await harness.store().read('spender')
      const fork = await harness.store().fork(source, 9, 'spender-fork')
      for (const event of new LogBuilder().paidTurn(1, 'fork asks', 'deepseek-v4-pro', 10).events)
        fork.append(event.type as keyof SessionEventMap, event.data as never)
      await harness.store().close(fork)

      harness = await restart(harness)
      const expectLedgers = async () => {
        const summaries = await harness.backend().list()
        expect(summaries.map((summary) => summary.header.id).sort()).toEqual([
          'crashed',
          'spender',
          'spender-fork',
          'unpaid',
        ])
        for (const summary of summaries) {
          const { events } = await harness.backend().load(summary.header.id)
          expect(plain(summary.usage), summary.header.id).toEqual(ledgerOf(events))
          const derived = deriveUsage(events, DEFAULT_PRICE_TABLE).session
          const priced = priceLedger(summary.usage, DEFAULT_PRICE_TABLE)!
          expect({ ...priced, cost: null }).toEqual({ ...derived, cost: null })
          if (derived.cost === null) expect(priced.cost).toBeNull()
          else expect(priced.cost).toBeCloseTo(derived.cost, 12)
        }
        return new Map(summaries.map((summary) => [summary.header.id, summary.usage]))
      }
      const ledgers = await expectLedgers()
      expect(ledgers.get('unpaid')).toEqual({ steps: [], charges: [] })
      // The fork counts only its own requests; the seed it copied is kept apart as inherited,
      // so adding up the listing counts each request once.
      const seed = priceLedger(ledgerOf(spender.events.slice(0, 9)), DEFAULT_PRICE_TABLE)!
      expect(seed.inputTokens).toBeGreaterThan(0)
      const forkLedger = ledgers.get('spender-fork')!
      const forkTotals = priceLedger(forkLedger, DEFAULT_PRICE_TABLE)!
      expect(forkTotals.inputTokens).toBe(10 + 20)
      expect(priceLedger(forkLedger.inherited!, DEFAULT_PRICE_TABLE)!.inputTokens).toBe(seed.inputTokens)
      expect(ledgers.get('spender')!.inherited).toBeUndefined()
      expect(ledgers.get('spender')!.steps.map(([model]) => model)).not.toContain('not-logged')
      expect(priceLedger(ledgers.get('spender')!, DEFAULT_PRICE_TABLE)!.cost).toBeGreaterThan(0)
      const crashedTotals = priceLedger(ledgers.get('crashed')!, DEFAULT_PRICE_TABLE)!
      expect(crashedTotals).toMatchObject({ inputTokens: 500 + 1000 + 77, cost: null }) // an unpriced model

      // Repair appends closers: the ledger still covers every event.
      await harness.backend().open('crashed')
      await harness.backend().release('crashed')
      harness = await restart(harness)
      await expectLedgers()
    })

    it('removes a stored session, and refuses while a writer holds it', async () => {
      let harness = await start()
      await harness.backend().create(makeHeader('doomed', { cwd: '/work/rm' }))
      await harness.backend().append('doomed', new LogBuilder().completedTurn(0, 'bye').events)
      await harness.backend().create(makeHeader('kept', { cwd: '/work/rm' }))
      await harness.backend().append('kept', new LogBuilder().completedTurn(0, 'stay').events)
      // This instance still holds both: refused, naming the holder.
      const ours = await rejectsWith(harness.backend().remove('doomed'), PersistenceErrorCode.Locked)
      expect(ours.message).toMatch(/^session "doomed" is being written by .*process.*; it was not removed/)
      harness = await restart(harness)
      await harness.backend().open('doomed')
      if (fixture?.durable) {
        const other = await startHarness(fixture)
        running.push(other)
        const error = await rejectsWith(other.backend().remove('doomed'), PersistenceErrorCode.Locked)
        expect(error.message).toMatch(
          new RegExp(`being written by (this process|process ${process.pid}) on `),
        )
        expect(await other.backend().exists('doomed')).toBe(true)
      }
      await harness.backend().release('doomed')
      await harness.backend().remove('doomed')
      expect(await harness.backend().exists('doomed')).toBe(false)
      await rejectsWith(harness.backend().load('doomed'), PersistenceErrorCode.NotFound)
      await rejectsWith(harness.backend().remove('doomed'), PersistenceErrorCode.NotFound)
      await rejectsWith(harness.backend().remove('never-stored'), PersistenceErrorCode.NotFound)
      harness = await restart(harness)
      expect((await harness.backend().list()).map((summary) => summary.header.id)).toEqual(['kept'])
      // The id is free again.
      await harness.backend().create(makeHeader('doomed'))
      await harness.backend().append('doomed', new LogBuilder().completedTurn(0, 'again').events)
      expect((await harness.backend().load('doomed')).events).toHaveLength(9)
    })

    it('read-only load reports a crashed open turn as open and writes nothing', async () => {
      let harness = await start()
      const log = new LogBuilder().completedTurn(0, 'done').openTurn(1, 'cut short')
      await harness.backend().create(makeHeader('crashed'))
      await harness.backend().append('crashed', log.events)
      harness = await restart(harness)
      for (let i = 0; i < 2; i++) {
        expect(plain((await harness.backend().load('crashed')).events)).toEqual(log.events)
      }
      expect(await harness.backend().exists('crashed')).toBe(true)
      const [summary] = await harness.backend().list()
      expect(summary!.eventCount).toBe(log.events.length)
    })

    it('open (for writing) repairs a crashed open turn with synthetic closers and persists them', async () => {
      let harness = await start()
      const log = new LogBuilder().completedTurn(0, 'done').openTurn(1, 'cut short')
      await harness.backend().create(makeHeader('crashed'))
      await harness.backend().append('crashed', log.events)
      harness = await restart(harness)

      const loaded = await harness.backend().open('crashed')
      const closers = plain(loaded.events.slice(log.events.length))
      const n = log.events.length
      expect(plain(loaded.events.slice(0, n))).toEqual(log.events)
      expect(closers).toEqual([
        {
          seq: n,
          type: 'tool/result',
          time: expect.any(Number),
          data: { callId: 'b1', content: INTERRUPTED_TOOL_RESULT, isError: true },
        },
        {
          seq: n + 1,
          type: 'step/end',
          time: expect.any(Number),
          data: { turn: 1, step: 0, finishReason: 'interrupted' },
        },
        { seq: n + 2, type: 'turn/end', time: expect.any(Number), data: { turn: 1, reason: 'interrupted' } },
      ])
      // Opened for writing: appends continue after the closers.
      await harness.backend().append('crashed', new LogBuilder(n + 3).add('turn/start', { turn: 2 }).events)
      await harness.backend().release('crashed')

      harness = await restart(harness)
      const again = await harness.backend().load('crashed')
      expect(plain(again.events.slice(0, n + 3))).toEqual(plain(loaded.events))
      const [summary] = await harness.backend().list()
      expect(summary!.eventCount).toBe(n + 4)
    })

    it('open takes the writer lease: a second open is refused until release', async () => {
      let harness = await start()
      const log = new LogBuilder().completedTurn(0, 'done')
      await harness.backend().create(makeHeader('leased'))
      await harness.backend().append('leased', log.events)
      harness = await restart(harness)
      await harness.backend().open('leased')
      const error = await rejectsWith(harness.backend().open('leased'), PersistenceErrorCode.Locked)
      expect(error.message).toContain('leased')
      // Reading is never refused.
      expect(plain((await harness.backend().load('leased')).events)).toEqual(log.events)
      await harness.backend().release('leased')
      await harness.backend().release('leased') // idempotent
      await harness.backend().open('leased')
      await harness.backend().release('leased')
      await rejectsWith(harness.backend().open('missing'), PersistenceErrorCode.NotFound)
    })

    it('a fork of a stored session reads its source: an open turn stays open there', async () => {
      let harness = await start()
      const log = new LogBuilder().completedTurn(0, 'done').openTurn(1, 'cut short')
      await harness.backend().create(makeHeader('source'))
      await harness.backend().append('source', log.events)
      harness = await restart(harness)
      const source = await harness.store().read('source')
      expect(harness.store().get('source')).toBeUndefined()
      const child = await harness.store().fork(source, undefined, 'forked')
      // The completed turn, and the marker that ends a fork's seed.
      expect(child.length).toBe(9 + 1)
      expect(child.events.at(-1)!.type).toBe('session/forked')
      expect(plain((await harness.backend().load('source')).events)).toEqual(log.events)
    })

    it('leaves a closed log untouched on load', async () => {
      let harness = await start()
      const log = new LogBuilder().completedTurn(0, 'fine')
      await harness.backend().create(makeHeader('closed'))
      await harness.backend().append('closed', log.events)
      harness = await restart(harness)
      expect(plain((await harness.backend().load('closed')).events)).toEqual(log.events)
      expect((await harness.backend().list())[0]!.eventCount).toBe(log.events.length)
    })

    it('validates appends: the first seq follows the stored tail and there are no gaps', async () => {
      let harness = await start()
      const log = new LogBuilder().completedTurn(0, 'base')
      await harness.backend().create(makeHeader('strict'))
      await rejectsWith(
        harness.backend().append('strict', new LogBuilder(1).add('user/message', { text: 'x' }).events),
        PersistenceErrorCode.SeqMismatch,
      )
      await harness.backend().append('strict', log.events.slice(0, 3))
      const n = 3
      const retry = log.events.slice(0, 1)
      await rejectsWith(harness.backend().append('strict', retry), PersistenceErrorCode.SeqMismatch)
      const skipping = new LogBuilder(n + 1).add('user/message', { text: 'skip' }).events
      await rejectsWith(harness.backend().append('strict', skipping), PersistenceErrorCode.SeqMismatch)
      const gap: SessionEvent[] = [log.events[3]!, log.events[5]!]
      await rejectsWith(harness.backend().append('strict', gap), PersistenceErrorCode.SeqMismatch)
      await harness.backend().append('strict', log.events.slice(3))
      await rejectsWith(
        harness.backend().append('unknown-id', new LogBuilder().add('user/message', { text: 'x' }).events),
        PersistenceErrorCode.NotFound,
      )
      harness = await restart(harness)
      expect(plain((await harness.backend().load('strict')).events)).toEqual(log.events)
    })

    it('resume keeps the id, the header and the location', async () => {
      let harness = await start()
      const session = await harness.store().create({ id: 'resumed', cwd: '/work/resume' })
      session.append('turn/start', { turn: 0 })
      session.append('user/message', { text: 'first' })
      session.append('turn/end', { turn: 0, reason: 'completed' })
      const before = harness.backend().locate(session.header)
      await harness.store().close(session)

      harness = await restart(harness)
      const resumed = await harness.store().open('resumed')
      expect(resumed.id).toBe('resumed')
      expect(plain(resumed.header)).toEqual(plain(session.header))
      expect(harness.backend().locate(resumed.header)).toEqual(before)
      resumed.append('turn/start', { turn: 1 })
      resumed.append('turn/end', { turn: 1, reason: 'completed' })
      await harness.store().close(resumed)

      harness = await restart(harness)
      expect((await harness.backend().load('resumed')).events.map((event) => event.type)).toEqual([
        'turn/start',
        'user/message',
        'turn/end',
        'turn/start',
        'turn/end',
      ])
    })

    it('fork gets its own id, lineage and location; the parent is untouched', async () => {
      let harness = await start()
      const parent = await harness.store().create({ id: 'parent', cwd: '/work/fork' })
      for (const event of new LogBuilder().completedTurn(0, 'q').events) {
        parent.append(event.type as keyof SessionEventMap, event.data as never)
      }
      parent.append('turn/start', { turn: 1 })
      const child = await harness.store().fork(parent, undefined, 'child')
      // The completed turn and the `session/forked` marker.
      expect(child.header).toMatchObject({ parentSession: 'parent', seedLength: 10, cwd: '/work/fork' })
      const parentLocation = harness.backend().locate(parent.header)
      const childLocation = harness.backend().locate(child.header)
      if (parentLocation || childLocation) expect(childLocation).not.toEqual(parentLocation)
      child.append('turn/start', { turn: 1 })
      child.append('turn/end', { turn: 1, reason: 'completed' })
      await harness.store().flush(parent)
      await harness.store().flush(child)
      await harness.store().close(parent)
      await harness.store().close(child)

      harness = await restart(harness)
      const storedChild = await harness.backend().load('child')
      expect(storedChild.header).toMatchObject({ parentSession: 'parent', seedLength: 10 })
      expect(storedChild.events).toHaveLength(12)
      expect(storedChild.events[9]).toMatchObject({ type: 'session/forked', ignorable: true })
      const storedParent = await harness.backend().load('parent')
      expect(storedParent.events.slice(0, 10).map((event) => event.type)).toEqual([
        ...new LogBuilder().completedTurn(0, 'q').events.map((event) => event.type),
        'turn/start',
      ])
    })

    compactionContract({ start, restart })
  })
}
