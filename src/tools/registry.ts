// The tool registry service (`ctx.tools`): tools registered as effects, JSON Schemas
// for the model, and argument validation that turns bad calls into tool errors.

import { type Context, Service } from 'cordis'
import { z } from 'zod'
import { DshError, errorMessage } from '../core/errors.js'
import type { ToolSchema } from '../llm/types.js'
import { ToolErrorCode } from './errors.js'
import type { ToolDefinition, ToolExecution, ToolOutput } from './types.js'

const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/

export class ToolRegistry extends Service {
  private readonly tools = new Map<string, ToolDefinition>()
  /** The model-facing schemas, rebuilt only when the set of tools changes. */
  private cachedSchemas: readonly ToolSchema[] | undefined

  constructor(ctx: Context) {
    super(ctx, 'tools')
  }

  /** Registers a tool for the life of the calling plugin (a Cordis effect). */
  register<Schema extends z.ZodObject>(definition: ToolDefinition<Schema>): () => Promise<void> {
    if (!TOOL_NAME.test(definition.name)) {
      throw new DshError(`invalid tool name ${JSON.stringify(definition.name)}`, ToolErrorCode.InvalidName)
    }
    return this.ctx.effect(() => {
      if (this.tools.has(definition.name)) {
        throw new DshError(`tool ${definition.name} is already registered`, ToolErrorCode.Duplicate)
      }
      this.tools.set(definition.name, definition as unknown as ToolDefinition)
      this.cachedSchemas = undefined
      return () => {
        if (this.tools.get(definition.name) === (definition as unknown)) {
          this.tools.delete(definition.name)
          this.cachedSchemas = undefined
        }
      }
    }, `tools.register(${definition.name})`)
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name)
  }

  names(): string[] {
    return [...this.tools.keys()]
  }

  /**
   * The model-facing schemas of every registered tool, in registration order. The same
   * frozen array is returned until a tool is registered or removed.
   */
  schemas(): readonly ToolSchema[] {
    this.cachedSchemas ??= Object.freeze([...this.tools.values()].map(toolSchema))
    return this.cachedSchemas
  }

  /**
   * Runs a tool by name with the model's raw JSON arguments. An unknown tool, arguments
   * that do not parse or validate, and a throwing body all become error outputs.
   */
  async run(name: string, rawArguments: string | unknown, execution: ToolExecution): Promise<ToolOutput> {
    const tool = this.tools.get(name)
    if (!tool)
      return { content: `Unknown tool: ${name}. Available tools: ${this.names().join(', ')}`, isError: true }
    const parsed = parseToolArguments(tool, rawArguments)
    if (!parsed.ok) return { content: parsed.error, isError: true }
    try {
      return await tool.execute(parsed.value, { ...execution, toolName: name })
    } catch (error) {
      return { content: `Tool ${name} failed: ${errorMessage(error)}`, isError: true }
    }
  }
}

export function toolSchema(tool: ToolDefinition): ToolSchema {
  const parameters = z.toJSONSchema(tool.parameters, { io: 'input' }) as Record<string, unknown>
  delete parameters.$schema
  return { name: tool.name, description: tool.description, parameters }
}

export function parseToolArguments(
  tool: ToolDefinition,
  raw: string | unknown,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  let value: unknown = raw
  if (typeof raw === 'string') {
    try {
      value = raw.trim() === '' ? {} : JSON.parse(raw)
    } catch (error) {
      return { ok: false, error: `Invalid arguments for ${tool.name}: not JSON (${errorMessage(error)})` }
    }
  }
  const result = tool.parameters.safeParse(value)
  if (!result.success) {
    const issues = result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    return { ok: false, error: `Invalid arguments for ${tool.name}: ${issues.join('; ')}` }
  }
  return { ok: true, value: result.data as Record<string, unknown> }
}
