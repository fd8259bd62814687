// Two model tools for MCP resources, offered only while a server the agent sees
// advertises resources: list them, and read one by server and URI.

import { errorMessage } from '../core/errors.js'
import type { AgentHandle, ProvidedTool, ToolOutput } from '../plugin-api/index.js'
import type { McpConnection } from './connection.js'

export const LIST_RESOURCES_TOOL = 'mcp_list_resources'
export const READ_RESOURCE_TOOL = 'mcp_read_resource'

export function createResourceTools(
  visible: (agent: AgentHandle) => Promise<McpConnection[]>,
): readonly ProvidedTool[] {
  const withResources = async (agent: AgentHandle | undefined) =>
    agent
      ? (await visible(agent)).filter(
          (connection) => connection.state === 'connected' && connection.hasResources,
        )
      : []
  return Object.freeze([
    {
      schema: {
        name: LIST_RESOURCES_TOOL,
        description:
          'Lists the resources (files, records, documents) that connected MCP servers offer, as `server uri name (mimeType)` lines. Optionally only one server.',
        parameters: {
          type: 'object',
          properties: { server: { type: 'string', description: 'Only this MCP server' } },
          additionalProperties: false,
        },
      },
      async run(raw, execution): Promise<ToolOutput> {
        const args = parse(raw)
        const server = typeof args?.server === 'string' ? args.server : undefined
        const servers = (await withResources(execution.agent)).filter(
          (connection) => server === undefined || connection.name === server,
        )
        if (server !== undefined && servers.length === 0) {
          return { content: `No connected MCP server named ${server} offers resources.`, isError: true }
        }
        const lines: string[] = []
        for (const connection of servers) {
          try {
            for (const resource of await connection.listResources()) {
              lines.push(
                `${connection.name} ${resource.uri} ${resource.name}${resource.mimeType ? ` (${resource.mimeType})` : ''}`,
              )
            }
          } catch (error) {
            lines.push(`${connection.name}: cannot list resources: ${errorMessage(error)}`)
          }
        }
        return { content: lines.length > 0 ? lines.join('\n') : '(no resources)' }
      },
    },
    {
      schema: {
        name: READ_RESOURCE_TOOL,
        description: 'Reads one resource of an MCP server by its URI (see mcp_list_resources).',
        parameters: {
          type: 'object',
          properties: {
            server: { type: 'string', description: 'The MCP server that offers the resource' },
            uri: { type: 'string', description: 'The resource URI' },
          },
          required: ['server', 'uri'],
          additionalProperties: false,
        },
      },
      async run(raw, execution): Promise<ToolOutput> {
        const args = parse(raw)
        if (typeof args?.server !== 'string' || typeof args.uri !== 'string') {
          return {
            content: `Invalid arguments for ${READ_RESOURCE_TOOL}: server and uri are required strings`,
            isError: true,
          }
        }
        const connection = (await withResources(execution.agent)).find(
          (candidate) => candidate.name === args.server,
        )
        if (!connection)
          return { content: `No connected MCP server named ${args.server} offers resources.`, isError: true }
        try {
          return { content: await connection.readResource(args.uri) }
        } catch (error) {
          return { content: `MCP server ${connection.name}: ${errorMessage(error)}`, isError: true }
        }
      },
    },
  ])
}

function parse(raw: string | unknown): Record<string, unknown> | undefined {
  try {
    const value = typeof raw === 'string' ? (raw.trim() === '' ? {} : JSON.parse(raw)) : raw
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined
  } catch {
    // Not JSON: reported as invalid arguments by the caller.
    return undefined
  }
}
