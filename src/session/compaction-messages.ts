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

const SPILL_MARK = '[output truncated; full output: '
const SPILL_PATH = /\[output truncated; full output: ([^\]\n]+)\]/

/** The tool output the model sees once `content` was pruned; it says how to get it back. */
export function prunedToolOutput(content: string): string {
  // A plain search finds the marker about three times faster than the pattern; no match starts before it.
  const at = content.indexOf(SPILL_MARK)
  const spill = at === -1 ? undefined : SPILL_PATH.exec(content.slice(at))?.[1]
  const where = spill
    ? `the full output is in ${spill}`
    : 'run the call again if you need it (the session log keeps it: dsh sessions show)'
  return `[output pruned to save context: ${content.length} characters; ${where}]`
}

/** `message` with its output pruned: a new message, since messages are shared with earlier snapshots. */
export function prunedToolMessage(message: ToolMessage): ToolMessage {
  return { ...message, content: prunedToolOutput(message.content) }
}
