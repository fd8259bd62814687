// Storage paths are validated before anything is created: a folder under /proc (where
// `mkdir -p` never returns), /sys or /dev, or a file in the way, fails in one line.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load.js'
import { isDshError } from '../../src/core/errors.js'
import { PersistenceErrorCode } from '../../src/persistence/errors.js'
import { JsonlSessionBackend } from '../../src/persistence/jsonl/backend.js'
import { SqliteSessionBackend } from '../../src/persistence/sqlite/backend.js'
import { assertStoragePath } from '../../src/persistence/storage-path.js'
import { useTempDirs } from '../support/temp-dir.js'
import { LogBuilder, makeHeader, startHarness } from './fixtures.js'

const tempDir = useTempDirs('dsh-storage-path-')

function thrown(run: () => unknown): Error | undefined {
  try {
    run()
  } catch (error) {
    return error as Error
  }
  return undefined
}

describe('storage path validation', () => {
  it.each(['/proc/1/sessions', '/proc', '/sys/kernel/x', '/dev/shm/../null/x'])('refuses %s', (path) => {
    const error = thrown(() => assertStoragePath(path, 'the sessions folder', 'folder'))
    expect(isDshError(error, PersistenceErrorCode.BadPath)).toBe(true)
    expect(error!.message).toMatch(/kernel file system/)
  })

  it('refuses a file where a folder must be, and a folder where the database file goes', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'file'), '')
    expect(
      thrown(() => assertStoragePath(join(dir, 'file', 'sessions'), 'root', 'folder'))?.message,
    ).toContain(`${join(dir, 'file')} is not a folder`)
    expect(thrown(() => assertStoragePath(dir, 'db', 'file'))?.message).toContain('it is a folder')
    expect(thrown(() => assertStoragePath(join(dir, 'new', 'deep'), 'root', 'folder'))).toBeUndefined()
    expect(thrown(() => assertStoragePath('relative/x', 'root', 'folder'))?.message).toContain(
      'not an absolute',
    )
  })

  it('the config names the field; DSH_HOME under /proc fails at once', () => {
    const dir = tempDir()
    const config = join(dir, 'config.yaml')
    writeFileSync(config, 'persistence:\n  backend: sqlite\n  file: /proc/self/sessions.db\n')
    expect(thrown(() => loadConfig({ file: config }))?.message).toBe(
      `${config}: persistence.file /proc/self/sessions.db cannot hold sessions: it is inside /proc, a kernel file system`,
    )
    const error = thrown(() => loadConfig({ env: { DSH_HOME: '/proc/1/home' } }))
    expect(error?.message).toContain('persistence.root /proc/1/home/sessions cannot hold sessions')
  })

  it.each([
    ['jsonl', { plugin: JsonlSessionBackend, config: { root: '/proc/self/dsh-sessions' } }],
    ['sqlite', { plugin: SqliteSessionBackend, config: { file: '/proc/self/dsh/sessions.db' } }],
  ] as const)(
    'the %s backend refuses on first write instead of spinning',
    async (_name, fixture) => {
      const harness = await startHarness({ ...fixture, durable: true } as never)
      try {
        const attempt = (async () => {
          await harness.backend().create(makeHeader('x'))
          await harness.backend().append('x', new LogBuilder().add('turn/start', { turn: 0 }).events)
        })()
        const error = await attempt.then(
          () => undefined,
          (reason: unknown) => reason,
        )
        expect(isDshError(error, PersistenceErrorCode.BadPath)).toBe(true)
      } finally {
        await harness.dispose()
      }
    },
    10_000,
  )
})
