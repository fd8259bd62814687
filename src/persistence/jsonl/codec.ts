// Line codec of stored logs: the header line `{"type":"session", ...header}` and one
// event per line; message events also carry a top-level `message` in the Messages shape
// for transcript readers written for Claude Code (ignored when loading).

import { transcriptMessage } from '../../session/transcript-message.js'
import type { SessionEvent, SessionHeader } from '../../session/types.js'

export { parseStoredHeader } from '../../session/header-schema.js'

export const HEADER_LINE_TYPE = 'session'

/** The header line, newline included. */
export function headerLine(header: SessionHeader): string {
  return `${JSON.stringify({ type: HEADER_LINE_TYPE, ...header })}\n`
}

/**
 * Event lines, newlines included, with a fixed key order. Built by hand: only the
 * parts that need escaping go through JSON.stringify (several times faster for
 * small events than stringifying a fresh object per event).
 */
export function eventLines(events: readonly SessionEvent[]): string {
  let text = ''
  for (const { seq, type, time, data, ignorable } of events) {
    const flag = ignorable ? ',"ignorable":true' : ''
    const message = transcriptMessage({ type, data })
    const tail = message === undefined ? '' : `,"message":${JSON.stringify(message)}`
    text += `{"seq":${seq},"type":${JSON.stringify(type)},"time":${time}${flag},"data":${JSON.stringify(data)}${tail}}\n`
  }
  return text
}
