// Loads and validates the config file, and resolves it into absolute, defaulted
// settings. Every error names the file and the field.

import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { z } from 'zod'
import { readCappedText } from '../core/capped-file.js'
import { DshError } from '../core/errors.js'
import { preloadYaml, yamlLibrary } from '../core/yaml.js'
import { absolutePath, resolveConfiguredHome, resolveDshHome } from '../home/resolve-home.js'
import { parsePermissionRule } from '../permissions/rule-parser.js'
import { assertStoragePath } from '../persistence/storage-path.js'
import { ConfigErrorCode } from './errors.js'
import { configSchema, type DshConfigFile } from './schema.js'
import { type ConfigSources, fieldsSetIn, sourcesFor } from './sources.js'

/**
 * Largest config file read (bytes). A hand-written config is a few kilobytes; a file far
 * past this (hundreds of thousands of agent rows) would take seconds and hundreds of MB
 * to parse and validate, so it is refused in one line instead.
 */
export const MAX_CONFIG_BYTES = 1024 * 1024

/** YAML aliases a config may expand (the yaml library's own default); more is refused, naming the file. */
const MAX_YAML_ALIASES = 100

export interface ResolvedConfig extends DshConfigFile {
  /** The one harness home, absolute. */
  home: string
  /** The config file that was read, if any. */
  source?: string
  /** What set each field the file or a flag set (`/config`); unlisted fields are defaults. */
  sources?: ConfigSources
  persistence: DshConfigFile['persistence'] & { root: string; file: string }
}

export interface LoadConfigOptions {
  /** An explicit `--config` file: it must exist. */
  file?: string
  env?: NodeJS.ProcessEnv
}

export function loadConfig(options: LoadConfigOptions = {}): ResolvedConfig {
  const env = options.env ?? process.env
  const path = configPath(options, env)
  const text = readConfigText(path, options.file !== undefined)
  const raw = text === undefined ? {} : parseYaml(path, text)
  const config = resolveConfig(validateConfig(path, raw), env, text === undefined ? undefined : path)
  if (text === undefined) return config
  const label = options.file !== undefined ? `--config ${path}` : `user file ${path}`
  return { ...config, sources: sourcesFor(fieldsSetIn(raw), label) }
}

/**
 * `loadConfig` for a command that can wait: when there is a config file, the yaml library
 * is loaded first as one bundled chunk instead of on demand (see core/yaml.ts), which
 * takes a share off the time to `dsh run`'s first model request.
 */
export async function readConfig(options: LoadConfigOptions = {}): Promise<ResolvedConfig> {
  if (existsSync(configPath(options, options.env ?? process.env))) await preloadYaml()
  return loadConfig(options)
}

function configPath(options: LoadConfigOptions, env: NodeJS.ProcessEnv): string {
  return options.file !== undefined
    ? absolutePath(options.file)
    : join(resolveDshHome(undefined, env), 'config.yaml')
}

export function validateConfig(path: string, raw: unknown): DshConfigFile {
  const result = configSchema.safeParse(raw ?? {})
  if (!result.success) {
    throw new DshError(`${path}: ${describeIssue(result.error.issues[0]!)}`, ConfigErrorCode.Invalid, {
      userFacing: true,
    })
  }
  return result.data
}

/**
 * Fills defaults and makes paths absolute; relative paths in a file are relative to that
 * file (an MCP server's `cwd` too, once its `${VAR}`s are expanded at start).
 */
