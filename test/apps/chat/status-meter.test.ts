// The status line's figures follow the live agent's log: tokens after a reply, the `ctx`
// cell after a step, and only the agent followed now (resume, fork and clear replace it).

import { expect, it } from 'vitest'
import { StatusMeter } from '../../../src/apps/chat/status-line.js'
import { colorsFor } from '../../../src/apps/shared/render.js'
import type { AgentHandle } from '../../../src/plugin-api/agent.js'
import { resolvePriceTable } from '../../../src/usage/index.js'

const plain = colorsFor({ isTTY: false } as NodeJS.WriteStream)
const table = resolvePriceTable({})

/** An agent reduced to what the meter reads: its log, appends to it, and its context usage. */
function fakeAgent() {
  const events: unknown[] = []
  const listeners = new Set<(session: unknown, event: { type: string }) => void>()
  let tokens = 1000
  const agent = {
    session: {
      events,
      onAppend: (listener: (session: unknown, event: { type: string }) => void) => {
        listeners.add(listener)
        return () => listeners.delete(listener)
      },
    },
    contextUsage: () => ({ tokens, window: 10_000, measured: true, breakdown: {} }),
  }
  const append = (event: { type: string; data?: unknown }) => {
    events.push({ seq: events.length, time: 0, data: {}, ...event })
    for (const listener of listeners) listener(agent.session, event)
  }
  const reply = (promptTokens: number, completionTokens: number) =>
    append({
      type: 'assistant/message',
      data: {
        message: { content: '' },
        usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
      },
    })
  return {
    handle: agent as unknown as AgentHandle,
    reply,
    append,
    setTokens: (next: number) => {
      tokens = next
    },
    listeners,
  }
}

const line = (meter: StatusMeter) =>
  meter.render({ model: 'm', effort: 'high', sessionId: 'abcdef123456', cwd: '/w', queued: 0 }, plain, 200)

it('follows the live agent: tokens per reply, ctx per step, and only the agent followed now', () => {
  const meter = new StatusMeter()
  const first = fakeAgent()
  meter.follow(first.handle, table)
  expect(line(meter)).toContain('ctx 10%')
  first.reply(100, 20)
  expect(meter.tokens.total).toBe(120)
  // The ctx cell is measured at a step's end, not on every frame.
  first.setTokens(5000)
  expect(line(meter)).toContain('ctx 10%')
  first.append({ type: 'step/end' })
  expect(line(meter)).toContain('ctx 50%')

  const second = fakeAgent()
  meter.follow(second.handle, table)
  expect(first.listeners.size).toBe(0)
  expect(meter.tokens.total).toBe(0)
  first.reply(1, 1)
  expect(meter.tokens.total).toBe(0)
  second.reply(10, 5)
  expect(meter.tokens.total).toBe(15)

  meter.stop()
  expect(second.listeners.size).toBe(0)
})

it('names the permission mode when it is not auto, so Shift-Tab and /permissions show in the status line', () => {
  const meter = new StatusMeter()
  meter.follow(fakeAgent().handle, table)
  const facts = { model: 'm', effort: 'high', sessionId: 'abcdef123456', cwd: '/w', queued: 0 }
  expect(meter.render({ ...facts, mode: 'plan' }, plain, 200)).toMatch(/^m \(high\) · plan mode · session /)
  expect(meter.render({ ...facts, mode: 'auto' }, plain, 200)).not.toContain('mode')
  expect(meter.render(facts, plain, 200)).not.toContain('mode')
})
