// Stage one, no model call: the output of older tool results is replaced by a short
// placeholder (`prunedToolOutput`) that says how to get it back. The newest outputs, up to
// a share of the window, stay as they are.

import type { ChatMessage } from '../llm/types.js'
import type { CompactionInput, CompactionPlan, Compactor } from '../plugin-api/index.js'
import { estimateMessage } from './estimate.js'

/** The newest tool outputs the model keeps verbatim, as a share of the window. */
export const PROTECTED_OUTPUT_SHARE = 0.1
/** The latest step's outputs are kept whole when together they are under this share of the window. */
export const LATEST_STEP_SHARE = 0.25
/** Outputs this small cost about what their placeholder does: never pruned. */
export const MIN_PRUNED_TOKENS = 100

export const pruneCompactor: Compactor = {
  name: 'prune',
  async compact(input: CompactionInput): Promise<CompactionPlan | undefined> {
    const protectedTokens = input.window * PROTECTED_OUTPUT_SHARE
    const pruned: string[] = []
    let newest = 0
    const messages = input.request.messages
    const latest = latestStepOutputs(messages, input.window * LATEST_STEP_SHARE)
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i]!
      if (message.role !== 'tool' || input.pruned.has(message.toolCallId) || latest.has(message.toolCallId))
        continue
      const tokens = estimateMessage(message).toolOutput
      newest += tokens
      if (newest <= protectedTokens || tokens < MIN_PRUNED_TOKENS) continue
      pruned.push(message.toolCallId)
    }
    return pruned.length > 0 ? { pruned: pruned.reverse() } : undefined
  },
}

/** The call ids of the last step's tool results, when they are small enough to keep whole. */
function latestStepOutputs(messages: readonly ChatMessage[], maxTokens: number): Set<string> {
  const ids = new Set<string>()
  let tokens = 0
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) {
    const message = messages[i] as Extract<ChatMessage, { role: 'tool' }>
    tokens += estimateMessage(message).toolOutput
    ids.add(message.toolCallId)
  }
  return tokens <= maxTokens ? ids : new Set()
}
