// The settings a log records (session/settings snapshots; older logs: the last
// request/config) and where a fork "at turn N" cuts the log.

import { describe, expect, it } from 'vitest'
import { recordedSettings, SessionErrorCode, turnEndBoundary } from '../../src/session/index.js'
import type { SessionEvent } from '../../src/session/types.js'
import { thrownBy as thrown } from '../support/thrown.js'

function log(...items: [string, unknown][]): SessionEvent[] {
  return items.map(([type, data], seq) => ({ seq, type, time: seq, data }))
}

const turn = (n: number): [string, unknown][] => [
  ['turn/start', { turn: n }],
  ['user/message', { text: `prompt ${n}` }],
  ['turn/end', { turn: n, reason: 'completed' }],
]

describe('recorded settings', () => {
  it('the last snapshot wins; an older log gives its last request model and effort; bad efforts are dropped', () => {
    expect(recordedSettings([])).toEqual({})
    const older = log(['request/config', { model: 'a', effort: 'low', system: '', tools: [] }])
    expect(recordedSettings(older)).toEqual({ model: 'a', effort: 'low' })
    const newer = log(
      ['session/settings', { model: 'a', effort: 'low', mode: 'plan' }],
      ['request/config', { model: 'a', effort: 'low', system: '', tools: [] }],
      ['session/settings', { model: 'b', effort: 'extreme', mode: 'auto' }],
    )
    expect(recordedSettings(newer)).toEqual({ model: 'b', mode: 'auto' })
  })
})

describe('turnEndBoundary', () => {
  const events = log(...turn(1), ...turn(2), ['context/compacted', {}], ...turn(3), [
    'turn/start',
    { turn: 4 },
  ])

  it('cuts right after the turn/end of turn N', () => {
    expect(turnEndBoundary(events, 1)).toBe(3)
    expect(turnEndBoundary(events, 2)).toBe(6)
    expect(turnEndBoundary(events, 3)).toBe(10)
  })

  it('refuses 0, a fraction, a turn past the end and a turn that never ended, in one line', () => {
    for (const [n, message] of [
      [0, 'cannot fork at turn 0: its turns are 1 to 4'],
      [1.5, 'cannot fork at turn 1.5: its turns are 1 to 4'],
      [5, 'cannot fork at turn 5: its turns are 1 to 4'],
      [4, 'cannot fork at turn 4: it has not ended'],
    ] as const) {
      const error = thrown(() => turnEndBoundary(events, n))
      expect(error).toMatchObject({ code: SessionErrorCode.BadTurn, message, userFacing: true })
    }
    expect(thrown(() => turnEndBoundary([], 1))).toMatchObject({
      message: 'cannot fork at turn 1: the session has no turns yet',
    })
  })
})
