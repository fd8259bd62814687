// Images a chat line attaches (`@shot.png`), through the one attachment path. Mentions
// outside the project are refused unless the permission mode is bypassPermissions.

import { type PreparedImage, preparePromptImages } from '../../attachments/index.js'
import type { Harness } from '../../harness/compose.js'
import type { PastedImages } from './paste.js'

/** The line's `@` mentions, then the pasted images (`[image: …]` tokens) it still names, each once. */
export async function chatImages(
  text: string,
  cwd: string,
  harness: Harness,
  pasted?: PastedImages,
): Promise<PreparedImage[]> {
  const mode = harness.config.permissions.mode
  const images = await preparePromptImages(text, { cwd, mentionsOutside: mode === 'bypassPermissions' })
  const seen = new Set(images.map((image) => image.ref.sha256))
  for (const image of pasted?.named(text) ?? []) {
    if (seen.has(image.ref.sha256)) continue
    seen.add(image.ref.sha256)
    images.push(image)
  }
  return images
}
