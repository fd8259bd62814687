// Real image files for tests, made with sharp (the library dsh itself uses): screenshots,
// photos, and broken files for the error cases.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'

/** A PNG of `width`×`height` with a gradient-free fill (small, fast to encode). */
export async function pngImage(width: number, height: number, color = '#336699'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } })
    .png()
    .toBuffer()
}

/** A JPEG "photo" of `width`×`height` with noise, so it compresses like one. */
export async function photoJpeg(width: number, height: number): Promise<Buffer> {
  return sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 30 },
    },
  })
    .jpeg({ quality: 90 })
    .toBuffer()
}

/** Writes `data` to `dir/name` and returns the path. */
export function writeImage(dir: string, name: string, data: Buffer): string {
  const path = join(dir, name)
  writeFileSync(path, data)
  return path
}
