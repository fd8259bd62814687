// One `tools/call` on a connected server: progress reported, the call's own timeout (reset
// by progress), a long result spilled to a file; and whether a failure means the server
// lost the session.

import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { ToolExecution, ToolOutput } from '../plugin-api/index.js'
import { DEFAULT_TOOL_TIMEOUT_MS, type McpServerConfig } from './config.js'
import type { McpConnectionOptions } from './connection-types.js'
import { type McpCallResult, resultText } from './results.js'
import { spillLongResult } from './spill.js'

export interface ToolCallRequest {
  server: string
  options: McpConnectionOptions
  tool: string
  args: Record<string, unknown>
  execution: ToolExecution
  signal: AbortSignal
}

/** Calls the tool and answers its result as a tool output; a failure throws (the caller words it). */
export async function invokeTool(client: Client, request: ToolCallRequest): Promise<ToolOutput> {
  const { server, options, tool, execution } = request
  const result = (await client.callTool({ name: tool, arguments: request.args }, undefined, {
    signal: request.signal,
    timeout: options.config.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    resetTimeoutOnProgress: true,
    onprogress: (progress) =>
      options.onProgress?.({
        server,
        execution,
        progress: progress.progress,
        ...(progress.total !== undefined ? { total: progress.total } : {}),
        ...(progress.message !== undefined ? { message: progress.message } : {}),
      }),
  })) as McpCallResult
  const text = await spillLongResult(
    resultText(result),
    () => options.spill?.(),
    execution.agent?.id,
    `mcp-${server}-${tool}`,
  )
  return { content: text, ...(result.isError ? { isError: true } : {}) }
}

/**
 * A Streamable HTTP server answered 404 to a request carrying its session id: the session
 * is gone (the server restarted), and the client MUST start a new one (MCP 2025-11-25,
 * Transports › Session Management).
 */
export function sessionLost(config: McpServerConfig, client: Client, error: unknown): boolean {
  if (config.type !== 'http' || (error as { code?: unknown }).code !== 404) return false
  return (client.transport as { sessionId?: string } | undefined)?.sessionId !== undefined
}
