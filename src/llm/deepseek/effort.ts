// DeepSeek thinking effort: the values dsh accepts and how each one goes on the wire
// (thinking-mode guide, read 2026-12-02).

import { DshError } from '../../core/errors.js'
import { LlmErrorCode } from '../errors.js'

/** `off` disables thinking; the others are sent as `reasoning_effort`. */
export const EFFORTS = ['off', 'low', 'high', 'max'] as const
export type Effort = (typeof EFFORTS)[number]

/** DeepSeek's own default when a request names none. */
export const DEFAULT_EFFORT: Effort = 'high'

export function isEffort(value: unknown): value is Effort {
  return typeof value === 'string' && (EFFORTS as readonly string[]).includes(value)
}

/** Parses a user-given effort; a bad value is a user-facing error naming the accepted ones. */
export function parseEffort(value: string, where = '--effort'): Effort {
  const text = value.trim().toLowerCase()
  if (isEffort(text)) return text
  throw new DshError(
    `${where}: unknown effort ${JSON.stringify(value)} (use one of ${EFFORTS.join(', ')})`,
    LlmErrorCode.BadEffort,
    { userFacing: true },
  )
}

/** True when requests made at `effort` run in thinking mode. */
export function thinkingEnabled(effort: Effort): boolean {
  return effort !== 'off'
}

/** The request fields that select thinking mode and its effort. */
export function effortFields(
  effort: Effort,
): { thinking: { type: 'disabled' } } | { thinking: { type: 'enabled' }; reasoning_effort: Effort } {
  return effort === 'off'
    ? { thinking: { type: 'disabled' } }
    : { thinking: { type: 'enabled' }, reasoning_effort: effort }
}
