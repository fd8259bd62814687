// The summary stage's kept tail: what the prune target leaves after the system prompt, the
// tools and the summary, so a long summary never pushes the next request past the target.

import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { buildModelRequest } from '../../src/agent/request.js'
import { estimateMessage } from '../../src/context/estimate.js'
import { summaryCompactor, TAIL_SHARE, TOKENS_PER_ASCII_CHAR } from '../../src/context/index.js'
import { ScriptedAdapter } from '../../src/llm/index.js'
import type { ChatMessage } from '../../src/llm/types.js'
import { historyAfterCompaction } from '../../src/session/history.js'
import { Session } from '../../src/session/session.js'
import { makeHeader } from '../persistence/fixtures.js'

const WINDOW = 100_000
const TARGET = WINDOW * 0.25
const fibers: { dispose(): Promise<unknown> }[] = []
afterEach(async () => {
  for (const fiber of fibers.splice(0)) await fiber.dispose()
})

/** Forty steps of 1,000-token outputs after one prompt. */
function session(): Session {
  const session = new Session(makeHeader('tail'))
  session.append('turn/start', { turn: 1 })
  session.append('user/message', { text: 'refactor everything' })
  session.append('request/config', { model: 'scripted', system: 'You are dsh.', tools: [] })
  for (let step = 0; step < 40; step++) {
    session.append('step/start', { turn: 1, step })
    session.append('assistant/message', { message: { content: '' } })
    session.append('tool/call', { callId: `c${step}`, name: 'bash', arguments: '{}' })
    session.append('tool/result', { callId: `c${step}`, content: `${step} `.padEnd(3_334, '.') })
    session.append('step/end', { turn: 1, step })
  }
  session.append('step/start', { turn: 1, step: 40 })
  return session
}

async function compactWith(summary: string): Promise<{ tokens: number; tail: ChatMessage[] }> {
  const ctx = new Context()
  const fiber = ctx.plugin(ScriptedAdapter, { script: [{ text: summary }] })
  fibers.push(fiber)
  await fiber.await()
  const log = session()
  const request = buildModelRequest(log, {}, new AbortController().signal)
  const plan = await summaryCompactor.compact({
    session: log,
    request,
    window: WINDOW,
    targetTokens: TARGET,
    pruned: new Set(),
    llm: ctx.get('llm')!,
  })
  const after = historyAfterCompaction(log.events, {
    ...plan!.summary!,
    trigger: 'auto',
    tokensBefore: 0,
    tokensAfter: 0,
    summary: plan!.summary!.text,
  })
  const tokens = [request.messages[0]!, ...after].reduce((sum, message) => {
    const parts = estimateMessage(message)
    return sum + parts.text + parts.toolOutput + parts.reasoning
  }, 0)
  return { tokens, tail: after.slice(2) }
}

describe('summary compactor tail', () => {
  it('keeps up to its share of the window after a short summary', async () => {
    const { tokens, tail } = await compactWith('short summary')
    const kept = tail.filter((message) => message.role === 'tool')
    expect(kept.length).toBeGreaterThanOrEqual(8)
    expect(kept.length * 1_000).toBeLessThanOrEqual(WINDOW * TAIL_SHARE)
    expect(tokens).toBeLessThan(TARGET)
  })

  it('keeps less after a long summary, so the next request stays under the target', async () => {
    const long = 'x'.repeat(Math.floor(20_000 / TOKENS_PER_ASCII_CHAR))
    const { tokens, tail } = await compactWith(long)
    const kept = tail.filter((message) => message.role === 'tool')
    expect(kept.length).toBeLessThan(8)
    expect(tokens).toBeLessThanOrEqual(TARGET)
  })
})
