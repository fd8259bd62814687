// scanLog reads a log in a small first chunk, then 1 MiB chunks once a log proves big: every
// event comes back whole at every size around those boundaries, long lines included.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { eventLines, headerLine } from '../../../src/persistence/jsonl/codec.js'
import { scanLog } from '../../../src/persistence/jsonl/reader.js'
import type { SessionEvent } from '../../../src/session/types.js'
import { emptyLedger } from '../../../src/usage/ledger.js'
import { useTempDirs } from '../../support/temp-dir.js'

const tempDir = useTempDirs('dsh-scan-')

function writeLog(textBytes: number, count: number): { path: string; events: SessionEvent[] } {
  const header = { version: 1, id: 's', createdAt: 1, cwd: '/w', delegationDepth: 0 }
  const events: SessionEvent[] = Array.from({ length: count }, (_, seq) => ({
    seq,
    type: 'user/message',
    time: seq,
    data: { text: `${seq}:${'é'.repeat(textBytes / 2)}` },
  }))
  const path = join(tempDir(), 's.jsonl')
  writeFileSync(path, headerLine(header) + eventLines(events, emptyLedger()))
  return { path, events }
}

it.each([
  ['tiny', 10, 3],
  ['just under 64 KiB', 60_000, 1],
  ['lines across the 64 KiB boundary', 30_000, 5],
  ['one line longer than 64 KiB', 200_000, 2],
  ['several MiB', 100_000, 40],
])('%s', async (_name, textBytes, count) => {
  const { path, events } = writeLog(textBytes, count)
  const scanned = await scanLog(path)
  expect(scanned.header.id).toBe('s')
  expect(scanned.events).toEqual(events)
  expect(scanned.damagedLine).toBeUndefined()
})
