// The agent loop for one turn, as a recipe: build the request from the log → stream →
// commit the assistant message → run tool calls → decide whether to continue.

import type { Context } from 'cordis'
import { readyRequestImages } from '../attachments/request.js'
import { type CompactionNotice, ContextErrorCode } from '../context/index.js'
import { DshError, errorMessage } from '../core/errors.js'
import { hasListeners } from '../core/service-ref.js'
import { describeRetry } from '../failures/index.js'
import type { ModelRequest } from '../llm/adapter.js'
import type {
  AgentHandle,
  AgentOutput,
  PreparedImage,
  PreStepState,
  TurnResult,
  TurnSettings,
  TurnStartingState,
  TurnStoppingState,
} from '../plugin-api/index.js'
import type { Session } from '../session/session.js'
import type { SessionEvent, SessionEventMap, TurnEndReason } from '../session/types.js'
import { storePromptImages } from './images.js'
import { REPEAT_END_AT, RepeatGuard } from './repeat-guard.js'
import { buildModelRequest, logRequestConfig } from './request.js'
import type { LoopServices } from './services.js'
import { type AssembledReply, assembleReply, estimateCutUsage } from './stream-assembly.js'
import { runToolCalls } from './tool-scheduler.js'

export type { TurnSettings } from '../plugin-api/index.js'

export interface TurnInput {
  ctx: Context
  services: LoopServices
  agent: AgentHandle
  settings: TurnSettings
  prompt: string
  origin: 'user' | 'subagent'
  images?: readonly PreparedImage[]
  signal: AbortSignal
  emit: (output: AgentOutput) => void
}

