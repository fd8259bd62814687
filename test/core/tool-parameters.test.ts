// toolParameters: a built-in tool's zod schema is built on first use, and its JSON Schema is
// the bundle's (there: test/apps/cli/bin.test.ts) or, as here without one, zod's
// (src/core/tool-parameters.ts).

import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import {
  declaredParametersTable,
  parametersJsonSchema,
  toolParameters,
} from '../../src/core/tool-parameters.js'
import { toolSchema } from '../../src/tools/index.js'

describe('toolParameters', () => {
  it('builds the schema on first use, once, and makes its JSON Schema with zod without a table', () => {
    let builds = 0
    const parameters = toolParameters('test-lazy', () => {
      builds += 1
      return z.object({ path: z.string().min(1).describe('A path.'), limit: z.number().int().optional() })
    })
    expect(builds).toBe(0)
    const json = parameters.jsonSchema()
    expect(builds).toBe(1)
    expect(parameters.jsonSchema()).toBe(json)
    expect(json).toEqual(parametersJsonSchema(parameters.schema()))
    expect(json).toMatchObject({ type: 'object', required: ['path'] })
    expect(json).not.toHaveProperty('$schema')
    expect(parameters.schema().safeParse({ path: '' }).success).toBe(false)
    expect(builds).toBe(1)
    expect(declaredParametersTable()['test-lazy']).toEqual(json)
  })

  it('refuses a key declared twice', () => {
    toolParameters('test-twice', () => z.object({}))
    expect(() => toolParameters('test-twice', () => z.object({}))).toThrow(/declared twice/)
  })

  it('gives the registry the definition’s JSON Schema, and zod’s for a tool without one', () => {
    const parameters = toolParameters('test-registry', () => z.object({ query: z.string() }))
    const base = { name: 'finder', description: 'Finds.', execute: async () => ({ content: '' }) }
    const withTable = {
      ...base,
      get parameters() {
        return parameters.schema()
      },
      parametersJsonSchema: () => ({
        type: 'object',
        properties: { query: { type: 'string' } },
        from: 'table',
      }),
    }
    expect(toolSchema(withTable).parameters).toMatchObject({ from: 'table' })
    const plain = { ...base, parameters: z.object({ query: z.string() }) }
    expect(toolSchema(plain).parameters).toEqual(parametersJsonSchema(plain.parameters))
  })
})
