// The password for a connection without one: PGPASSWORD, else the matching line of
// ~/.pgpass (or PGPASSFILE). Read here, not by the driver: pg 8 prints a deprecation
// warning on every use of its own ~/.pgpass lookup and asks callers to pass a password
// function instead. The lookup is the `pgpass` package the driver used.

import { createRequire } from 'node:module'

interface ConnectionFacts {
  host?: string
  port?: number | string
  database?: string
  user?: string
}

type PgpassLookup = (facts: ConnectionFacts, done: (password: string | undefined) => void) => void

/**
 * The driver's `password` option. It is asked only when the server wants a password and
 * the URL carried none; a function given there also hides PGPASSWORD from the driver, so
 * it is read here first.
 */
export function passwordLookup(
  env: NodeJS.ProcessEnv,
): (facts: ConnectionFacts) => Promise<string | undefined> {
  return async (facts) => {
    const given = env.PGPASSWORD
    if (given !== undefined) return given
    const lookup = createRequire(import.meta.url)('pgpass') as PgpassLookup
    return await new Promise((resolve) => lookup(facts, resolve))
  }
}
