// lazySchema: a module's zod schema is built on its first use, once (src/core/lazy-schema.ts).

import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { lazySchema } from '../../src/core/lazy-schema.js'

describe('lazySchema', () => {
  it('builds nothing until the first call, then returns the one schema it built', () => {
    let builds = 0
    const schema = lazySchema(() => {
      builds += 1
      return z.object({ name: z.string() })
    })
    expect(builds).toBe(0)
    const first = schema()
    expect(schema()).toBe(first)
    expect(builds).toBe(1)
    expect(first.safeParse({ name: 1 }).success).toBe(false)
  })
})
