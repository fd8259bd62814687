// Long sessions for the context benchmarks: tool-calling steps with reasoning and tool
// outputs of mixed sizes, compacted as the loop compacts them (`ctx.context.prepare` before
// every model request), with an in-process model that answers the summary request at once.

import { Context } from 'cordis'
import { buildModelRequest } from '../src/agent/request.js'
import { ContextService } from '../src/context/index.js'
import { LlmAdapter, type ModelRequest, type ModelStreamChunk } from '../src/llm/adapter.js'
import { DEFAULT_MAX_TOKENS } from '../src/llm/openai/config.js'
import type { ToolSchema } from '../src/llm/types.js'
import { Session } from '../src/session/session.js'
import type { ContextCompactedData } from '../src/session/types.js'

export const MODEL = 'deepseek-flash'
const NEVER = new AbortController().signal

/** A structured summary of a realistic length (about 2,000 tokens). */
export const SUMMARY = [
  '## Task',
  'Refactor the parser into modules and keep every test green.',
  '## Decisions',
  ...Array.from({ length: 40 }, (_, i) => `- module ${i}: moved its helpers beside it and kept the exports.`),
  '## Files touched',
  ...Array.from({ length: 60 }, (_, i) => `- src/module-${i}/file-${i}.ts (split; tests updated)`),
  '## Next steps',
  '- run the whole suite, then the benchmarks.',
].join('\n')

/** `ctx.llm` answering every request with SUMMARY at once: the model call is excluded by design. */
export class InstantSummaryAdapter extends LlmAdapter {
  readonly defaultModel = MODEL
  calls = 0

  constructor(
    ctx: Context,
    private readonly config: { summary?: string } = {},
  ) {
    super(ctx)
  }

  async *stream(_request: ModelRequest): AsyncGenerator<ModelStreamChunk> {
    this.calls++
    yield { type: 'text-delta', text: this.config.summary ?? SUMMARY }
    yield {
      type: 'finish',
      finishReason: 'stop',
      usage: { promptTokens: 500_000, completionTokens: 2_000, totalTokens: 502_000, cachedTokens: 490_000 },
    }
  }
}

export interface ContextWorld {
  context: ContextService
  dispose(): Promise<void>
}

/**
 * A Context holding only the context service (window from the model table unless given) and
 * the model, which answers with `summary` (default SUMMARY).
 */
export async function startContextWorld(contextWindow?: number, summary?: string): Promise<ContextWorld> {
  const ctx = new Context()
  const fibers = [
    ctx.plugin(InstantSummaryAdapter, summary === undefined ? {} : { summary }),
    ctx.plugin(ContextService, {
      auto: true,
      threshold: 0.85,
      defaultMaxTokens: DEFAULT_MAX_TOKENS,
      ...(contextWindow !== undefined ? { contextWindow } : {}),
    }),
  ]
  for (const fiber of fibers) await fiber.await()
  return {
    context: ctx.get('context')!,
    dispose: async () => {
      for (const fiber of fibers.reverse()) await fiber.dispose()
    },
  }
}

/** Deterministic pseudo-random numbers (a linear congruential generator). */
function numbers(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0
    return state / 2 ** 32
  }
}

/** Tool output sizes as in coding work: mostly short, a quarter medium, a few long (chars). */
function outputChars(random: () => number): number {
  const r = random()
  if (r < 0.7) return 100 + Math.floor(random() * 1_100)
  if (r < 0.95) return 1_200 + Math.floor(random() * 4_800)
  return 6_000 + Math.floor(random() * 18_000)
}

function outputText(step: number, chars: number): string {
  const lines: string[] = []
  let length = 0
  for (let line = 1; length < chars; line++) {
    const text = `src/module-${step % 97}/file-${step}.ts:${line}:  const value${line} = compute(input, ${line}) // checked\n`
    lines.push(text)
    length += text.length
  }
  return lines.join('').slice(0, chars)
}

export interface SessionPlan {
  steps: number
  /** Steps per turn (a user message each). */
  stepsPerTurn: number
  system: string
  tools: readonly ToolSchema[]
  /** Compact as the loop does before each request; without it the log is never compacted. */
  world?: ContextWorld
  /** Told after every automatic compaction, with the first request after it. */
  onCompacted?: (info: {
    eventsBefore: number
    data: ContextCompactedData
    request: ModelRequest
    tokens: number
  }) => void
  seed?: number
}

/** Builds a session of `plan.steps` steps in whole turns; the last turn is closed. */
export async function buildSession(id: string, plan: SessionPlan): Promise<Session> {
  const session = new Session({ version: 1, id, createdAt: 0, delegationDepth: 0 })
  const random = numbers(plan.seed ?? 7)
  const tools = [...plan.tools]
  let turn = 0
  for (let step = 1; step <= plan.steps; step++) {
    if ((step - 1) % plan.stepsPerTurn === 0) {
      if (turn > 0) session.append('turn/end', { turn, reason: 'completed' })
      turn++
      session.append('turn/start', { turn })
      session.append('user/message', { text: `Turn ${turn}: go on with the refactor of the next modules.` })
      if (turn === 1) session.append('request/config', { model: MODEL, system: plan.system, tools })
    }
    session.append('step/start', { turn, step })
    if (plan.world) await prepare(session, plan)
    session.append('assistant/message', {
      message: {
        content: `Step ${step}: reading the next file.`,
        reasoning:
          `The last output showed what file ${step - 1} exports; now I check file ${step} and its callers before moving it. `.repeat(
            2,
          ),
      },
      usage: { promptTokens: 1_000, completionTokens: 120, totalTokens: 1_120, cachedTokens: 900 },
    })
    const callId = `call_${step}`
    session.append('tool/call', {
      callId,
      name: 'bash',
      arguments: JSON.stringify({ command: `sed -n 1,200p src/module-${step % 97}/file-${step}.ts` }),
    })
    session.append('tool/result', { callId, content: outputText(step, outputChars(random)) })
    session.append('step/end', { turn, step, finishReason: 'tool_calls' })
  }
  session.append('turn/end', { turn, reason: 'completed' })
  return session
}

/** The request a step sends, compacted first when the window is filling (the loop's path). */
async function prepare(session: Session, plan: SessionPlan): Promise<void> {
  const world = plan.world!
  const before = session.length
  const rebuild = () => buildModelRequest(session, {}, NEVER)
  const request = await world.context.prepare(session, rebuild(), { rebuild })
  if (session.length !== before && plan.onCompacted)
    plan.onCompacted({
      eventsBefore: before,
      data: session.events.at(-1)!.data as ContextCompactedData,
      request,
      tokens: world.context.usage(session, request).tokens,
    })
}

/** A new session over a copy of `events` (a fresh log array, so nothing derived is shared). */
export function copySession(id: string, session: Session, length = session.length): Session {
  return new Session({ ...session.header, id }, session.events.slice(0, length))
}

export { buildModelRequest, NEVER }
