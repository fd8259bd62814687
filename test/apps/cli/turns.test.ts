// The TURNS column: the last turn number read from the end of a JSONL log.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { turnsFromTail } from '../../../src/apps/cli/turns.js'
import { eventLines, headerLine } from '../../../src/persistence/jsonl/codec.js'
import type { SessionEvent } from '../../../src/session/types.js'
import { useTempDirs } from '../../support/temp-dir.js'

const makeDir = useTempDirs('dsh-cli-turns-')
const header = headerLine({ version: 1, id: 's', createdAt: 1, delegationDepth: 0 })

function log(turns: number, filler = ''): string {
  const events: SessionEvent[] = []
  const add = (type: string, data: unknown) => events.push({ seq: events.length, type, time: 1, data })
  for (let turn = 1; turn <= turns; turn++) {
    add('turn/start', { turn })
    add('user/message', { text: `prompt ${turn} "type":"turn/start" ${filler}` })
    add('tool/result', { callId: 'c', content: filler })
    add('turn/end', { turn, reason: 'completed' })
  }
  return header + eventLines(events)
}

it('reads the last turn number from small and large logs', () => {
  const dir = makeDir()
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text)
    return join(dir, name)
  }
  expect(turnsFromTail(write('empty.jsonl', header))).toBe(0)
  expect(turnsFromTail(write('small.jsonl', log(3)))).toBe(3)
  expect(turnsFromTail(write('large.jsonl', log(40, 'x'.repeat(2_000))))).toBe(40)
  // An open turn counts; a torn last line is skipped.
  expect(
    turnsFromTail(write('open.jsonl', `${log(2)}{"seq":8,"type":"turn/start","time":1,"data":{"turn":3}}\n`)),
  ).toBe(3)
  expect(turnsFromTail(write('torn.jsonl', `${log(2)}{"seq":8,"type":"turn/start","ti`))).toBe(2)
  // The last marker lies further back than the window: unknown, not a guess.
  const big = `{"seq":4,"type":"context/added","time":1,"data":{"source":"x","text":"${'y'.repeat(20_000)}"}}\n`
  expect(turnsFromTail(write('far.jsonl', log(1) + big))).toBeNull()
  expect(turnsFromTail(join(dir, 'missing.jsonl'))).toBeNull()
})
