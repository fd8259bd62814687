// The managed DSH_* registry: declaration rules, effects, per-call frozen snapshots,
// built-ins, and the session-persistence contributor asking the current backend.

import { join } from 'node:path'
import { Context, type Fiber } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { isDshError } from '../../../src/core/errors.js'
import {
  JsonlSessionBackend,
  MemorySessionBackend,
  type SessionLocation,
  SqliteSessionBackend,
} from '../../../src/persistence/index.js'
import type { SessionHeader } from '../../../src/session/index.js'
import {
  BUILTIN_DSH_ENV_KEYS,
  DSH_ENV_PREFIX,
  LocalShellExecutor,
  SESSION_JSONL_KEY,
  SessionPersistenceEnvPlugin,
  type ShellEnvContributor,
  ShellEnvRegistry,
  ShellErrorCode,
} from '../../../src/shell/index.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { execution, stubAgent } from '../support.js'

const tempDir = useTempDirs()
const fibers: Fiber[] = []
afterEach(async () => {
  for (const fiber of fibers.splice(0).reverse()) await fiber.dispose()
})

async function startRegistry(config: { home: string; shell?: string } = { home: '/h' }) {
  const root = new Context()
  const fiber = root.plugin(ShellEnvRegistry, config)
  fibers.push(fiber)
  await fiber.await()
  return root
}

function contributor(name: string, keys: Record<string, string>, values: Record<string, unknown> = {}) {
  return { name, keys, resolve: () => values } as unknown as ShellEnvContributor
}

function expectCode(fn: () => unknown, code: string) {
  try {
    fn()
  } catch (error) {
    expect(isDshError(error) ? error.code : error).toBe(code)
    return
  }
  throw new Error(`expected ${code}, nothing was thrown`)
}