export async function runTurn(input: TurnInput): Promise<TurnResult> {
  const { ctx, services, agent, settings, signal, emit } = input
  const session = agent.session
  const turn = nextTurnNumber(session.events)
  let openStep: number | undefined
  let text = ''

  const end = async (reason: TurnEndReason, error?: string): Promise<TurnResult> => {
    for (const callId of unansweredCalls(session.events)) {
      session.append('tool/result', {
        callId,
        content: `Tool call did not complete: the turn ended (${reason}).`,
        isError: true,
      })
    }
    if (openStep !== undefined) session.append('step/end', { turn, step: openStep, finishReason: reason })
    session.append('turn/end', { turn, reason, ...(error !== undefined ? { error } : {}) })
    const result: TurnResult = { turn, reason, text, ...(error !== undefined ? { error } : {}) }
    try {
      await services.sessions()?.flush(session)
    } catch (flushError) {
      result.reason = 'error'
      result.error = `session could not be saved: ${errorMessage(flushError)}`
    }
    emit({ type: 'turn-end', result })
    return result
  }

  // Images are refused or stored before anything is logged: a refusal leaves the log as it was.
  await storePromptImages(session, services, settings, input.images ?? [])

  try {
    session.append('turn/start', { turn })
    emit({ type: 'turn-start', turn, prompt: input.prompt })

    // The prompt is logged only once the turn-starting listeners (UserPromptSubmit hooks) let
    // it through: a blocked prompt (a secret a scanner caught) is never stored nor becomes the
    // title; the log keeps the hooks' records and the turn's `blocked` end with the reason.
    // Context they add at session start (SessionStart) lands before the prompt.
    const starting: TurnStartingState = { agent, turn, prompt: input.prompt, signal, context: [] }
    if (input.images?.length) starting.images = input.images.map((image) => image.ref)
    await ctx.serial('agent/turn-starting', starting)
    if (starting.block !== undefined) return await end('blocked', starting.block)
    session.append('user/message', {
      text: input.prompt,
      ...(input.origin !== 'user' ? { origin: input.origin } : {}),
      ...(input.images?.length ? { images: input.images.map((image) => image.ref) } : {}),
    })
    appendContext(session, 'agent/turn-starting', starting.context)

    let step = 0
    const repeats = new RepeatGuard()
    let continued = false
    let continuations = 0
    while (true) {
      if (signal.aborted) return await end('aborted')
      if (step >= settings.maxStepsPerTurn) return await end('max-steps')
      step += 1

      const preStep: PreStepState = { agent, turn, step, signal }
      if (hasListeners(ctx, 'agent/pre-step')) await ctx.serial('agent/pre-step', preStep)
      if (preStep.reject !== undefined) return await end('blocked', preStep.reject)
      if (preStep.end !== undefined) return await end(preStep.end.reason, preStep.end.message)

      session.append('step/start', { turn, step })
      openStep = step
      const llm = services.llm()
      if (!llm) return await end('error', 'no model adapter is loaded')
      // The effective model and effort are logged, so every request can be rebuilt from the log.
      logRequestConfig(session, {
        model: settings.model.model ?? llm.defaultModel,
        effort: settings.model.effort ?? llm.defaultEffort,
        system: settings.systemPrompt,
        tools: services.tools()?.schemasFor(agent) ?? [],
      })
      // Durability checkpoint: the log is on disk before every model request.
      await services.sessions()?.flush(session)

      const reply = await requestReply(session, services, settings, signal, emit)
      if (reply.content || reply.reasoning || reply.toolCalls.length > 0 || !reply.interruption) {
        const message: SessionEventMap['assistant/message']['message'] = { content: reply.content }
        if (reply.reasoning) message.reasoning = reply.reasoning
        session.append('assistant/message', { message, ...(reply.usage ? { usage: reply.usage } : {}) })
      }
      text = reply.content
      if (reply.interruption?.kind === 'aborted') return await end('aborted')
      if (reply.interruption?.kind === 'error') return await end('error', reply.interruption.message)

      const cut = cutReason(reply.finishReason)
      if (cut !== undefined) {
        // A cut answer's tool calls may be incomplete: none of them runs.
        session.append('step/end', { turn, step, ...stepFinish(reply.finishReason) })
        openStep = undefined
        return await end(cut.reason, cut.message)
      }

      if (reply.toolCalls.length > 0) {
        for (const call of reply.toolCalls) {
          session.append('tool/call', { callId: call.id, name: call.name, arguments: call.arguments })
        }
        await runToolCalls(ctx, services, agent, turn, reply.toolCalls, signal, emit, repeats)
        session.append('step/end', { turn, step, ...stepFinish(reply.finishReason) })
        openStep = undefined
        if (repeats.repeats >= REPEAT_END_AT) {
          return await end(
            'repeated',
            `the model made the same tool call with the same result ${repeats.repeats} times in a row`,
          )
        }
        continue
      }

      session.append('step/end', { turn, step, ...stepFinish(reply.finishReason) })
      openStep = undefined
      const stopping: TurnStoppingState = { agent, turn, text, continued, signal }
      if (hasListeners(ctx, 'agent/turn-stopping')) {
        // Durability checkpoint: Stop hooks read the transcript, final answer included.
        await services.sessions()?.flush(session)
        await ctx.serial('agent/turn-stopping', stopping)
      }
      if (
        stopping.continueWith !== undefined &&
        continuations < settings.maxStopContinuations &&
        !signal.aborted
      ) {
        continuations += 1
        continued = true
        session.append('user/message', { text: stopping.continueWith, origin: 'hook' })
        continue
      }
      return await end('completed')
    }
  } catch (error) {
    // A failure ends the turn, never the process; the log stays a sequence of whole turns.
    return await end(signal.aborted ? 'aborted' : 'error', errorMessage(error))
  }
}

/**
 * One model request of a step, built from the log: compacted first when the window is
 * filling, and compacted and sent once more when the server still answers that the
 * context is too long. Rejects when a needed compaction fails (the log is left as it was).
 */
