// The history search's reads of a PostgreSQL store (the queries are in search.ts): each call
// takes the store's pool and retries once over a new connection. Read only.

import type { Pool } from 'pg'
import type { SessionId } from '../../session/types.js'
import type { SearchDocument, SearchRequest, SessionBound } from '../search-text.js'
import { textColumn } from './append-params.js'
import type { ResolvedPostgresConfig } from './config.js'
import { withReconnect } from './connection.js'
import { sessionKey } from './rows.js'
import { searchBounds, searchDocumentsOf, turnOf } from './search.js'

export class PostgresSearchReader {
  constructor(
    private readonly config: ResolvedPostgresConfig,
    /** The quoted schema name. */
    private readonly s: string,
    private readonly db: () => Promise<Pool>,
  ) {}

  /** Each candidate session's bounds (see search.ts). */
  async searchBounds(request: SearchRequest): Promise<SessionBound[]> {
    const pool = await this.db()
    const cwd = request.cwd === undefined ? undefined : textColumn(request.cwd)
    return withReconnect(this.config, () => searchBounds(pool, this.s, request, cwd))
  }

  /** The candidate documents of sessions from `searchBounds`, each with its turn. */
  async searchDocumentsOf(
    request: SearchRequest,
    sessions: readonly SessionBound[],
    visit: (doc: SearchDocument) => void,
  ): Promise<void> {
    const pool = await this.db()
    await withReconnect(this.config, () => searchDocumentsOf(pool, this.s, request, sessions, visit))
  }

  /** The turn of a search result's event (see search.ts). */
  async turnAt(id: SessionId, seq: number): Promise<number> {
    const pool = await this.db()
    return withReconnect(this.config, () => turnOf(pool, this.s, sessionKey(id), seq))
  }
}