describe('ShellEnvRegistry declarations', () => {
  it('derives the namespace from DSH_ENV_PREFIX', () => {
    expect(DSH_ENV_PREFIX).toBe('DSH_')
    for (const key of Object.values(BUILTIN_DSH_ENV_KEYS)) expect(key.startsWith(DSH_ENV_PREFIX)).toBe(true)
  })

  it.each([
    ['blank name', contributor('  ', { DSH_A: 'a' }), ShellErrorCode.EnvBlankName],
    ['lower-case key', contributor('c', { DSH_lower: 'a' }), ShellErrorCode.EnvInvalidKey],
    ['key outside the namespace', contributor('c', { HOME: 'a' }), ShellErrorCode.EnvInvalidKey],
    ['key starting with a digit', contributor('c', { DSH_1A: 'a' }), ShellErrorCode.EnvInvalidKey],
    ['bare prefix', contributor('c', { DSH_: 'a' }), ShellErrorCode.EnvInvalidKey],
    ['reserved DSH_HOME', contributor('c', { DSH_HOME: 'a' }), ShellErrorCode.EnvReservedKey],
    ['reserved DSH_SHELL', contributor('c', { DSH_SHELL: 'a' }), ShellErrorCode.EnvReservedKey],
    ['reserved DSH_SESSION_ID', contributor('c', { DSH_SESSION_ID: 'a' }), ShellErrorCode.EnvReservedKey],
    ['blank description', contributor('c', { DSH_A: ' ' }), ShellErrorCode.EnvBlankDescription],
    ['no keys', contributor('c', {}), ShellErrorCode.EnvInvalidDeclaration],
  ])('rejects a %s', async (_label, declaration, code) => {
    const root = await startRegistry()
    expectCode(() => root.shellEnv.register(declaration), code)
    expect(root.shellEnv.list().every((entry) => entry.builtin)).toBe(true)
  })

  it('rejects a duplicate name and a key owned by another contributor', async () => {
    const root = await startRegistry()
    root.shellEnv.register(contributor('first', { DSH_A: 'a' }))
    expectCode(
      () => root.shellEnv.register(contributor('first', { DSH_B: 'b' })),
      ShellErrorCode.EnvDuplicateName,
    )
    expectCode(
      () => root.shellEnv.register(contributor('builtin', { DSH_B: 'b' })),
      ShellErrorCode.EnvDuplicateName,
    )
    expectCode(
      () => root.shellEnv.register(contributor('second', { DSH_A: 'a' })),
      ShellErrorCode.EnvKeyConflict,
    )
    expect(root.shellEnv.list().map((entry) => entry.key)).toEqual([
      'DSH_HOME',
      'DSH_SHELL',
      'DSH_SESSION_ID',
      'DSH_A',
    ])
  })

  it('lists declarations, built-ins included, without running resolvers', async () => {
    const root = await startRegistry()
    let resolved = 0
    root.shellEnv.register({
      name: 'counting',
      keys: { DSH_COUNT: 'How often it resolved' },
      resolve: () => ({ DSH_COUNT: String(++resolved) }),
    })
    const list = root.shellEnv.list()
    expect(resolved).toBe(0)
    expect(list.filter((entry) => entry.builtin).map((entry) => entry.key)).toEqual([
      'DSH_HOME',
      'DSH_SHELL',
      'DSH_SESSION_ID',
    ])
    expect(list.find((entry) => entry.key === 'DSH_COUNT')).toEqual({
      key: 'DSH_COUNT',
      description: 'How often it resolved',
      contributor: 'counting',
      builtin: false,
    })
    for (const entry of list) expect(entry.description.trim()).not.toBe('')
  })

  it('removes a contributor with its plugin: unloading the fiber frees its name and keys', async () => {
    const root = await startRegistry()
    const fiber = root.plugin({
      name: 'contributing-plugin',
      inject: ['shellEnv'],
      apply(ctx: Context) {
        ctx.shellEnv.register(
          contributor('plugin-env', { DSH_PLUGIN: 'From a plugin' }, { DSH_PLUGIN: 'on' }),
        )
      },
    })
    await fiber.await()
    expect(root.shellEnv.list().map((entry) => entry.key)).toContain('DSH_PLUGIN')
    expect(root.shellEnv.collect(execution()).DSH_PLUGIN).toBe('on')
    await fiber.dispose()
    expect(root.shellEnv.list().map((entry) => entry.key)).not.toContain('DSH_PLUGIN')
    expect(root.shellEnv.collect(execution())).not.toHaveProperty('DSH_PLUGIN')
    // Name and key are free again.
    root.shellEnv.register(contributor('plugin-env', { DSH_PLUGIN: 'again' }))
  })

  it('requires a configured home: the service does not start without one', async () => {
    const root = new Context()
    const fiber = root.plugin(ShellEnvRegistry, { home: ' ' })
    await fiber.await().catch(() => {
      // The constructor's DshError fails the fiber; what matters is that no service appears.
    })
    expect(root.get('shellEnv')).toBeUndefined()
    await fiber.dispose()
  })
})

