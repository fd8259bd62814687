// A request's images, for every request that carries any (a turn's step, a compaction's
// summary call): the model must take them, there may be no more than the API allows, and
// each is loaded from the session's store (and encoded once) before the request is built.

import type { ModelRequest } from '../llm/adapter.js'
import type { ChatMessage } from '../llm/types.js'
import type { SessionId } from '../session/types.js'
import { describeImage, visionRefusal } from './describe.js'
import { AttachmentErrorCode, attachmentError } from './errors.js'
import { MAX_IMAGES_PER_REQUEST } from './limits.js'
import { countImages, type ImageStore, loadRequestImages } from './store.js'

/**
 * Readies the images `request` carries: rejects (one line) when its model does not take
 * images or when they are more than MAX_IMAGES_PER_REQUEST, and with ATTACHMENT_MISSING
 * when the store lacks one; resolves once every image is encoded.
 */
export async function readyRequestImages(
  store: ImageStore | undefined,
  sessionId: SessionId,
  request: Pick<ModelRequest, 'model' | 'messages'>,
  defaultModel: string,
): Promise<void> {
  const count = countImages(request.messages)
  if (count === 0) return
  const refusal = visionRefusal(request.model ?? defaultModel, count) ?? imageLimitRefusal(sessionId, count)
  if (refusal) throw refusal
  await loadRequestImages(store, sessionId, request.messages)
}

/**
 * The refusal for a request that would carry more than MAX_IMAGES_PER_REQUEST images: the
 * `carried` the conversation holds plus the `attached` a new prompt brings. Undefined when
 * they fit. It says the way out: compaction (which names the oldest images in text), or a
 * fork from before them.
 */
export function imageLimitRefusal(sessionId: SessionId, carried: number, attached = 0): Error | undefined {
  if (carried + attached <= MAX_IMAGES_PER_REQUEST) return undefined
  const compact = `/compact, or dsh sessions compact ${sessionId}`
  const message =
    attached > 0
      ? `${attached} images attached; the conversation carries ${carried} already, and a request carries at most ${MAX_IMAGES_PER_REQUEST} (compact it first: ${compact})`
      : `the conversation carries ${carried} images; a request carries at most ${MAX_IMAGES_PER_REQUEST} (compact it: ${compact}; or fork it from before the images: --fork ${sessionId} --at-turn <n>)`
  return attachmentError(message, AttachmentErrorCode.TooMany)
}

/**
 * `messages` with at most MAX_IMAGES_PER_REQUEST images: past it, the oldest are taken out
 * of their messages and named in the text instead (`[image shot.png 1280×800 214 KB]`). For
 * a summary call, which must still see the conversation whole when it carries more images
 * than a request may (stored by an older dsh, or returned by tools). Unchanged messages are
 * the same objects.
 */
export function nameImagesPastLimit(messages: readonly ChatMessage[]): ChatMessage[] {
  let excess = countImages(messages) - MAX_IMAGES_PER_REQUEST
  if (excess <= 0) return [...messages]
  return messages.map((message) => {
    if (excess <= 0 || message.role !== 'user' || !message.images?.length) return message
    const named = message.images.slice(0, excess)
    excess -= named.length
    const kept = message.images.slice(named.length)
    const note = `${named.map(describeImage).join(' ')} (not sent with this request: a request carries at most ${MAX_IMAGES_PER_REQUEST} images)`
    return {
      role: 'user',
      content: message.content === '' ? note : `${message.content}\n\n${note}`,
      ...(kept.length > 0 ? { images: kept } : {}),
    }
  })
}
