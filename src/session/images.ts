// The images a session's events name (`user/message` and `tool/result` carry `images`
// by content hash): what a fork, a migration and an export copy or read.

import type { SessionEvent } from './types.js'

/** The hashes of the images events name (`user/message` and `tool/result` `images`), once each. */
export function imageHashesIn(events: readonly SessionEvent[]): string[] {
  const hashes = new Set<string>()
  for (const event of events) {
    if (event.type !== 'user/message' && event.type !== 'tool/result') continue
    for (const ref of (event.data as { images?: { sha256: string }[] }).images ?? []) hashes.add(ref.sha256)
  }
  return [...hashes]
}
