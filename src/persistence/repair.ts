// Crash repair shared by every backend: an open turn at the end of a loaded log is
// closed with synthetic events so the log again reads as a sequence of whole turns.

import type { SessionEvent, SessionEventMap, SessionOutcome } from '../session/types.js'

export const INTERRUPTED_TOOL_RESULT = 'Tool call interrupted: the harness stopped before it finished.'

/** The events that close an open turn at the end of `events`; empty when the last turn is closed. */
export function closersForOpenTurn(events: readonly SessionEvent[], now = Date.now()): SessionEvent[] {
  let turnStart = -1
  for (let i = events.length - 1; i >= 0; i--) {
    const type = events[i]!.type
    if (type === 'turn/end') return []
    if (type === 'turn/start') {
      turnStart = i
      break
    }
  }
  if (turnStart < 0) return []

  const turn = (events[turnStart]!.data as SessionEventMap['turn/start']).turn
  const pendingCalls = new Map<string, true>()
  let openStep: SessionEventMap['step/start'] | undefined
  for (let i = turnStart + 1; i < events.length; i++) {
    const event = events[i]!
    if (event.type === 'tool/call')
      pendingCalls.set((event.data as SessionEventMap['tool/call']).callId, true)
    if (event.type === 'tool/result')
      pendingCalls.delete((event.data as SessionEventMap['tool/result']).callId)
    if (event.type === 'step/start') openStep = event.data as SessionEventMap['step/start']
    if (event.type === 'step/end') openStep = undefined
  }

  const closers: SessionEvent[] = []
  const push = (type: string, data: unknown) =>
    closers.push({ seq: events.length + closers.length, type, time: now, data })
  for (const callId of pendingCalls.keys())
    push('tool/result', { callId, content: INTERRUPTED_TOOL_RESULT, isError: true })
  if (openStep) push('step/end', { turn: openStep.turn, step: openStep.step, finishReason: 'interrupted' })
  push('turn/end', { turn, reason: 'interrupted' })
  return closers
}

/** The number of the last turn started in `events` (0 when none). */
export function lastTurnNumber(events: readonly SessionEvent[]): number {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'turn/start' || event.type === 'turn/end') {
      return (event.data as SessionEventMap['turn/start']).turn
    }
  }
  return 0
}

/** How the last turn in `events` ended, `open` when it has not; undefined when no turn is in `events`. */
export function outcomeOf(events: readonly SessionEvent[]): SessionOutcome | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'turn/start') return 'open'
    if (event.type === 'turn/end') return (event.data as SessionEventMap['turn/end']).reason
  }
  return undefined
}

/**
 * Title of a session for listings: its first user message, on one line, shortened.
 * A fork's title is its own: messages of the seed (`seq < seedLength`) do not count.
 */
export function titleFrom(
  events: readonly SessionEvent[],
  seedLength = 0,
  maxLength = 80,
): string | undefined {
  const first = events.find((event) => event.type === 'user/message' && event.seq >= seedLength)
  if (!first) return undefined
  return shortenTitle((first.data as SessionEventMap['user/message']).text, maxLength)
}

/**
 * The title a person or the model gave the session: the latest `session/title` event's, or
 * undefined when none was given. Events of a fork's seed (`seq < seedLength`) do not count.
 */
export function givenTitle(events: readonly SessionEvent[], seedLength = 0): string | undefined {
  for (let i = events.length - 1; i >= 0 && events[i]!.seq >= seedLength; i--) {
    const event = events[i]!
    if (event.type !== 'session/title') continue
    const title = (event.data as { title?: unknown } | null)?.title
    if (typeof title === 'string' && title.trim() !== '') return shortenTitle(title)
  }
  return undefined
}

/** A listing's title: the given one (`session/title`), else the first user message. */
export function sessionTitle(events: readonly SessionEvent[], seedLength = 0): string | undefined {
  return givenTitle(events, seedLength) ?? titleFrom(events, seedLength)
}

export function shortenTitle(text: string, maxLength = 80): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > maxLength ? `${line.slice(0, maxLength - 1)}…` : line
}
