// `@path` in a prompt attaches that file: its content is appended to the prompt the
// model receives (the prompt text keeps the `@path` as written).

import { readFileSync, statSync } from 'node:fs'
import { resolve } from 'node:path'

/** Files larger than this are named but not attached. */
export const MAX_ATTACHMENT_BYTES = 256 * 1024

const IMAGE_PATH = /\.(?:png|jpe?g|gif|webp)$/i

export interface Attached {
  /** The prompt with every attachment appended. */
  prompt: string
  /** Paths attached, and notes about ones that could not be. */
  attached: string[]
  skipped: string[]
}

export function attachFiles(prompt: string, cwd: string): Attached {
  const attached: string[] = []
  const skipped: string[] = []
  const blocks: string[] = []
  for (const match of prompt.matchAll(/(?:^|\s)@((?:[^\s\\]|\\ )+)/g)) {
    const path = match[1]!.replace(/\\ /g, ' ').replace(/[.,;:!?)]+$/, '')
    // Images are attached as images (src/attachments), never pasted in as text.
    if (IMAGE_PATH.test(path)) continue
    if (attached.includes(path)) continue
    const full = resolve(cwd, path)
    let size: number
    try {
      const stat = statSync(full)
      if (!stat.isFile()) continue
      size = stat.size
    } catch {
      continue // not a file: an ordinary `@word`
    }
    if (size > MAX_ATTACHMENT_BYTES) {
      skipped.push(`${path} (${size} bytes; the limit is ${MAX_ATTACHMENT_BYTES})`)
      continue
    }
    const content = readFileSync(full, 'utf8')
    blocks.push(`<file path="${path}">\n${content}${content.endsWith('\n') ? '' : '\n'}</file>`)
    attached.push(path)
  }
  if (blocks.length === 0) return { prompt, attached, skipped }
  return { prompt: `${prompt}\n\n${blocks.join('\n\n')}`, attached, skipped }
}
