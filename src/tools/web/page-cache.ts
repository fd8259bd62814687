// Fetched pages kept for paging: the same URL asked again (for its next window) is served
// from here instead of being downloaded (and billed) again. A long page is also written to
// a file once per session (the spill store under the harness home when there is one and the
// call has a session; else a private temporary folder), so the model can read it with bash.

import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { WebFetchResult } from './types.js'

export const PAGE_CACHE_ENTRIES = 32
export const PAGE_CACHE_TTL_MS = 15 * 60_000

interface CachedPage {
  page: WebFetchResult
  provider: string
  /** Where the page was written, per session id ('' for calls without a session). */
  spillPaths: Map<string, string>
  storedAt: number
}

export class PageCache {
  private readonly entries = new Map<string, CachedPage>()
  private spillDir: string | undefined

  /** A cached page for this URL (asked for or final), or undefined. */
  get(url: string, now = Date.now()): CachedPage | undefined {
    const entry = this.entries.get(url)
    if (!entry) return undefined
    if (now - entry.storedAt > PAGE_CACHE_TTL_MS) {
      this.entries.delete(url)
      return undefined
    }
    // Refresh its place: the map's order is least recently used first.
    this.entries.delete(url)
    this.entries.set(url, entry)
    return entry
  }

  /** Stores a page under the asked and the final URL. */
  put(askedUrl: string, page: WebFetchResult, provider: string): CachedPage {
    const entry: CachedPage = { page, provider, spillPaths: new Map(), storedAt: Date.now() }
    for (const url of new Set([askedUrl, page.url])) this.entries.set(url, entry)
    while (this.entries.size > PAGE_CACHE_ENTRIES) this.entries.delete(this.entries.keys().next().value!)
    return entry
  }

  /** Forgets every page and removes the spill folder. */
  dispose(): void {
    this.entries.clear()
    if (this.spillDir) rmSync(this.spillDir, { recursive: true, force: true })
    this.spillDir = undefined
  }

  /** Writes the page to this cache's private temporary folder (calls without a spill store). */
  spillTemporary(page: WebFetchResult): string | undefined {
    try {
      this.spillDir ??= mkdtempSync(join(tmpdir(), 'dsh-web-'))
      const host = new URL(page.url).hostname.replace(/[^A-Za-z0-9.-]/g, '_')
      const hash = createHash('sha256').update(page.url).digest('hex').slice(0, 12)
      const path = join(this.spillDir, `${host}-${hash}.md`)
      writeFileSync(path, page.markdown, { mode: 0o600 })
      return path
    } catch {
      // No spill file (full disk, no tmp): the page is still served in windows.
      return undefined
    }
  }
}
