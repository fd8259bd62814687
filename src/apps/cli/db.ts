// `dsh db migrate`: applies the PostgreSQL backend's schema migrations on their own
// (every dsh also applies them when it starts), and says what it did.

import { loadConfig, type ResolvedConfig } from '../../config/load.js'
import { ExitCode, usageError } from '../shared/errors.js'

interface DbOptions {
  config?: string
}

export async function dbMigrateCommand(options: DbOptions): Promise<number> {
  const config = loadConfig(options.config !== undefined ? { file: options.config } : {})
  const { describeTarget, migrateDatabase, resolvePostgresConfig } = await import(
    '../../persistence/postgres/index.js'
  )
  const resolved = resolvePostgresConfig(postgresSettings(config))
  const report = await migrateDatabase(resolved)
  const where = `${describeTarget(resolved)} schema ${resolved.schema}`
  if (report.searchRowsIndexed > 0) {
    process.stdout.write(`indexed ${report.searchRowsIndexed} older events for session search\n`)
  }
  if (report.applied.length === 0) {
    process.stdout.write(`${where} is up to date (version ${report.to})\n`)
    return ExitCode.Ok
  }
  for (const migration of report.applied) {
    process.stdout.write(`applied ${migration.version}: ${migration.description}\n`)
  }
  process.stdout.write(`${where} migrated from version ${report.from} to ${report.to}\n`)
  return ExitCode.Ok
}

/** The PostgreSQL settings of a config; `dsh db` needs a postgres backend (or at least a URL). */
export function postgresSettings(config: ResolvedConfig) {
  const { backend, url, schema, hostName, leaseMs, statementTimeoutMs, reconnectMs } = config.persistence
  if (backend !== 'postgres' && url === undefined) {
    throw usageError(
      `dsh db works on a PostgreSQL session store: set persistence.backend: postgres (and persistence.url) in ${config.source ?? 'the config'}`,
    )
  }
  return { url, schema, hostName, leaseMs, statementTimeoutMs, reconnectMs }
}
