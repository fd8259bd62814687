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
