// Versioned schema migrations of the PostgreSQL backend. Each runs once, in its own
// transaction, under an advisory lock so hosts starting together do not race; a
// database migrated by a newer dsh is refused, never written.

import type { ClientBase } from 'pg'
import { DshError } from '../../core/errors.js'
import { PersistenceErrorCode } from '../errors.js'
import { BOUNDS_MIGRATION, SEARCH_MIGRATION } from './search-schema.js'

export interface Migration {
  version: number
  description: string
  /** SQL for a schema (already quoted) and its notification channel. */
  sql(schema: string, channel: string): string
}

/** Quotes an identifier for SQL. Schema names are validated to `[a-z_][a-z0-9_]*` before they get here. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}

/** The LISTEN/NOTIFY channel on which appends to a schema's sessions are announced. */
export function channelFor(schema: string): string {
  return `${schema}_events`
}

export const SCHEMA_NAME_PATTERN = /^[a-z_][a-z0-9_]{0,39}$/

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'sessions, events, writer leases, the append function',
    sql: (s, channel) => `
CREATE TABLE ${s}.sessions (
  key bytea PRIMARY KEY,           -- SHA-256 of the id's UTF-16 code units: any id, NUL and lone surrogates included
  id text NOT NULL,                -- the id for people reading the table (NUL shown as \\u0000); the header holds the exact one
  header json NOT NULL,
  created_at bigint NOT NULL,
  cwd text,
  host text NOT NULL,              -- the host that last took the writer lease
  title text,
  event_count integer NOT NULL DEFAULT 0,
  last_activity bigint NOT NULL,
  turns integer NOT NULL DEFAULT 0,
  open_turn boolean NOT NULL DEFAULT false
);
CREATE INDEX sessions_last_activity ON ${s}.sessions (last_activity DESC);
CREATE INDEX sessions_cwd ON ${s}.sessions (cwd, last_activity DESC);
CREATE INDEX sessions_host ON ${s}.sessions (host, last_activity DESC);

-- data is json, not jsonb: jsonb rejects \\u0000 (which tool output can hold) and reorders keys.
CREATE TABLE ${s}.events (
  session_key bytea NOT NULL REFERENCES ${s}.sessions (key) ON DELETE CASCADE,
  seq integer NOT NULL,
  type text NOT NULL,
  time bigint NOT NULL,
  data json NOT NULL,
  ignorable boolean NOT NULL DEFAULT false,
  PRIMARY KEY (session_key, seq)
);

-- One row per session once it has had a writer; token only grows (the fencing token).
-- A released lease keeps its row and token with nonce NULL.
CREATE TABLE ${s}.leases (
  session_key bytea PRIMARY KEY REFERENCES ${s}.sessions (key) ON DELETE CASCADE,
  token bigint NOT NULL,
  host text,
  pid integer,
  process_start text,
  nonce uuid,
  acquired_at timestamptz,
  expires_at timestamptz
);

-- One checkpoint batch in one statement: lock the session, check the fencing token and
-- the seq continuity, insert, update the summary, announce. Durable at COMMIT.
-- The batch comes as parallel arrays, not one JSON document: PostgreSQL's JSON functions
-- decode strings and refuse \\u0000, while json[] input only validates each element.
CREATE FUNCTION ${s}.append_events(
  p_key bytea, p_token bigint, p_seqs integer[], p_types text[], p_times bigint[], p_data json[],
  p_ignorable boolean[], p_title text, p_turns integer, p_open boolean
) RETURNS integer LANGUAGE plpgsql AS $fn$
DECLARE
  v_count integer;
  v_lease record;
  v_added integer;
BEGIN
  SELECT event_count INTO v_count FROM ${s}.sessions WHERE key = p_key FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'session is not stored' USING ERRCODE = 'DSH04';
  END IF;
  SELECT token, nonce, host, pid INTO v_lease FROM ${s}.leases WHERE session_key = p_key;
  IF NOT FOUND OR v_lease.token IS DISTINCT FROM p_token OR v_lease.nonce IS NULL THEN
    RAISE EXCEPTION 'the writer lease has moved on' USING ERRCODE = 'DSH01',
      DETAIL = json_build_object('token', v_lease.token, 'host', v_lease.host, 'pid', v_lease.pid)::text;
  END IF;
  IF p_seqs[1] <> v_count THEN
    RAISE EXCEPTION 'append of seq % does not follow the stored tail %', p_seqs[1], v_count
      USING ERRCODE = 'DSH02', DETAIL = v_count::text;
  END IF;
  INSERT INTO ${s}.events (session_key, seq, type, time, data, ignorable)
    SELECT p_key, e.seq, e.type, e.time, e.data, e.ignorable
    FROM unnest(p_seqs, p_types, p_times, p_data, p_ignorable) AS e(seq, type, time, data, ignorable);
  GET DIAGNOSTICS v_added = ROW_COUNT;
  UPDATE ${s}.sessions SET
    event_count = v_count + v_added,
    last_activity = p_times[v_added],
    title = coalesce(title, p_title),
    turns = greatest(turns, p_turns),
    open_turn = coalesce(p_open, open_turn)
  WHERE key = p_key;
  PERFORM pg_notify('${channel}', encode(p_key, 'hex') || ':' || (v_count + v_added));
  RETURN v_count + v_added;
END
$fn$;
`,
  },
  {
    version: 2,
    description: 'the sessions row keeps its usage ledger (SessionSummary.usage)',
    sql: (s) => `
-- usage_events: how many events the ledger covers. A writer of version 1 still calls the
-- ten-argument append_events, which leaves it behind; readers catch up from the events.
ALTER TABLE ${s}.sessions ADD COLUMN usage json, ADD COLUMN usage_events integer NOT NULL DEFAULT 0;

CREATE FUNCTION ${s}.append_events(
  p_key bytea, p_token bigint, p_seqs integer[], p_types text[], p_times bigint[], p_data json[],
  p_ignorable boolean[], p_title text, p_turns integer, p_open boolean, p_usage json
) RETURNS integer LANGUAGE plpgsql AS $fn$
DECLARE
  v_count integer;
BEGIN
  v_count := ${s}.append_events(p_key, p_token, p_seqs, p_types, p_times, p_data, p_ignorable,
    p_title, p_turns, p_open);
  UPDATE ${s}.sessions SET usage = p_usage, usage_events = v_count WHERE key = p_key;
  RETURN v_count;
END
$fn$;
`,
  },
  {
    version: 3,
    description: "session images: a blob table of each session's images by SHA-256 (#26)",
    sql: (s) => `
-- No foreign key: a prompt's images are stored before its first event, when the session may
-- have no row yet. sessions rm deletes them with the session (LeaseTable.removeSession).
CREATE TABLE ${s}.session_images (
  session_key bytea NOT NULL,
  sha256 text NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (session_key, sha256)
);
`,
  },
  SEARCH_MIGRATION,
  {
    version: 5,
    description: 'session ids by prefix, given titles: two indexes',
    sql: (s) => `
-- Short id prefixes: "id ~>=~ $1 AND id ~<~ $2" is a range scan of this index (byte order).
CREATE INDEX sessions_id_prefix ON ${s}.sessions (id text_pattern_ops);
-- A listing's given title (the latest session/title event) without reading a session's events.
CREATE INDEX events_titles ON ${s}.events (session_key, seq DESC) WHERE type = 'session/title';
`,
  },
  BOUNDS_MIGRATION,
]

