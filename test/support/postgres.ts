// Vitest wiring for the PostgreSQL tests: one cluster per test file, a fresh schema
// per backend. Without a server the tests fail under CI and are skipped (loudly) elsewhere.

import { afterAll, beforeAll, describe } from 'vitest'
import { type PostgresCluster, postgresUnavailable, startPostgresCluster } from './postgres-cluster.js'

export interface ClusterHandle {
  /** The running cluster (valid inside tests). */
  readonly cluster: PostgresCluster
  /** A fresh, unused schema name. */
  schema(): string
}

const missing = postgresUnavailable()

/**
 * `describe` for tests that need PostgreSQL. Outside CI a machine without the server
 * skips them with the reason in the name; under CI (`CI` set) they run and fail.
 */
export const describePostgres: typeof describe.skip =
  missing && !process.env.CI ? (describe.skip as typeof describe.skip) : (describe as typeof describe.skip)

export function describeSkipReason(): string {
  return missing ? ` (skipped: ${missing})` : ''
}

/** Call inside a `describePostgres` block: starts one cluster for the block's tests. */
export function useCluster(): ClusterHandle {
  let cluster: PostgresCluster | undefined
  let count = 0
  beforeAll(async () => {
    cluster = await startPostgresCluster()
  }, 60_000)
  afterAll(async () => {
    await cluster?.stop()
  })
  return {
    get cluster() {
      if (!cluster) throw new Error('the PostgreSQL cluster is not running')
      return cluster
    },
    schema: () => `t${process.pid}_${++count}`,
  }
}
