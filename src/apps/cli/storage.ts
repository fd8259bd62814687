// Read-only access to stored sessions for `dsh sessions`: only the configured
// persistence backend is loaded, not the whole harness, so listings start fast.

import type { ResolvedConfig } from '../../config/load.js'
import { untraced } from '../../core/service-ref.js'
import { loadPersistenceBackend } from '../../persistence/load-backend.js'
import type { SessionPersistence } from '../../persistence/persistence.js'
import type { SessionSummary } from '../../session/types.js'
import { logToStderr } from '../shared/logging.js'

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
  // Warnings (a session log too damaged to list) reach stderr, never silently dropped.
  logToStderr(ctx)
  const fiber = await loadPersistenceBackend(ctx, config.persistence)
  await fiber.await()
  const service = ctx.get('sessionPersistence')
  if (!service) throw new Error(`the ${config.persistence.backend} persistence backend did not load`)
  // The object behind Cordis's tracing proxy: a listing calls `locate` once per session,
  // which through the proxy costs more than reading the file.
  const persistence = untraced(service)
  return {
    persistence,
    async list() {
      return (await persistence.list()).sort((a, b) => b.lastActivity - a.lastActivity)
    },
    dispose: () => fiber.dispose(),
  }
}
