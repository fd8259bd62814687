// Recognises an image format from its leading bytes, as DeepSeek does (never from a file
// name or a declared type). Used by the attachment seam and the strict stand-in.

import type { ImageMediaType } from './types.js'

/** The format the leading bytes announce, or undefined when they are none of the four. */
export function sniffImageType(data: Buffer): ImageMediaType | undefined {
  if (data.length >= 8 && data.readUInt32BE(0) === 0x89504e47 && data.readUInt32BE(4) === 0x0d0a1a0a)
    return 'image/png'
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg'
  if (data.length >= 6 && /^GIF8[79]a$/.test(data.toString('latin1', 0, 6))) return 'image/gif'
  if (
    data.length >= 12 &&
    data.toString('latin1', 0, 4) === 'RIFF' &&
    data.toString('latin1', 8, 12) === 'WEBP'
  )
    return 'image/webp'
  return undefined
}