export function resolveConfig(file: DshConfigFile, env: NodeJS.ProcessEnv, source?: string): ResolvedConfig {
  const base = source !== undefined ? dirname(source) : process.cwd()
  const inFile = (path: string) => absolutePath(path, base)
  const home = resolveConfiguredHome(
    {
      dshHome: file.dshHome === undefined ? undefined : inFile(file.dshHome),
      skillsDshHome: file.skills.dshHome === undefined ? undefined : inFile(file.skills.dshHome),
    },
    env,
  )
  const root = file.persistence.root !== undefined ? inFile(file.persistence.root) : join(home, 'sessions')
  const database =
    file.persistence.file !== undefined ? inFile(file.persistence.file) : join(home, 'sessions.db')
  const where = source ?? 'config'
  if (file.persistence.backend === 'jsonl') assertStoragePath(root, `${where}: persistence.root`, 'folder')
  if (file.persistence.backend === 'sqlite') assertStoragePath(database, `${where}: persistence.file`, 'file')
  return {
    ...file,
    home,
    ...(source !== undefined ? { source } : {}),
    model: {
      ...file.model,
      ...(file.model.apiKeyFile !== undefined ? { apiKeyFile: inFile(file.model.apiKeyFile) } : {}),
    },
    sandboxBwrapPath: inFile(file.sandboxBwrapPath),
    // The variable that holds the key is scrubbed whatever its name (`LLM_API` has no KEY in it).
    secrets: { ...file.secrets, scrub: [...new Set([...file.secrets.scrub, file.model.apiKeyEnv])] },
    persistence: {
      ...file.persistence,
      root,
      file: database,
    },
    // An MCP server's `cwd` stays as written: it may hold `${VAR}`s, expanded when the server
    // starts; a relative result is resolved then against this file's folder (src/mcp/transport.ts).
    mcpServers: file.mcpServers,
    hooks: {
      ...file.hooks,
      claudeCode: file.hooks.claudeCode.map(inFile),
      codex: file.hooks.codex.map(inFile),
    },
    permissions: {
      ...checkRules(file.permissions, source ?? 'config'),
      additionalDirectories: file.permissions.additionalDirectories.map(inFile),
    },
  }
}

/** Every permission rule must parse: a broken deny rule is never skipped silently. */
function checkRules<T extends DshConfigFile['permissions']>(permissions: T, path: string): T {
  for (const behavior of ['allow', 'ask', 'deny'] as const) {
    for (const [index, rule] of permissions[behavior].entries()) {
      try {
        parsePermissionRule(rule)
      } catch (error) {
        throw new DshError(
          `${path}: permissions.${behavior}[${index}]: ${(error as Error).message}`,
          ConfigErrorCode.Invalid,
          {
            userFacing: true,
          },
        )
      }
    }
  }
  return permissions
}

function readConfigText(path: string, required: boolean): string | undefined {
  try {
    return readCappedText(path, {
      maxBytes: MAX_CONFIG_BYTES,
      what: 'config file',
      code: ConfigErrorCode.TooLarge,
    })
  } catch (error) {
    if (error instanceof DshError) throw error
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' && !required) return undefined
    if (code === 'ENOENT')
      throw new DshError(`cannot read config ${path}: no such file`, ConfigErrorCode.NotFound, {
        userFacing: true,
      })
    throw new DshError(`cannot read config ${path}: ${unreadableWhy(code)}`, ConfigErrorCode.Unreadable, {
      userFacing: true,
    })
  }
}

/** Why a config file that exists cannot be read, in words. */
function unreadableWhy(code: string | undefined): string {
  switch (code) {
    case 'EISDIR':
      return 'it is a folder, not a file'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'ENOTDIR':
      return 'a part of its path is a file, not a folder (check DSH_HOME)'
    default:
      return `it cannot be read (${code ?? 'unknown error'})`
  }
}

function parseYaml(path: string, text: string): unknown {
  // Loaded on first use (core/yaml.ts): most runs read no config file.
  const document = yamlLibrary().parseDocument(text, { prettyErrors: false })
  const error = document.errors[0]
  if (error) {
    const line = text.slice(0, error.pos[0]).split('\n').length
    const where = `line ${line}: `
    throw new DshError(
      `${path}: ${where}invalid YAML: ${error.message.split('\n')[0]}`,
      ConfigErrorCode.Syntax,
      {
        userFacing: true,
      },
    )
  }
  try {
    return document.toJS({ maxAliasCount: MAX_YAML_ALIASES })
  } catch (error) {
    // An alias bomb (a few lines expanding to millions of nodes) or a bad alias.
    throw new DshError(
      `${path}: invalid YAML: ${(error as Error).message.split('\n')[0]}`,
      ConfigErrorCode.Syntax,
      { userFacing: true, cause: error },
    )
  }
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.length > 0 ? issue.path.join('.') : '(top level)'
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.join(', ')
    return `${field === '(top level)' ? '' : `${field}: `}unknown field ${keys}`
  }
  // A map's bad key (an MCP server's name): zod says "Invalid key in record" and keeps the
  // key schema's own message, which says what a key may be, one level down.
  if (issue.code === 'invalid_key' && issue.issues[0] !== undefined)
    return `${field}: ${issue.issues[0].message}`
  return `${field}: ${issue.message}`
}
