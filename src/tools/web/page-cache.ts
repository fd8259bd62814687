// Fetched pages kept for paging: the same URL asked again (for its next window) is served
// from here instead of being downloaded (and billed) again. Long pages are also written to
// a private spill folder, like long bash output, so the model can read them with bash.

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
  spillPath?: string
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

  /** Stores a page under the asked and the final URL; spills it when longer than `windowChars`. */
  put(askedUrl: string, page: WebFetchResult, provider: string, windowChars: number): CachedPage {
    const entry: CachedPage = { page, provider, storedAt: Date.now() }
    if (page.markdown.length > windowChars) entry.spillPath = this.spill(page)
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

  private spill(page: WebFetchResult): string | undefined {
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
