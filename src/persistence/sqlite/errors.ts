// The SQLite backend's errors: a session stored already, and a storage failure of a
// write transaction as one user-facing line.

import { DshError, errorMessage } from '../../core/errors.js'
import type { SessionId } from '../../session/types.js'
import { PersistenceErrorCode } from '../errors.js'

export function alreadyExists(id: SessionId): DshError {
  return new DshError(`session ${JSON.stringify(id)} already exists`, PersistenceErrorCode.AlreadyExists, {
    userFacing: true,
  })
}

/**
 * A write transaction's failure: dsh's own errors pass; a storage failure (disk full, a
 * file-size limit, I/O), which SQLite rolled back, becomes one user-facing line naming the file.
 */
export function storageFailure(error: unknown, what: string): unknown {
  if (error instanceof DshError) return error
  return new DshError(`${what}; the write was rolled back: ${errorMessage(error)}`, PersistenceErrorCode.Io, {
    cause: error,
    userFacing: true,
  })
}
