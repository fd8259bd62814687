// Line codec of stored logs: the header line `{"type":"session", ...header}`, one
// event per line, and the schema that stored headers are validated against.

import { z } from 'zod'
import type { SessionEvent, SessionHeader } from '../../session/types.js'

export const HEADER_LINE_TYPE = 'session'

const headerSchema = z.looseObject({
  version: z.number().int().min(1),
  id: z.string().min(1),
  createdAt: z.number().int(),
  cwd: z.string().optional(),
  parentSession: z.string().min(1).optional(),
  seedLength: z.number().int().min(0).optional(),
  origin: z.literal('subagent').optional(),
  delegationDepth: z.number().int().min(0),
})

/** Validates a stored header; returns a one-line problem description on failure. */
export function parseStoredHeader(value: unknown): { header: SessionHeader } | { problem: string } {
  const result = headerSchema.safeParse(value)
  if (result.success) return { header: result.data as SessionHeader }
  const issue = result.error.issues[0]
  return { problem: `${issue?.path.join('.') || 'header'}: ${issue?.message ?? 'invalid'}` }
}

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
    text += `{"seq":${seq},"type":${JSON.stringify(type)},"time":${time}${flag},"data":${JSON.stringify(data)}}\n`
  }
  return text
}
