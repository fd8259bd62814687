// Headers, event builders and Cordis wiring shared by the persistence tests.

import { Context } from 'cordis'
import { afterEach } from 'vitest'
import { JsonlSessionBackend } from '../../src/persistence/jsonl/backend.js'
import type { SessionPersistence } from '../../src/persistence/persistence.js'
import { SessionStore } from '../../src/session/store.js'
import {
  SESSION_FORMAT_VERSION,
  type SessionEvent,
  type SessionEventMap,
  type SessionHeader,
  type SessionId,
} from '../../src/session/types.js'

export const T0 = 1_700_000_000_000

export function makeHeader(id: SessionId, extra: Partial<SessionHeader> = {}): SessionHeader {
  return { version: SESSION_FORMAT_VERSION, id, createdAt: T0, delegationDepth: 0, ...extra }
}

/** Builds a contiguous log: `log.add(type, data)` assigns seq and time. */
export class LogBuilder {
  readonly events: SessionEvent[] = []

  constructor(private readonly firstSeq = 0) {}

  add<K extends keyof SessionEventMap>(type: K, data: SessionEventMap[K]): this {
    const seq = this.firstSeq + this.events.length
    this.events.push({ seq, type, time: T0 + seq, data })
    return this
  }

  addIgnorable(type: string, data: unknown): this {
    const seq = this.firstSeq + this.events.length
    this.events.push({ seq, type, time: T0 + seq, data, ignorable: true })
    return this
  }

  /** A whole turn: user message, one step with a tool call and its result, final answer. */
  completedTurn(turn: number, text: string): this {
    return this.add('turn/start', { turn })
      .add('user/message', { text })
      .add('step/start', { turn, step: 0 })
      .add('assistant/message', { message: { content: '' } })
      .add('tool/call', { callId: `c${turn}`, name: 'bash', arguments: '{"command":"ls"}' })
      .add('tool/result', { callId: `c${turn}`, content: 'a.txt\nb.txt' })
      .add('step/end', { turn, step: 0 })
      .add('assistant/message', { message: { content: `answer ${turn}` } })
      .add('turn/end', { turn, reason: 'completed' })
  }

  /**
   * A whole turn that costs something: a request with `model`, a step with usage, a paid
   * tool call's charge, the final step with usage. Its events lie `hours` hours apart, so
   * the steps of one log fall in different price hours.
   */
  paidTurn(turn: number, text: string, model: string, tokens: number, hours = 1): this {
    const usage = (prompt: number, completion: number) => ({
      promptTokens: prompt,
      completionTokens: completion,
      totalTokens: prompt + completion,
      cachedTokens: Math.floor(prompt / 2),
      reasoningTokens: Math.floor(completion / 4),
    })
    const first = this.events.length
    this.add('turn/start', { turn })
      .add('user/message', { text })
      .add('request/config', { model, system: 'system prompt', tools: [] })
      .add('step/start', { turn, step: 0 })
      .add('assistant/message', { message: { content: '' }, usage: usage(tokens, tokens / 10) })
      .add('usage/charge', { source: 'web_search', amount: 0.005, currency: 'USD' })
      .add('step/end', { turn, step: 0 })
      .add('assistant/message', { message: { content: `answer ${turn}` }, usage: usage(tokens * 2, 40) })
      .add('turn/end', { turn, reason: 'completed' })
    for (const event of this.events.slice(first)) event.time = T0 + event.seq * hours * 3_600_000
    return this
  }

  /** An open turn cut short: two tool calls, one answered, the step still open. */
  openTurn(turn: number, text: string): this {
    return this.add('turn/start', { turn })
      .add('user/message', { text })
      .add('step/start', { turn, step: 0 })
      .add('tool/call', { callId: `a${turn}`, name: 'bash', arguments: '{}' })
      .add('tool/call', { callId: `b${turn}`, name: 'bash', arguments: '{}' })
      .add('tool/result', { callId: `a${turn}`, content: 'done' })
  }
}

export type BackendPlugin<C> = new (ctx: Context, config: C) => SessionPersistence

/** A backend plugin and its config over one test's storage. */
export interface BackendFixture<C = unknown> {
  plugin: BackendPlugin<C>
  config: C
  /** Whether a second backend instance over the same config sees what the first stored. */
  durable: boolean
}

/** A Context with a backend and a session store loaded. */
export interface Harness {
  ctx: Context
  backend(): SessionPersistence
  store(): SessionStore
  dispose(): Promise<void>
}

export async function startHarness<C>(fixture: BackendFixture<C>): Promise<Harness> {
  const ctx = new Context()
  const backendFiber = ctx.plugin(fixture.plugin, fixture.config)
  const storeFiber = ctx.plugin(SessionStore)
  await backendFiber.await()
  await storeFiber.await()
  return {
    ctx,
    backend: () => {
      const backend = ctx.get('sessionPersistence')
      if (!backend) throw new Error('no backend loaded')
      return backend
    },
    store: () => {
      const store = ctx.get('sessions')
      if (!store) throw new Error('no session store loaded')
      return store
    },
    dispose: async () => {
      await storeFiber.dispose()
      await backendFiber.dispose()
    },
  }
}

/** Strips Cordis proxies and frozen wrappers so events compare structurally. */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T
}

/**
 * Call at the top of a test file: returns `start(root)`, which starts a JSONL backend
 * harness over `root` that is disposed after the current test.
 */
export function useJsonlHarnesses(): (root: string) => Promise<Harness> {
  const running: Harness[] = []
  afterEach(async () => {
    for (const harness of running.splice(0).reverse()) await harness.dispose()
  })
  return async (root) => {
    const harness = await startHarness({ plugin: JsonlSessionBackend, config: { root }, durable: true })
    running.push(harness)
    return harness
  }
}
