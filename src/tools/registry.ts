// The tool registry service (`ctx.tools`): tools registered as effects, JSON Schemas
// for the model, and argument validation that turns bad calls into tool errors.

import { type Context, Service } from 'cordis'
import type * as z from 'zod'
import { DshError, errorMessage } from '../core/errors.js'
import { parametersJsonSchema } from '../core/tool-parameters.js'
import type { ToolSchema } from '../llm/types.js'
import type {
  AgentHandle,
  ProvidedTool,
  ToolDefinition,
  ToolExecution,
  ToolOutput,
  ToolProvider,
} from '../plugin-api/index.js'
import { ToolErrorCode } from './errors.js'

const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/

export class ToolRegistry extends Service {
  private readonly tools = new Map<string, ToolDefinition>()
  /** The model-facing schemas, rebuilt only when the set of tools changes. */
  private cachedSchemas: readonly ToolSchema[] | undefined
  private readonly providers = new Set<ToolProvider>()
  /** Per agent: the provided tool lists the last schemas were built from, and the result. */
  private readonly agentSchemas = new WeakMap<
    AgentHandle,
    { base: readonly ToolSchema[]; parts: (readonly ProvidedTool[])[]; schemas: readonly ToolSchema[] }
  >()

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

  /** Registers a provider of agent-dependent tools for the life of the calling plugin (an effect). */
  registerProvider(provider: ToolProvider): () => Promise<void> {
    return this.ctx.effect(() => {
      this.providers.add(provider)
      return () => {
        this.providers.delete(provider)
      }
    }, `tools.registerProvider(${provider.name})`)
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
   * The schemas one agent is offered: the registered tools, then every provider's tools for
   * it. The same frozen array is returned while neither changed (a stable request prefix).
   */
  schemasFor(agent: AgentHandle | undefined): readonly ToolSchema[] {
    const base = this.schemas()
    if (this.providers.size === 0) return base
    const parts = [...this.providers].map((provider) => provider.tools(agent))
    if (parts.every((part) => part.length === 0)) return base
    const cached = agent ? this.agentSchemas.get(agent) : undefined
    if (
      cached &&
      cached.base === base &&
      cached.parts.length === parts.length &&
      cached.parts.every((part, i) => part === parts[i])
    ) {
      return cached.schemas
    }
    const names = new Set(base.map((schema) => schema.name))
    const provided = parts.flat().filter((tool) => !names.has(tool.schema.name))
    const schemas = Object.freeze([...base, ...provided.map((tool) => tool.schema)])
    if (agent) this.agentSchemas.set(agent, { base, parts, schemas })
    return schemas
  }

  /**
   * Runs a tool by name with the model's raw JSON arguments. An unknown tool, arguments
   * that do not parse or validate, and a throwing body all become error outputs.
   */
  async run(name: string, rawArguments: string | unknown, execution: ToolExecution): Promise<ToolOutput> {
    const tool = this.tools.get(name)
    if (!tool) {
      const provided = this.provided(name, execution.agent)
      if (provided) return this.runProvided(name, provided, rawArguments, execution)
      for (const provider of this.providers) {
        const why = provider.explain?.(name, execution.agent)
        if (why !== undefined) return { content: why, isError: true }
      }
      const available = this.schemasFor(execution.agent).map((schema) => schema.name)
      return { content: `Unknown tool: ${name}. Available tools: ${available.join(', ')}`, isError: true }
    }
    const parsed = parseToolArguments(tool, rawArguments)
    if (!parsed.ok) return { content: parsed.error, isError: true }
    try {
      return await tool.execute(parsed.value, { ...execution, toolName: name })
    } catch (error) {
      return { content: `Tool ${name} failed: ${errorMessage(error)}`, isError: true }
    }
  }

  private provided(name: string, agent: AgentHandle | undefined): ProvidedTool | undefined {
    for (const provider of this.providers) {
      const found = provider.tools(agent).find((tool) => tool.schema.name === name)
      if (found) return found
    }
    return undefined
  }

  private async runProvided(
    name: string,
    tool: ProvidedTool,
    rawArguments: string | unknown,
    execution: ToolExecution,
  ): Promise<ToolOutput> {
    try {
      return await tool.run(rawArguments, { ...execution, toolName: name })
    } catch (error) {
      return { content: `Tool ${name} failed: ${errorMessage(error)}`, isError: true }
    }
  }
}

export function toolSchema(tool: ToolDefinition): ToolSchema {
  const parameters = tool.parametersJsonSchema?.() ?? parametersJsonSchema(tool.parameters)
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
