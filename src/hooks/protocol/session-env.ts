// The session env file of Claude Code's SessionStart hooks (CLAUDE_ENV_FILE; CODEX_ENV_FILE
// for Codex): a file in the session's spill folder that the hooks append `export` lines to,
// sourced before every later bash call of the session (sub-agents included) — carried per call
// as DSH_<DIALECT>_ENV_FILE in the managed snapshot, never put in dsh's own environment.

import { statSync } from 'node:fs'
import { join } from 'node:path'
import type { Context } from 'cordis'
import type { SessionId } from '../../session/types.js'
import type { DshEnvKey } from '../../shell/index.js'
import type { HookDialect } from './dialect.js'

/** Sub-agents deeper than this look no further up for the root session's file. */
const MAX_ANCESTORS = 8

/** DSH_CLAUDE_CODE_ENV_FILE, DSH_CODEX_ENV_FILE: matches SOURCED_ENV_KEY_PATTERN. */
export function sessionEnvKey(dialect: HookDialect): DshEnvKey {
  return `DSH_${dialect.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_ENV_FILE`
}

/** The session's env file, its folder made; undefined without a spill store (no file to offer). */
export function prepareSessionEnvFile(ctx: Context, dialect: HookDialect, id: SessionId): string | undefined {
  const spill = ctx.get('spill')
  if (!spill) return undefined
  return join(spill.ensureDir(id), `${dialect.name}-env.sh`)
}

/** Registers the per-call contributor while the bridge (and a shellEnv registry) is loaded. */
export function attachSessionEnv(ctx: Context, dialect: HookDialect): void {
  const key = sessionEnvKey(dialect)
  // A sub-plugin: registered once a shellEnv registry exists, removed with the bridge.
  ctx.plugin({
    name: `hook-env-${dialect.name}`,
    inject: ['shellEnv'],
    apply(inner: Context) {
      inner.shellEnv.register({
        name: `hook-env-${dialect.name}`,
        keys: {
          [key]: `The session env file ${dialect.envFileVariable} named to SessionStart hooks, when they wrote to it; every bash call sources it first.`,
        },
        resolve(execution) {
          const file = fileFor(ctx, dialect, execution.agent?.session.header)
          return file === undefined ? {} : { [key]: file }
        },
      })
    },
  })
}

/** The written env file of this session, else of the nearest ancestor session (for a sub-agent). */
function fileFor(
  ctx: Context,
  dialect: HookDialect,
  header: { id: SessionId; parentSession?: SessionId } | undefined,
): string | undefined {
  const spill = ctx.get('spill')
  if (!spill) return undefined
  let current = header
  for (let depth = 0; current && depth <= MAX_ANCESTORS; depth++) {
    const file = join(spill.dirFor(current.id), `${dialect.name}-env.sh`)
    try {
      if (statSync(file).size > 0) return file
    } catch {
      // Not written: look at the parent.
    }
    const parent = current.parentSession
    current = parent === undefined ? undefined : (ctx.get('agents')?.get(parent)?.session.header ?? undefined)
  }
  return undefined
}
