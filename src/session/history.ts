// Derives the model-facing conversation from a session log. Whatever reaches a model
// request (apart from the configured system prompt and tools) comes from here.

import type { ChatMessage, ToolCallRequest } from '../llm/types.js'
import { prunedToolMessage, prunedToolOutput, summaryMessage } from './compaction-messages.js'
import type { ContextCompactedData, SessionEvent, SessionEventMap } from './types.js'

type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>
type UserMessage = Extract<ChatMessage, { role: 'user' }>

/**
 * Folds events into chat messages one at a time. A log only grows, so a live session's
 * history is extended with each new event instead of being rebuilt for every request.
 */
class HistoryBuilder {
  readonly messages: ChatMessage[] = []
  /** How many events have been folded in (or stand behind a summary). */
  consumed = 0
  private lastAssistant: AssistantMessage | undefined
  private readonly unanswered = new Set<string>()
  /** Context (and images tools returned) cannot sit between an assistant's tool calls and their results; it waits. */
  private deferred: UserMessage[] = []
  /** Where the open turn began, to drop it if it ends blocked before any answer. */
  private turn: { messageCount: number; deferredCount: number; answered: boolean } | undefined
  /** Tool results a compaction pruned (for good: a later summary's tail keeps them pruned). */
  private readonly pruned = new Set<string>()
  /** Where each tool result sits in `messages`, so a later prune can replace it. */
  private readonly results = new Map<string, number>()

  constructor(private readonly events: readonly SessionEvent[]) {}

  /**
   * Starts a fresh derivation at the log's last summary, as if every event up to it had been
   * folded: a summary replaces everything before its kept tail, and the tail is read from the
   * log. Only the pruned set would outlive the reset, and a prune named before the tail only
   * names results before it (a prune names results already logged). So a compacted log costs
   * its tail and what follows, not its length.
   */
  startAtLastSummary(): void {
    for (let i = this.events.length - 1; i >= 0; i--) {
      const event = this.events[i]!
      if (event.type !== 'context/compacted') continue
      const data = event.data as ContextCompactedData
      if (data.summary === undefined) continue
      this.compact(data, event.seq)
      this.consumed = i + 1
      return
    }
  }

  feed(event: SessionEvent): void {
    this.consumed += 1
    this.fold(event)
  }

  private fold(event: SessionEvent): void {
    switch (event.type) {
      case 'turn/start':
        this.turn = {
          messageCount: this.messages.length,
          deferredCount: this.deferred.length,
          answered: false,
        }
        break
      case 'user/message': {
        this.releaseDeferred()
        const data = event.data as SessionEventMap['user/message']
        this.messages.push(
          data.images?.length
            ? { role: 'user', content: data.text, images: data.images }
            : { role: 'user', content: data.text },
        )
        this.lastAssistant = undefined
        break
      }
      case 'context/added': {
        const text = (event.data as SessionEventMap['context/added']).text
        if (this.unanswered.size > 0) this.deferred.push({ role: 'user', content: text })
        else this.messages.push({ role: 'user', content: text })
        break
      }
      case 'assistant/message': {
        this.releaseDeferred()
        const { message } = event.data as SessionEventMap['assistant/message']
        this.lastAssistant = { role: 'assistant', content: message.content }
        if (message.reasoning) this.lastAssistant.reasoning = message.reasoning
        this.messages.push(this.lastAssistant)
        if (this.turn) this.turn.answered = true
        break
      }
      case 'tool/call': {
        const call = event.data as SessionEventMap['tool/call']
        if (!this.lastAssistant) {
          this.lastAssistant = { role: 'assistant', content: '' }
          this.messages.push(this.lastAssistant)
        }
        const request: ToolCallRequest = { id: call.callId, name: call.name, arguments: call.arguments }
        this.lastAssistant.toolCalls = [...(this.lastAssistant.toolCalls ?? []), request]
        this.unanswered.add(call.callId)
        break
      }
      case 'tool/result': {
        const result = event.data as SessionEventMap['tool/result']
        const content = this.pruned.has(result.callId) ? prunedToolOutput(result.content) : result.content
        this.results.set(result.callId, this.messages.length)
        this.messages.push({ role: 'tool', toolCallId: result.callId, content })
        // Tool messages carry text only: the images follow as a user message once every result is in.
        if (result.images?.length && !this.pruned.has(result.callId)) {
          this.deferred.push({
            role: 'user',
            content: toolImagesText(result.images.length),
            images: result.images,
          })
        }
        this.unanswered.delete(result.callId)
        if (this.unanswered.size === 0) this.releaseDeferred()
        break
      }
      case 'turn/end': {
        const reason = (event.data as SessionEventMap['turn/end']).reason
        // A prompt blocked before the model answered never reached the model: drop its turn.
        if (reason === 'blocked' && this.turn && !this.turn.answered) {
          this.messages.length = this.turn.messageCount
          this.deferred.length = Math.min(this.deferred.length, this.turn.deferredCount)
          this.lastAssistant = undefined
        }
        this.turn = undefined
        if (this.unanswered.size === 0) this.releaseDeferred()
        break
      }
      case 'step/start':
        if (this.unanswered.size === 0) this.releaseDeferred()
        break
      case 'context/compacted':
        this.compact(event.data as ContextCompactedData, event.seq)
        break
      default:
        break
    }
  }

