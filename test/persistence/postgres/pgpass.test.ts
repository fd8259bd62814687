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

  it('is what the driver keeps as the password of a URL without one; a URL with one keeps its own', async () => {
    const { default: pg } = await import('pg')
    // The driver parsed a connection string over the password option, dropping the lookup,
    // and then used (and warned about) its own deprecated ~/.pgpass lookup.
    const bare = driverOptions(
      resolvePostgresConfig({ url: 'postgres://dsh@127.0.0.1:55432/agents', env: {} }),
    )
    const client = new pg.Client(bare)
    expect(typeof (client as unknown as { password: unknown }).password).toBe('function')
    expect(client).toMatchObject({ user: 'dsh', host: '127.0.0.1', port: 55432, database: 'agents' })
    const given = driverOptions(resolvePostgresConfig({ url: 'postgres://dsh:s%2Fcret@h/db', env: {} }))
    expect((new pg.Client(given) as unknown as { password: unknown }).password).toBe('s/cret')
    // The URL's own settings still win over dsh's defaults, as when the driver parses it.
    const named = driverOptions(
      resolvePostgresConfig({ url: 'postgres://h/db?application_name=mine', env: {} }),
    )
    expect(named.application_name).toBe('mine')
  })
})
