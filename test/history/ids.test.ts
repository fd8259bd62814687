// The id and title contract on the embedded backends (memory, JSONL, SQLite).

import { join } from 'node:path'
import { afterEach, describe } from 'vitest'
import { JsonlSessionBackend } from '../../src/persistence/jsonl/backend.js'
import { MemorySessionBackend } from '../../src/persistence/memory/memory-backend.js'
import type { SessionPersistence } from '../../src/persistence/persistence.js'
import { SqliteSessionBackend } from '../../src/persistence/sqlite/backend.js'
import { type BackendPlugin, type Harness, startHarness } from '../persistence/fixtures.js'
import { useTempDirs } from '../support/temp-dir.js'
import { runIdContract } from './ids-contract.js'

const tempDir = useTempDirs('dsh-ids-')
const running: Harness[] = []
afterEach(async () => {
  for (const harness of running.splice(0).reverse()) await harness.dispose()
})

async function start<C>(plugin: BackendPlugin<C>, config: C): Promise<SessionPersistence> {
  const harness = await startHarness({ plugin, config, durable: true })
  running.push(harness)
  return harness.backend()
}

const backends: [string, () => Promise<SessionPersistence>][] = [
  ['memory', () => start(MemorySessionBackend, undefined)],
  ['jsonl', () => start(JsonlSessionBackend, { root: tempDir() })],
  ['sqlite', () => start(SqliteSessionBackend, { file: join(tempDir(), 'sessions.db') })],
]

for (const [name, open] of backends) {
  describe(`id prefixes and titles: ${name}`, () => runIdContract(open))
}
