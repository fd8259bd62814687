// The hook-side view of a tool: the name a dialect's hooks know it by, names matchers also
// accept, and its input with the dialect's field names — mapped both ways, so a hook's
// `updatedInput` comes back in dsh's field names and is checked against the tool's schema.

import type { HookToolShape } from '../../plugin-api/index.js'
import type { ToolRegistry } from '../../tools/registry.js'
import type { HookDialectName } from './types.js'

/** The shape a dialect uses for a dsh tool: the tool's own declaration, else the fallback table, else its dsh name. */
export function resolveToolShape(
  dialect: HookDialectName,
  name: string,
  tools: ToolRegistry | undefined,
  fallback: Readonly<Record<string, string>>,
): HookToolShape {
  const declared = tools?.get(name)?.hookNames
  const shape = dialect === 'claude-code' ? declared?.claudeCode : declared?.codex
  return shape ?? { name: fallback[name] ?? name }
}

/** Every name a matcher may test for this tool: the dialect's name, its aliases, and the dsh name. */
export function toolCandidates(shape: HookToolShape, dshName: string): string[] {
  return [...new Set([shape.name, ...(shape.aliases ?? []), dshName])]
}

/** The parsed arguments in the dialect's field names; arguments that are not a JSON object become `{}`. */
export function toHookInput(shape: HookToolShape, input: unknown): Record<string, unknown> {
  const object = isObject(input) ? input : {}
  const fields = shape.fields
  if (!fields) return object
  const mapped: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(object)) mapped[fields[key] ?? key] = value
  return mapped
}

/** A hook's input (dialect field names) back in dsh's field names. */
export function fromHookInput(
  shape: HookToolShape,
  input: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const fields = shape.fields
  if (!fields) return { ...input }
  const reverse = new Map(Object.entries(fields).map(([dsh, theirs]) => [theirs, dsh]))
  const mapped: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(input)) mapped[reverse.get(key) ?? key] = value
  return mapped
}

export type RewriteResult = { ok: true; input: Record<string, unknown> } | { ok: false; problem: string }

/**
 * Turns a hook's `updatedInput` into the tool's new input: fields mapped back, then validated
 * against the tool's parameter schema. The whole input is replaced, as in Claude Code.
 */
export function rewriteToolInput(
  shape: HookToolShape,
  updated: Readonly<Record<string, unknown>>,
  dshName: string,
  tools: ToolRegistry | undefined,
): RewriteResult {
  const tool = tools?.get(dshName)
  if (!tool) return { ok: false, problem: `tool ${dshName} is not registered` }
  const input = fromHookInput(shape, updated)
  const parsed = tool.parameters.safeParse(input)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(top level)'
    return { ok: false, problem: `${where}: ${issue?.message ?? 'invalid'}` }
  }
  return { ok: true, input }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
