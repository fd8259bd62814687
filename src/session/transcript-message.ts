// Events in the Messages shape (`{role, content: [blocks]}`), the shape Claude Code's
// transcripts use: JSONL lines carry it as a top-level `message` so transcript readers
// written for Claude Code hooks work on dsh's logs, and `sessions export` writes it.

import type { SessionEvent, SessionEventMap } from './types.js'

export type TranscriptBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error: boolean }

export type TranscriptMessage =
  | { role: 'user'; content: string | TranscriptBlock[] }
  | { role: 'assistant'; content: TranscriptBlock[] }

/**
 * The message an event stands for: user prompts (a string, as Claude Code writes them),
 * non-empty assistant text, tool calls (`tool_use`) and tool results (`tool_result`); undefined for
 * every other event.
 */
export function transcriptMessage(event: Pick<SessionEvent, 'type' | 'data'>): TranscriptMessage | undefined {
  switch (event.type) {
    case 'user/message':
      return { role: 'user', content: (event.data as SessionEventMap['user/message']).text }
    case 'assistant/message': {
      // Text only: a reply that only called tools has its tool_use lines instead.
      const { content } = (event.data as SessionEventMap['assistant/message']).message
      return content === '' ? undefined : { role: 'assistant', content: [{ type: 'text', text: content }] }
    }
    case 'tool/call': {
      const call = event.data as SessionEventMap['tool/call']
      return {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: call.callId, name: call.name, input: toolUseInput(call.arguments).input },
        ],
      }
    }
    case 'tool/result': {
      const result = event.data as SessionEventMap['tool/result']
      return {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: result.callId,
            content: result.content,
            is_error: result.isError === true,
          },
        ],
      }
    }
    default:
      return undefined
  }
}

/** The key `tool_use.input` keeps arguments under that were not a JSON object, as the model wrote them. */
export const RAW_TOOL_INPUT_KEY = '_raw'

/**
 * A call's arguments as `tool_use.input`, which is an object in the Messages API and in the
 * schemas of transcript readers: the JSON object the model sent, or (its mistake, reported
 * to it as such) one holding its text. `parsed` says which.
 */
export function toolUseInput(text: string): { input: Record<string, unknown>; parsed: boolean } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    // Not JSON at all: kept as the text below.
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? { input: value as Record<string, unknown>, parsed: true }
    : { input: { [RAW_TOOL_INPUT_KEY]: text }, parsed: false }
}
