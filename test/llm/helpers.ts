// Helpers shared by the model-seam tests: load an adapter as `ctx.llm`, drain a stream.

import { Context } from 'cordis'
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
