// The session page's transcript model: events fold into items (tool cards get their
// results, exit codes and sub-agent links), repeats are ignored, live output is separate.

import { describe, expect, it } from 'vitest'
import { diffLines, LiveTurn, TranscriptModel } from '../../../src/apps/web/client/transcript.js'
import type { SessionEvent } from '../../../src/session/types.js'

function events(list: [string, unknown][]): SessionEvent[] {
  return list.map(([type, data], seq) => ({ seq, type, time: seq, data }))
}

describe('web transcript model', () => {
  it('folds a turn into items with tool cards, exit codes, sub-agent links and usage', () => {
    const model = new TranscriptModel()
    const log = events([
      ['turn/start', { turn: 1 }],
      ['user/message', { text: 'hi' }],
      [
        'assistant/message',
        {
          message: { content: '', reasoning: 'hmm' },
          usage: { promptTokens: 100, completionTokens: 10, totalTokens: 110, cachedTokens: 80 },
        },
      ],
      ['tool/call', { callId: 'a', name: 'bash', arguments: '{"command":"false"}' }],
      ['tool/call', { callId: 'b', name: 'subagent', arguments: '{"prompt":"x"}' }],
      ['tool/result', { callId: 'a', content: '(no output)\n[exit code: 1]' }],
      ['tool/result', { callId: 'b', content: '[sub-agent session parent-sub-1]\nanswer' }],
      [
        'assistant/message',
        { message: { content: 'done' }, usage: { promptTokens: 50, completionTokens: 5, totalTokens: 55 } },
      ],
      ['turn/end', { turn: 1, reason: 'completed' }],
    ])
    for (const event of log) model.add(event)
    expect(model.items.map((item) => item.kind)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'turn-end',
    ])
    const [bash, sub] = model.items.filter((item) => item.kind === 'tool')
    expect(bash!.kind === 'tool' && bash!.tool).toMatchObject({ command: 'false', exitCode: 1 })
    expect(sub!.kind === 'tool' && sub!.tool.subSession).toBe('parent-sub-1')
    expect(model.items.at(-1)).toMatchObject({
      kind: 'turn-end',
      usage: { input: 150, output: 15, cacheHit: 80 },
    })
    // A repeated event (two sources overlapping) changes nothing.
    expect(model.add(log[3]!)).toBe(false)
    expect(model.items).toHaveLength(6)
  })

  it('keeps streamed text live until the assistant message is committed', () => {
    const live = new LiveTurn()
    live.handle({ type: 'turn-start', turn: 1, prompt: 'x' })
    live.handle({ type: 'text-delta', text: 'par' })
    live.handle({ type: 'text-delta', text: 'tial' })
    live.handle({ type: 'tool-start', callId: 'c', name: 'bash', arguments: '{"command":"ls"}' })
    expect(live.text).toBe('partial')
    expect(live.tools.get('c')?.command).toBe('ls')
    live.committed({ seq: 0, type: 'assistant/message', time: 0, data: { message: { content: 'partial' } } })
    live.committed({
      seq: 1,
      type: 'tool/call',
      time: 0,
      data: { callId: 'c', name: 'bash', arguments: '{}' },
    })
    expect(live.text).toBe('')
    expect(live.tools.size).toBe(0)
  })

  it('finds the unified diff of an edit result', () => {
    expect(diffLines('Edited a.txt\n--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-x\n+y')).toEqual([
      '--- a.txt',
      '+++ a.txt',
      '@@ -1 +1 @@',
      '-x',
      '+y',
    ])
    expect(diffLines('no diff here')).toEqual([])
  })
})
