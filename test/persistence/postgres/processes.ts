// Second processes for the PostgreSQL tests: a backend child (backend-child.mjs) over
// the built dist/, and the build check they need.

import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { PostgresBackendConfig } from '../../../src/persistence/postgres/index.js'
import { LineChild } from '../../support/line-child.js'

export { ensureBuilt } from '../jsonl/child-writer.js'

const here = dirname(fileURLToPath(import.meta.url))
export const repoRoot = join(here, '..', '..', '..')
const distIndex = join(repoRoot, 'dist', 'src', 'persistence', 'postgres', 'index.js')

/** A real second process holding its own PostgresSessionBackend. */
export function spawnBackendChild(config: PostgresBackendConfig): Promise<LineChild> {
  return LineChild.spawn(join(here, 'backend-child.mjs'), [distIndex, JSON.stringify(config)])
}
