// The managed environment registry (`ctx.shellEnv`): contributors declare `DSH_*` keys
// (each registration a Cordis effect), and `collect` builds a frozen snapshot per call.

import { type Context, Service, type Tracker } from 'cordis'
import { DshError, errorMessage } from '../../core/errors.js'
import { absolutePath } from '../../home/resolve-home.js'
import type { ToolExecution } from '../../plugin-api/index.js'
import { ShellErrorCode } from '../errors.js'
import { defaultBashPath } from '../find-shell.js'
import { BUILTIN_DSH_ENV_KEYS, DSH_ENV_KEY_PATTERN, type DshEnvKey } from '../namespace.js'
import type { DshEnvSnapshot, ShellEnvContributor, ShellEnvDeclaration } from '../types.js'

export interface ShellEnvRegistryConfig {
  /** The resolved harness home (`resolveDshHome`), reported as `DSH_HOME`. Required. */
  home: string
  /** Reported as `DSH_SHELL`. Default: the current `ctx.shell` executor's `shellPath`. */
  shell?: string
}

/** The name built-in declarations are listed under; no contributor may take it. */
export const BUILTIN_CONTRIBUTOR = 'builtin'

const BUILTIN_DESCRIPTIONS: Readonly<Record<DshEnvKey, string>> = {
  [BUILTIN_DSH_ENV_KEYS.home]: 'Absolute path of the harness home folder (config, sessions, skills).',
  [BUILTIN_DSH_ENV_KEYS.shell]: 'Absolute path of the shell that runs this command.',
  [BUILTIN_DSH_ENV_KEYS.sessionId]:
    'Id of the session (and agent) that owns this call; absent outside an agent.',
}

interface Entry {
  contributor: ShellEnvContributor
  declared: ReadonlySet<string>
}

/**
 * Plain state behind the service: methods reached through Cordis proxies touch the
 * service object once, then work on this table.
 */
class ShellEnvTable {
  readonly entries = new Map<string, Entry>()
  readonly owners = new Map<string, string>()
  /** The current executor's shell path; reset whenever the `shell` service changes. */
  shellPath: string | undefined

  constructor(
    private readonly ctx: Context,
    readonly home: string,
    private readonly configuredShell: string | undefined,
  ) {}

  currentShell(): string {
    if (this.configuredShell !== undefined) return this.configuredShell
    if (this.shellPath !== undefined) return this.shellPath
    const executor = this.ctx.get('shell')
    if (!executor) return defaultBashPath()
    this.shellPath = executor.shellPath
    return this.shellPath
  }

  collect(execution: ToolExecution): DshEnvSnapshot {
    const snapshot: Record<string, string> = {
      [BUILTIN_DSH_ENV_KEYS.home]: this.home,
      [BUILTIN_DSH_ENV_KEYS.shell]: this.currentShell(),
    }
    if (execution.agent) snapshot[BUILTIN_DSH_ENV_KEYS.sessionId] = execution.agent.session.header.id
    for (const { contributor, declared } of this.entries.values()) {
      let values: Record<string, unknown>
      try {
        values = contributor.resolve(execution)
      } catch (error) {
        throw new DshError(
          `shell env contributor ${contributor.name} failed: ${errorMessage(error)}`,
          ShellErrorCode.EnvResolveFailed,
          { cause: error },
        )
      }
      for (const key in values) {
        const value = values[key]
        if (value === undefined) continue
        if (!declared.has(key)) {
          throw new DshError(
            `shell env contributor ${contributor.name} returned undeclared key ${key}`,
            ShellErrorCode.EnvUndeclaredKey,
          )
        }
        if (typeof value !== 'string' || value.includes('\0')) {
          throw new DshError(
            `shell env contributor ${contributor.name} returned a non-string value for ${key}`,
            ShellErrorCode.EnvInvalidValue,
          )
        }
        snapshot[key] = value
      }
    }
    return Object.freeze(snapshot)
  }
}

export class ShellEnvRegistry extends Service {
  private readonly table: ShellEnvTable

  constructor(ctx: Context, config: ShellEnvRegistryConfig) {
    super(ctx, 'shellEnv')
    // `collect` runs on every tool call: skip the shadow context Cordis builds per method
    // call. `this.ctx` still answers the caller's context, so `register` effects belong
    // to the caller's fiber.
    ;(this as unknown as Record<symbol, Tracker>)[Service.tracker]!.noShadow = true
    if (typeof config?.home !== 'string' || config.home.trim() === '') {
      throw new DshError('shellEnv: the harness home must be configured', ShellErrorCode.EnvNoHome)
    }
    const table = new ShellEnvTable(ctx, absolutePath(config.home), config.shell)
    this.table = table
    ctx.on('internal/service', (name) => {
      if (name === 'shell') table.shellPath = undefined
    })
  }

