// The PostgreSQL persistence backend: sessions as rows of one shared database that
// many dsh hosts use at once, one writer per session (a fenced lease). Sessions have
// no dedicated local file, so `locate` answers undefined. Every id is checked here, before
// any query, so a bad one is SESSION_INVALID_ID like on every other backend.

import type { Context } from 'cordis'
import { validateSessionId } from '../../session/session.js'
import type { SessionEvent, SessionHeader, SessionId } from '../../session/types.js'
import type { WriterOwner } from '../owner.js'
import { SessionPersistence } from '../persistence.js'
import type { SearchDocument, SearchRequest, SessionBound } from '../search-text.js'
import type { LoadedSession, SessionLocation } from '../types.js'
import { type PostgresBackendConfig, resolvePostgresConfig } from './config.js'
import { withReconnect } from './connection.js'
import { idsWithPrefix, type PostgresSummary } from './list.js'
import { parseHeader } from './rows.js'
import { type PostgresSessionStore, PostgresSessionStore as Store, sessionKey } from './store.js'

export class PostgresSessionBackend extends SessionPersistence {
  /** The rows behind this service; a plain object, so hot paths skip Cordis's proxies. */
  readonly store: PostgresSessionStore

  constructor(ctx: Context, config: PostgresBackendConfig) {
    super(ctx)
    const store = new Store(resolvePostgresConfig(config))
    this.store = store
    ctx.effect(() => () => store.close(), 'postgres: release leases, close the pool')
  }

  /** Connects and applies migrations; rejects with one line naming the server when it cannot. */
  ready(): Promise<void> {
    return this.store.ready()
  }

  /** A session is rows in a shared database, not a dedicated file. */
  locate(_header: SessionHeader): SessionLocation | undefined {
    return undefined
  }

  create(header: SessionHeader): Promise<void> {
    return this.store.create(header)
  }

  async append(id: SessionId, events: SessionEvent[]): Promise<void> {
    validateSessionId(id)
    return this.store.append(id, events)
  }

  async load(id: SessionId): Promise<LoadedSession> {
    validateSessionId(id)
    return this.store.load(id)
  }

  async open(id: SessionId): Promise<LoadedSession> {
    validateSessionId(id)
    return this.store.open(id)
  }

  override unlock(id: SessionId, options: { force?: boolean } = {}): Promise<WriterOwner | undefined> {
    return this.store.unlock(id, options.force ?? false)
  }

  async remove(id: SessionId): Promise<void> {
    validateSessionId(id)
    return this.store.remove(id)
  }

  /** Stores the image in the `session_images` blob table, once per hash; durable at commit. */
  override async putImage(id: SessionId, sha256: string, data: Buffer): Promise<void> {
    validateSessionId(id)
    const pool = await this.store.db()
    await withReconnect(this.store.config, () =>
      pool.query(
        `INSERT INTO ${this.store.s}.session_images (session_key, sha256, data) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
        [sessionKey(id), sha256, data],
      ),
    )
  }

  override async getImage(id: SessionId, sha256: string): Promise<Buffer | undefined> {
    validateSessionId(id)
    const pool = await this.store.db()
    const { rows } = await withReconnect(this.store.config, () =>
      pool.query<{ data: Buffer }>(
        `SELECT data FROM ${this.store.s}.session_images WHERE session_key = $1 AND sha256 = $2`,
        [sessionKey(id), sha256],
      ),
    )
    return rows[0]?.data
  }

  list(): Promise<PostgresSummary[]> {
    return this.store.list()
  }

  /** Candidates from the GIN-indexed `search` column (and rows not indexed yet). Never writes. */
  override async searchDocuments(
    request: SearchRequest,
    visit: (doc: SearchDocument) => void,
  ): Promise<void> {
    const { searching } = this.store
    await searching.searchDocumentsOf(request, await searching.searchBounds(request), visit)
  }

  /** Each candidate session's bounds from the index (and its bounds marks). Never writes. */
  override searchBounds(request: SearchRequest): Promise<SessionBound[]> {
    return this.store.searching.searchBounds(request)
  }

  override searchDocumentsOf(
    request: SearchRequest,
    sessions: readonly SessionBound[],
    visit: (doc: SearchDocument) => void,
  ): Promise<void> {
    return this.store.searching.searchDocumentsOf(request, sessions, visit)
  }

  override async turnAt(id: SessionId, seq: number): Promise<number> {
    validateSessionId(id)
    return this.store.searching.turnAt(id, seq)
  }

  override summariesOf(ids: ReadonlySet<SessionId>): Promise<PostgresSummary[]> {
    return this.store.summariesOf(ids)
  }

  /** A range scan of the `text_pattern_ops` index on `id` (schema version 5). */
  override async idsWithPrefix(prefix: string, limit: number, except?: string): Promise<SessionId[]> {
    const { config } = this.store
    const parse = (value: unknown) => parseHeader(config, undefined, value)
    return idsWithPrefix(await this.store.db(), this.store.s, config, parse, prefix, limit, except)
  }

  override exists(id: SessionId): Promise<boolean> {
    return this.store.exists(id)
  }

  override release(id: SessionId): Promise<void> {
    return this.store.release(id)
  }
}
