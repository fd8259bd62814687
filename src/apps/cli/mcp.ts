// `dsh mcp list|add|remove`: the MCP servers this folder sees (started, with their state
// and tool count), and editing the config file or the project's `.mcp.json`.

import { join } from 'node:path'
import { Context } from 'cordis'
import { loadConfig, validateConfig } from '../../config/load.js'
import { isDshError } from '../../core/errors.js'
import { findProjectRoot } from '../../core/project-root.js'
import { resolveDshHome } from '../../home/resolve-home.js'
import type { McpServerEntry } from '../../mcp/config.js'
import {
  addToConfigFile,
  addToProjectFile,
  removeFromConfigFile,
  removeFromProjectFile,
} from '../../mcp/config-file.js'
import { McpErrorCode } from '../../mcp/errors.js'
import { McpManager } from '../../mcp/manager.js'
import { statusLine } from '../../mcp/status-lines.js'
import { ProjectTrustService } from '../../trust/index.js'
import { ExitCode, usageError } from '../shared/errors.js'
import { resolveCwd } from '../shared/options.js'

export interface McpListOptions {
  config?: string
  cwd?: string
  json?: boolean
}

/** Starts each server this folder sees, prints one line each; exit 1 when one is not connected. */
export async function mcpListCommand(options: McpListOptions): Promise<number> {
  const config = loadConfig(options.config !== undefined ? { file: options.config } : {})
  const cwd = resolveCwd(options.cwd, '--cwd')
  const ctx = new Context()
  // Remembered trust only: listing never asks, and never starts an unapproved project's servers.
  const trust = ctx.plugin(ProjectTrustService, { home: config.home, frontEnd: 'interactive' })
  const fiber = ctx.plugin(McpManager, {
    servers: config.mcpServers,
    home: config.home,
    secrets: config.secrets,
    ...(config.source !== undefined ? { configFile: config.source } : {}),
  })
  await Promise.all([trust.await(), fiber.await()])
  try {
    const rows = await ctx.mcp.check(cwd)
    if (options.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`)
    else if (rows.length === 0) process.stdout.write('no MCP servers (add one with `dsh mcp add`)\n')
    else for (const row of rows) process.stdout.write(`${statusLine(row)}\n`)
    return rows.every((row) => row.state === 'connected' || row.state === 'untrusted')
      ? ExitCode.Ok
      : ExitCode.Failure
  } finally {
    await ctx.mcp.closeAll()
    await fiber.dispose()
    await trust.dispose()
  }
}

export interface McpAddOptions {
  config?: string
  transport?: string
  env?: string[]
  header?: string[]
  scope?: string
}

/** `dsh mcp add <name> <commandOrUrl> [args...]`, Claude Code's spelling. */
export async function mcpAddCommand(
  name: string,
  target: string,
  args: string[],
  options: McpAddOptions,
): Promise<number> {
  const transport = options.transport ?? 'stdio'
  let entry: McpServerEntry
  if (transport === 'stdio') {
    if ((options.header ?? []).length > 0) throw usageError('--header is for http and sse servers')
    const env = pairs(options.env ?? [], '=', '--env')
    entry = {
      command: target,
      ...(args.length > 0 ? { args } : {}),
      ...(Object.keys(env).length > 0 ? { env } : {}),
    }
  } else if (transport === 'http' || transport === 'sse') {
    if (args.length > 0) throw usageError(`unexpected arguments after the URL: ${args.join(' ')}`)
    if ((options.env ?? []).length > 0) throw usageError('--env is for stdio servers')
    const headers = pairs(options.header ?? [], ':', '--header')
    entry = {
      type: transport,
      url: target,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
    }
  } else {
    throw usageError(`--transport must be stdio, http or sse (got ${JSON.stringify(transport)})`)
  }
  const written = typed(() =>
    write(options, {
      user: (file) => addToConfigFile(file, name, entry, (raw) => validateConfig(file, raw)),
      project: (root) => addToProjectFile(root, name, entry),
    }),
  )
  process.stdout.write(`added MCP server ${name} to ${written}\n`)
  return ExitCode.Ok
}

export async function mcpRemoveCommand(
  name: string,
  options: { config?: string; scope?: string },
): Promise<number> {
  const written = typed(() =>
    write(options, {
      user: (file) => removeFromConfigFile(file, name),
      project: (root) => removeFromProjectFile(root, name),
    }),
  )
  process.stdout.write(`removed MCP server ${name} from ${written}\n`)
  return ExitCode.Ok
}

/**
 * Runs an edit, making what is wrong with the name or entry typed — an invalid one, or a
 * name that names no server — a usage error (exit 2, docs/cli.md). A duplicate name or a
 * broken file stays a failed command (exit 1).
 */
function typed<T>(edit: () => T): T {
  try {
    return edit()
  } catch (error) {
    if (isDshError(error, McpErrorCode.InvalidEntry) || isDshError(error, McpErrorCode.UnknownServer))
      throw usageError(error.message)
    throw error
  }
}

function write(
  options: { config?: string; scope?: string },
  edit: { user: (file: string) => void; project: (root: string) => string },
): string {
  const scope = options.scope ?? 'user'
  if (scope === 'project') return edit.project(findProjectRoot(process.cwd()))
  if (scope !== 'user') throw usageError(`--scope must be user or project (got ${JSON.stringify(scope)})`)
  const file = options.config ?? join(resolveDshHome(), 'config.yaml')
  edit.user(file)
  return file
}

function pairs(items: string[], separator: string, flag: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const item of items) {
    const at = item.indexOf(separator)
    if (at <= 0) throw usageError(`${flag} ${JSON.stringify(item)}: expected NAME${separator}VALUE`)
    out[item.slice(0, at).trim()] = item.slice(at + 1).trim()
  }
  return out
}
