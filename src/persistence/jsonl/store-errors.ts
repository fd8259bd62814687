// The JSONL log store's one-line refusals.

import { DshError } from '../../core/errors.js'
import type { SessionId } from '../../session/types.js'
import { PersistenceErrorCode } from '../errors.js'

export function alreadyExists(id: SessionId, path: string): DshError {
  return new DshError(
    `session ${JSON.stringify(id)} already exists (${path})`,
    PersistenceErrorCode.AlreadyExists,
    {
      userFacing: true,
    },
  )
}

export function lockedByUs(id: SessionId, lockPath: string): DshError {
  return new DshError(
    `session ${JSON.stringify(id)} is already open for writing in this process (lock file ${lockPath})`,
    PersistenceErrorCode.Locked,
    { userFacing: true },
  )
}

/** The log is not as long as this process last saw it: another process wrote to it. */
export function changedElsewhere(id: SessionId, path: string, expected: number, found: number): DshError {
  return new DshError(
    `session ${JSON.stringify(id)} was changed by another process since it was read ` +
      `(${expected} bytes expected, ${found} found in ${path}); reload it; nothing was written`,
    PersistenceErrorCode.SeqMismatch,
    { userFacing: true },
  )
}
