// The JSONL backend on real files: locate without I/O, lazy atomic materialization,
// the header line, file modes, hostile ids under the root, listing, id errors.

import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { isAbsolute, join, relative, sep } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isDshError } from '../../../src/core/errors.js'
import { PersistenceErrorCode } from '../../../src/persistence/errors.js'
import { MAX_SESSION_ID_LENGTH } from '../../../src/persistence/jsonl/layout.js'
import type { SessionLocation } from '../../../src/persistence/types.js'
import { SessionErrorCode } from '../../../src/session/errors.js'
import type { SessionId } from '../../../src/session/types.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { rejectionOf } from '../../support/thrown.js'
import { LogBuilder, makeHeader, useJsonlHarnesses } from '../fixtures.js'

const tempDir = useTempDirs('dsh-jsonl-files-')
const start = useJsonlHarnesses()

function tree(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()
}

function jsonlPath(location: SessionLocation | undefined): string {
  expect(location?.kind).toBe('jsonl')
  return location!.path
}

describe('JSONL locate', () => {
  it('does no I/O: no file or folder appears, even for a root that does not exist', async () => {
    const base = tempDir()
    const root = join(base, 'sessions')
    const harness = await start(root)
    const ids: SessionId[] = ['plain', '../../escape', 'x'.repeat(1000), '.', '~']
    for (const id of ids) {
      for (const cwd of [undefined, '/home/a', '/home/b']) {
        const path = jsonlPath(harness.backend().locate(makeHeader(id, cwd === undefined ? {} : { cwd })))
        expect(isAbsolute(path)).toBe(true)
        expect(path.startsWith(root + sep)).toBe(true)
        expect(path.endsWith('.jsonl')).toBe(true)
      }
    }
    expect(tree(base)).toEqual([])
  })

  it('is the same before and after materialization and after resume; a fork gets another', async () => {
    const root = join(tempDir(), 'sessions')
    let harness = await start(root)
    const session = await harness.store().create({ id: 'stable', cwd: '/work/stable' })
    const before = jsonlPath(harness.backend().locate(session.header))
    expect(existsSync(before)).toBe(false)

    session.append('turn/start', { turn: 0 })
    session.append('turn/end', { turn: 0, reason: 'completed' })
    await harness.store().flush(session)
    expect(existsSync(before)).toBe(true)
    expect(jsonlPath(harness.backend().locate(session.header))).toBe(before)

    const fork = await harness.store().fork(session)
    const forkPath = jsonlPath(harness.backend().locate(fork.header))
    expect(forkPath).not.toBe(before)
    expect(relative(root, forkPath).split(sep)[0]).toBe(relative(root, before).split(sep)[0]) // same cwd bucket
    await harness.store().close(session)
    await harness.store().close(fork)
    await harness.dispose()

    harness = await start(root)
    const resumed = await harness.store().open('stable')
    expect(jsonlPath(harness.backend().locate(resumed.header))).toBe(before)
  })

  it('resolves a relative root to an absolute path once, at construction', async () => {
    const harness = await start('relative/sessions')
    const path = jsonlPath(harness.backend().locate(makeHeader('r')))
    expect(path).toBe(join(process.cwd(), 'relative', 'sessions', '_no-cwd', 'r.jsonl'))
  })
})

