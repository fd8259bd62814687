// The in-memory backend against the shared persistence contract.

import { MemorySessionBackend } from '../../src/persistence/memory/memory-backend.js'
import { runPersistenceContract } from './contract.js'

runPersistenceContract('memory', () => ({ plugin: MemorySessionBackend, config: undefined, durable: false }))
