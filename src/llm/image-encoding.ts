// The base64 data URLs of images, encoded once per content hash and shared by every
// request: the same string in every request, so a request's bytes stay stable (the
// prompt cache keeps hitting) and a 50-step session does not re-encode its images.

import type { ImageRef } from './types.js'

/** Encoded images kept in memory; past this many characters the least recently used go. */
const MAX_CACHED_CHARS = 512 * 1024 * 1024

const dataUrls = new Map<string, string>()
let cachedChars = 0

/** Encodes `data` (the bytes `ref` names) unless its data URL is already cached. */
export function rememberImageEncoding(ref: ImageRef, data: Buffer): void {
  if (dataUrls.has(ref.sha256)) return
  const url = `data:${ref.mediaType};base64,${data.toString('base64')}`
  dataUrls.set(ref.sha256, url)
  cachedChars += url.length
  for (const [key, value] of dataUrls) {
    if (cachedChars <= MAX_CACHED_CHARS || key === ref.sha256) break
    dataUrls.delete(key)
    cachedChars -= value.length
  }
}

/** Whether the data URL of the image with this hash is cached. */
export function hasImageEncoding(sha256: string): boolean {
  return dataUrls.has(sha256)
}

/**
 * The cached data URL of `ref`. Throws when it is not cached: the agent loads a request's
 * images from the session's store before building it (see src/attachments/store.ts).
 */
export function imageDataUrl(ref: ImageRef): string {
  const url = dataUrls.get(ref.sha256)
  if (url === undefined)
    throw new Error(`image ${ref.name} (${ref.sha256.slice(0, 12)}) was not loaded before the request`)
  // Most recently used last, so eviction takes the oldest.
  dataUrls.delete(ref.sha256)
  dataUrls.set(ref.sha256, url)
  return url
}

/** Forgets every cached encoding (tests that must see images come from a store; memory pressure). */
export function clearImageEncodings(): void {
  dataUrls.clear()
  cachedChars = 0
}
