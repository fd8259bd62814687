// The one error base of dsh: every seam throws DshError with a stable code,
// and callers branch on `code`, never on message text.

export class DshError extends Error {
  readonly code: string
  /** True when the user caused it (bad flag, bad config, unknown id): print one line, no stack. */
  readonly userFacing: boolean

  constructor(message: string, code: string, options: { cause?: unknown; userFacing?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'DshError'
    this.code = code
    this.userFacing = options.userFacing ?? false
  }
}

export function isDshError(value: unknown, code?: string): value is DshError {
  return value instanceof DshError && (code === undefined || value.code === code)
}

/** A readable one-line description of any thrown value. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message
  return String(error)
}
