// Images that arrive from clients as bytes (ACP `image` blocks, stdio image parts, web
// uploads): decoded from base64 and sent through the same checks as files.

import type { PreparedImage } from '../plugin-api/index.js'
import { AttachmentErrorCode, attachmentError } from './errors.js'
import { MAX_IMAGES_PER_PROMPT, MAX_SOURCE_BYTES } from './limits.js'
import { preparePromptImages } from './mentions.js'
import { prepareImageData } from './prepare.js'

/** An image a client sent: base64 bytes, and a name for people when it has one. */
export interface ClientImage {
  data: string
  name?: string
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/**
 * The images of a client prompt: its `@` mentions (inside `cwd` only) then the images it
 * sent, each checked like a file, each once. Rejects with one line at the first bad one.
 */
export async function prepareClientImages(
  text: string,
  images: readonly ClientImage[],
  cwd: string,
): Promise<PreparedImage[]> {
  if (images.length > MAX_IMAGES_PER_PROMPT) {
    throw attachmentError(
      `${images.length} images attached; a request carries at most ${MAX_IMAGES_PER_PROMPT}`,
      AttachmentErrorCode.TooMany,
    )
  }
  const prepared = new Map<string, PreparedImage>()
  for (const image of await preparePromptImages(text, { cwd })) prepared.set(image.ref.sha256, image)
  for (const [index, image] of images.entries()) {
    const name = image.name ?? `image-${index + 1}`
    const compact = image.data.replace(/\s+/g, '')
    if (!BASE64.test(compact) || compact.length % 4 !== 0) {
      throw attachmentError(`image ${name}: the data is not base64`, AttachmentErrorCode.NotAnImage)
    }
    if ((compact.length / 4) * 3 > MAX_SOURCE_BYTES + 3) {
      throw attachmentError(
        `image ${name}: larger than the 64 MB dsh reads as an image`,
        AttachmentErrorCode.Unreadable,
      )
    }
    const ready = await prepareImageData(Buffer.from(compact, 'base64'), name)
    if (!prepared.has(ready.ref.sha256)) prepared.set(ready.ref.sha256, ready)
  }
  return [...prepared.values()]
}
