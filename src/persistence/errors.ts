// Error codes of the persistence seam.

export const PersistenceErrorCode = {
  NotFound: 'PERSISTENCE_NOT_FOUND',
  AlreadyExists: 'PERSISTENCE_ALREADY_EXISTS',
  SeqMismatch: 'PERSISTENCE_SEQ_MISMATCH',
  Corrupt: 'PERSISTENCE_CORRUPT',
  Locked: 'PERSISTENCE_LOCKED',
  IdTooLong: 'PERSISTENCE_ID_TOO_LONG',
  InvalidId: 'PERSISTENCE_INVALID_ID',
  Io: 'PERSISTENCE_IO',
  BadPath: 'PERSISTENCE_BAD_PATH',
} as const