describe('ShellEnvRegistry errors name what was wrong', () => {
  /** The DshError `fn` throws: its code and one-line message. */
  function failure(fn: () => unknown): { code: string; message: string; cause?: unknown } {
    try {
      fn()
    } catch (error) {
      if (!isDshError(error)) throw error
      return { code: error.code, message: error.message, cause: error.cause }
    }
    throw new Error('expected a DshError, nothing was thrown')
  }

  it.each([
    [
      'no declaration at all',
      undefined,
      ShellErrorCode.EnvBlankName,
      'shell env contributor: name must not be blank',
    ],
    [
      'a name that is no string',
      { name: 42, keys: { DSH_A: 'a' }, resolve: () => ({}) },
      ShellErrorCode.EnvBlankName,
      'shell env contributor: name must not be blank',
    ],
    [
      'no resolve function',
      { name: 'c', keys: { DSH_A: 'a' } },
      ShellErrorCode.EnvInvalidDeclaration,
      'shell env contributor c: must declare keys and a resolve function',
    ],
    [
      'keys that are no object',
      { name: 'c', keys: 'DSH_A', resolve: () => ({}) },
      ShellErrorCode.EnvInvalidDeclaration,
      'shell env contributor c: must declare keys and a resolve function',
    ],
    [
      'null keys',
      { name: 'c', keys: null, resolve: () => ({}) },
      ShellErrorCode.EnvInvalidDeclaration,
      'shell env contributor c: must declare keys and a resolve function',
    ],
    [
      'no keys',
      { name: 'c', keys: {}, resolve: () => ({}) },
      ShellErrorCode.EnvInvalidDeclaration,
      'shell env contributor c: declares no keys',
    ],
    [
      'a key outside the namespace',
      { name: 'c', keys: { HOME: 'a' }, resolve: () => ({}) },
      ShellErrorCode.EnvInvalidKey,
      'shell env contributor c: key "HOME" is not of the form DSH_[A-Z][A-Z0-9_]*',
    ],
    [
      'a built-in key',
      { name: 'c', keys: { DSH_HOME: 'a' }, resolve: () => ({}) },
      ShellErrorCode.EnvReservedKey,
      'shell env contributor c: key DSH_HOME is a reserved built-in',
    ],
    [
      'a description that is no string',
      { name: 'c', keys: { DSH_A: 42 }, resolve: () => ({}) },
      ShellErrorCode.EnvBlankDescription,
      'shell env contributor c: key DSH_A needs a non-blank description',
    ],
  ])('refuses to register %s', async (_label, declaration, code, message) => {
    const root = await startRegistry()
    expect(failure(() => root.shellEnv.register(declaration as unknown as ShellEnvContributor))).toEqual({
      code,
      message,
      cause: undefined,
    })
  })

  it('names the contributor and the key of a duplicate or a conflict', async () => {
    const root = await startRegistry()
    root.shellEnv.register(contributor('first', { DSH_A: 'a' }))
    expect(failure(() => root.shellEnv.register(contributor('first', { DSH_B: 'b' }))).message).toBe(
      'shell env contributor first is already registered',
    )
    expect(failure(() => root.shellEnv.register(contributor('second', { DSH_A: 'a' }))).message).toBe(
      'shell env key DSH_A (contributor second) is already owned by contributor first',
    )
  })

  it('names the contributor and the key of a bad value, and keeps what a resolver threw as the cause', async () => {
    const root = await startRegistry()
    root.shellEnv.register(contributor('bad', { DSH_VALUE: 'a value' }, { DSH_OTHER: 'x' }))
    expect(failure(() => root.shellEnv.collect(execution())).message).toBe(
      'shell env contributor bad returned undeclared key DSH_OTHER',
    )
    const other = await startRegistry()
    other.shellEnv.register(contributor('bad', { DSH_VALUE: 'a value' }, { DSH_VALUE: 7 }))
    expect(failure(() => other.shellEnv.collect(execution())).message).toBe(
      'shell env contributor bad returned a non-string value for DSH_VALUE',
    )
    const boom = new Error('boom')
    const third = await startRegistry()
    third.shellEnv.register({
      name: 'thrower',
      keys: { DSH_X: 'x' },
      resolve: () => {
        throw boom
      },
    })
    expect(failure(() => third.shellEnv.collect(execution()))).toEqual({
      code: ShellErrorCode.EnvResolveFailed,
      message: 'shell env contributor thrower failed: boom',
      cause: boom,
    })
  })

  it.each([
    ['no configuration', undefined],
    ['a home that is no string', { home: 42 }],
    ['a blank home', { home: ' ' }],
  ])('does not start with %s, and says the home must be configured', async (_label, config) => {
    const root = new Context()
    const fiber = root.plugin(ShellEnvRegistry, config as unknown as { home: string })
    const error = await fiber.await().then(
      () => undefined,
      (reason: unknown) => reason,
    )
    expect(root.get('shellEnv')).toBeUndefined()
    expect(isDshError(error, ShellErrorCode.EnvNoHome), String(error)).toBe(true)
    expect((error as Error).message).toBe('shellEnv: the harness home must be configured')
    await fiber.dispose()
  })
})

