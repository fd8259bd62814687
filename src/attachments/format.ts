// Recognises an image format from its bytes (never the file name, as the API does) and
// checks that the file is whole: a cheap structural walk instead of a full decode.

import { sniffImageType } from '../llm/image-format.js'
import type { ImageMediaType } from '../plugin-api/index.js'

export { sniffImageType }

/**
 * Why the file is not a whole image of its format, or undefined when it looks whole: PNG
 * chunks are walked to IEND, a JPEG must end with its end-of-image marker, a GIF with its
 * trailer, and a WebP's RIFF size must match the file. Catches truncated and spliced files
 * without decoding every pixel.
 */
export function structuralDamage(data: Buffer, type: ImageMediaType): string | undefined {
  switch (type) {
    case 'image/png':
      return pngDamage(data)
    case 'image/jpeg':
      return endsWithin(data, [0xff, 0xd9]) ? undefined : 'the JPEG has no end-of-image marker (truncated?)'
    case 'image/gif':
      return endsWithin(data, [0x3b]) ? undefined : 'the GIF has no trailer (truncated?)'
    case 'image/webp':
      return data.length >= 8 && data.readUInt32LE(4) + 8 <= data.length
        ? undefined
        : 'the WebP is shorter than its header says (truncated?)'
  }
}

function pngDamage(data: Buffer): string | undefined {
  let offset = 8
  let first = true
  while (offset + 12 <= data.length) {
    const length = data.readUInt32BE(offset)
    const type = data.toString('latin1', offset + 4, offset + 8)
    if (!/^[A-Za-z]{4}$/.test(type)) return `the PNG has a damaged chunk at byte ${offset}`
    if (first && type !== 'IHDR') return 'the PNG does not start with its header chunk'
    first = false
    offset += 12 + length
    if (offset > data.length) return `the PNG's ${type} chunk runs past the end of the file (truncated?)`
    if (type === 'IEND') return undefined
  }
  return 'the PNG has no IEND chunk (truncated?)'
}

/** Whether `tail` occurs within the last few bytes (some writers pad after the end marker). */
function endsWithin(data: Buffer, tail: number[]): boolean {
  const window = data.subarray(Math.max(0, data.length - 64))
  return window.lastIndexOf(Buffer.from(tail)) >= 0
}

/**
 * Width and height read straight from a PNG's IHDR or a GIF's screen descriptor, or
 * undefined for the formats whose headers take a real parser (JPEG, WebP: sharp reads
 * those). Saves loading the image library for the common screenshot.
 */
export function headerDimensions(
  data: Buffer,
  type: ImageMediaType,
): { width: number; height: number } | undefined {
  if (type === 'image/png' && data.length >= 24) {
    const size = { width: data.readUInt32BE(16), height: data.readUInt32BE(20) }
    return size.width > 0 && size.height > 0 ? size : undefined
  }
  if (type === 'image/gif' && data.length >= 10) {
    const size = { width: data.readUInt16LE(6), height: data.readUInt16LE(8) }
    return size.width > 0 && size.height > 0 ? size : undefined
  }
  return undefined
}
