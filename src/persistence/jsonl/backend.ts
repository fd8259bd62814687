// The JSONL persistence backend (the embedded default): one newline-delimited
// file per session at `<root>/<bucket>/<encoded-id>.jsonl`, see SPEC §3.1.

import { resolve } from 'node:path'
import type { Context } from 'cordis'
import type { SessionEvent, SessionHeader, SessionId, SessionSummary } from '../../session/types.js'
import type { WriterOwner } from '../owner.js'
import { notFound, SessionPersistence } from '../persistence.js'
import type { SearchDocument, SearchRequest } from '../search-text.js'
import type { LoadedSession, SessionLocation } from '../types.js'
import { idsWithPrefix } from './catalog.js'
import { readImageFile, writeImageFile } from './images.js'
import { JsonlLogStore } from './log-store.js'
import { findRipgrep } from './search.js'

export interface JsonlBackendConfig {
  /** Folder holding the buckets; resolved to an absolute path once, at construction. */
  root: string
  /**
   * Session search: the ripgrep executable, `false` for the streaming reader, or
   * unset to use `rg` from PATH when it is installed.
   */
  ripgrep?: string | false
}

/**
 * The service shell over `JsonlLogStore`. Each method makes one access to the
 * store: property access through the Cordis service proxy is costly, and a
 * method touching `this` repeatedly paid for it many times per call.
 */
export class JsonlSessionBackend extends SessionPersistence {
  readonly root: string
  private readonly logs: JsonlLogStore
  private readonly ripgrep: string | false | undefined

  constructor(ctx: Context, config: JsonlBackendConfig) {
    super(ctx)
    this.root = resolve(config.root)
    const logs = new JsonlLogStore(this.root)
    this.logs = logs
    this.ripgrep = config.ripgrep
    ctx.effect(() => () => logs.releaseAllSync(), 'jsonl: release writer locks')
  }

  /** Where the session's log is or would be. Pure: computed from the header, no I/O. */
  locate(header: SessionHeader): SessionLocation {
    return this.logs.locate(header)
  }

  /** Validates the id and keeps the header in memory; writes nothing. */
  create(header: SessionHeader): Promise<void> {
    return this.logs.create(header)
  }

  /**
   * Appends whole lines and fsyncs; the first append publishes the file. Takes the
   * session's writer lock on first use (PERSISTENCE_LOCKED if another process holds
   * it) and refuses to write if the file changed since this process last saw it.
   */
  append(id: SessionId, events: SessionEvent[]): Promise<void> {
    return this.logs.append(id, events)
  }

  /** Read-only: validates the log and returns its valid events; writes nothing, locks nothing. */
  load(id: SessionId): Promise<LoadedSession> {
    return this.logs.load(id)
  }

  /** Takes the writer lock (`<log>.lock`), then cuts a torn tail and closes an open turn, durably. */
  open(id: SessionId): Promise<LoadedSession> {
    return this.logs.open(id)
  }

  /** Removes a lock file whose holder is gone (or, forced, any but this process's). */
  override unlock(id: SessionId, options: { force?: boolean } = {}): Promise<WriterOwner | undefined> {
    return this.logs.unlock(id, options.force ?? false)
  }

  override exists(id: SessionId): Promise<boolean> {
    return this.logs.exists(id)
  }

  /** Closes the file and drops the writer lock; later calls reopen as needed. */
  override release(id: SessionId): Promise<void> {
    return this.logs.release(id)
  }

  /** Deletes the log after taking its writer lock (PERSISTENCE_LOCKED while a live process holds it). */
  remove(id: SessionId): Promise<void> {
    return this.logs.remove(id)
  }

  /** Stores the image in the folder beside the session's log (`<encoded-id>.images/<sha256>`). */
  override async putImage(id: SessionId, sha256: string, data: Buffer): Promise<void> {
    const folder = await this.logs.imagesFolder(id)
    if (folder === undefined) throw notFound(id)
    await writeImageFile(folder, sha256, data)
  }

  override async getImage(id: SessionId, sha256: string): Promise<Buffer | undefined> {
    const folder = await this.logs.imagesFolder(id)
    return folder === undefined ? undefined : readImageFile(folder, sha256)
  }

  /** Search candidates, read by ripgrep when installed (or configured), else streamed line by line. */
  override searchDocuments(request: SearchRequest, visit: (doc: SearchDocument) => void): Promise<void> {
    const ripgrep = this.ripgrep === false ? undefined : (this.ripgrep ?? findRipgrep())
    return this.logs.search(request, ripgrep, visit)
  }

  override turnAt(id: SessionId, seq: number): Promise<number> {
    return this.logs.turnAt(id, seq)
  }

  override summariesOf(ids: ReadonlySet<SessionId>): Promise<SessionSummary[]> {
    const logger = this.ctx.logger('jsonl')
    return this.logs.summariesOf(ids, (file, reason) =>
      logger.warn(`${file} is damaged and not listed: ${reason}`),
    )
  }

  /** From the file names: see `idsWithPrefix` in catalog.ts. */
  override idsWithPrefix(prefix: string, limit: number, except?: string): Promise<SessionId[]> {
    return idsWithPrefix(this.root, prefix, limit, except)
  }

  /** Summaries from each file's head and tail only; a log that cannot be listed is a warning naming it. */
  list(): Promise<SessionSummary[]> {
    const logger = this.ctx.logger('jsonl')
    return this.logs.list((file, reason) => logger.warn(`${file} is damaged and not listed: ${reason}`))
  }
}
