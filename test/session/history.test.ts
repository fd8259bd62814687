// Model history derived from the log: messages, tool calls and results, deferred context.

import { describe, expect, it } from 'vitest'
import { prunedToolOutput, summaryMessage } from '../../src/session/compaction-messages.js'
import { deriveHistory } from '../../src/session/history.js'
import type { SessionEvent } from '../../src/session/types.js'
import { LogBuilder } from '../persistence/fixtures.js'

/** Two turns, compacted: a prune, a summary keeping turn 2's start, a prune after it, a second summary. */
function compactedLog(): SessionEvent[] {
  const log = new LogBuilder()
    .completedTurn(0, 'one')
    .completedTurn(1, 'two')
    .add('context/compacted', { trigger: 'auto', pruned: ['c0'], tokensBefore: 9, tokensAfter: 8 })
    .add('turn/start', { turn: 2 })
    .add('user/message', { text: 'three' })
    .add('step/start', { turn: 2, step: 0 })
    .add('assistant/message', { message: { content: '' } })
    .add('tool/call', { callId: 'c2', name: 'bash', arguments: '{}' })
    .add('tool/result', { callId: 'c2', content: 'output of c2' })
    .add('step/end', { turn: 2, step: 0 })
    .add('context/compacted', {
      trigger: 'auto',
      summary: 'S1',
      keptFrom: 19,
      tokensBefore: 9,
      tokensAfter: 5,
    })
    .add('context/compacted', { trigger: 'auto', pruned: ['c2'], tokensBefore: 9, tokensAfter: 4 })
    .add('step/start', { turn: 2, step: 1 })
    .add('assistant/message', { message: { content: '' } })
    .add('tool/call', { callId: 'c3', name: 'bash', arguments: '{}' })
    .add('context/added', { source: 'hook', text: 'waits for c3' })
    .add('tool/result', { callId: 'c3', content: 'output of c3' })
    .add('step/end', { turn: 2, step: 1 })
    .add('assistant/message', { message: { content: 'done' } })
    .add('turn/end', { turn: 2, reason: 'completed' })
    .add('context/compacted', {
      trigger: 'manual',
      summary: 'S2',
      keptFrom: 36,
      tokensBefore: 9,
      tokensAfter: 3,
    })
    .add('turn/start', { turn: 3 })
    .add('user/message', { text: 'four' })
  return log.events
}

describe('deriveHistory', () => {
  it('turns a completed turn into user, assistant with tool calls, tool result, assistant', () => {
    expect(deriveHistory(new LogBuilder().completedTurn(0, 'list files').events)).toEqual([
      { role: 'user', content: 'list files' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c0', name: 'bash', arguments: '{"command":"ls"}' }],
      },
      { role: 'tool', toolCallId: 'c0', content: 'a.txt\nb.txt' },
      { role: 'assistant', content: 'answer 0' },
    ])
  })

  it('keeps reasoning and groups several tool calls under one assistant message', () => {
    const log = new LogBuilder()
      .add('user/message', { text: 'q' })
      .add('assistant/message', { message: { content: 'thinking aloud', reasoning: 'hidden chain' } })
      .add('tool/call', { callId: 'x', name: 'a', arguments: '{}' })
      .add('tool/call', { callId: 'y', name: 'b', arguments: 'not json' })
      .add('tool/result', { callId: 'x', content: 'X' })
      .add('tool/result', { callId: 'y', content: 'Y', isError: true })
    expect(deriveHistory(log.events)).toEqual([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: 'thinking aloud',
        reasoning: 'hidden chain',
        toolCalls: [
          { id: 'x', name: 'a', arguments: '{}' },
          { id: 'y', name: 'b', arguments: 'not json' },
        ],
      },
      { role: 'tool', toolCallId: 'x', content: 'X' },
      { role: 'tool', toolCallId: 'y', content: 'Y' },
    ])
  })

  it('creates an empty assistant message for tool calls without one', () => {
    const log = new LogBuilder()
      .add('user/message', { text: 'q' })
      .add('tool/call', { callId: 'x', name: 'a', arguments: '{}' })
      .add('tool/result', { callId: 'x', content: 'X' })
    expect(deriveHistory(log.events)[1]).toEqual({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'x', name: 'a', arguments: '{}' }],
    })
  })

  it('defers context added while tool calls are unanswered until their results are in', () => {
    const log = new LogBuilder()
      .add('user/message', { text: 'q' })
      .add('tool/call', { callId: 'x', name: 'a', arguments: '{}' })
      .add('tool/call', { callId: 'y', name: 'b', arguments: '{}' })
      .add('context/added', { source: 'hook', text: 'extra context' })
      .add('tool/result', { callId: 'x', content: 'X' })
      .add('tool/result', { callId: 'y', content: 'Y' })
      .add('context/added', { source: 'hook', text: 'immediate' })
    expect(deriveHistory(log.events).map((message) => [message.role, message.content])).toEqual([
      ['user', 'q'],
      ['assistant', ''],
      ['tool', 'X'],
      ['tool', 'Y'],
      ['user', 'extra context'],
      ['user', 'immediate'],
    ])
  })

  it('releases deferred context at the end even if a call was never answered', () => {
    const log = new LogBuilder()
      .add('tool/call', { callId: 'x', name: 'a', arguments: '{}' })
      .add('context/added', { source: 'hook', text: 'late' })
    expect(deriveHistory(log.events).at(-1)).toEqual({ role: 'user', content: 'late' })
  })

  it('ignores bookkeeping events and ignorable extensions', () => {
    const log = new LogBuilder()
      .add('turn/start', { turn: 0 })
      .add('hook/invoked', { dialect: 'claude-code', event: 'Stop', command: 'true' })
      .addIgnorable('x/telemetry', { n: 1 })
      .add('user/message', { text: 'only this' })
      .add('turn/end', { turn: 0, reason: 'completed' })
    expect(deriveHistory(log.events)).toEqual([{ role: 'user', content: 'only this' }])
  })
})

