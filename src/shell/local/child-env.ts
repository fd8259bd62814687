// Builds a child's environment in the one documented order: the process environment
// scrubbed of managed names and secrets (secrets.ts), terminal overrides, `env`, `dshEnv`.

import { DSH_ENV_PREFIX } from '../namespace.js'
import { DEFAULT_SECRET_FILTER, type SecretFilter } from '../secrets.js'
import type { DshEnvSnapshot } from '../types.js'

/** Keep tools from paging, colouring or drawing for a terminal nobody watches. */
export const TERMINAL_OVERRIDES: Readonly<Record<string, string>> = Object.freeze({
  NO_COLOR: '1',
  TERM: 'dumb',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
})

/**
 * The child environment. Every inherited `DSH_*` variable is removed, so a managed
 * value missing from `dshEnv` is absent now rather than inherited from an outer harness.
 * `inherited` is read, never modified.
 */
export function buildChildEnv(
  inherited: NodeJS.ProcessEnv,
  env: Readonly<Record<string, string>>,
  dshEnv: DshEnvSnapshot,
  secrets: SecretFilter = DEFAULT_SECRET_FILTER,
): Record<string, string> {
  const child: Record<string, string> = {}
  for (const name of Object.keys(inherited)) {
    if (name.startsWith(DSH_ENV_PREFIX)) continue
    const value = inherited[name]
    if (value !== undefined && !secrets.isSecret(name, value)) child[name] = value
  }
  Object.assign(child, TERMINAL_OVERRIDES, env)
  for (const [name, value] of Object.entries(dshEnv)) {
    if (value !== undefined) child[name] = value
  }
  return child
}
