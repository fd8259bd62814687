// Loads the configured persistence backend, importing only the chosen one (the SQLite
// driver is a native module, the PostgreSQL driver a large one: commands that do not
// use them should not pay for them).

import type { Context, Fiber } from 'cordis'

export interface PersistenceChoice {
  backend: 'jsonl' | 'sqlite' | 'postgres' | 'memory'
  /** JSONL root folder, absolute. */
  root: string
  /** SQLite database file, absolute. */
  file: string
  /** PostgreSQL settings (see PostgresBackendConfig). */
  url?: string
  schema?: string
  hostName?: string
  leaseMs?: number
  statementTimeoutMs?: number
  reconnectMs?: number
}

/** Plugs the chosen backend into `ctx` as `sessionPersistence`; resolves with its fiber. */
export async function loadPersistenceBackend(ctx: Context, choice: PersistenceChoice): Promise<Fiber> {
  switch (choice.backend) {
    case 'sqlite': {
      const { SqliteSessionBackend } = await import('./sqlite/backend.js')
      return ctx.plugin(SqliteSessionBackend, { file: choice.file })
    }
    case 'postgres': {
      const { PostgresSessionBackend } = await import('./postgres/backend.js')
      const { url, schema, hostName, leaseMs, statementTimeoutMs, reconnectMs } = choice
      const fiber = ctx.plugin(PostgresSessionBackend, {
        url,
        schema,
        hostName,
        leaseMs,
        statementTimeoutMs,
        reconnectMs,
      })
      await fiber.await()
      // Connect and migrate now: an unreachable database is one clear line before any work starts.
      const backend = ctx.get('sessionPersistence') as InstanceType<typeof PostgresSessionBackend> | undefined
      try {
        await backend?.ready()
      } catch (error) {
        await fiber.dispose()
        throw error
      }
      return fiber
    }
    case 'memory': {
      const { MemorySessionBackend } = await import('./memory/memory-backend.js')
      return ctx.plugin(MemorySessionBackend)
    }
    default: {
      const { JsonlSessionBackend } = await import('./jsonl/backend.js')
      return ctx.plugin(JsonlSessionBackend, { root: choice.root })
    }
  }
}
