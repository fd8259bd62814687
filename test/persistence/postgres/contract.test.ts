// The PostgreSQL backend against the shared persistence contract, on a real server
// this file starts (initdb in a temporary folder, 127.0.0.1, an unprivileged user).

import { PostgresSessionBackend } from '../../../src/persistence/postgres/index.js'
import { describePostgres, describeSkipReason, useCluster } from '../../support/postgres.js'
import { runPersistenceContract } from '../contract.js'

describePostgres(`postgres${describeSkipReason()}`, () => {
  const pg = useCluster()
  runPersistenceContract('postgres', () => ({
    plugin: PostgresSessionBackend,
    config: { url: pg.cluster.url, schema: pg.schema() },
    durable: true,
  }))
})
