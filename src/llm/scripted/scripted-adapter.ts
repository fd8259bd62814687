// The in-process scripted model: plays a Script as `ctx.llm` without any HTTP. Each reply
// goes through the same wire chunks and stream assembler as the real adapter.

import type { Context } from 'cordis'
import { DshError } from '../../core/errors.js'
import { classifyHttp } from '../../failures/index.js'
import { abortedError, sleep } from '../abort.js'
import { LlmAdapter, type ModelRequest, type ModelStreamChunk } from '../adapter.js'
import { LlmErrorCode } from '../errors.js'
import { LlmHttpError } from '../http-error.js'
import { ChatStreamAssembler } from '../openai/stream-assembler.js'
import { type Script, ScriptPlayer, type ScriptRequest } from './script.js'
import { encodeReplyChunks } from './wire.js'

export interface ScriptedAdapterConfig {
  script: Script
  /** Default `scripted`. */
  model?: string
}

export class ScriptedAdapter extends LlmAdapter {
  readonly defaultModel: string
  /** Every request received, in order (signals left out). */
  readonly requests: ScriptRequest[] = []
  private readonly player: ScriptPlayer

  constructor(ctx: Context, config: ScriptedAdapterConfig) {
    super(ctx)
    this.defaultModel = config.model ?? 'scripted'
    this.player = new ScriptPlayer(config.script)
  }

  /** Steps not played yet. */
  get remaining(): number {
    return this.player.remaining
  }

  /**
   * Plays the next step. An HTTP fault rejects with LLM_HTTP (no retries here), a cut with
   * LLM_NETWORK after the chunks before it, an exhausted script with LLM_SCRIPT_EXHAUSTED.
   */
  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamChunk> {
    const { signal } = request
    if (signal?.aborted) throw abortedError(signal)
    const received: ScriptRequest = {
      model: request.model ?? this.defaultModel,
      messages: structuredClone(request.messages),
      tools: structuredClone(request.tools),
    }
    this.requests.push(received)
    const step = await this.player.play(received)
    if (!step) throw new DshError(this.player.exhaustedMessage(), LlmErrorCode.ScriptExhausted)
    if (step.kind === 'http') {
      const failure = {
        class: classifyHttp(step.status, step.message),
        status: step.status,
        message: step.message,
      }
      throw new LlmHttpError(failure)
    }
    const { reply } = step
    const meta = { id: `scripted-${this.player.played}`, model: received.model, created: 0 }
    const assembler = new ChatStreamAssembler()
    const chunks = encodeReplyChunks(reply, meta)
    for (const [index, chunk] of chunks.entries()) {
      if (index === reply.cutAfterChunks) {
        throw new DshError(`scripted connection cut after ${index} chunks`, LlmErrorCode.Network)
      }
      if (reply.delayMs > 0) await sleep(reply.delayMs, signal)
      if (signal?.aborted) throw abortedError(signal)
      yield* assembler.push(chunk)
    }
    yield* assembler.finish()
  }
}
