// The password lookup dsh hands the PostgreSQL driver (so pg 8 never prints its pgpass
// deprecation warning): PGPASSWORD first, else the matching ~/.pgpass line, else none.

import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { driverOptions, resolvePostgresConfig } from '../../../src/persistence/postgres/config.js'
import { passwordLookup } from '../../../src/persistence/postgres/pgpass.js'
import { useTempDirs } from '../../support/temp-dir.js'

const tempDir = useTempDirs('dsh-pgpass-')
const savedPassFile = process.env.PGPASSFILE

afterEach(() => {
  if (savedPassFile === undefined) delete process.env.PGPASSFILE
  else process.env.PGPASSFILE = savedPassFile
})

describe('the PostgreSQL password lookup', () => {
  it('reads PGPASSWORD first, then the matching line of the pgpass file, else gives none', async () => {
    const file = join(tempDir(), 'pgpass')
    writeFileSync(file, '127.0.0.1:55432:agents:dsh:from-file\n*:*:*:other:wildcard\n')
    chmodSync(file, 0o600)
    // The pgpass package reads PGPASSFILE from the process's environment, as the driver did.
    process.env.PGPASSFILE = file
    const facts = { host: '127.0.0.1', port: 55432, database: 'agents', user: 'dsh' }
    expect(await passwordLookup({ PGPASSWORD: 'from-env' })(facts)).toBe('from-env')
    expect(await passwordLookup({})(facts)).toBe('from-file')
    expect(await passwordLookup({})({ ...facts, user: 'other' })).toBe('wildcard')
    expect(await passwordLookup({})({ ...facts, user: 'nobody' })).toBeUndefined()
  })

  it('is what the driver gets as its password option', async () => {
    const options = driverOptions(resolvePostgresConfig({ url: 'postgres://dsh@127.0.0.1/agents', env: {} }))
    expect(typeof options.password).toBe('function')
  })
})
