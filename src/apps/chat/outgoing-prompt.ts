// A typed prompt made ready for its turn: echoed into the transcript, its `@file` mentions
// attached (attachments.ts), its images read (images.ts), each attachment named in one
// line. A bad image stops the prompt there with one red line.

import { describeImage, type PreparedImage } from '../../attachments/index.js'
import { errorMessage } from '../../core/errors.js'
import type { Harness } from '../../harness/compose.js'
import type { Colors } from '../shared/render.js'
import { attachFiles } from './attachments.js'
import { safe } from './chat-host.js'
import { chatImages } from './images.js'
import type { PastedImages } from './paste.js'

export interface OutgoingPrompt {
  /** The text the model receives: the typed text with the attached files appended. */
  prompt: string
  images: PreparedImage[]
}

/** Resolves undefined when an image cannot be read (nothing is sent; the reason is said). */
export async function prepareOutgoing(
  text: string,
  cwd: string,
  harness: Harness,
  pasted: PastedImages,
  colors: Colors,
  say: (text: string) => void,
): Promise<OutgoingPrompt | undefined> {
  const { prompt, attached, skipped } = attachFiles(text, cwd)
  say(
    text
      .split('\n')
      .map((line, index) => (index === 0 ? colors.bold(colors.green('> ')) : '  ') + safe(line))
      .join('\n'),
  )
  for (const path of attached) say(colors.dim(`  attached ${safe(path)}`))
  for (const note of skipped) say(colors.yellow(`  not attached: ${safe(note)}`))
  const images = await chatImages(text, cwd, harness, pasted).catch((error) => {
    say(colors.red(safe(errorMessage(error))))
    return undefined
  })
  if (images === undefined) return undefined
  for (const image of images) say(colors.dim(`  attached ${safe(describeImage(image.ref))}`))
  return { prompt, images }
}
