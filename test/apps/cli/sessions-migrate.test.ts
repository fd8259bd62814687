// `dsh sessions migrate` through the real CLI: JSONL → SQLite or PostgreSQL → JSONL gives back
// byte-identical event lines (and equal headers), and running it again copies nothing twice.

import { readdirSync, readFileSync, realpathSync } from 'node:fs'
import { join, relative } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { migrateSummary } from '../../../src/apps/cli/sessions-migrate.js'
import { JsonlSessionBackend } from '../../../src/persistence/jsonl/backend.js'
import { LogBuilder, makeHeader, startHarness } from '../../persistence/fixtures.js'
import { describePostgres, describeSkipReason, useCluster } from '../../support/postgres.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, makeWorld, runCli } from './cli.js'

const makeDir = useTempDirs('dsh-migrate-')

function files(root: string): Map<string, string> {
  const found = new Map<string, string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else found.set(relative(root, path), readFileSync(path, 'utf8'))
    }
  }
  walk(root)
  return found
}

/** Five sessions with hostile ids and awkward JSON values, written by the real JSONL backend. */
async function seedJsonl(root: string): Promise<void> {
  const harness = await startHarness({
    plugin: JsonlSessionBackend,
    config: { root },
    durable: true,
  })
  const ids = ['plain', 'tab\tand ~tilde', '💬 unicode', '../escape', 'x'.repeat(300)]
  for (const [index, id] of ids.entries()) {
    const log = new LogBuilder()
      .completedTurn(0, `question ${index} with a NUL \u0000 and ünïcödé`)
      .addIgnorable('x/custom', { z: 1, a: [1.5, -0, 1e21, 'ß'], m: { b: null, a: true } })
      .completedTurn(1, 'again')
    await harness
      .backend()
      .create(makeHeader(id, { cwd: `/work/p${index % 2}`, createdAt: 1_700_000_000_000 + index }))
    await harness.backend().append(id, log.events)
    await harness.backend().release(id)
  }
  await harness.dispose()
}

/** Event lines byte for byte; header lines hold the same fields (their order is the reader's). */
function expectSameJsonl(rootA: string, rootB: string): void {
  const original = files(rootA)
  const copied = files(rootB)
  expect([...copied.keys()].sort()).toEqual([...original.keys()].sort())
  for (const [path, text] of original) {
    const [header, ...events] = text.split('\n')
    const [copiedHeader, ...copiedEvents] = copied.get(path)!.split('\n')
    expect(JSON.parse(copiedHeader!), path).toEqual(JSON.parse(header!))
    expect(copiedEvents.join('\n'), path).toBe(events.join('\n'))
  }
}

it('counts in words: one session, one event', () => {
  const report = { copied: 1, extended: 0, events: 1, present: 0, empty: 0, problems: 0 }
  expect(migrateSummary(report, true, 'jsonl', 'sqlite')).toBe(
    'would copy 1 session and extend 0 (1 event) from jsonl to sqlite; 0 already there; 0 not copied',
  )
  expect(migrateSummary({ ...report, copied: 2, events: 8 }, false, 'jsonl', 'sqlite')).toBe(
    'copied 2 sessions and extended 0 (8 events) from jsonl to sqlite; 0 already there; 0 not copied',
  )
})

describe('dsh sessions migrate with SQLite', { timeout: 120_000 }, () => {
  beforeAll(assertBuilt)

  it('round-trips JSONL → SQLite → JSONL byte-identical, idempotently', async () => {
    const rootA = join(realpathSync(makeDir()), 'sessions')
    const rootB = join(realpathSync(makeDir()), 'sessions')
    const db = join(realpathSync(makeDir()), 'sessions.db')
    const config = (root: string) => `persistence:\n  backend: jsonl\n  root: ${root}\n  file: ${db}\n`
    const a = makeWorld(makeDir(), 'http://127.0.0.1:9', config(rootA))
    const b = makeWorld(makeDir(), 'http://127.0.0.1:9', config(rootB))
    await seedJsonl(rootA)

    const dry = await runCli(['sessions', 'migrate', '--from', 'jsonl', '--to', 'sqlite', '--dry-run'], {
      env: a.env,
    })
    expect(dry.code).toBe(0)
    expect(dry.stdout.split('\n').at(-2)).toBe(
      'would copy 5 sessions and extend 0 (95 events) from jsonl to sqlite; 0 already there; 0 not copied',
    )
    const there = await runCli(['sessions', 'migrate', '--from', 'jsonl', '--to', 'sqlite'], { env: a.env })
    expect(there.stderr).toBe('')
    expect(there.code).toBe(0)
    expect(there.stdout).toBe(
      'copied 5 sessions and extended 0 (95 events) from jsonl to sqlite; 0 already there; 0 not copied\n',
    )
    const again = await runCli(['sessions', 'migrate', '--from', 'jsonl', '--to', 'sqlite'], { env: a.env })
    expect(again.stdout).toMatch(
      /^copied 0 sessions and extended 0 \(0 events\) .*; 5 already there; 0 not copied\n$/,
    )

    const back = await runCli(['sessions', 'migrate', '--from', 'sqlite', '--to', 'jsonl'], { env: b.env })
    expect(back.stderr).toBe('')
    expect(back.code).toBe(0)
    expect(back.stdout).toMatch(/^copied 5 sessions/)
    expectSameJsonl(rootA, rootB)
  })
})

describePostgres(`dsh sessions migrate${describeSkipReason()}`, { timeout: 120_000 }, () => {
  const pg = useCluster()
  beforeAll(assertBuilt)

  it('round-trips JSONL → PostgreSQL → JSONL byte-identical, idempotently', async () => {
    const schema = pg.schema()
    const config = (root: string) =>
      `persistence:\n  backend: jsonl\n  root: ${root}\n  url: ${pg.cluster.url}\n  schema: ${schema}\n`
    const rootA = join(realpathSync(makeDir()), 'sessions')
    const rootB = join(realpathSync(makeDir()), 'sessions')
    const a = makeWorld(makeDir(), 'http://127.0.0.1:9', config(rootA))
    const b = makeWorld(makeDir(), 'http://127.0.0.1:9', config(rootB))

    await seedJsonl(rootA)

    const there = await runCli(['sessions', 'migrate', '--from', 'jsonl', '--to', 'postgres'], { env: a.env })
    expect(there.stderr).toBe('')
    expect(there.code).toBe(0)
    expect(there.stdout).toMatch(
      /^copied 5 sessions and extended 0 \(95 events\) from jsonl to postgres; 0 already there; 0 not copied\n$/,
    )
    const again = await runCli(['sessions', 'migrate', '--from', 'jsonl', '--to', 'postgres'], { env: a.env })
    expect(again.stdout).toMatch(
      /^copied 0 sessions and extended 0 \(0 events\) .*; 5 already there; 0 not copied\n$/,
    )

    const back = await runCli(['sessions', 'migrate', '--from', 'postgres', '--to', 'jsonl'], { env: b.env })
    expect(back.code).toBe(0)
    expect(back.stdout).toMatch(/^copied 5 sessions/)
    expectSameJsonl(rootA, rootB)
  })

  it('refuses a bad backend name as a usage error', async () => {
    const w = makeWorld(makeDir(), 'http://127.0.0.1:9')
    const bad = await runCli(['sessions', 'migrate', '--from', 'csv', '--to', 'postgres'], { env: w.env })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toBe('dsh: --from must be one of jsonl, sqlite, postgres (got "csv")\n')
  })
})
