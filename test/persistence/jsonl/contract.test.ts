// The JSONL backend against the shared persistence contract, on real files.

import { join } from 'node:path'
import { JsonlSessionBackend } from '../../../src/persistence/jsonl/backend.js'
import { useTempDirs } from '../../support/temp-dir.js'
import { runPersistenceContract } from '../contract.js'

const tempDir = useTempDirs('dsh-jsonl-')

runPersistenceContract('jsonl', () => ({
  plugin: JsonlSessionBackend,
  config: { root: join(tempDir(), 'sessions') },
  durable: true,
}))
