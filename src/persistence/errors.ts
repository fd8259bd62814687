// Error codes of the persistence seam. An id the one id rule refuses is SESSION_INVALID_ID
// (src/session/errors.ts) from every backend, not a persistence code.

export const PersistenceErrorCode = {
  NotFound: 'PERSISTENCE_NOT_FOUND',
  AlreadyExists: 'PERSISTENCE_ALREADY_EXISTS',
  SeqMismatch: 'PERSISTENCE_SEQ_MISMATCH',
  Corrupt: 'PERSISTENCE_CORRUPT',
  Locked: 'PERSISTENCE_LOCKED',
  Io: 'PERSISTENCE_IO',
  BadPath: 'PERSISTENCE_BAD_PATH',
  /** The writer lease moved to another owner: this process may no longer append. */
  LeaseLost: 'PERSISTENCE_LEASE_LOST',
  /** The database cannot be reached (or stopped answering within its deadlines). */
  Unavailable: 'PERSISTENCE_UNAVAILABLE',
  /** The database did not finish a statement within its timeout. */
  Timeout: 'PERSISTENCE_TIMEOUT',
  /** The database was migrated by a newer dsh than this one. */
  SchemaTooNew: 'PERSISTENCE_SCHEMA_TOO_NEW',
} as const