describe('JSONL materialization', () => {
  it('writes nothing on create; the first flush publishes the header line and events', async () => {
    const base = tempDir()
    const root = join(base, 'sessions')
    const harness = await start(root)
    const session = await harness.store().create({ id: 'lazy/one', cwd: '/w' })
    expect(tree(base)).toEqual([])
    session.append('turn/start', { turn: 0 })
    session.append('user/message', { text: 'héllo 💬' })
    await harness.store().flush(session)

    const path = jsonlPath(harness.backend().locate(session.header))
    const lines = readFileSync(path, 'utf8').split('\n')
    expect(lines.at(-1)).toBe('')
    expect(JSON.parse(lines[0]!)).toEqual({ type: 'session', ...session.header })
    expect(lines.slice(1, -1).map((line) => JSON.parse(line).seq)).toEqual([0, 1])
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(statSync(root).mode & 0o777).toBe(0o700)
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700)
    // Only the log and this process's writer lock; no temporary file is left behind.
    expect(tree(root).filter((name) => name.includes(sep))).toEqual([
      relative(root, path),
      `${relative(root, path)}.lock`,
    ])
    await harness.store().close(session)
    expect(tree(root).filter((name) => name.includes(sep))).toEqual([relative(root, path)])
  })

  it('never overwrites: a file that appeared meanwhile refuses the publication', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await start(root)
    const header = makeHeader('raced')
    await harness.backend().create(header)
    const path = jsonlPath(harness.backend().locate(header))
    const other = (await start(root)).backend()
    await other.create(header)
    await other.append('raced', new LogBuilder().add('user/message', { text: 'first' }).events)
    await other.release('raced')
    const before = readFileSync(path)
    const error = await rejectionOf(
      harness.backend().append('raced', new LogBuilder().add('user/message', { text: 'second' }).events),
    )
    expect(isDshError(error, PersistenceErrorCode.AlreadyExists)).toBe(true)
    expect(readFileSync(path)).toEqual(before)
  })

  it('refuses the same id under another cwd bucket', async () => {
    const harness = await start(join(tempDir(), 'sessions'))
    await harness.backend().create(makeHeader('twin', { cwd: '/a' }))
    await harness.backend().append('twin', new LogBuilder().add('user/message', { text: 'a' }).events)
    const error = await rejectionOf(harness.backend().create(makeHeader('twin', { cwd: '/b' })))
    expect(isDshError(error, PersistenceErrorCode.AlreadyExists)).toBe(true)
  })

  it('keeps hostile ids under the root, in distinct files, round-tripping', async () => {
    const base = tempDir()
    const root = join(base, 'sessions')
    const harness = await start(root)
    const ids: SessionId[] = [
      '../../etc/passwd',
      'a/b',
      '.',
      '..',
      '~',
      '\u0001',
      '\ud83d\udcac',
      '\u2028',
      'x'.repeat(1000),
      `${'x'.repeat(999)}y`,
      'Mixed',
      'mixed',
      '/abs/path',
      '\\windows\\path',
    ]
    const paths = new Set<string>()
    for (const id of ids) {
      const header = makeHeader(id, { cwd: '../../cwd/escape' })
      await harness.backend().create(header)
      await harness.backend().append(id, new LogBuilder().add('user/message', { text: id }).events)
      paths.add(jsonlPath(harness.backend().locate(header)))
    }
    expect(paths.size).toBe(ids.length)
    expect(readdirSync(base)).toEqual(['sessions'])
    const files = tree(root).filter((name) => name.endsWith('.jsonl'))
    expect(files).toHaveLength(ids.length)
    for (const file of files) expect(file.split(sep)).toHaveLength(2)
    for (const id of ids) {
      const loaded = await harness.backend().load(id)
      expect(loaded.header.id).toBe(id)
      expect((loaded.events[0]!.data as { text: string }).text).toBe(id)
    }
  })

  it('reports an empty or too-long id clearly, never ENAMETOOLONG, writing nothing', async () => {
    const base = tempDir()
    const harness = await start(join(base, 'sessions'))
    const empty = await rejectionOf(harness.backend().create(makeHeader('')))
    expect(isDshError(empty, SessionErrorCode.InvalidId)).toBe(true)
    const tooLong = makeHeader('x'.repeat(MAX_SESSION_ID_LENGTH + 1))
    const error = await rejectionOf(harness.backend().create(tooLong))
    expect(isDshError(error, SessionErrorCode.InvalidId)).toBe(true)
    expect((error as { userFacing: boolean }).userFacing).toBe(true)
    expect(() => harness.backend().locate(tooLong)).toThrow(/maximum/)
    const longest = makeHeader('~'.repeat(MAX_SESSION_ID_LENGTH))
    await harness.backend().create(longest)
    await harness.backend().append(longest.id, new LogBuilder().add('user/message', { text: 'ok' }).events)
    expect((await harness.backend().load(longest.id)).header.id).toBe(longest.id)
  })
})

describe('JSONL list', () => {
  it('summarizes from head and tail: a title past a large first event, counts of large files', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await start(root)
    const log = new LogBuilder()
      .add('request/config', { system: 's'.repeat(40_000), tools: [{ type: 'user/message' }] })
      .completedTurn(0, 'the title')
    for (let turn = 1; turn < 200; turn++) log.completedTurn(turn, `turn ${turn}`)
    log.add('tool/result', { callId: 'late', content: 'z'.repeat(20_000) })
    await harness.backend().create(makeHeader('big', { cwd: '/big' }))
    await harness.backend().append('big', log.events)
    await harness.backend().create(makeHeader('empty-title', { cwd: '/other' }))
    await harness.backend().append('empty-title', new LogBuilder().add('turn/start', { turn: 0 }).events)

    const summaries = (await harness.backend().list()).sort((a, b) => a.header.id.localeCompare(b.header.id))
    expect(summaries.map((summary) => [summary.header.id, summary.eventCount, summary.title])).toEqual([
      ['big', log.events.length, 'the title'],
      ['empty-title', 1, undefined],
    ])
    expect(summaries[0]!.lastActivity).toBe(log.events.at(-1)!.time)
  })

  it('lists a crashed file by its last whole line and skips an unreadable one', async () => {
    const root = join(tempDir(), 'sessions')
    const harness = await start(root)
    const log = new LogBuilder().completedTurn(0, 'kept')
    const header = makeHeader('torn')
    await harness.backend().create(header)
    await harness.backend().append('torn', log.events)
    await harness.backend().release('torn')
    const path = jsonlPath(harness.backend().locate(header))
    writeFileSync(path, `${readFileSync(path, 'utf8')}{"seq":9,"ty`)
    writeFileSync(join(path, '..', 'garbage.jsonl'), 'not json\n')

    const summaries = await harness.backend().list()
    expect(summaries.map((summary) => [summary.header.id, summary.eventCount])).toEqual([
      ['torn', log.events.length],
    ])
  })
})
