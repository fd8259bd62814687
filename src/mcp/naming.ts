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
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 8)
  return `${full.slice(0, MAX_TOOL_NAME - 9)}_${hash}`
}

/** The server part of an `mcp__server__tool` name, or undefined for other names. */
export function serverOfToolName(name: string): string | undefined {
  if (!name.startsWith(MCP_TOOL_PREFIX)) return undefined
  const rest = name.slice(MCP_TOOL_PREFIX.length)
  const end = rest.indexOf('__')
  return end > 0 ? rest.slice(0, end) : undefined
}
