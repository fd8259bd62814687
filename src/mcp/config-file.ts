// `dsh mcp add/remove`: edits the `mcpServers` map of dsh's config file (YAML, comments
// and spacing kept) or of a project's `.mcp.json`. Every edit is validated before it is written.

import { existsSync, mkdirSync, realpathSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { MAX_PROJECT_FILE_BYTES, readCappedText } from '../core/capped-file.js'
import { DshError } from '../core/errors.js'
import {
  MAX_MCP_SERVERS,
  type McpServerConfig,
  type McpServerEntry,
  mcpSchemas,
  PROJECT_MCP_FILE,
  serverNameProblem,
  tooManyServers,
} from './config.js'
import { McpErrorCode } from './errors.js'
import { addServerToYaml, parseConfigYaml, removeServerFromYaml } from './yaml-edit.js'

export type McpConfigScope = 'user' | 'project'

function readText(file: string): string | undefined {
  try {
    // config.yaml and .mcp.json share the 1 MiB cap.
    return readCappedText(file, {
      maxBytes: MAX_PROJECT_FILE_BYTES,
      what: 'file',
      code: McpErrorCode.TooLarge,
    })
  } catch (error) {
    if (error instanceof DshError) throw error
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new DshError(`cannot read ${file}: ${(error as Error).message}`, McpErrorCode.InvalidConfig, {
      userFacing: true,
    })
  }
}

function writeAtomically(path: string, text: string): void {
  // A symlinked config (a dotfiles repository) is edited where it lives; the link stays.
  const file = existsSync(path) ? realpathSync(path) : path
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const temp = `${file}.${process.pid}.tmp`
  writeFileSync(temp, text, { mode: 0o600 })
  renameSync(temp, file)
}

function checkEntry(name: string, entry: McpServerEntry): McpServerConfig {
  const problem = serverNameProblem(name)
  if (problem !== undefined) {
    throw new DshError(`invalid server name ${JSON.stringify(name)}: ${problem}`, McpErrorCode.InvalidEntry, {
      userFacing: true,
    })
  }
  const result = mcpSchemas().server.safeParse(entry)
  if (!result.success) {
    throw new DshError(`server ${name}: ${result.error.issues[0]?.message}`, McpErrorCode.InvalidEntry, {
      userFacing: true,
    })
  }
  return result.data
}

/** Adds a server to the config file (YAML); refuses a name that is already there. */
export function addToConfigFile(
  file: string,
  name: string,
  entry: McpServerEntry,
  validate: (raw: unknown) => void,
): void {
  checkEntry(name, entry)
  const text = readText(file) ?? ''
  const document = parseConfigYaml(text, (message) => invalidYaml(file, message))
  if (document.hasIn(['mcpServers', name])) {
    throw new DshError(`MCP server ${name} already exists in ${file}`, McpErrorCode.NameTaken, {
      userFacing: true,
    })
  }
  const edited = addServerToYaml(text, name, entry)
  validate(parseConfigYaml(edited, (message) => invalidYaml(file, message)).toJS())
  writeAtomically(file, edited)
}

/** Removes a server from the config file; an unknown name is an error. */
export function removeFromConfigFile(file: string, name: string): void {
  const text = readText(file)
  const document = parseConfigYaml(text ?? '', (message) => invalidYaml(file, message))
  if (text === undefined || !document.hasIn(['mcpServers', name])) {
    throw new DshError(`no MCP server ${name} in ${file}`, McpErrorCode.UnknownServer, { userFacing: true })
  }
  writeAtomically(file, removeServerFromYaml(text, name))
}

function invalidYaml(file: string, message: string): DshError {
  return new DshError(`${file}: invalid YAML: ${message}`, McpErrorCode.InvalidConfig, { userFacing: true })
}

function readProjectFile(file: string): { mcpServers: Record<string, unknown> } & Record<string, unknown> {
  const text = readText(file)
  if (text === undefined) return { mcpServers: {} }
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>
    const servers = parsed.mcpServers
    return {
      ...parsed,
      mcpServers: typeof servers === 'object' && servers !== null ? (servers as Record<string, unknown>) : {},
    }
  } catch (error) {
    throw new DshError(`${file}: not JSON (${(error as Error).message})`, McpErrorCode.InvalidConfig, {
      userFacing: true,
    })
  }
}

/** Adds a server to `<root>/.mcp.json` (created when missing). */
export function addToProjectFile(root: string, name: string, entry: McpServerEntry): string {
  const file = join(root, PROJECT_MCP_FILE)
  checkEntry(name, entry)
  const project = readProjectFile(file)
  if (name in project.mcpServers) {
    throw new DshError(`MCP server ${name} already exists in ${file}`, McpErrorCode.NameTaken, {
      userFacing: true,
    })
  }
  const count = Object.keys(project.mcpServers).length + 1
  if (count > MAX_MCP_SERVERS)
    throw new DshError(tooManyServers(file, count), McpErrorCode.TooLarge, { userFacing: true })
  project.mcpServers[name] = entry
  writeAtomically(file, `${JSON.stringify(project, null, 2)}\n`)
  return file
}

/** Removes a server from `<root>/.mcp.json`. */
export function removeFromProjectFile(root: string, name: string): string {
  const file = join(root, PROJECT_MCP_FILE)
  const project = readProjectFile(file)
  if (!(name in project.mcpServers)) {
    throw new DshError(`no MCP server ${name} in ${file}`, McpErrorCode.UnknownServer, { userFacing: true })
  }
  delete project.mcpServers[name]
  writeAtomically(file, `${JSON.stringify(project, null, 2)}\n`)
  return file
}
