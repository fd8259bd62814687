// Helpers shared by the model-seam tests: load an adapter as `ctx.llm`, drain a stream,
// serve answers the loopback model never gives.

import { createServer, type RequestListener } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Context } from 'cordis'
import { afterEach } from 'vitest'
import type { LlmAdapter, ModelRequest, ModelStreamChunk } from '../../src/llm/index.js'

export async function loadLlm<C>(
  adapter: new (ctx: Context, config: C) => LlmAdapter,
  config: C,
): Promise<{ root: Context; llm: LlmAdapter; dispose: () => Promise<void> }> {
  const root = new Context()
  const fiber = root.plugin(adapter, config)
  await fiber.await()
  const llm = root.get('llm')
  if (!llm) throw new Error('ctx.llm was not registered')
  return { root, llm, dispose: () => fiber.dispose() }
}

export async function collect(stream: AsyncIterable<ModelStreamChunk>): Promise<ModelStreamChunk[]> {
  const chunks: ModelStreamChunk[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return chunks
}

/** Drains a stream, returning what arrived before the error it rejected with. */
export async function collectUntilError(
  stream: AsyncIterable<ModelStreamChunk>,
): Promise<{ chunks: ModelStreamChunk[]; error: unknown }> {
  const chunks: ModelStreamChunk[] = []
  try {
    for await (const chunk of stream) chunks.push(chunk)
  } catch (error) {
    return { chunks, error }
  }
  throw new Error(`expected the stream to fail; it yielded ${chunks.length} chunks and finished`)
}

export function userRequest(text: string, extra: Partial<ModelRequest> = {}): ModelRequest {
  return { messages: [{ role: 'user', content: text }], tools: [], ...extra }
}

export function textOf(chunks: ModelStreamChunk[]): string {
  return chunks.map((chunk) => (chunk.type === 'text-delta' ? chunk.text : '')).join('')
}

/**
 * Call at the top of a test file: returns `start(handler)`, which serves `handler` on an
 * ephemeral 127.0.0.1 port — for answers the loopback model never gives — and resolves to
 * its base URL. Every server started is closed after the current test.
 */
export function useRawServers(): (handler: RequestListener) => Promise<string> {
  const open: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const close of open.splice(0)) await close()
  })
  return async (handler) => {
    const server = createServer(handler)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    open.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        }),
    )
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }
}

/** One `chat.completion.chunk` SSE event whose only choice carries `delta` (and a finish reason). */
export function sseChunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  const chunk = {
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  }
  return `data: ${JSON.stringify(chunk)}\n\n`
}
