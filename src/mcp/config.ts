// MCP server entries as users already write them (Claude Code's `mcpServers` shape, in
// dsh's config and in a project's `.mcp.json`), validated, and `${VAR}` expansion.

import { join } from 'node:path'
import * as z from 'zod'
import { MAX_PROJECT_FILE_BYTES, readCappedText } from '../core/capped-file.js'
import { DshError, errorMessage } from '../core/errors.js'
import { lazySchema } from '../core/lazy-schema.js'
import { McpErrorCode } from './errors.js'

export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000
export const DEFAULT_TOOL_TIMEOUT_MS = 600_000
export const PROJECT_MCP_FILE = '.mcp.json'
/**
 * Most servers one source may list (config, `.mcp.json`, an ACP session). Each is a process
 * or a connection started before the first model request; past this a list is a mistake or
 * an attack, so it is refused whole, in one line.
 */
export const MAX_MCP_SERVERS = 100

/** The one-line refusal of a server list longer than MAX_MCP_SERVERS. */
export function tooManyServers(where: string, count: number): string {
  return `${where}: ${count} MCP servers; the limit is ${MAX_MCP_SERVERS}`
}

/** An http(s) URL; one holding a `${VAR}` is checked once expanded, when the server starts. */
function isServerUrl(url: string): boolean {
  if (url.includes('${')) return true
  try {
    const { protocol } = new URL(url)
    return protocol === 'http:' || protocol === 'https:'
  } catch {
    return false
  }
}

export const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/

/**
 * What is wrong with `name` as a server's name (a clause), or undefined when nothing is.
 * `__` is refused: in `mcp__odd__b__echo` the rule `mcp__odd` and the hook matcher
 * `mcp__odd__.*` would reach server `odd__b` too. (Claude Code takes such a name and
 * mis-parses its tools' names; see docs/mcp.md.)
 */
export function serverNameProblem(name: string): string | undefined {
  if (!SERVER_NAME.test(name)) return 'server names use letters, digits, _ and - (at most 64)'
  if (name.includes('__'))
    return 'a server name may not hold "__": tool names are mcp__<server>__<tool>, so permission rules and hooks could not tell the server from the tool'
  return undefined
}

/**
 * The schemas of server entries, built on first use (mcpSchemas): a start with no MCP server
 * in its config and no `.mcp.json` never builds them (issue #31).
 */
function buildMcpSchemas() {
  const timeouts = {
    /** How long the first model request waits for this server to start. */
    startupTimeoutMs: z.number().int().positive().optional(),
    /** How long one tool call may run without progress. */
    toolTimeoutMs: z.number().int().positive().optional(),
  }

  const stdio = z
    .object({
      type: z.literal('stdio').optional(),
      command: z.string().min(1),
      args: z.array(z.string()).default([]),
      env: z.record(z.string(), z.string()).default({}),
      cwd: z.string().min(1).optional(),
      ...timeouts,
    })
    .strict()

  const remote = z
    .object({
      type: z.enum(['http', 'sse']),
      url: z
        .string()
        .min(1)
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VAR} syntax
        .refine(isServerUrl, 'url must be an http:// or https:// URL (or hold a ${VAR})'),
      headers: z.record(z.string(), z.string()).default({}),
      ...timeouts,
    })
    .strict()

  /** One server entry: stdio (`type` may be omitted), `http` (Streamable HTTP) or legacy `sse`. */
  const server = z.union([stdio, remote])

  /** The `mcpServers` map; a list past MAX_MCP_SERVERS is refused before any entry is validated. */
  const servers = z
    .unknown()
    .superRefine((servers, ctx) => {
      const count = typeof servers === 'object' && servers !== null ? Object.keys(servers).length : 0
      if (count > MAX_MCP_SERVERS)
        ctx.addIssue({ code: 'custom', message: `${count} MCP servers; the limit is ${MAX_MCP_SERVERS}` })
    })
    .pipe(
      z.record(
        z.string().superRefine((name, ctx) => {
          const problem = serverNameProblem(name)
          if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem })
        }),
        server,
      ),
    )
  return { stdio, remote, server, servers }
}

type McpSchemas = ReturnType<typeof buildMcpSchemas>
/** The schemas of one server entry (`server`) and of an `mcpServers` map (`servers`), built on the first call. */
export const mcpSchemas = lazySchema(buildMcpSchemas)

