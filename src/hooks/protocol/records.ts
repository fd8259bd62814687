// The durable trace of every hook run: `hook/invoked` before it starts, `hook/result`
// after, with its decision, exit code, a bounded stderr summary and its duration.

import type { Session } from '../../session/session.js'
import type { HookInvokedData, HookResultData } from '../../session/types.js'
import type { HookDialectName, HookEventName, HookOutcome, HookRun } from './types.js'

/** Upper bound (UTF-8 bytes) of the stderr summary and of the reason kept in `hook/result`. */
export const MAX_STDERR_SUMMARY_BYTES = 2048

export type HookRecord =
  | { type: 'hook/invoked'; data: HookInvokedData }
  | { type: 'hook/result'; data: HookResultData }

/** Where hook records go: usually straight into a session log (`sessionSink`). */
export type HookRecordSink = (record: HookRecord) => void

/** A sink that appends each record to the session log. */
export function sessionSink(session: Session): HookRecordSink {
  return (record) => {
    if (record.type === 'hook/invoked') session.append('hook/invoked', record.data)
    else session.append('hook/result', record.data)
  }
}

export interface HookRecordInfo {
  dialect: HookDialectName
  event: HookEventName
  command: string
  matcher?: string
}

export function hookInvokedRecord(info: HookRecordInfo): HookRecord {
  const data: HookInvokedData = { dialect: info.dialect, event: info.event, command: info.command }
  if (info.matcher !== undefined) data.matcher = info.matcher
  return { type: 'hook/invoked', data }
}

export function hookResultRecord(info: HookRecordInfo, run: HookRun, outcome: HookOutcome): HookRecord {
  const data: HookResultData = {
    dialect: info.dialect,
    event: info.event,
    command: info.command,
    decision: outcome.decision,
    exitCode: run.exitCode,
    durationMs: Math.max(0, Math.round(run.durationMs)),
  }
  if (run.timedOut) data.timedOut = true
  if (outcome.reason) data.reason = truncateUtf8(outcome.reason, MAX_STDERR_SUMMARY_BYTES)
  if (outcome.updatedInput !== undefined) data.updatedInput = outcome.updatedInput
  const stderr = run.stderr.trim()
  if (stderr) data.stderr = truncateUtf8(stderr, MAX_STDERR_SUMMARY_BYTES)
  return { type: 'hook/result', data }
}

/** Cuts text to at most `maxBytes` UTF-8 bytes, marker included, never splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8')
  if (bytes.length <= maxBytes) return text
  const marker = `…[${bytes.length} bytes in all]`
  let end = Math.max(0, maxBytes - Buffer.byteLength(marker))
  // Step back off UTF-8 continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
  return bytes.subarray(0, end).toString('utf8') + marker
}
