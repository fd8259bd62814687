// Translates the persistence seam's `locate` into `DSH_SESSION_JSONL`. Backends do not
// register shell variables; this plugin asks the current backend at every call.

import { type Context, symbols } from 'cordis'
import type { SessionPersistence } from '../../persistence/persistence.js'
import type { ShellEnvContributor } from '../types.js'

export const SESSION_JSONL_KEY = 'DSH_SESSION_JSONL'

/** The contributor; `ctx` is the context the current persistence service is looked up from. */
export function createSessionPersistenceContributor(
  ctx: Context,
): ShellEnvContributor<typeof SESSION_JSONL_KEY> {
  // `ctx.get(name)` is `ctx.reflect.get(name)`; holding the reflect service saves a proxy
  // hop per call. The persistence service itself is still looked up at every call.
  const reflect = ctx.reflect
  return {
    name: 'session-persistence',
    keys: {
      [SESSION_JSONL_KEY]:
        "Absolute path of this session's JSONL log when the persistence backend keeps one file per session; absent otherwise. The file may not exist yet and may lag the open turn.",
    },
    resolve(execution) {
      if (!execution.agent) return {}
      // Asked at every call, never cached: swapping the backend changes later calls.
      const persistence: SessionPersistence | undefined = reflect.get('sessionPersistence')
      const location = persistence && untraced(persistence).locate(execution.agent.session.header)
      return location?.kind === 'jsonl' ? { [SESSION_JSONL_KEY]: location.path } : {}
    },
  }
}

/** The `session-persistence` contributor plugin. */
export const SessionPersistenceEnvPlugin = {
  name: 'shell-env-session-persistence',
  inject: ['shellEnv'],
  apply(ctx: Context): void {
    ctx.shellEnv.register(createSessionPersistenceContributor(ctx))
  },
}

/**
 * The service object behind Cordis's tracing proxy. `locate` is synchronous and pure, so
 * calling it directly is equivalent and saves the proxy's per-call shadow context.
 */
function untraced(persistence: SessionPersistence): SessionPersistence {
  return (
    (persistence as unknown as Record<symbol, SessionPersistence | undefined>)[symbols.original] ??
    persistence
  )
}
