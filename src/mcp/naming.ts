// Model-facing names of MCP tools: `mcp__<server>__<tool>`, the name hooks and permission
// rules match. Names are kept to what the Chat Completions API accepts.

import { createHash } from 'node:crypto'

export const MCP_TOOL_PREFIX = 'mcp__'
const MAX_TOOL_NAME = 64

/** A server or tool name with every character outside `[A-Za-z0-9_-]` written as `_`. */
export function normalizeName(name: string): string {
  const normalized = name.replace(/[^A-Za-z0-9_-]/g, '_')
  return normalized === '' ? '_' : normalized
}

/**
 * `mcp__<server>__<tool>`, normalized; names past 64 characters are cut and end in a
 * short hash of the full name, so two long names never collide.
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `${MCP_TOOL_PREFIX}${normalizeName(server)}__${normalizeName(tool)}`
  if (full.length <= MAX_TOOL_NAME) return full
  return withHash(full, full)
}

/**
 * The names of one server's tools, in their order: `mcpToolName` of each, except where
 * two tools would get the same name (`get.user` and `get_user`): then each of them whose
 * name was changed ends in a short hash of its own name, and a tool whose name needed no
 * change keeps it. A name depends only on the set of tool names, not on their order.
 */
export function mcpToolNames(server: string, tools: readonly string[]): string[] {
  const names = tools.map((tool) => mcpToolName(server, tool))
  const uses = new Map<string, number>()
  for (const name of names) uses.set(name, (uses.get(name) ?? 0) + 1)
  return tools.map((tool, i) => {
    const name = names[i]!
    if (uses.get(name) === 1 || name === `${MCP_TOOL_PREFIX}${server}__${tool}`) return name
    return withHash(name, tool)
  })
}

/** `name` cut to leave room for `_` and 8 hex digits of the hash of `hashed`, then those. */
function withHash(name: string, hashed: string): string {
  const hash = createHash('sha256').update(hashed).digest('hex').slice(0, 8)
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${hash}`
}

/** The server part of an `mcp__server__tool` name, or undefined for other names. */
export function serverOfToolName(name: string): string | undefined {
  if (!name.startsWith(MCP_TOOL_PREFIX)) return undefined
  const rest = name.slice(MCP_TOOL_PREFIX.length)
  const end = rest.indexOf('__')
  return end > 0 ? rest.slice(0, end) : undefined
}
