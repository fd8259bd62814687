// Copying sessions from one backend to another (`dsh sessions migrate`), keeping ids,
// headers and events exactly. Idempotent: a session already copied is skipped, one
// copied while it was shorter is extended, and one that differs is reported, never
// overwritten.

import { errorMessage } from '../core/errors.js'
import { imageHashesIn } from '../session/images.js'
import type { SessionEvent, SessionHeader, SessionId } from '../session/types.js'
import type { SessionPersistence } from './persistence.js'

/** Events per append when copying: one durable batch each. */
const COPY_BATCH = 1_000

export type CopyOutcome =
  | { id: SessionId; outcome: 'copied' | 'extended'; events: number }
  | { id: SessionId; outcome: 'present' }
  /** A header without events: nothing to copy (a backend may store no session until its first event). */
  | { id: SessionId; outcome: 'empty' }
  | { id: SessionId; outcome: 'conflict' | 'failed'; reason: string }

export interface CopyReport {
  sessions: CopyOutcome[]
  copied: number
  extended: number
  present: number
  empty: number
  problems: number
  events: number
}

/** Copies every session `from` stores into `to`; `onSession` hears each outcome as it happens. */
export async function copySessions(
  from: SessionPersistence,
  to: SessionPersistence,
  options: { dryRun?: boolean; onSession?: (outcome: CopyOutcome) => void } = {},
): Promise<CopyReport> {
  const report: CopyReport = {
    sessions: [],
    copied: 0,
    extended: 0,
    present: 0,
    empty: 0,
    problems: 0,
    events: 0,
  }
  const summaries = (await from.list()).sort((a, b) => a.header.createdAt - b.header.createdAt)
  for (const summary of summaries) {
    let outcome: CopyOutcome
    try {
      outcome = await copyOne(from, to, summary.header.id, options.dryRun ?? false)
    } catch (error) {
      outcome = { id: summary.header.id, outcome: 'failed', reason: errorMessage(error) }
    }
    report.sessions.push(outcome)
    if (outcome.outcome === 'copied' || outcome.outcome === 'extended') {
      report[outcome.outcome] += 1
      report.events += outcome.events
    } else if (outcome.outcome === 'present' || outcome.outcome === 'empty') {
      report[outcome.outcome] += 1
    } else {
      report.problems += 1
    }
    options.onSession?.(outcome)
  }
  return report
}

async function copyOne(
  from: SessionPersistence,
  to: SessionPersistence,
  id: SessionId,
  dryRun: boolean,
): Promise<CopyOutcome> {
  const source = await from.load(id)
  // Copied, it would count as copied at every run: SQLite and PostgreSQL keep no session until its first event.
  if (source.events.length === 0) return { id, outcome: 'empty' }
  let done = 0
  if (await to.exists(id)) {
    const target = await to.load(id)
    if (canonicalHeader(target.header) !== canonicalHeader(source.header)) {
      return { id, outcome: 'conflict', reason: 'the target holds a different header under this id' }
    }
    if (target.events.length > source.events.length || !samePrefix(target.events, source.events)) {
      return { id, outcome: 'conflict', reason: 'the target holds different events under this id' }
    }
    if (target.events.length === source.events.length) return { id, outcome: 'present' }
    done = target.events.length
  } else if (!dryRun) {
    await to.create(source.header)
  }
  const missing = source.events.length - done
  if (!dryRun) {
    try {
      // Images go first, as when they were attached: no event may name bytes the target lacks.
      for (const sha256 of imageHashesIn(source.events.slice(done))) {
        const data = await from.getImage(id, sha256)
        if (data) await to.putImage(id, sha256, data)
      }
      for (let start = done; start < source.events.length; start += COPY_BATCH) {
        await to.append(id, source.events.slice(start, start + COPY_BATCH))
      }
    } finally {
      await to.release(id)
    }
  }
  return { id, outcome: done === 0 ? 'copied' : 'extended', events: missing }
}

function samePrefix(prefix: readonly SessionEvent[], events: readonly SessionEvent[]): boolean {
  return prefix.every((event, index) => canonicalEvent(event) === canonicalEvent(events[index]!))
}

/** An event's content, whatever key order its backend builds objects in (data keeps its own order). */
function canonicalEvent(event: SessionEvent): string {
  return JSON.stringify([event.seq, event.type, event.time, event.ignorable === true, event.data])
}

function canonicalHeader(header: SessionHeader): string {
  const { type: _lineType, ...fields } = header as SessionHeader & { type?: unknown }
  return JSON.stringify(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
