// The SQLite backend against the shared persistence contract, on a real database file.

import { join } from 'node:path'
import { SqliteSessionBackend } from '../../../src/persistence/sqlite/backend.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { runPersistenceContract } from '../contract.js'

const tempDir = useTempDirs('dsh-sqlite-')

runPersistenceContract('sqlite', () => ({
  plugin: SqliteSessionBackend,
  config: { file: join(tempDir(), 'sessions.db') },
  durable: true,
}))