  /**
   * Registers a contributor for the life of the calling plugin (a Cordis effect).
   * Throws DshError (ShellErrorCode.Env*) on a blank name, a duplicate name, a key
   * outside `DSH_[A-Z][A-Z0-9_]*`, a built-in key, a blank description, or a key
   * owned by another contributor.
   */
  register<Key extends DshEnvKey>(contributor: ShellEnvContributor<Key>): () => Promise<void> {
    const table = this.table
    const declared = validateDeclaration(contributor as unknown as ShellEnvContributor)
    return this.ctx.effect(() => {
      if (table.entries.has(contributor.name) || contributor.name === BUILTIN_CONTRIBUTOR) {
        throw new DshError(
          `shell env contributor ${contributor.name} is already registered`,
          ShellErrorCode.EnvDuplicateName,
        )
      }
      for (const key of declared) {
        const owner = table.owners.get(key)
        if (owner !== undefined) {
          throw new DshError(
            `shell env key ${key} (contributor ${contributor.name}) is already owned by contributor ${owner}`,
            ShellErrorCode.EnvKeyConflict,
          )
        }
      }
      const entry: Entry = { contributor: contributor as unknown as ShellEnvContributor, declared }
      table.entries.set(contributor.name, entry)
      for (const key of declared) table.owners.set(key, contributor.name)
      return () => {
        if (table.entries.get(contributor.name) !== entry) return
        table.entries.delete(contributor.name)
        for (const key of declared) table.owners.delete(key)
      }
    }, `shellEnv.register(${contributor.name})`)
  }

  /**
   * The managed variables for one tool call: built-ins, then every contributor's values.
   * Returns a frozen snapshot. Throws DshError when a contributor throws, returns an
   * undeclared key or a non-string value.
   */
  collect(execution: ToolExecution): DshEnvSnapshot {
    return this.table.collect(execution)
  }

  /** Every declared key, built-ins first, without running any resolver. */
  list(): ShellEnvDeclaration[] {
    const declarations: ShellEnvDeclaration[] = Object.entries(BUILTIN_DESCRIPTIONS).map(
      ([key, description]) => ({
        key: key as DshEnvKey,
        description,
        contributor: BUILTIN_CONTRIBUTOR,
        builtin: true,
      }),
    )
    for (const { contributor } of this.table.entries.values()) {
      for (const [key, description] of Object.entries<string>(contributor.keys)) {
        declarations.push({
          key: key as DshEnvKey,
          description,
          contributor: contributor.name,
          builtin: false,
        })
      }
    }
    return declarations
  }
}

function validateDeclaration(contributor: ShellEnvContributor): ReadonlySet<string> {
  const name = contributor?.name
  if (typeof name !== 'string' || name.trim() === '') {
    throw new DshError('shell env contributor: name must not be blank', ShellErrorCode.EnvBlankName)
  }
  if (
    typeof contributor.resolve !== 'function' ||
    typeof contributor.keys !== 'object' ||
    !contributor.keys
  ) {
    throw new DshError(
      `shell env contributor ${name}: must declare keys and a resolve function`,
      ShellErrorCode.EnvInvalidDeclaration,
    )
  }
  const keys = Object.entries<unknown>(contributor.keys)
  if (keys.length === 0) {
    throw new DshError(
      `shell env contributor ${name}: declares no keys`,
      ShellErrorCode.EnvInvalidDeclaration,
    )
  }
  for (const [key, description] of keys) {
    if (!DSH_ENV_KEY_PATTERN.test(key)) {
      throw new DshError(
        `shell env contributor ${name}: key ${JSON.stringify(key)} is not of the form DSH_[A-Z][A-Z0-9_]*`,
        ShellErrorCode.EnvInvalidKey,
      )
    }
    if (key in BUILTIN_DESCRIPTIONS) {
      throw new DshError(
        `shell env contributor ${name}: key ${key} is a reserved built-in`,
        ShellErrorCode.EnvReservedKey,
      )
    }
    if (typeof description !== 'string' || description.trim() === '') {
      throw new DshError(
        `shell env contributor ${name}: key ${key} needs a non-blank description`,
        ShellErrorCode.EnvBlankDescription,
      )
    }
  }
  return new Set(keys.map(([key]) => key))
}
