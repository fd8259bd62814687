// Tool scheduling: runs one reply's tool calls in model order through the pipeline
// (pre-execute → execute → post-execute) and appends each result before the next.

import type { Context } from 'cordis'
import { storeImages } from '../attachments/store.js'
import { errorMessage } from '../core/errors.js'
import { hasListeners } from '../core/service-ref.js'
import { modelTakesImages } from '../llm/deepseek/models.js'
import type { ToolCallRequest } from '../llm/types.js'
import type {
  AgentHandle,
  AgentOutput,
  PostExecuteState,
  PreExecuteDecision,
  ToolCallInfo,
  ToolOutput,
} from '../plugin-api/index.js'
import { REPEAT_REMIND_AT, type RepeatGuard, repeatReminder } from './repeat-guard.js'
import type { LoopServices } from './services.js'

export const CANCELLED_TOOL_RESULT = 'Tool call cancelled: the turn was aborted before it ran.'

export async function runToolCalls(
  ctx: Context,
  services: LoopServices,
  agent: AgentHandle,
  turn: number,
  calls: readonly ToolCallRequest[],
  signal: AbortSignal,
  emit: (output: AgentOutput) => void,
  repeats?: RepeatGuard,
): Promise<void> {
  for (const call of calls) {
    const info: ToolCallInfo = {
      agent,
      turn,
      callId: call.id,
      name: call.name,
      arguments: call.arguments,
      input: parseJsonOrUndefined(call.arguments),
      signal,
    }
    if (signal.aborted) {
      agent.session.append('tool/result', { callId: call.id, content: CANCELLED_TOOL_RESULT, isError: true })
      continue
    }
    emit({ type: 'tool-start', callId: call.id, name: call.name, arguments: call.arguments })
    const { output, executed } = await executeOne(ctx, services, info, signal)
    const post: PostExecuteState = { call: info, output, executed, feedback: [], context: [] }
    if (hasListeners(ctx, 'tools/post-execute')) await ctx.serial('tools/post-execute', post)
    const repeated = repeats?.observe(call.name, call.arguments, post.output.content) ?? 0
    if (repeated >= REPEAT_REMIND_AT) post.feedback.push(repeatReminder(repeated))
    const content = [post.output.content, ...post.feedback].join('\n\n')
    // A tool's images are stored before the event that names them.
    const images = post.output.images ?? []
    const sessions = services.sessions()
    if (images.length > 0 && sessions) await storeImages(sessions, agent.session.id, images)
    agent.session.append('tool/result', {
      callId: call.id,
      content,
      ...(post.output.isError ? { isError: true as const } : {}),
      ...(images.length > 0 && sessions ? { images: images.map((image) => image.ref) } : {}),
    })
    // A paid call (web search/fetch) joins the session's usage totals (src/usage).
    if (post.output.costUsd)
      agent.session.append('usage/charge', {
        source: call.name,
        amount: post.output.costUsd,
        currency: 'USD',
        detail: `tool call ${call.id}`,
      })
    for (const text of post.context)
      agent.session.append('context/added', { source: 'tools/post-execute', text })
    emit({
      type: 'tool-end',
      callId: call.id,
      name: call.name,
      content,
      isError: post.output.isError === true,
      ...(post.output.details?.interrupted === true ? { interrupted: true as const } : {}),
    })
  }
}

async function executeOne(
  ctx: Context,
  services: LoopServices,
  info: ToolCallInfo,
  signal: AbortSignal,
): Promise<{ output: ToolOutput; executed: boolean }> {
  const decision = await decide(ctx, info)
  if (decision.kind === 'deny') {
    return { output: { content: `Tool call denied: ${decision.reason}`, isError: true }, executed: false }
  }
  // Front ends that show approval (ACP's `pending` → `in_progress`) learn the call now runs.
  ctx.emit('tools/running', info)
  const tools = services.tools()
  if (!tools) {
    return {
      output: { content: `Tool ${info.name} is not available: no tool registry`, isError: true },
      executed: false,
    }
  }
  // Durability checkpoint: everything logged so far is on disk before the tool body runs.
  await services.sessions()?.flush(info.agent.session)
  try {
    return {
      output: await tools.run(info.name, info.arguments, {
        agent: info.agent,
        callId: info.callId,
        signal,
        takesImages: modelTakesImages(info.agent.model.model ?? services.llm()?.defaultModel ?? '') === true,
      }),
      executed: true,
    }
  } catch (error) {
    return {
      output: { content: `Tool ${info.name} failed: ${errorMessage(error)}`, isError: true },
      executed: true,
    }
  }
}

async function decide(ctx: Context, info: ToolCallInfo): Promise<PreExecuteDecision> {
  if (!hasListeners(ctx, 'tools/pre-execute')) return { kind: 'allow' }
  const decision: PreExecuteDecision = await ctx.waterfall('tools/pre-execute', info, async () => ({
    kind: 'allow' as const,
  }))
  if (decision.kind !== 'ask') return decision
  const approved = await ctx.serial('tools/approve', info, decision.reason)
  if (approved === true) return { kind: 'allow' }
  if (typeof approved === 'object' && approved !== null && approved.feedback.trim() !== '') {
    // Claude Code's "No, and tell Claude what to do differently": the user's words are the result.
    return {
      kind: 'deny',
      reason: `the user did not allow this call and said what to do instead: ${approved.feedback.trim()}`,
    }
  }
  return { kind: 'deny', reason: `${decision.reason} (approval required and not given)` }
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    // Invalid JSON from the model: the tool registry reports it to the model.
    return undefined
  }
}
