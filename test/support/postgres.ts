// Vitest wiring for the PostgreSQL tests: one cluster per test file, a fresh schema
// per backend. Without a server the tests fail under CI and are skipped (loudly) elsewhere.

import { afterAll, beforeAll, type describe } from 'vitest'
import { type PostgresCluster, postgresUnavailable, startPostgresCluster } from './postgres-cluster.js'
import { describeRequires } from './requires.js'

export interface ClusterHandle {
  /** The running cluster (valid inside tests). */
  readonly cluster: PostgresCluster
  /** A fresh, unused schema name. */
  schema(): string
}

const missing = postgresUnavailable()

/**
 * `describe` for tests that need PostgreSQL, under the one rule of requires.ts: outside CI
 * a machine without the server skips them (the reason in the name); under CI they fail.
 */
export const describePostgres: typeof describe.skip = describeRequires(
  missing === undefined,
  `a PostgreSQL server (${missing ?? 'found'})`,
)

export function describeSkipReason(): string {
  return missing ? ` (skipped: ${missing})` : ''
}

/** Call inside a `describePostgres` block: starts one cluster for the block's tests. */
export function useCluster(): ClusterHandle {
  let cluster: PostgresCluster | undefined
  let count = 0
  beforeAll(async () => {
    cluster = await startPostgresCluster()
  })
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