export type McpServerConfig = z.infer<McpSchemas['server']>
/** An entry as written in a file, before defaults (`args`, `env`, `headers` may be left out). */
export type McpServerEntry = z.input<McpSchemas['server']>
export type McpStdioServerConfig = z.infer<McpSchemas['stdio']>
export type McpRemoteServerConfig = z.infer<McpSchemas['remote']>

export function isStdio(config: McpServerConfig): config is McpStdioServerConfig {
  return config.type === undefined || config.type === 'stdio'
}

/** Where a server entry came from, for `dsh mcp list` and messages. */
export type McpServerSource =
  | { kind: 'user'; file?: string }
  | { kind: 'project'; file: string }
  | { kind: 'session'; sessionId: string }

export interface ProjectServers {
  file: string
  servers: Record<string, McpServerConfig>
  /** Entries that were skipped, one line each. */
  problems: string[]
}

/**
 * Reads `<root>/.mcp.json`. Missing file: undefined. A file that is larger than
 * MAX_PROJECT_FILE_BYTES, not JSON, has no `mcpServers` object or more than MAX_MCP_SERVERS
 * entries is one problem and brings no server; each bad entry is skipped with its own problem line.
 */
export function readProjectServers(root: string): ProjectServers | undefined {
  const file = join(root, PROJECT_MCP_FILE)
  let text: string
  try {
    text = readCappedText(file, {
      maxBytes: MAX_PROJECT_FILE_BYTES,
      what: 'MCP file',
      code: McpErrorCode.TooLarge,
    })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    const message = errorMessage(error)
    return {
      file,
      servers: {},
      problems: [message.startsWith(file) ? `${message}; no servers loaded` : `${file}: ${message}`],
    }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return { file, servers: {}, problems: [`${file}: not JSON (${(error as Error).message})`] }
  }
  const map = (parsed as { mcpServers?: unknown } | null)?.mcpServers
  if (typeof map !== 'object' || map === null || Array.isArray(map)) {
    return { file, servers: {}, problems: [`${file}: expected an object "mcpServers"`] }
  }
  const count = Object.keys(map).length
  if (count > MAX_MCP_SERVERS) {
    return { file, servers: {}, problems: [`${tooManyServers(file, count)}; no servers loaded`] }
  }
  const servers: Record<string, McpServerConfig> = {}
  const problems: string[] = []
  for (const [name, entry] of Object.entries(map)) {
    const problem = serverNameProblem(name)
    if (problem !== undefined) {
      problems.push(`${file}: mcpServers.${name}: ${problem}`)
      continue
    }
    const result = mcpSchemas().server.safeParse(entry)
    if (result.success) servers[name] = result.data
    else problems.push(`${file}: mcpServers.${name}: ${result.error.issues[0]?.message ?? 'invalid'}`)
  }
  return { file, servers, problems }
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

/**
 * Expands `${VAR}` and `${VAR:-default}` as the shell does: a variable set to the empty
 * string expands to nothing, and `:-` takes the default when the variable is unset or
 * empty. An unset variable without a default throws.
 */
export function expandVariables(text: string, env: NodeJS.ProcessEnv, where: string): string {
  return text.replace(VARIABLE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name]
    if (fallback !== undefined) return value === undefined || value === '' ? fallback : value
    if (value !== undefined) return value
    throw new DshError(`${where}: \${${name}} is not set`, McpErrorCode.MissingVariable, { userFacing: true })
  })
}

/** The entry with `${VAR}` expanded in `env`, `args`, `url` and `headers` (and `command`, `cwd`). */
export function expandServerConfig(
  name: string,
  config: McpServerConfig,
  env: NodeJS.ProcessEnv,
): McpServerConfig {
  const at = (field: string) => `MCP server ${name}: ${field}`
  const map = (record: Record<string, string>, field: string) =>
    Object.fromEntries(
      Object.entries(record).map(([key, value]) => [key, expandVariables(value, env, at(`${field}.${key}`))]),
    )
  if (isStdio(config)) {
    return {
      ...config,
      command: expandVariables(config.command, env, at('command')),
      args: config.args.map((arg, i) => expandVariables(arg, env, at(`args[${i}]`))),
      env: map(config.env, 'env'),
      ...(config.cwd !== undefined ? { cwd: expandVariables(config.cwd, env, at('cwd')) } : {}),
    }
  }
  return {
    ...config,
    url: expandVariables(config.url, env, at('url')),
    headers: map(config.headers, 'headers'),
  }
}
