// A built-in tool's parameters: its zod schema, built on first use (a call's arguments),
// and the JSON Schema the model is offered. zod makes that JSON Schema in about 2 ms for
// the built-in tools, and building their schemas at start-up cost about 2 ms more, both
// before `dsh run`'s first request (issue #31; bench/RESULTS.md, 2026-12-07). So the bundle
// carries the JSON Schemas, made by zod from these same schemas when it is built
// (scripts/bundle.mjs); elsewhere (the tsc output, tests) zod makes them on first use.

import * as z from 'zod'
import { lazySchema } from './lazy-schema.js'

/** The JSON Schema of a tool's parameters, as the model is offered it. */
export type ParametersJsonSchema = Record<string, unknown>

/** Set by the bundle's build (esbuild `define`): key → JSON Schema. Undeclared elsewhere. */
declare const __DSH_TOOL_PARAMETERS__: Readonly<Record<string, ParametersJsonSchema>> | undefined

const BUILT: Readonly<Record<string, ParametersJsonSchema>> | undefined =
  typeof __DSH_TOOL_PARAMETERS__ === 'undefined' ? undefined : __DSH_TOOL_PARAMETERS__

/** One tool's parameters under a key unique among the built-in tools. */
export interface ToolParameters<Schema extends z.ZodObject> {
  /** The zod schema, built on the first call. */
  schema(): Schema
  /** Its JSON Schema: from the bundle's table, else made by zod (once). */
  jsonSchema(): ParametersJsonSchema
}

/** The zod schema type of a ToolParameters. */
export type SchemaOf<P> = P extends ToolParameters<infer Schema> ? Schema : never

const declared = new Map<string, ToolParameters<z.ZodObject>>()

/** Declares a built-in tool's parameters; `build` runs on first use. A key may be declared once. */
export function toolParameters<Schema extends z.ZodObject>(
  key: string,
  build: () => Schema,
): ToolParameters<Schema> {
  if (declared.has(key)) throw new Error(`tool parameters ${JSON.stringify(key)} are declared twice`)
  const schema = lazySchema(build)
  const parameters: ToolParameters<Schema> = {
    schema,
    jsonSchema: lazySchema(() => BUILT?.[key] ?? parametersJsonSchema(schema())),
  }
  declared.set(key, parameters)
  return parameters
}

/** What zod makes of a tool's parameters for the model (its input side, no `$schema`). */
export function parametersJsonSchema(schema: z.ZodType): ParametersJsonSchema {
  const json = z.toJSONSchema(schema, { io: 'input' }) as ParametersJsonSchema
  delete json.$schema
  return json
}

/**
 * Every declared tool's JSON Schema made by zod now, by key: the table the bundle's build
 * embeds (from the modules loaded so far, so the build loads every tool's module first).
 */
export function declaredParametersTable(): Record<string, ParametersJsonSchema> {
  const table: Record<string, ParametersJsonSchema> = {}
  for (const [key, parameters] of declared) table[key] = parametersJsonSchema(parameters.schema())
  return table
}
