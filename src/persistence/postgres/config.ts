// Settings of the PostgreSQL backend and the driver options they become. Also how a
// database is named in messages: host, port and database, never the password.

import { createRequire } from 'node:module'
import { hostname } from 'node:os'
import type { PoolConfig } from 'pg'
import { passwordLookup } from './pgpass.js'

export interface PostgresBackendConfig {
  /** A `postgres://user:pass@host:port/db` URL; unset: the standard PG* variables (PGHOST, PGPORT, ...). */
  url?: string
  /** The PostgreSQL schema holding dsh's tables (created by the first migration). Default `dsh`. */
  schema?: string
  /** This machine's name in leases and session rows. Default: the OS host name. */
  hostName?: string
  /** How long a writer lease lasts without a heartbeat, ms. Default 30,000. */
  leaseMs?: number
  /** How often a held lease is renewed, ms; 0 turns the heartbeat off (tests). Default leaseMs / 3. */
  heartbeatMs?: number
  /** Server-side limit on one statement, ms. Default 30,000. */
  statementTimeoutMs?: number
  /** How long a checkpoint keeps reconnecting after the connection is lost, ms. Default 30,000. */
  reconnectMs?: number
  /** Connections kept open at most. Default 10. */
  maxConnections?: number
  /** Environment to read PG* variables from. Default process.env. */
  env?: NodeJS.ProcessEnv
}

export const DEFAULT_SCHEMA = 'dsh'
export const DEFAULT_LEASE_MS = 30_000
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000
export const DEFAULT_RECONNECT_MS = 30_000
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000
const DEFAULT_MAX_CONNECTIONS = 10

/** Every setting with its default filled in. */
export interface ResolvedPostgresConfig {
  url: string | undefined
  schema: string
  hostName: string
  leaseMs: number
  heartbeatMs: number
  statementTimeoutMs: number
  reconnectMs: number
  maxConnections: number
  env: NodeJS.ProcessEnv
}

export function resolvePostgresConfig(config: PostgresBackendConfig): ResolvedPostgresConfig {
  const leaseMs = config.leaseMs ?? DEFAULT_LEASE_MS
  return {
    url: config.url,
    schema: config.schema ?? DEFAULT_SCHEMA,
    hostName: config.hostName ?? hostname(),
    leaseMs,
    heartbeatMs: config.heartbeatMs ?? Math.max(1, Math.floor(leaseMs / 3)),
    statementTimeoutMs: config.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    reconnectMs: config.reconnectMs ?? DEFAULT_RECONNECT_MS,
    maxConnections: config.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    env: config.env ?? process.env,
  }
}

/** Options for `pg.Pool` / `pg.Client`. Without a URL the driver reads the PG* variables itself. */
export function driverOptions(config: ResolvedPostgresConfig): PoolConfig {
  // The URL's fields, parsed by the driver's own parser and given as options (not as a
  // connection string, which the driver would parse again over `password` below).
  const fromUrl = config.url !== undefined ? urlOptions(config.url) : {}
  return {
    application_name: 'dsh',
    statement_timeout: config.statementTimeoutMs,
    // Client side too: a server that stops answering (stopped, cut off) must not hang a turn.
    query_timeout: config.statementTimeoutMs + 5_000,
    // A writer paused inside a transaction must not hold row locks past its lease.
    idle_in_transaction_session_timeout: Math.max(config.leaseMs, 1_000),
    connectionTimeoutMillis: DEFAULT_CONNECT_TIMEOUT_MS,
    keepAlive: true,
    max: config.maxConnections,
    // What the URL says wins over the above, as it does when the driver parses it.
    ...fromUrl,
    // The URL's password, else PGPASSWORD or ~/.pgpass, looked up by dsh when the server asks.
    // pg passes the connection's facts and takes undefined for "none"; its types declare neither.
    password:
      typeof fromUrl.password === 'string' && fromUrl.password !== ''
        ? fromUrl.password
        : (passwordLookup(config.env) as unknown as () => Promise<string>),
  }
}

/** A `postgres://` URL as driver options, parsed as the driver parses its connection string. */
function urlOptions(url: string): PoolConfig {
  const { parse } = createRequire(import.meta.url)('pg-connection-string') as {
    parse(url: string): Record<string, unknown>
  }
  return { ...parse(url) } as PoolConfig
}

/** `host:port/database` of the configured server, for messages. Never includes the password. */
export function describeTarget(config: Pick<ResolvedPostgresConfig, 'url' | 'env'>): string {
  const env = config.env
  let host = env.PGHOST || 'localhost'
  let port = env.PGPORT || '5432'
  let database = env.PGDATABASE || env.PGUSER || env.USER || ''
  if (config.url !== undefined) {
    try {
      const url = new URL(config.url)
      host = decodeURIComponent(url.hostname) || url.searchParams.get('host') || host
      port = url.port || '5432'
      database = decodeURIComponent(url.pathname.replace(/^\//, '')) || database
    } catch {
      return 'the configured database (persistence.url is not a valid URL)'
    }
  }
  return `${host}:${port}${database ? `/${database}` : ''}`
}

/** Removes the configured password from a driver message, should the driver ever echo it. */
export function scrubPassword(message: string, config: Pick<ResolvedPostgresConfig, 'url' | 'env'>): string {
  const secrets: string[] = []
  if (config.env.PGPASSWORD) secrets.push(config.env.PGPASSWORD)
  if (config.url !== undefined) {
    try {
      const password = decodeURIComponent(new URL(config.url).password)
      if (password) secrets.push(password)
    } catch {
      // Not a URL: the driver will refuse it too, and there is no password to find.
    }
  }
  return secrets.reduce((text, secret) => text.split(secret).join('***'), message)
}