export const LATEST_SCHEMA_VERSION = MIGRATIONS.at(-1)!.version

export interface MigrationReport {
  /** Version before and after. 0: the schema did not exist. */
  from: number
  to: number
  applied: { version: number; description: string }[]
}

/**
 * Brings `schema` up to LATEST_SCHEMA_VERSION on `client` (which must not be inside a
 * transaction). Rejects with PERSISTENCE_SCHEMA_TOO_NEW when a newer dsh migrated it.
 */
export async function migrate(client: ClientBase, schema: string): Promise<MigrationReport> {
  const s = quoteIdent(schema)
  await client.query('BEGIN')
  try {
    // Serializes migrators of this schema across hosts; released at COMMIT/ROLLBACK.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`dsh-migrate:${schema}`])
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`)
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
      version integer PRIMARY KEY,
      description text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`)
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${s}.schema_migrations`,
    )
    const from = rows[0]?.version ?? 0
    if (from > LATEST_SCHEMA_VERSION) {
      throw new DshError(
        `the database schema "${schema}" is at version ${from}, newer than this dsh understands (${LATEST_SCHEMA_VERSION}): upgrade dsh; nothing was written`,
        PersistenceErrorCode.SchemaTooNew,
        { userFacing: true },
      )
    }
    const applied: MigrationReport['applied'] = []
    for (const migration of MIGRATIONS) {
      if (migration.version <= from) continue
      await client.query(migration.sql(s, channelFor(schema)))
      await client.query(`INSERT INTO ${s}.schema_migrations (version, description) VALUES ($1, $2)`, [
        migration.version,
        migration.description,
      ])
      applied.push({ version: migration.version, description: migration.description })
    }
    await client.query('COMMIT')
    return { from, to: Math.max(from, LATEST_SCHEMA_VERSION), applied }
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {}) // the connection may be gone; the server rolls back then
    throw error
  }
}
