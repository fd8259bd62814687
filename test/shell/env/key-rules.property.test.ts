// Property tests for the open-ended inputs of the registry: declared key names and the
// values resolvers return.

import { Context, type Fiber } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isDshError } from '../../../src/core/errors.js'
import {
  BUILTIN_DSH_ENV_KEYS,
  DSH_ENV_KEY_PATTERN,
  ShellEnvRegistry as Registry,
  type ShellEnvRegistry,
  ShellErrorCode,
} from '../../../src/shell/index.js'
import { fc } from '../../support/property.js'
import { execution } from '../support.js'

let fiber: Fiber
let registry: ShellEnvRegistry
beforeAll(async () => {
  const root = new Context()
  fiber = root.plugin(Registry, { home: '/h' })
  await fiber.await()
  registry = root.get('shellEnv')!
})
afterAll(() => fiber.dispose())

const reserved = new Set<string>(Object.values(BUILTIN_DSH_ENV_KEYS))
let serial = 0

function registerCode(
  keys: Record<string, string>,
  values: Record<string, unknown> = {},
): string | undefined {
  try {
    const dispose = registry.register({ name: `p-${++serial}`, keys, resolve: () => values } as never)
    void dispose()
    return undefined
  } catch (error) {
    return isDshError(error) ? error.code : String(error)
  }
}

describe('declared keys', () => {
  it('accepts exactly the well-formed, non-reserved DSH_ names', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 24 }), (suffix) => {
        const key = `DSH_${suffix}`
        const code = registerCode({ [key]: 'a description' })
        if (!DSH_ENV_KEY_PATTERN.test(key)) expect(code).toBe(ShellErrorCode.EnvInvalidKey)
        else if (reserved.has(key)) expect(code).toBe(ShellErrorCode.EnvReservedKey)
        else expect(code).toBeUndefined()
      }),
      { numRuns: 500 },
    )
  })

  it('rejects every name outside the namespace', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 24 }).filter((key) => !key.startsWith('DSH_')),
        (key) => {
          expect(registerCode({ [key]: 'a description' })).toBe(ShellErrorCode.EnvInvalidKey)
        },
      ),
    )
  })
})

describe('resolved values', () => {
  it('passes strings without NUL through unchanged and fails the call on anything else', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const name = `v-${++serial}`
        const dispose = registry.register({
          name,
          keys: { DSH_VALUE: 'a value' },
          resolve: () => ({ DSH_VALUE: value }),
        } as never)
        try {
          const snapshot = registry.collect(execution())
          if (value === undefined) expect(snapshot).not.toHaveProperty('DSH_VALUE')
          else {
            expect(typeof value === 'string' && !value.includes('\0')).toBe(true)
            expect(snapshot.DSH_VALUE).toBe(value)
          }
        } catch (error) {
          expect(isDshError(error, ShellErrorCode.EnvInvalidValue)).toBe(true)
          expect(typeof value !== 'string' || value.includes('\0')).toBe(true)
        } finally {
          void dispose()
        }
      }),
      { numRuns: 300 },
    )
  })
})
