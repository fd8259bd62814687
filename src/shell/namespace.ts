// The managed `DSH_*` namespace: the one place its prefix and key shape are defined.
// The registry, the executors and the bash tool all derive from these constants.

/** The single source of the managed environment namespace. */
export const DSH_ENV_PREFIX = 'DSH_'

/** A managed environment variable name. */
export type DshEnvKey = `${typeof DSH_ENV_PREFIX}${string}`

/** Well-formed managed keys: the prefix, an upper-case letter, then upper-case letters, digits, `_`. */
export const DSH_ENV_KEY_PATTERN = new RegExp(`^${DSH_ENV_PREFIX}[A-Z][A-Z0-9_]*$`)

/** Keys the registry itself owns; no contributor may declare them. */
export const BUILTIN_DSH_ENV_KEYS = {
  home: `${DSH_ENV_PREFIX}HOME`,
  shell: `${DSH_ENV_PREFIX}SHELL`,
  sessionId: `${DSH_ENV_PREFIX}SESSION_ID`,
} as const satisfies Record<string, DshEnvKey>

/** True for any name in the managed namespace (well-formed or not). */
export function isDshEnvName(name: string): name is DshEnvKey {
  return name.startsWith(DSH_ENV_PREFIX)
}

/**
 * Managed keys naming a file of shell code that every bash call sources before its command:
 * the session env files SessionStart hooks write through CLAUDE_ENV_FILE / CODEX_ENV_FILE.
 * Carried per call in the snapshot, so one session's exports never reach another's calls.
 */
export const SOURCED_ENV_KEY_PATTERN = new RegExp(`^${DSH_ENV_PREFIX}[A-Z0-9_]+_ENV_FILE$`)
