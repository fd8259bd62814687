// A fast-check property run of hostile session ids against every backend at once
// (memory, JSONL, SQLite, and PostgreSQL on a cluster this file starts): the same
// accept/reject decision everywhere (the one id rule), nothing stored outside the
// sessions folder, no two ids sharing a session.

import { readdirSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { JsonlSessionBackend } from '../../src/persistence/jsonl/backend.js'
import { MemorySessionBackend } from '../../src/persistence/memory/memory-backend.js'
import { PostgresSessionBackend } from '../../src/persistence/postgres/index.js'
import { SqliteSessionBackend } from '../../src/persistence/sqlite/backend.js'
import { MAX_SESSION_ID_LENGTH, sessionIdProblem } from '../../src/session/id.js'
import type { SessionId } from '../../src/session/types.js'
import {
  type BackendFixture,
  type Harness,
  LogBuilder,
  makeHeader,
  startHarness,
} from '../persistence/fixtures.js'
import { type PostgresCluster, startPostgresCluster } from '../support/postgres-cluster.js'
import { fc } from '../support/property.js'
import { createTempDir, removeTempDir } from '../support/temp-dir.js'
import { reportFigure, SEED, sized } from './size.js'

const RUNS = sized({ ci: 5_000, full: 100_000 })

const FRAGMENTS = [
  '..',
  '.',
  '/',
  '\\',
  '../',
  '..\\',
  '~',
  '~002F',
  '%2F',
  '%2e%2e',
  '\u0000',
  '\ud800',
  '\udc00',
  '\ud83d\udcac',
  'CON',
  'nul',
  ':',
  '*',
  '?',
  '"',
  '\n',
  '\r',
  ' ',
  '\u202e',
  '\ufeff',
  '.jsonl',
  '.lock',
  '-journal',
  "'; DROP TABLE sessions; --",
  'A',
  'a',
  'é',
  'e\u0301',
]

/** Path tricks, unicode look-alikes, odd units, and lengths around the limit. */
const hostileId = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 8 }).map((p) => p.join('')),
  },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 0, maxLength: 24 }) },
  {
    weight: 2,
    arbitrary: fc.string({
      unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
      maxLength: 16,
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.integer({ min: MAX_SESSION_ID_LENGTH - 2, max: MAX_SESSION_ID_LENGTH + 2 }),
        fc.constantFrom('x', '/', '~', '💬'),
      )
      .map(([length, unit]) => unit.repeat(length).slice(0, length)),
  },
)

let root: string
let cluster: PostgresCluster | undefined
let harnesses: { name: string; harness: Harness; sessions?: string }[] = []

beforeAll(async () => {
  root = createTempDir('dsh-rel-ids-')
  // Under CI a missing server fails here (startPostgresCluster throws); the suite never skips it.
  cluster = await startPostgresCluster()
  const fixtures: [string, BackendFixture, string?][] = [
    ['memory', { plugin: MemorySessionBackend, config: undefined, durable: false } as BackendFixture],
    [
      'jsonl',
      {
        plugin: JsonlSessionBackend,
        config: { root: join(root, 'jsonl', 'sessions') },
        durable: true,
      } as BackendFixture,
      join(root, 'jsonl', 'sessions'),
    ],
    [
      'sqlite',
      {
        plugin: SqliteSessionBackend,
        config: { file: join(root, 'sqlite', 'sessions.db') },
        durable: true,
      } as BackendFixture,
      join(root, 'sqlite'),
    ],
    [
      'postgres',
      {
        plugin: PostgresSessionBackend,
        config: { url: cluster.url, schema: 'hostile_ids', heartbeatMs: 0 },
        durable: true,
      } as BackendFixture,
    ],
  ]
  harnesses = []
  for (const [name, fixture, sessions] of fixtures) {
    harnesses.push({ name, harness: await startHarness(fixture), ...(sessions ? { sessions } : {}) })
  }
})

afterAll(async () => {
  for (const { harness } of harnesses) await harness.dispose()
  await cluster?.stop()
  removeTempDir(root)
})

/** Every path under `dir`. */
function walk(dir: string): string[] {
  const found: string[] = []
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry)
    found.push(path)
    if (statSync(path).isDirectory()) found.push(...walk(path))
  }
  return found
}

it(
  `${RUNS} hostile ids: one decision on every backend, no escape, no collision`,
  async () => {
    const started = Date.now()
    const seen = new Set<string>()
    let accepted = 0
    let rejected = 0
    await fc.assert(
      fc.asyncProperty(hostileId, async (raw) => {
        if (seen.has(raw)) return
        seen.add(raw)
        const id = raw as SessionId
        const valid = sessionIdProblem(id) === undefined
        const events = new LogBuilder().add('user/message', { text: id.slice(0, 64) }).events
        for (const { name, harness, sessions } of harnesses) {
          const backend = harness.backend()
          const outcome = await backend.create(makeHeader(id)).then(
            () => undefined,
            (error: unknown) => error,
          )
          if (!valid) {
            expect(outcome, `${name} must refuse ${JSON.stringify(id)}`).toBeInstanceOf(Error)
            const error = outcome as Error & { code?: string; userFacing?: boolean }
            expect(error.userFacing, `${name}: ${error.message}`).toBe(true)
            expect(error.message).toMatch(/session id/)
            // One code from every backend (RELIABILITY.md, finding 4).
            expect(error.code, `${name}: ${error.message}`).toBe('SESSION_INVALID_ID')
            continue
          }
          expect(outcome, `${name} must accept ${JSON.stringify(id)}`).toBeUndefined()
          const location = backend.locate(makeHeader(id))
          if (sessions && location?.path) {
            const inside = relative(sessions, location.path)
            expect(
              inside.startsWith(`..${sep}`) || inside === '..',
              `${name}: ${location.path} escapes`,
            ).toBe(false)
          }
          await backend.append(id, events)
          await backend.release(id)
        }
        if (valid) accepted++
        else rejected++
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    )
    // No collision: each backend lists exactly the accepted ids, and each loads as itself.
    for (const { name, harness, sessions } of harnesses) {
      const listed = (await harness.backend().list()).map((summary) => summary.header.id)
      expect(listed.length, name).toBe(accepted)
      expect(new Set(listed).size, name).toBe(accepted)
      if (sessions) {
        const top = join(root, name)
        for (const path of walk(top)) {
          expect(path.startsWith(sessions), `${name}: ${path} is outside the sessions folder`).toBe(true)
        }
      }
    }
    const sample = [...seen].filter((id) => sessionIdProblem(id) === undefined).slice(0, 200)
    for (const { name, harness } of harnesses) {
      for (const id of sample) {
        const loaded = await harness.backend().load(id as SessionId)
        expect(loaded.header.id, name).toBe(id)
        expect(loaded.events).toHaveLength(1)
      }
    }
    reportFigure('hostile-ids', {
      runs: RUNS,
      distinct: seen.size,
      accepted,
      rejected,
      backends: harnesses.length,
      escapes: 0,
      collisions: 0,
      disagreements: 0,
      ms: Date.now() - started,
    })
  },
  // Four backends, PostgreSQL among them: longer than the main suite's 30 s default on a busy machine.
  sized({ ci: 600_000, full: 3_600_000 }),
)
