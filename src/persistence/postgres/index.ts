// Public surface of the PostgreSQL backend. Import it lazily (`await import`): it loads
// the driver, which commands that do not use PostgreSQL should never pay for.

export { PostgresSessionBackend } from './backend.js'
export type { PostgresBackendConfig, ResolvedPostgresConfig } from './config.js'
export { describeTarget, resolvePostgresConfig } from './config.js'
export { createPool, migrateDatabase } from './connection.js'
export type { FollowOptions } from './follow.js'
export { followSession } from './follow.js'
export type { PostgresSummary } from './list.js'
export type { MigrationReport } from './migrations.js'
export { LATEST_SCHEMA_VERSION, SCHEMA_NAME_PATTERN } from './migrations.js'
export { PostgresSessionStore, sessionKey } from './store.js'
