// Model history derived from the log: messages, tool calls and results, deferred context.

import { describe, expect, it } from 'vitest'
import { deriveHistory } from '../../src/session/history.js'
import { LogBuilder } from '../persistence/fixtures.js'

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
})
