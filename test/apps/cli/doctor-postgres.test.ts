// The doctor's PostgreSQL line with `persistence.backend: postgres`: ok against a real
// cluster, a problem with the fix when nothing listens at the configured URL.

import { createServer } from 'node:net'
import { expect, it } from 'vitest'
import { type DoctorCheck, runDoctorChecks } from '../../../src/apps/shared/doctor-checks.js'
import { resolveConfig, validateConfig } from '../../../src/config/index.js'
import { describePostgres, useCluster } from '../../support/postgres.js'
import { useTempDirs } from '../../support/temp-dir.js'

const makeDir = useTempDirs('dsh-doctor-pg-')

function postgresConfig(url: string) {
  const home = makeDir()
  const file = validateConfig('test', {
    dshHome: home,
    model: { baseUrl: 'http://127.0.0.1:9', apiKey: 'none' },
    persistence: { backend: 'postgres', url },
  })
  return resolveConfig(file, {})
}

const postgresLine = (checks: DoctorCheck[]) => checks.find((check) => check.name === 'PostgreSQL')

describePostgres('doctor: PostgreSQL', () => {
  const pg = useCluster()

  it('is ok when the configured database answers', async () => {
    const checks = await runDoctorChecks(postgresConfig(pg.cluster.url), makeDir(), { timeoutMs: 500 })
    expect(postgresLine(checks)).toMatchObject({
      status: 'ok',
      detail: `127.0.0.1:${pg.cluster.port}/postgres reachable`,
    })
  })
})

it('is a problem, with the fix, when nothing listens at the configured URL', async () => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  const checks = await runDoctorChecks(
    postgresConfig(`postgres://dsh@127.0.0.1:${port}/postgres`),
    makeDir(),
    {
      timeoutMs: 500,
    },
  )
  const line = postgresLine(checks)
  expect(line?.status).toBe('problem')
  expect(line?.detail).toMatch(new RegExp(`^127\\.0\\.0\\.1:${port}/postgres: `))
  expect(line?.fix).toContain('persistence.url')
})