async function requestReply(
  session: Session,
  services: LoopServices,
  settings: TurnSettings,
  signal: AbortSignal,
  emit: (output: AgentOutput) => void,
): Promise<AssembledReply> {
  const llm = services.llm()!
  const context = services.context()
  const rebuild = () => buildModelRequest(session, settings.model, signal)
  const onCompaction = (notice: CompactionNotice) => emit({ type: 'compaction', ...notice })
  let request = rebuild()
  if (context) request = await context.prepare(session, request, { rebuild, signal, onCompaction })
  const send = async (request: ModelRequest): Promise<AssembledReply> => {
    await readyRequestImages(services.sessions(), session.id, request, llm.defaultModel)
    request.onRetry = (notice) => emit({ type: 'retry', message: describeRetry(notice), notice })
    const reply = await assembleReply(llm.stream(request), signal, emit)
    context?.recordUsage(session, request, reply.usage)
    // A cut stream was still billed: log an estimate (marked) rather than nothing.
    reply.usage ??= estimateCutUsage(request, reply)
    return reply
  }
  const reply = await send(request)
  const failed = reply.interruption?.kind === 'error' ? reply.interruption : undefined
  if (!context?.settings.auto || failed?.failure !== 'overflow' || reply.content || reply.reasoning)
    return reply
  // The server names its window: later requests are sized to it.
  const windowHint = windowFromOverflow(failed.message)
  if (windowHint !== undefined) context.learnWindow(request.model, windowHint)
  // Once, not in a loop: compact (when there is more than the last message) and send again.
  if (context.canCompact(session, request)) {
    try {
      await context.compact(session, {
        trigger: 'auto',
        reason: 'overflow',
        rebuild,
        signal,
        onCompaction,
        ...(windowHint !== undefined ? { windowHint } : {}),
      })
    } catch (error) {
      // A PreCompact hook blocked the recovery: the server's error stands (Claude Code's rule).
      if (error instanceof DshError && error.code === ContextErrorCode.Blocked) return reply
      throw error
    }
    return send(
      await context.prepare(session, rebuild(), { rebuild, signal, onCompaction, noCompaction: true }),
    )
  }
  // A lone message: only a smaller max_tokens can help, when the server's window allows one.
  const refitted = await context.prepare(session, rebuild(), {
    rebuild,
    signal,
    onCompaction,
    noCompaction: true,
  })
  const maxTokens = (r: ModelRequest) => r.maxTokens ?? context.settings.defaultMaxTokens
  return maxTokens(refitted) < maxTokens(request) ? send(refitted) : reply
}

/** The window a context-length error names ("maximum context length is 131072 tokens"). */
function windowFromOverflow(message: string): number | undefined {
  const match = /maximum context length is (\d+)/i.exec(message)
  return match ? Number(match[1]) : undefined
}

/** The number of the next turn: one more than the last logged `turn/start`. */
export function nextTurnNumber(events: readonly SessionEvent[]): number {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'turn/start') return (event.data as SessionEventMap['turn/start']).turn + 1
  }
  return 1
}

/** Tool calls of the current turn that have no result yet. */
function unansweredCalls(events: readonly SessionEvent[]): string[] {
  const pending = new Set<string>()
  for (let i = events.length - 1; i >= 0 && events[i]!.type !== 'turn/start'; i--) {
    const event = events[i]!
    if (event.type === 'tool/result')
      pending.add(`done:${(event.data as SessionEventMap['tool/result']).callId}`)
  }
  const unanswered: string[] = []
  let start = events.length - 1
  while (start >= 0 && events[start]!.type !== 'turn/start') start--
  for (let i = start + 1; i < events.length; i++) {
    const event = events[i]!
    if (event.type !== 'tool/call') continue
    const callId = (event.data as SessionEventMap['tool/call']).callId
    if (!pending.has(`done:${callId}`)) unanswered.push(callId)
  }
  return unanswered
}

function appendContext(session: Session, source: string, texts: readonly string[]): void {
  for (const text of texts) session.append('context/added', { source, text })
}

/** Finish reasons that end the turn early, with the reason and the warning to show. */
function cutReason(finishReason: string | undefined): { reason: TurnEndReason; message: string } | undefined {
  if (finishReason === 'length') {
    return {
      reason: 'length',
      message: 'the answer was cut at the output limit (model.maxTokens); ask the model to continue',
    }
  }
  if (finishReason === 'content_filter') {
    return { reason: 'content-filter', message: "the provider's content filter stopped the answer" }
  }
  return undefined
}

function stepFinish(finishReason: string | undefined): { finishReason?: string } {
  return finishReason !== undefined ? { finishReason } : {}
}
