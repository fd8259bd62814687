// Images and the session's store: a prompt's images go in before the event naming them,
// and a request's images are loaded (and encoded once) before the request is built.

import { hasImageEncoding, rememberImageEncoding } from '../llm/image-encoding.js'
import type { ChatMessage } from '../llm/types.js'
import type { SessionPersistence } from '../persistence/persistence.js'
import type { PreparedImage } from '../plugin-api/index.js'
import type { SessionId } from '../session/types.js'
import { AttachmentErrorCode, attachmentError } from './errors.js'

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
