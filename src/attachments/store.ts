// Images and the session's store: a prompt's images go in before the event naming them,
// and a request's images are loaded (and encoded once) before the request is built.

import { hasImageEncoding, rememberImageEncoding } from '../llm/image-encoding.js'
import type { ChatMessage } from '../llm/types.js'
import type { SessionPersistence } from '../persistence/persistence.js'
import type { SessionEvent, SessionEventMap, SessionId } from '../session/types.js'
import { AttachmentErrorCode, attachmentError } from './errors.js'
import type { ImageRef, PreparedImage } from './types.js'

/** Where a session's images are stored and read; any backend (the seam's default is in memory). */
export type ImageStore = Pick<SessionPersistence, 'putImage' | 'getImage'>

/** Stores each image once for the session (durable on resolve) and caches its encoding. */
export async function storeImages(
  store: ImageStore,
  sessionId: SessionId,
  images: readonly PreparedImage[],
): Promise<void> {
  for (const image of images) {
    await store.putImage(sessionId, image.ref.sha256, image.data)
    rememberImageEncoding(image.ref, image.data)
  }
}

/**
 * Makes sure every image `messages` name is encoded, reading the ones not cached from the
 * session's store (a resumed session, another host's). Rejects with ATTACHMENT_MISSING,
 * naming the image, when the store does not have it.
 */
export async function loadRequestImages(
  store: ImageStore | undefined,
  sessionId: SessionId,
  messages: readonly ChatMessage[],
): Promise<void> {
  for (const message of messages) {
    if (message.role !== 'user' || !message.images) continue
    for (const ref of message.images) {
      if (hasImageEncoding(ref.sha256)) continue
      const data = store ? await store.getImage(sessionId, ref.sha256) : undefined
      if (!data) {
        throw attachmentError(
          `image ${ref.name} (${ref.sha256.slice(0, 12)}) is not in session ${JSON.stringify(sessionId)}'s image store`,
          AttachmentErrorCode.Missing,
        )
      }
      rememberImageEncoding(ref, data)
    }
  }
}

/** Every image the events name, once each, in order (a fork copies these). */
export function imagesIn(events: readonly SessionEvent[]): ImageRef[] {
  const seen = new Map<string, ImageRef>()
  for (const event of events) {
    if (event.type !== 'user/message' && event.type !== 'tool/result') continue
    const images = (event.data as SessionEventMap['user/message' | 'tool/result']).images
    for (const ref of images ?? []) if (!seen.has(ref.sha256)) seen.set(ref.sha256, ref)
  }
  return [...seen.values()]
}

/** Copies the images `events` name from one session's store to another's (fork, migrate). */
export async function copyImages(
  from: ImageStore,
  fromId: SessionId,
  to: ImageStore,
  toId: SessionId,
  events: readonly SessionEvent[],
): Promise<void> {
  for (const ref of imagesIn(events)) {
    const data = await from.getImage(fromId, ref.sha256)
    // An image already missing from the source stays missing; resuming names it then.
    if (data) await to.putImage(toId, ref.sha256, data)
  }
}

/** Whether any message carries images. */
export function hasImages(messages: readonly ChatMessage[]): boolean {
  return messages.some((message) => message.role === 'user' && (message.images?.length ?? 0) > 0)
}

/** How many images the messages carry (a request's count, against MAX_IMAGES_PER_REQUEST). */
export function countImages(messages: readonly ChatMessage[]): number {
  let count = 0
  for (const message of messages) if (message.role === 'user') count += message.images?.length ?? 0
  return count
}
