// The driver connection of the PostgreSQL backend: one pool per backend, integer
// columns as numbers, migrations at start, and the one rule for which failures are
// "the connection is gone" (retried with backoff) versus answers from the server.

import type { Pool, PoolClient } from 'pg'
import { DshError, errorMessage } from '../../core/errors.js'
import { PersistenceErrorCode } from '../errors.js'
import { describeTarget, driverOptions, type ResolvedPostgresConfig, scrubPassword } from './config.js'
import { type MigrationReport, migrate, quoteIdent } from './migrations.js'
import { backfillSearch } from './search.js'

/** Loads the driver on first use: commands that do not use PostgreSQL never import it. */
export async function loadDriver(): Promise<typeof import('pg').default> {
  return (await import('pg')).default
}

const INT8_OID = 20

/** A pool whose bigint columns (event times, creation times) come back as numbers. */
export async function createPool(config: ResolvedPostgresConfig): Promise<Pool> {
  const pg = await loadDriver()
  const pool = new pg.Pool({
    ...driverOptions(config),
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID && format !== 'binary'
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  })
  // An idle connection that dies is discarded by the pool; its error must not crash the process.
  pool.on('error', () => {})
  return pool
}

/** Connects once and applies pending migrations; a failure becomes one line naming the server. */
export async function connectAndMigrate(
  pool: Pool,
  config: ResolvedPostgresConfig,
): Promise<MigrationReport> {
  let client: PoolClient
  try {
    client = await pool.connect()
  } catch (error) {
    throw unavailable(config, error)
  }
  try {
    return await migrate(client, config.schema)
  } catch (error) {
    if (isConnectionError(error)) throw unavailable(config, error)
    if (error instanceof DshError) throw error
    throw new DshError(
      `cannot prepare the session database ${describeTarget(config)}: ${scrubPassword(errorMessage(error), config)}`,
      PersistenceErrorCode.Io,
      { cause: error, userFacing: true },
    )
  } finally {
    client.release()
  }
}

export function unavailable(config: ResolvedPostgresConfig, error: unknown): DshError {
  const reason = scrubPassword(errorMessage(error) || String((error as { code?: string }).code), config)
  return new DshError(
    `cannot reach the session database ${describeTarget(config)}: ${reason}`,
    PersistenceErrorCode.Unavailable,
    { cause: error, userFacing: true },
  )
}

const NODE_CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])
/** Server answers that mean "this connection is over, another may work". */
const SERVER_CONNECTION_CODES = new Set(['57P01', '57P02', '57P03', '53300'])

/**
 * Whether a failure means the connection (or the server) went away, rather than the
 * server answering with an error: only these are retried. A client-side query timeout
 * counts: a server that stops answering looks exactly like that.
 */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof DshError) return error.code === PersistenceErrorCode.Unavailable
  const code = (error as { code?: unknown })?.code
  if (typeof code === 'string') {
    if (NODE_CONNECTION_CODES.has(code) || SERVER_CONNECTION_CODES.has(code)) return true
    if (code.startsWith('08')) return true
    if (/^[0-9A-Z]{5}$/.test(code)) return false // any other SQLSTATE is an answer
  }
  const message = errorMessage(error)
  return /Connection terminated|connection timeout|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(
    message,
  )
}

/**
 * Runs `operation`, retrying it with exponential backoff while it fails because the
 * connection is gone, for at most `reconnectMs`; then fails with PERSISTENCE_UNAVAILABLE.
 */
export async function withReconnect<T>(
  config: ResolvedPostgresConfig,
  operation: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + config.reconnectMs
  let delay = 50
  for (;;) {
    try {
      return await operation()
    } catch (error) {
      if (!isConnectionError(error)) throw error
      if (Date.now() + delay > deadline) throw unavailable(config, error)
      await new Promise((resolve) => setTimeout(resolve, delay))
      delay = Math.min(delay * 2, 2_000)
    }
  }
}

/** `dsh db migrate`: connects, applies pending migrations, and disconnects. */
export async function migrateDatabase(
  config: ResolvedPostgresConfig,
): Promise<MigrationReport & { searchRowsIndexed: number }> {
  const pool = await createPool({ ...config, maxConnections: 1 })
  try {
    const report = await connectAndMigrate(pool, config)
    // The search column of older rows, in small transactions (hosts may be writing).
    const searchRowsIndexed = await backfillSearch(pool, quoteIdent(config.schema))
    return { ...report, searchRowsIndexed }
  } finally {
    await pool.end().catch(() => {}) // done either way; a broken connection has nothing to flush
  }
}
