// Read-only access to stored sessions for `dsh sessions`: only the configured
// persistence backend is loaded, not the whole harness, so listings start fast.
// The backend choice mirrors the composition root's (src/harness/compose.ts).

import { type Fiber, symbols } from 'cordis'
import type { ResolvedConfig } from '../../config/load.js'
import type { SessionPersistence } from '../../persistence/persistence.js'
import type { SessionSummary } from '../../session/types.js'

export interface Storage {
  readonly persistence: SessionPersistence
  /** Stored sessions, most recent activity first. */
  list(): Promise<SessionSummary[]>
  dispose(): Promise<void>
}

/** Loads the configured backend (and only it) on a fresh Cordis context. */
export async function openStorage(config: ResolvedConfig): Promise<Storage> {
  const { Context } = await import('cordis')
  const ctx = new Context()
  let fiber: Fiber
  switch (config.persistence.backend) {
    case 'sqlite': {
      const { SqliteSessionBackend } = await import('../../persistence/sqlite/backend.js')
      fiber = ctx.plugin(SqliteSessionBackend, { file: config.persistence.file })
      break
    }
    case 'memory': {
      const { MemorySessionBackend } = await import('../../persistence/memory/memory-backend.js')
      fiber = ctx.plugin(MemorySessionBackend)
      break
    }
    default: {
      const { JsonlSessionBackend } = await import('../../persistence/jsonl/backend.js')
      fiber = ctx.plugin(JsonlSessionBackend, { root: config.persistence.root })
    }
  }
  await fiber.await()
  const service = ctx.get('sessionPersistence')
  if (!service) throw new Error(`the ${config.persistence.backend} persistence backend did not load`)
  // The object behind Cordis's tracing proxy: this private context has no other plugins,
  // and a listing calls `locate` once per session, which through the proxy costs more
  // than reading the file.
  const persistence =
    (service as unknown as Record<symbol, SessionPersistence | undefined>)[symbols.original] ?? service
  return {
    persistence,
    async list() {
      return (await persistence.list()).sort((a, b) => b.lastActivity - a.lastActivity)
    },
    dispose: () => fiber.dispose(),
  }
}
