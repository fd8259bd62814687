// What the model sees in place of compacted history: the summary message and the
// placeholder of a pruned tool output. History derivation uses them, so both are pure
// functions of the log and a request can always be rebuilt from it.

import type { ChatMessage } from '../llm/types.js'

type ToolMessage = Extract<ChatMessage, { role: 'tool' }>

/** The user message that stands for everything a summary replaced. */
export function summaryMessage(summary: string): string {
  return [
    'This session continues an earlier conversation that no longer fit in the context window.',
    'The summary below stands for the earlier part; the messages after it are verbatim.',
    '',
    summary,
  ].join('\n')
}

const SPILL_PATH = /\[output truncated; full output: ([^\]\n]+)\]/

/** The tool output the model sees once `content` was pruned; it says how to get it back. */
export function prunedToolOutput(content: string): string {
  const spill = SPILL_PATH.exec(content)?.[1]
  const where = spill
    ? `the full output is in ${spill}`
    : 'run the call again if you need it (the session log keeps it: dsh sessions show)'
  return `[output pruned to save context: ${content.length} characters; ${where}]`
}

const prunedMessages = new WeakMap<ToolMessage, ToolMessage>()

/**
 * `message` with its output pruned: a new message (messages are shared with earlier
 * snapshots, never modified), the same one for the same message, so a compaction that
 * looks at a request several times searches each long output for its spill path once.
 */
export function prunedToolMessage(message: ToolMessage): ToolMessage {
  let pruned = prunedMessages.get(message)
  if (!pruned) {
    pruned = { ...message, content: prunedToolOutput(message.content) }
    prunedMessages.set(message, pruned)
  }
  return pruned
}