describe('ShellEnvRegistry.collect', () => {
  it('returns a frozen snapshot of the built-ins and contributions for each call', async () => {
    const root = await startRegistry({ home: '/harness/home', shell: '/opt/bash' })
    let n = 0
    root.shellEnv.register({
      name: 'counter',
      keys: { DSH_N: 'call number' },
      resolve: () => ({ DSH_N: String(++n) }),
    })
    const agent = stubAgent('agent-1')
    const first = root.shellEnv.collect(execution(agent))
    const second = root.shellEnv.collect(execution(agent))
    expect(first).toEqual({
      DSH_HOME: '/harness/home',
      DSH_SHELL: '/opt/bash',
      DSH_SESSION_ID: 'agent-1',
      DSH_N: '1',
    })
    expect(second.DSH_N).toBe('2')
    expect(Object.isFrozen(first)).toBe(true)
    expect(() => {
      ;(first as Record<string, string>).DSH_N = 'x'
    }).toThrow(TypeError)
  })

  it('reports the resolved home as DSH_HOME, not the DSH_HOME this process inherited (nested runs)', async () => {
    const inherited = process.env.DSH_HOME
    process.env.DSH_HOME = '/outer/harness/home'
    try {
      const root = await startRegistry({ home: '/inner/home' })
      expect(root.shellEnv.collect(execution()).DSH_HOME).toBe('/inner/home')
      expect(root.shellEnv.collect(execution(stubAgent('nested'))).DSH_HOME).toBe('/inner/home')
    } finally {
      if (inherited === undefined) delete process.env.DSH_HOME
      else process.env.DSH_HOME = inherited
    }
  })

  it('omits DSH_SESSION_ID without an agent, and omits undefined contributions', async () => {
    const root = await startRegistry()
    root.shellEnv.register(contributor('maybe', { DSH_MAYBE: 'sometimes' }, { DSH_MAYBE: undefined }))
    expect(root.shellEnv.collect(execution())).toEqual({ DSH_HOME: '/h', DSH_SHELL: expect.any(String) })
  })

  it('reports the current executor shell as DSH_SHELL and follows a swapped executor', async () => {
    const root = await startRegistry({ home: '/h' })
    const first = root.plugin(LocalShellExecutor, { shell: '/first/bash' })
    await first.await()
    expect(root.shellEnv.collect(execution()).DSH_SHELL).toBe('/first/bash')
    await first.dispose()
    const second = root.plugin(LocalShellExecutor, { shell: '/second/bash' })
    await second.await()
    expect(root.shellEnv.collect(execution()).DSH_SHELL).toBe('/second/bash')
    await second.dispose()
  })

  it.each([
    ['an undeclared key', { DSH_OTHER: 'x' }, ShellErrorCode.EnvUndeclaredKey],
    ['a key outside the namespace', { PATH: '/evil' }, ShellErrorCode.EnvUndeclaredKey],
    ['a number', { DSH_VALUE: 42 }, ShellErrorCode.EnvInvalidValue],
    ['null', { DSH_VALUE: null }, ShellErrorCode.EnvInvalidValue],
    ['a NUL byte', { DSH_VALUE: 'a\0b' }, ShellErrorCode.EnvInvalidValue],
  ])('fails the call loudly on %s', async (_label, values, code) => {
    const root = await startRegistry()
    root.shellEnv.register(contributor('bad', { DSH_VALUE: 'a value' }, values))
    expectCode(() => root.shellEnv.collect(execution()), code)
  })

  it('wraps a throwing resolver in a DshError naming the contributor', async () => {
    const root = await startRegistry()
    root.shellEnv.register({
      name: 'thrower',
      keys: { DSH_X: 'x' },
      resolve: () => {
        throw new Error('boom')
      },
    })
    expect(() => root.shellEnv.collect(execution())).toThrow(/thrower failed: boom/)
    expectCode(() => root.shellEnv.collect(execution()), ShellErrorCode.EnvResolveFailed)
  })
})

/** A backend that keeps one dedicated file per session, but not a JSONL log. */
class OtherFileBackend extends MemorySessionBackend {
  override locate(header: SessionHeader): SessionLocation {
    return { kind: 'sqlite-file', path: `/var/lib/dsh/${header.id}.db` }
  }
}

