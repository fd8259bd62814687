// Line codec of stored logs: the header line `{"type":"session", ...header}` and one
// event per line; message events also carry a top-level `message` in the Messages shape
// for transcript readers written for Claude Code (ignored when loading), and `turn/end`
// lines carry the session's usage ledger so far (`sessionUsage`) and the title given so far
// (`sessionTitle`), which a listing reads from the tail instead of folding the whole log.

import { transcriptMessage } from '../../session/transcript-message.js'
import type { SessionEvent, SessionHeader } from '../../session/types.js'
import { foldUsage, type UsageLedger } from '../../usage/ledger.js'
import { givenTitle } from '../repair.js'

export { parseStoredHeader } from '../../session/header-schema.js'

export const HEADER_LINE_TYPE = 'session'

/** The line field of `turn/end` lines holding the usage ledger of the log up to that line. */
export const USAGE_LINE_FIELD = 'sessionUsage'

/** The line field of `turn/end` lines holding the title given so far (`session/title`), when one was. */
export const TITLE_LINE_FIELD = 'sessionTitle'

/** The given title a writer carries on: events of a fork's seed (`seq < seedLength`) do not set it. */
export interface CarriedTitle {
  seedLength: number
  title?: string
}

/** The header line, newline included. */
export function headerLine(header: SessionHeader): string {
  return `${JSON.stringify({ type: HEADER_LINE_TYPE, ...header })}\n`
}

/**
 * Event lines, newlines included, with a fixed key order. Built by hand: only the
 * parts that need escaping go through JSON.stringify (several times faster for
 * small events than stringifying a fresh object per event). `usage` is the ledger of
 * the log before `events`: they are folded into it (it is mutated) and every `turn/end`
 * line carries it as it stands there. `null` writes no ledger (a log from before ledgers).
 */
export function eventLines(
  events: readonly SessionEvent[],
  usage: UsageLedger | null,
  titles?: CarriedTitle,
): string {
  let text = ''
  for (const event of events) {
    const { seq, type, time, data, ignorable } = event
    const flag = ignorable ? ',"ignorable":true' : ''
    const message = transcriptMessage({ type, data })
    let tail = message === undefined ? '' : `,"message":${JSON.stringify(message)}`
    if (usage) {
      foldUsage(usage, [event])
      if (type === 'turn/end') tail += `,"${USAGE_LINE_FIELD}":${JSON.stringify(usage)}`
    }
    if (titles) {
      if (type === 'session/title') titles.title = givenTitle([event], titles.seedLength) ?? titles.title
      if (type === 'turn/end' && titles.title !== undefined)
        tail += `,"${TITLE_LINE_FIELD}":${JSON.stringify(titles.title)}`
    }
    text += `{"seq":${seq},"type":${JSON.stringify(type)},"time":${time}${flag},"data":${JSON.stringify(data)}${tail}}\n`
  }
  return text
}
