// Images pasted into the chat's input: a dropped file path (terminals paste the path,
// quoted or with escaped spaces, usually as a bracketed paste) or Ctrl-V of an image on
// the clipboard. Each becomes a `[image: shot.png 1280×720]` token in the input; the
// images the submitted line still names go out with it (see images.ts).

import { statSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type PreparedImage, prepareImageData, prepareImageFile } from '../../attachments/index.js'
import { readClipboardImage } from './clipboard.js'

const IMAGE_NAME = /\.(?:png|jpe?g|gif|webp)$/i

/**
 * The image files a paste names, or undefined when it is not only image paths (then it is
 * text). Understands `'/a b/x.png'`, `"x.png"`, `/a\ b/x.png`, `file:///a%20b/x.png`, and
 * several paths separated by spaces or lines. Every path must be an existing file.
 */
export function pastedImagePaths(paste: string, cwd: string): string[] | undefined {
  const tokens = splitPaths(paste.trim())
  if (tokens === undefined || tokens.length === 0) return undefined
  const paths: string[] = []
  for (const token of tokens) {
    let path = token
    if (path.startsWith('file://')) {
      try {
        path = fileURLToPath(path)
      } catch {
        return undefined
      }
    }
    if (path === '~' || path.startsWith('~/')) path = homedir() + path.slice(1)
    if (!IMAGE_NAME.test(path)) return undefined
    const full = isAbsolute(path) ? path : resolve(cwd, path)
    try {
      if (!statSync(full).isFile()) return undefined
    } catch {
      return undefined
    }
    paths.push(full)
  }
  return paths
}

/** Shell-like words: quotes group, a backslash escapes the next character. */
function splitPaths(text: string): string[] | undefined {
  const words: string[] = []
  let word: string | undefined
  let quote: string | undefined
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!
    if (quote !== undefined) {
      if (char === quote) quote = undefined
      else word += char
    } else if (char === "'" || char === '"') {
      quote = char
      word ??= ''
    } else if (char === '\\' && index + 1 < text.length) {
      word = (word ?? '') + text[++index]
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word)
      word = undefined
    } else word = (word ?? '') + char
  }
  if (quote !== undefined) return undefined
  if (word !== undefined) words.push(word)
  return words
}

/** The images pasted into one chat, by the token that stands for each in the input. */
export class PastedImages {
  private readonly byToken = new Map<string, PreparedImage>()

  /** Prepares the files and returns their tokens (joined by spaces). Rejects with one line. */
  async fromFiles(paths: readonly string[]): Promise<string> {
    const tokens: string[] = []
    for (const path of paths) tokens.push(this.token(await prepareImageFile(path, { cwd: '/' })))
    return tokens.join(' ')
  }

  /** The clipboard's image as a token. Rejects with one line (no tool, no image). */
  async fromClipboard(env: NodeJS.ProcessEnv = process.env): Promise<string> {
    const data = await readClipboardImage(env)
    return this.token(await prepareImageData(data, 'clipboard.png'))
  }

  /** The pasted images `text` still names, in order, each once. */
  named(text: string): PreparedImage[] {
    const found: { at: number; image: PreparedImage }[] = []
    for (const [token, image] of this.byToken) {
      const at = text.indexOf(token)
      if (at >= 0) found.push({ at, image })
    }
    return found.sort((a, b) => a.at - b.at).map((entry) => entry.image)
  }

  /** `[image: shot.png 1280×720]`; the same image keeps its token, another with the same look gets `#2`. */
  private token(image: PreparedImage): string {
    for (const [token, known] of this.byToken) if (known.ref.sha256 === image.ref.sha256) return token
    const { name, width, height } = image.ref
    const base = `${name} ${width}×${height}`
    let token = `[image: ${base}]`
    for (let n = 2; this.byToken.has(token); n++) token = `[image: ${base} #${n}]`
    this.byToken.set(token, image)
    return token
  }
}