describe('deriveHistory on a growing log', () => {
  it('drops a turn blocked before any answer, and keeps a blocked turn the model had answered', () => {
    const log = new LogBuilder()
      .completedTurn(1, 'first')
      .add('turn/start', { turn: 2 })
      .add('user/message', { text: 'rm everything' })
      .add('context/added', { source: 'hook', text: 'hook context' })
      .add('turn/end', { turn: 2, reason: 'blocked', error: 'no' })
      .add('turn/start', { turn: 3 })
      .add('user/message', { text: 'third' })
      .add('assistant/message', { message: { content: 'partial' } })
      .add('turn/end', { turn: 3, reason: 'blocked' })
    const contents = deriveHistory(log.events).map((message) => message.content)
    expect(contents).not.toContain('rm everything')
    expect(contents).not.toContain('hook context')
    expect(contents.slice(-2)).toEqual(['third', 'partial'])
  })

  it('gives, after every append, exactly what a fresh derivation of the same prefix gives', () => {
    const full = new LogBuilder()
      .completedTurn(1, 'one')
      .add('turn/start', { turn: 2 })
      .add('user/message', { text: 'blocked prompt' })
      .add('turn/end', { turn: 2, reason: 'blocked' })
      .add('turn/start', { turn: 3 })
      .add('user/message', { text: 'three' })
      .add('step/start', { turn: 3, step: 1 })
      .add('assistant/message', { message: { content: '', reasoning: 'think' } })
      .add('tool/call', { callId: 'x', name: 'bash', arguments: '{}' })
      .add('tool/call', { callId: 'y', name: 'bash', arguments: '{}' })
      .add('context/added', { source: 'hook', text: 'waits for results' })
      .add('tool/result', { callId: 'x', content: 'X' })
      .add('tool/result', { callId: 'y', content: 'Y' })
      .add('step/end', { turn: 3, step: 1 })
      .add('context/added', { source: 'hook', text: 'after results' })
      .add('assistant/message', { message: { content: 'done' } })
      .add('turn/end', { turn: 3, reason: 'completed' }).events
    const growing: typeof full = []
    for (const event of full) {
      growing.push(event)
      expect(deriveHistory(growing)).toEqual(deriveHistory([...growing]))
    }
  })

  it('derives a compacted log fresh exactly as it grew, for every prefix', () => {
    const full = compactedLog()
    const growing: SessionEvent[] = []
    for (const event of full) {
      growing.push(event)
      expect(deriveHistory(growing)).toEqual(deriveHistory([...growing]))
    }
    expect(deriveHistory(full.slice(0, 33))).toEqual([
      { role: 'user', content: summaryMessage('S1') },
      { role: 'user', content: 'three' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c2', name: 'bash', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c2', content: prunedToolOutput('output of c2') },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c3', name: 'bash', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c3', content: 'output of c3' },
      { role: 'user', content: 'waits for c3' },
    ])
    // S2 came after turn 2 ended: its request was answered (the summary says how), so it is
    // not sent again, where it would read as asked and not answered.
    expect(deriveHistory(full)).toEqual([
      { role: 'user', content: summaryMessage('S2') },
      { role: 'user', content: 'four' },
    ])
  })

  it('starts a fresh derivation at the last summary: no event before its tail is read', () => {
    const full = compactedLog()
    const read = new Set<number>()
    // Events whose data reports being read; the boundary's own data and the tail's are expected.
    const watched = full.map((event) => {
      const { data, ...rest } = event
      return Object.defineProperty({ ...rest }, 'data', {
        enumerable: true,
        get: () => {
          read.add(event.seq)
          return data
        },
      }) as SessionEvent
    })
    deriveHistory(watched.slice(0, 33))
    expect([...read].filter((seq) => seq < 19)).toEqual([])
    read.clear()
    deriveHistory(watched)
    // S2 keeps no tail (keptFrom 36, its own seq) and came after its turn ended: no request
    // before it is read (only the types of the events back to it).
    expect([...read].filter((seq) => seq < 36)).toEqual([])
  })
})
