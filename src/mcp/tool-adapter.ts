// An MCP server's tool as a model tool: named `mcp__<server>__<tool>`, its arguments parsed
// and checked against the tool's JSON Schema (the SDK's validator) before the call.

import type { JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import { errorMessage } from '../core/errors.js'
import type { ProvidedTool, ToolExecution, ToolOutput } from '../plugin-api/index.js'

/**
 * `tool` of `server` as a model tool named `name` (from `mcpToolNames`, unique among the
 * server's tools); its calls go to `call` with the tool's own name.
 */
export function mcpProvidedTool(
  server: string,
  tool: { name: string; title?: string; description?: string; inputSchema: Record<string, unknown> },
  name: string,
  validator: { getValidator<T>(schema: never): JsonSchemaValidator<T> },
  call: (tool: string, args: Record<string, unknown>, execution: ToolExecution) => Promise<ToolOutput>,
): ProvidedTool {
  const { $schema: _ignored, ...parameters } = tool.inputSchema
  let validate: JsonSchemaValidator<unknown> | undefined
  return {
    schema: {
      name,
      description: tool.description ?? tool.title ?? `Tool ${tool.name} of the MCP server ${server}.`,
      parameters: { ...parameters, type: 'object' },
    },
    run: async (raw, execution) => {
      const parsed = parseArguments(raw)
      if (!parsed.ok) return { content: `Invalid arguments for ${name}: ${parsed.error}`, isError: true }
      validate ??= validator.getValidator(tool.inputSchema as never)
      const checked = validate(parsed.value)
      if (!checked.valid) {
        return {
          content: `Invalid arguments for ${name}: ${checked.errorMessage ?? 'schema mismatch'}`,
          isError: true,
        }
      }
      return call(tool.name, parsed.value, execution)
    },
  }
}

function parseArguments(
  raw: string | unknown,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  let value = raw
  if (typeof raw === 'string') {
    try {
      value = raw.trim() === '' ? {} : JSON.parse(raw)
    } catch (error) {
      return { ok: false, error: `not JSON (${errorMessage(error)})` }
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: 'expected a JSON object' }
  }
  return { ok: true, value: value as Record<string, unknown> }
}
