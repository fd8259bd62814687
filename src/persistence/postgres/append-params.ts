// The parameters of one `append_events` call: the batch as parallel arrays, the summary
// columns it updates, the usage ledger, and (schema version 4) each event's search words.

import type { SessionEvent } from '../../session/types.js'
import type { UsageLedger } from '../../usage/ledger.js'
import { lastTurnNumber, titleFrom } from '../repair.js'
import type { HeldLease } from './lease.js'
import { searchWords } from './search-schema.js'

/** Text columns cannot hold U+0000; the exact values live in the json header. */
export function textColumn(value: string): string {
  return value.replaceAll('\u0000', '\\u0000')
}

/** Parameters of the twelve-argument `append_events` for one batch. */
export function appendParams(
  lease: HeldLease,
  events: readonly SessionEvent[],
  seedLength: number,
  usage: UsageLedger,
): unknown[] {
  let open: boolean | null = null
  for (let i = events.length - 1; i >= 0; i--) {
    const type = events[i]!.type
    if (type === 'turn/start' || type === 'turn/end') {
      open = type === 'turn/start'
      break
    }
  }
  const title = titleFrom(events, seedLength)
  const n = events.length
  const seqs = new Array<number>(n)
  const types = new Array<string>(n)
  const times = new Array<number>(n)
  const data = new Array<string>(n)
  const ignorable = new Array<boolean>(n)
  const search = new Array<string | null>(n)
  for (let i = 0; i < n; i++) {
    const event = events[i]!
    seqs[i] = event.seq
    types[i] = event.type
    times[i] = event.time
    data[i] = JSON.stringify(event.data)
    ignorable[i] = event.ignorable === true
    search[i] = searchWords(event.type, event.data)
  }
  return [
    lease.key,
    lease.token,
    seqs,
    types,
    times,
    data,
    ignorable,
    title === undefined ? null : textColumn(title),
    lastTurnNumber(events),
    open,
    JSON.stringify(usage),
    search,
  ]
}
