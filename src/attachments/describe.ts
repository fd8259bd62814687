// How an image reads to people and to text-only models: `[image shot.png 1280×800 214 KB]`.

import { DEEPSEEK_VISION_MODELS, modelTakesImages } from '../llm/deepseek/models.js'
import type { ImageRef } from '../plugin-api/index.js'
import { AttachmentErrorCode, attachmentError } from './errors.js'
import { formatBytes } from './prepare.js'

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

/**
 * The prompt as hooks see it (UserPromptSubmit): the text, with `[Image #N]` appended for
 * each image the text does not already name with an `@` mention, as Claude Code marks
 * pasted images in the prompt it gives hooks. Hooks get references, never image bytes.
 */
export function promptWithImageRefs(text: string, images: readonly ImageRef[] | undefined): string {
  if (!images?.length) return text
  const marks: string[] = []
  images.forEach((ref, index) => {
    if (!text.includes(`@${ref.name}`) && !text.includes(`/${ref.name}`)) marks.push(`[Image #${index + 1}]`)
  })
  return marks.length === 0 ? text : `${text}${text === '' ? '' : ' '}${marks.join(' ')}`
}
