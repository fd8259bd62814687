// PostgreSQL backends on a test suite's cluster, each disposed after its test.

import { afterEach } from 'vitest'
import { PostgresSessionBackend } from '../../../src/persistence/postgres/index.js'
import type { ClusterHandle } from '../../support/postgres.js'
import { type Harness, startHarness } from '../fixtures.js'

/** Call inside a describePostgres block; the returned function opens a durable backend. */
export function usePostgresBackends(
  pg: ClusterHandle,
): (config: Record<string, unknown>) => Promise<PostgresSessionBackend> {
  const harnesses: Harness[] = []
  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.dispose()
  })
  return async (config) => {
    const harness = await startHarness({
      plugin: PostgresSessionBackend,
      config: { url: pg.cluster.url, ...config },
      durable: true,
    })
    harnesses.push(harness)
    return harness.backend() as PostgresSessionBackend
  }
}
