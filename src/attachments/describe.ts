// How an image reads to people and to text-only models: `[image shot.png 1280×800 214 KB]`.

import { DEEPSEEK_VISION_MODELS, modelTakesImages } from '../llm/deepseek/models.js'
import { AttachmentErrorCode, attachmentError } from './errors.js'
import { formatBytes } from './prepare.js'
import type { ImageRef } from './types.js'

/** `[image shot.png 1280×800 214 KB]`, the line chat and `sessions show` print for an image. */
export function describeImage(ref: ImageRef): string {
  return `[image ${ref.name} ${ref.width}×${ref.height} ${formatBytes(ref.bytes)}]`
}

/** The refusal for images sent with a model that does not take them, or undefined when it does (or may). */
export function visionRefusal(model: string, count: number): Error | undefined {
  if (count === 0 || modelTakesImages(model) !== false) return undefined
  return attachmentError(
    `model ${model} does not take images (${count === 1 ? 'one is' : `${count} are`} attached); use --model ${DEEPSEEK_VISION_MODELS[0]}`,
    AttachmentErrorCode.NoVision,
  )
}
