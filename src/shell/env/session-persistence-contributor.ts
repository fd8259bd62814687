// Translates the persistence seam's `locate` into `DSH_SESSION_JSONL`. Backends do not
// register shell variables; this plugin asks the current backend at every call.

import type { Context } from 'cordis'
import { currentService } from '../../core/service-ref.js'
import type { ShellEnvContributor } from '../types.js'

export const SESSION_JSONL_KEY = 'DSH_SESSION_JSONL'

/** The contributor; `ctx` is the context the current persistence service is looked up from. */
export function createSessionPersistenceContributor(
  ctx: Context,
): ShellEnvContributor<typeof SESSION_JSONL_KEY> {
  // The current backend at every call (a swap is seen at once), without Cordis's proxy.
  const persistence = currentService(ctx, 'sessionPersistence')
  return {
    name: 'session-persistence',
    keys: {
      [SESSION_JSONL_KEY]:
        "Absolute path of this session's JSONL log when the persistence backend keeps one file per session; absent otherwise. The file may not exist yet and may lag the open turn.",
    },
    resolve(execution) {
      if (!execution.agent) return {}
      const location = persistence()?.locate(execution.agent.session.header)
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