describe('session-persistence contributor', () => {
  async function withBackend(kind: 'jsonl' | 'sqlite' | 'none') {
    const home = tempDir()
    const root = await startRegistry({ home })
    await root.plugin(SessionPersistenceEnvPlugin).await()
    let backend = undefined as ReturnType<Context['plugin']> | undefined
    if (kind === 'jsonl') backend = root.plugin(JsonlSessionBackend, { root: join(home, 'sessions') })
    if (kind === 'sqlite') backend = root.plugin(SqliteSessionBackend, { file: join(home, 'sessions.db') })
    await backend?.await()
    return { root, home, backend }
  }

  it('declares DSH_SESSION_JSONL under the name session-persistence', async () => {
    const { root, backend } = await withBackend('none')
    expect(root.shellEnv.list().find((entry) => entry.key === SESSION_JSONL_KEY)?.contributor).toBe(
      'session-persistence',
    )
    await backend?.dispose()
  })

  it("reports the JSONL backend's locate() path, and nothing without an agent", async () => {
    const { root, backend } = await withBackend('jsonl')
    const agent = stubAgent('sess/ü 1', '/work/project')
    const snapshot = root.shellEnv.collect(execution(agent))
    expect(snapshot.DSH_SESSION_JSONL).toBe(root.sessionPersistence.locate(agent.session.header)!.path)
    expect(snapshot.DSH_SESSION_ID).toBe('sess/ü 1')
    expect(root.shellEnv.collect(execution())).not.toHaveProperty('DSH_SESSION_JSONL')
    expect(root.shellEnv.collect(execution())).not.toHaveProperty('DSH_SESSION_ID')
    await backend?.dispose()
  })

  it.each(['sqlite', 'none'] as const)(
    'leaves DSH_SESSION_JSONL absent with %s persistence',
    async (kind) => {
      const { root, backend } = await withBackend(kind)
      const snapshot = root.shellEnv.collect(execution(stubAgent('s-1', '/w')))
      expect(snapshot.DSH_SESSION_ID).toBe('s-1')
      expect(snapshot).not.toHaveProperty('DSH_SESSION_JSONL')
      await backend?.dispose()
    },
  )

  it('gives DSH_SESSION_JSONL only for a location of kind jsonl, not for another dedicated file', async () => {
    const { root, home, backend } = await withBackend('none')
    const other = root.plugin(OtherFileBackend)
    await other.await()
    const agent = stubAgent('kinds-1', '/w')
    expect(root.sessionPersistence.locate(agent.session.header)).toEqual({
      kind: 'sqlite-file',
      path: '/var/lib/dsh/kinds-1.db',
    })
    const snapshot = root.shellEnv.collect(execution(agent))
    expect(snapshot.DSH_SESSION_ID).toBe('kinds-1')
    expect(snapshot).not.toHaveProperty('DSH_SESSION_JSONL')
    await other.dispose()
    const jsonl = root.plugin(JsonlSessionBackend, { root: join(home, 'sessions') })
    await jsonl.await()
    expect(root.shellEnv.collect(execution(agent)).DSH_SESSION_JSONL).toBe(
      root.sessionPersistence.locate(agent.session.header)!.path,
    )
    await jsonl.dispose()
    await backend?.dispose()
  })

  it('asks the current backend at every call: swapping it changes later snapshots', async () => {
    const { root, home, backend } = await withBackend('jsonl')
    const agent = stubAgent('swap-1', '/w')
    expect(root.shellEnv.collect(execution(agent)).DSH_SESSION_JSONL).toMatch(/swap-1\.jsonl$/)
    await backend!.dispose()
    expect(root.shellEnv.collect(execution(agent))).not.toHaveProperty('DSH_SESSION_JSONL')
    const sqlite = root.plugin(SqliteSessionBackend, { file: join(home, 'swap.db') })
    await sqlite.await()
    expect(root.shellEnv.collect(execution(agent))).not.toHaveProperty('DSH_SESSION_JSONL')
    await sqlite.dispose()
    const other = root.plugin(JsonlSessionBackend, { root: join(home, 'elsewhere') })
    await other.await()
    expect(root.shellEnv.collect(execution(agent)).DSH_SESSION_JSONL).toContain(join(home, 'elsewhere'))
    await other.dispose()
  })
})
