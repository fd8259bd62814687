// Images a prompt names: `@shot.png` / `@"my shot.png"` mentions in its text plus paths
// given on the side (`dsh run --image`), prepared in order, each once.

import type { PreparedImage } from '../plugin-api/index.js'
import { AttachmentErrorCode, attachmentError } from './errors.js'
import { MAX_IMAGES_PER_PROMPT } from './limits.js'
import { prepareImageFile } from './prepare.js'

const IMAGE_EXTENSION = String.raw`\.(?:png|jpe?g|gif|webp)`
/** `@path.png` at a word start (not an e-mail address), or `@"path with spaces.png"`. */
const MENTION = new RegExp(
  String.raw`(?<![\w@])@(?:"([^"\n]+${IMAGE_EXTENSION})"|([^\s"'\x60]+${IMAGE_EXTENSION}))(?=$|[\s,;:!?)\]]|\.(?:\s|$))`,
  'gi',
)

/** The image paths `@` mentions in `text` name, in order, as written. */
export function imageMentions(text: string): string[] {
  const paths: string[] = []
  for (const match of text.matchAll(MENTION)) paths.push(match[1] ?? match[2]!)
  return paths
}

export interface PromptImageOptions {
  cwd: string
  /** Paths attached explicitly (`--image`): allowed outside the project. */
  paths?: readonly string[]
  /**
   * Whether `@` mentions may name files outside the project. Mentions come in text that
   * may not be the user's own (a piped file, a client), so only bypassPermissions allows it.
   */
  mentionsOutside?: boolean
}

/**
 * Prepares the images a prompt attaches: `paths` first, then the text's mentions; an image
 * named twice (same bytes) is attached once. Rejects with one line at the first bad one,
 * before anything is stored, and when there are more than a request may carry.
 */
export async function preparePromptImages(
  text: string,
  options: PromptImageOptions,
): Promise<PreparedImage[]> {
  const sources = [
    ...(options.paths ?? []).map((path) => ({ path, allowOutside: true })),
    ...imageMentions(text).map((path) => ({ path, allowOutside: options.mentionsOutside ?? false })),
  ]
  if (sources.length > MAX_IMAGES_PER_PROMPT) {
    throw attachmentError(
      `${sources.length} images attached; a request carries at most ${MAX_IMAGES_PER_PROMPT}`,
      AttachmentErrorCode.TooMany,
    )
  }
  const prepared = new Map<string, PreparedImage>()
  for (const source of sources) {
    const image = await prepareImageFile(source.path, { cwd: options.cwd, allowOutside: source.allowOutside })
    if (!prepared.has(image.ref.sha256)) prepared.set(image.ref.sha256, image)
  }
  return [...prepared.values()]
}
