// Listing summaries read from a JSONL log's head and tail: the last turn number from
// small and large logs, open turns, and a last turn marker far from the end.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { eventLines, headerLine } from '../../../src/persistence/jsonl/codec.js'
import { summarizeLogSync } from '../../../src/persistence/jsonl/reader.js'
import type { SessionEvent } from '../../../src/session/types.js'
import { useTempDirs } from '../../support/temp-dir.js'

const makeDir = useTempDirs('dsh-jsonl-summary-')
const header = headerLine({ version: 1, id: 's', createdAt: 1, delegationDepth: 0 })

/** Whole turns; each user message also holds the text of a turn marker, which must not count. */
function turns(count: number, filler = ''): SessionEvent[] {
  const events: SessionEvent[] = []
  const add = (type: string, data: unknown) => events.push({ seq: events.length, type, time: 1, data })
  for (let turn = 1; turn <= count; turn++) {
    add('turn/start', { turn })
    add('user/message', { text: `prompt ${turn} "type":"turn/start" ${filler}` })
    add('tool/result', { callId: 'c', content: filler })
    add('turn/end', { turn, reason: 'completed' })
  }
  return events
}

it('reads the last turn number from the end of small and large logs, open turns included', () => {
  const dir = makeDir()
  const summarize = (name: string, events: SessionEvent[]) => {
    writeFileSync(join(dir, name), header + eventLines(events))
    return summarizeLogSync(join(dir, name))
  }
  expect(summarize('empty.jsonl', [])).toMatchObject({ eventCount: 0, turns: 0 })
  expect(summarize('small.jsonl', turns(3))).toMatchObject({ eventCount: 12, turns: 3 })
  expect(summarize('large.jsonl', turns(40, 'x'.repeat(2_000)))).toMatchObject({ eventCount: 160, turns: 40 })
  const open = [...turns(2), { seq: 8, type: 'turn/start', time: 1, data: { turn: 3 } }]
  expect(summarize('open.jsonl', open)).toMatchObject({ turns: 3 })
  // The last turn marker lies far behind the end (a big event after it): found further back.
  const far = [
    ...turns(1),
    { seq: 4, type: 'context/added', time: 1, data: { source: 'x', text: 'y'.repeat(50_000) } },
  ]
  expect(summarize('far.jsonl', far)).toMatchObject({ eventCount: 5, turns: 1 })
})
