// The schema stored headers are validated against when a backend loads a session.

import * as z from 'zod'
import { lazySchema } from '../core/lazy-schema.js'
import type { SessionHeader } from './types.js'

const headerSchema = lazySchema(() =>
  z.looseObject({
    version: z.number().int().min(1),
    id: z.string().min(1),
    createdAt: z.number().int(),
    cwd: z.string().optional(),
    parentSession: z.string().min(1).optional(),
    seedLength: z.number().int().min(0).optional(),
    origin: z.literal('subagent').optional(),
    delegationDepth: z.number().int().min(0),
  }),
)

/** Validates a stored header; returns a one-line problem description on failure. */
export function parseStoredHeader(value: unknown): { header: SessionHeader } | { problem: string } {
  const result = headerSchema().safeParse(value)
  if (result.success) return { header: result.data as SessionHeader }
  const issue = result.error.issues[0]
  return { problem: `${issue?.path.join('.') || 'header'}: ${issue?.message ?? 'invalid'}` }
}
