// The strict stand-in's rules for image input, from DeepSeek's Vision guide (read
// 2026-12-05): content arrays of `text` and `image_url` parts on user messages, only for
// a model that takes images; a data URL must be base64 of a JPEG, PNG, GIF or WebP (told
// from the bytes); at most MAX_IMAGES_PER_REQUEST images; 32 MiB per inline image.

import { sniffImageType } from '../image-format.js'
import type { WireChatRequest } from '../openai/wire-types.js'
import { DEEPSEEK_VISION_MODELS } from './models.js'

export const MAX_STAND_IN_IMAGES = 600
const MAX_INLINE_BYTES = 32 * 1024 * 1024
const DATA_URL = /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/]*={0,2})$/

/** Why the request's image parts would be refused, or undefined when they are accepted. */
export function imagePartRefusal(body: WireChatRequest): string | undefined {
  let images = 0
  for (const message of body.messages ?? []) {
    const content = (message as { content?: unknown }).content
    if (!Array.isArray(content)) continue
    if (message.role !== 'user')
      return `content arrays are accepted on user messages only (got one on ${message.role})`
    for (const part of content as {
      type?: unknown
      text?: unknown
      image_url?: { url?: unknown; detail?: unknown }
    }[]) {
      if (part.type === 'text') {
        if (typeof part.text !== 'string') return 'a text part needs a string "text"'
        continue
      }
      if (part.type !== 'image_url') return `unknown content part type ${JSON.stringify(part.type)}`
      images += 1
      if (!DEEPSEEK_VISION_MODELS.includes(body.model)) {
        return `Model ${body.model} does not support image input`
      }
      const problem = imageUrlProblem(part.image_url)
      if (problem !== undefined) return problem
    }
  }
  if (images > MAX_STAND_IN_IMAGES) return `Too many images in request: ${images} > ${MAX_STAND_IN_IMAGES}`
  return undefined
}

function imageUrlProblem(imageUrl: { url?: unknown; detail?: unknown } | undefined): string | undefined {
  if (typeof imageUrl?.url !== 'string') return 'an image_url part needs image_url.url'
  if (imageUrl.detail !== undefined && !['low', 'high', 'original', 'auto'].includes(String(imageUrl.detail)))
    return 'image_url.detail must be low, high, original or auto'
  // The stand-in downloads nothing: it takes data URLs only.
  const match = DATA_URL.exec(imageUrl.url)
  if (!match) return 'image_url.url must be a base64 data URL of a JPEG, PNG, GIF or WebP image'
  if (match[2]!.length % 4 !== 0) return 'image_url.url: the base64 data is not padded to whole groups'
  const bytes = Buffer.from(match[2]!, 'base64')
  if (bytes.length > MAX_INLINE_BYTES) return 'an inline image is larger than 32 MiB'
  if (sniffImageType(bytes) === undefined)
    return 'image_url.url: the data is not a JPEG, PNG, GIF or WebP image'
  return undefined
}