  /** Folds a compaction boundary at `boundary` (its seq) without it being in the log. */
  compactAt(data: ContextCompactedData, boundary: number): void {
    this.compact(data, boundary)
  }

  /** A compaction boundary: prune tool outputs, then restart from the summary and its tail. */
  private compact(data: ContextCompactedData, boundary: number): void {
    const summarised = data.summary !== undefined
    for (const callId of data.pruned ?? []) {
      if (this.pruned.has(callId)) continue
      this.pruned.add(callId)
      // A summary drops these messages next; its tail is folded again, pruned.
      if (summarised) continue
      const index = this.results.get(callId)
      const message = index === undefined ? undefined : this.messages[index]
      // Message objects are shared with earlier snapshots: replace, never modify.
      if (message?.role === 'tool') this.messages[index!] = prunedToolMessage(message)
    }
    if (!summarised) return
    this.messages.length = 0
    this.results.clear()
    this.unanswered.clear()
    this.deferred = []
    this.lastAssistant = undefined
    this.turn = undefined
    this.messages.push({ role: 'user', content: summaryMessage(data.summary!) })
    const from = Math.max(0, Math.min(data.keptFrom ?? boundary, boundary))
    const tail = this.events.slice(from, boundary)
    // The tail starts with the user's last request when its turn was still open (a compaction
    // inside it): its steps were summarised, the request stands. A turn that ended before the
    // boundary was answered: sent again, it would read as asked and not answered.
    if (!tail.some((event) => event.type === 'user/message')) {
      const prompt = openRequest(this.events, from, boundary)
      if (prompt !== undefined) this.messages.push({ role: 'user', content: prompt })
    }
    for (const event of tail) {
      // A summary inside the tail cannot be (keptFrom follows the previous boundary); prunes are kept.
      if (event.type === 'context/compacted') {
        const { summary: _summary, ...prunes } = event.data as ContextCompactedData
        this.compact(prunes, event.seq)
      } else this.fold(event)
    }
  }

  /** The messages so far plus any context still waiting. */
  snapshot(): ChatMessage[] {
    return [...this.messages, ...this.deferred]
  }

  private releaseDeferred(): void {
    for (const message of this.deferred) this.messages.push(message)
    this.deferred = []
  }
}

/** The text that goes with images a tool returned. */
function toolImagesText(count: number): string {
  return count === 1
    ? 'The image the tool call above returned:'
    : `The ${count} images the tool calls above returned:`
}

/** The last user message before `before`, unless its turn ended before `boundary`. */
function openRequest(events: readonly SessionEvent[], before: number, boundary: number): string | undefined {
  for (let i = before - 1; i >= 0; i--) {
    if (events[i]!.type !== 'user/message') continue
    for (let j = i + 1; j < boundary; j++) if (events[j]!.type === 'turn/end') return undefined
    return (events[i]!.data as SessionEventMap['user/message']).text
  }
  return undefined
}

/** Builders of live logs, by log array (a Session's `events` is one array for its life). */
const builders = new WeakMap<readonly SessionEvent[], HistoryBuilder>()

/**
 * The conversation `events` stand for. A first call starts at the last summary boundary;
 * repeated calls on the same growing log array only fold in the new events. The returned array is the caller's; its message objects are
 * shared with later calls and must not be modified.
 */
export function deriveHistory(events: readonly SessionEvent[]): ChatMessage[] {
  let builder = builders.get(events)
  if (!builder || builder.consumed > events.length) {
    builder = new HistoryBuilder(events)
    builders.set(events, builder)
    builder.startAtLastSummary()
  }
  for (let index = builder.consumed; index < events.length; index++) builder.feed(events[index]!)
  return builder.snapshot()
}

/**
 * The conversation right after a compaction with `data` were appended to `events`, without
 * appending it: only the kept tail is folded, so this costs the tail, not the log.
 * `data.pruned` must name every pruned call the tail may hold (earlier ones too).
 */
export function historyAfterCompaction(
  events: readonly SessionEvent[],
  data: ContextCompactedData & { summary: string },
): ChatMessage[] {
  const builder = new HistoryBuilder(events)
  builder.compactAt(data, events.length)
  return builder.snapshot()
}
