// JSONL crash repair on real files: torn tails cut at every byte, damaged open
// tails, and refusal of damage before a committed turn end.

import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isDshError } from '../../../src/core/errors.js'
import { PersistenceErrorCode } from '../../../src/persistence/errors.js'
import { JsonlSessionBackend } from '../../../src/persistence/jsonl/backend.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { rejectionOf } from '../../support/thrown.js'
import { LogBuilder, makeHeader, plain, startHarness, useJsonlHarnesses } from '../fixtures.js'

const tempDir = useTempDirs('dsh-jsonl-repair-')
const start = useJsonlHarnesses()

/** Writes a session through a backend that is then disposed; returns the file path. */
async function writeSession(root: string, id: string, log: LogBuilder): Promise<string> {
  const harness = await startHarness({ plugin: JsonlSessionBackend, config: { root }, durable: true })
  const header = makeHeader(id)
  await harness.backend().create(header)
  await harness.backend().append(id, log.events)
  const path = harness.backend().locate(header)!.path
  await harness.dispose()
  return path
}

function lines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n')
}

describe('JSONL crash repair', () => {
  it('loads a log cut at every byte offset of its last line, drops only the torn part, persists closers', async () => {
    const root = join(tempDir(), 'sessions')
    const log = new LogBuilder().completedTurn(0, 'first').openTurn(1, 'second')
    log.add('tool/result', { callId: 'b1', content: 'ünïcödé 💬 output' })
    const path = await writeSession(root, 'torn', log)
    const original = readFileSync(path)
    const lastLineStart = original.lastIndexOf(0x0a, original.length - 2) + 1
    const kept = log.events.slice(0, -1)

    const harness = await start(root)
    for (let cut = lastLineStart; cut < original.length; cut++) {
      writeFileSync(path, original.subarray(0, cut))
      const readOnly = await harness.backend().load('torn')
      expect(plain(readOnly.events), `read-only at ${cut}`).toEqual(kept)
      expect(readFileSync(path), 'a read-only load writes nothing').toEqual(original.subarray(0, cut))
      const loaded = await harness.backend().open('torn')
      await harness.backend().release('torn')
      const events = plain(loaded.events)
      expect(events.slice(0, kept.length), `cut at ${cut}`).toEqual(kept)
      expect(events.slice(kept.length).map((event) => event.type)).toEqual([
        'tool/result',
        'step/end',
        'turn/end',
      ])
      expect(events.at(-1)!.data).toEqual({ turn: 1, reason: 'interrupted' })

      const repaired = readFileSync(path)
      expect(repaired.subarray(0, lastLineStart)).toEqual(original.subarray(0, lastLineStart))
      expect(repaired.at(-1)).toBe(0x0a)
      expect(plain((await harness.backend().load('torn')).events)).toEqual(events)
      expect(readFileSync(path)).toEqual(repaired)
    }
  })

  it('truncates a torn tail longer than the closers written in its place', async () => {
    const root = join(tempDir(), 'sessions')
    const log = new LogBuilder().completedTurn(0, 'first').openTurn(1, 'second')
    log.add('tool/result', { callId: 'b1', content: 'x'.repeat(100_000) })
    const path = await writeSession(root, 'long-tear', log)
    const original = readFileSync(path)
    const lastLineStart = original.lastIndexOf(0x0a, original.length - 2) + 1
    writeFileSync(path, original.subarray(0, lastLineStart + 60_000)) // torn inside the big line

    const harness = await start(root)
    const opened = await harness.backend().open('long-tear')
    await harness.backend().release('long-tear')
    const repaired = readFileSync(path, 'utf8')
    expect(repaired.length).toBeLessThan(lastLineStart + 2_000)
    expect(repaired.endsWith('\n')).toBe(true)
    const stored = repaired.trimEnd().split('\n')
    for (const line of stored) JSON.parse(line) // no leftover of the torn line
    expect(stored).toHaveLength(1 + opened.events.length)
    expect(plain((await harness.backend().load('long-tear')).events)).toEqual(plain(opened.events))
    expect(opened.events.at(-1)!.data).toEqual({ turn: 1, reason: 'interrupted' })
  })

  it('cuts a torn tail after a completed turn, adds no closers, and appends cleanly after it', async () => {
    const root = join(tempDir(), 'sessions')
    const log = new LogBuilder().completedTurn(0, 'done')
    const path = await writeSession(root, 'tear-after-end', log)
    const whole = readFileSync(path)
    writeFileSync(path, Buffer.concat([whole, Buffer.from('{"seq":9,"type":"turn/sta')]))

    const harness = await start(root)
    const opened = await harness.backend().open('tear-after-end')
    expect(plain(opened.events)).toEqual(log.events)
    expect(readFileSync(path)).toEqual(whole)
    const next = new LogBuilder()
      .completedTurn(0, 'done')
      .completedTurn(1, 'again')
      .events.slice(log.events.length)
    await harness.backend().append('tear-after-end', next)
    await harness.backend().release('tear-after-end')
    expect(plain((await harness.backend().load('tear-after-end')).events)).toEqual([...log.events, ...next])
  })

  it('cuts a damaged line in the open tail with everything after it', async () => {
    const root = join(tempDir(), 'sessions')
    const log = new LogBuilder().completedTurn(0, 'first').openTurn(1, 'second')
    const path = await writeSession(root, 'open-damage', log)
    const text = lines(path)
    const damagedAt = text.length - 3 // a line inside the open turn, two whole lines after it
    text[damagedAt] = '{"seq": broken'
    writeFileSync(path, text.join('\n'))

    const harness = await start(root)
    const before = readFileSync(path)
    expect(plain((await harness.backend().load('open-damage')).events)).toHaveLength(damagedAt - 1)
    expect(readFileSync(path)).toEqual(before)
    const loaded = await harness.backend().open('open-damage')
    const kept = damagedAt - 1 // header is line 0
    expect(plain(loaded.events.slice(0, kept))).toEqual(log.events.slice(0, kept))
    expect(loaded.events.slice(kept).map((event) => event.type)).toEqual([
      'tool/result',
      'step/end',
      'turn/end',
    ])
    expect(lines(path).some((line) => line.includes('broken'))).toBe(false)
  })

  it('refuses damage before a later turn/end, naming the file and line, and leaves the file alone', async () => {
    const root = join(tempDir(), 'sessions')
    const log = new LogBuilder().completedTurn(0, 'committed').completedTurn(1, 'also committed')
    const path = await writeSession(root, 'corrupt', log)
    const text = lines(path)
    text[3] = text[3]!.slice(0, 10)
    writeFileSync(path, text.join('\n'))
    const before = readFileSync(path)

    const harness = await start(root)
    const error = await rejectionOf(harness.backend().load('corrupt'))
    expect(isDshError(error, PersistenceErrorCode.Corrupt)).toBe(true)
    expect((error as Error).message).toContain(path)
    expect((error as Error).message).toContain('line 4')
    expect(readFileSync(path)).toEqual(before)
  })

  it.each([
    ['an unknown event type', (line: string) => line.replace('"user/message"', '"user/shout"')],
    ['a seq gap', (line: string) => line.replace('"seq":1,', '"seq":7,')],
    ['data that is not there', (line: string) => line.replace(/,"data":.*\}$/, '}')],
  ])('treats %s before a committed turn as corruption', async (_name, damage) => {
    const root = join(tempDir(), 'sessions')
    const path = await writeSession(root, 'invalid', new LogBuilder().completedTurn(0, 'x'))
    const text = lines(path)
    const index = 2 // the user/message line, seq 1, inside the committed turn
    text[index] = damage(text[index]!)
    expect(text[index]).not.toBe(lines(path)[index])
    writeFileSync(path, text.join('\n'))
    const harness = await start(root)
    const error = await rejectionOf(harness.backend().load('invalid'))
    expect(isDshError(error, PersistenceErrorCode.Corrupt)).toBe(true)
  })

  it('accepts unknown event types marked ignorable', async () => {
    const root = join(tempDir(), 'sessions')
    const log = new LogBuilder().addIgnorable('future/thing', { x: 1 }).completedTurn(0, 'x')
    await writeSession(root, 'ignorable', log)
    const harness = await start(root)
    expect(plain((await harness.backend().load('ignorable')).events)).toEqual(log.events)
  })

  it('refuses a damaged header', async () => {
    const root = join(tempDir(), 'sessions')
    const path = await writeSession(root, 'header', new LogBuilder().completedTurn(0, 'x'))
    const text = lines(path)
    text[0] = text[0]!.replace('"delegationDepth":0', '"delegationDepth":"deep"')
    writeFileSync(path, text.join('\n'))
    const harness = await start(root)
    const error = await rejectionOf(harness.backend().load('header'))
    expect(isDshError(error, PersistenceErrorCode.Corrupt)).toBe(true)
    expect((error as Error).message).toMatch(/line 1: invalid header \(delegationDepth/)
  })

  it('does not repair a session that is being written: its open turn is in progress', async () => {
    const root = join(tempDir(), 'sessions')
    const writer = await start(root)
    const log = new LogBuilder().completedTurn(0, 'x').openTurn(1, 'live')
    await writer.backend().create(makeHeader('live'))
    await writer.backend().append('live', log.events)
    const path = writer.backend().locate(makeHeader('live'))!.path
    const before = readFileSync(path)

    // Neither the writer itself nor another backend treats the live open turn as a crash.
    expect(plain((await writer.backend().load('live')).events)).toEqual(log.events)
    const reader = await start(root)
    expect(plain((await reader.backend().load('live')).events)).toEqual(log.events)
    expect(readFileSync(path)).toEqual(before)
    const error = await rejectionOf(
      reader
        .backend()
        .append(
          'live',
          new LogBuilder(log.events.length).add('turn/end', { turn: 1, reason: 'aborted' }).events,
        ),
    )
    expect(isDshError(error, PersistenceErrorCode.Locked)).toBe(true)
    expect((error as Error).message).toContain('"live"')
    expect(readFileSync(path)).toEqual(before)
  })
})
