// Loads the configured persistence backend, importing only the chosen one (the SQLite
// driver is a native module: commands that do not use it should not pay for it).

import type { Context, Fiber } from 'cordis'

export interface PersistenceChoice {
  backend: 'jsonl' | 'sqlite' | 'memory'
  /** JSONL root folder, absolute. */
  root: string
  /** SQLite database file, absolute. */
  file: string
}

/** Plugs the chosen backend into `ctx` as `sessionPersistence`; resolves with its fiber. */
export async function loadPersistenceBackend(ctx: Context, choice: PersistenceChoice): Promise<Fiber> {
  switch (choice.backend) {
    case 'sqlite': {
      const { SqliteSessionBackend } = await import('./sqlite/backend.js')
      return ctx.plugin(SqliteSessionBackend, { file: choice.file })
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
