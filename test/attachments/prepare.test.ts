// The attachment path on real files: formats told from bytes, limits, downscaling with
// sharp, content hashes, mentions, and every bad input as one line naming the file.

import { chmodSync, mkdirSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  AttachmentErrorCode,
  describeImage,
  imageMentions,
  MAX_SIDE_PX,
  prepareImageFile,
  preparePromptImages,
  sha256,
} from '../../src/attachments/index.js'
import { photoJpeg, pngImage, writeImage } from '../support/images.js'
import { useTempDirs } from '../support/temp-dir.js'

const makeDir = useTempDirs('dsh-images-')

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as { code: string; message: string; userFacing: boolean } | undefined
  expect(error, 'expected a refusal').toBeDefined()
  expect(error!.userFacing).toBe(true)
  expect(error!.message).not.toContain('\n')
  return error!
}

describe('prepareImageFile', () => {
  it('keeps an image within the limits byte for byte, hashed, with its dimensions', async () => {
    const dir = makeDir()
    const data = await pngImage(1280, 800)
    writeImage(dir, 'shot.png', data)
    const image = await prepareImageFile('shot.png', { cwd: dir })
    expect(image.data.equals(data)).toBe(true)
    expect(image.ref).toEqual({
      sha256: sha256(data),
      mediaType: 'image/png',
      name: 'shot.png',
      width: 1280,
      height: 800,
      bytes: data.length,
    })
    expect(describeImage({ ...image.ref, bytes: 214 * 1024 })).toBe('[image shot.png 1280×800 214 KB]')
  })

  it('tells the format from the bytes, not the name', async () => {
    const dir = makeDir()
    writeImage(dir, 'really-a-jpeg.png', await photoJpeg(64, 48))
    const image = await prepareImageFile('really-a-jpeg.png', { cwd: dir })
    expect(image.ref.mediaType).toBe('image/jpeg')
  })

  it('downscales a 12-megapixel photo to fit MAX_SIDE_PX, keeping the aspect ratio', async () => {
    const dir = makeDir()
    writeImage(dir, 'photo.jpg', await photoJpeg(4000, 3000))
    const image = await prepareImageFile('photo.jpg', { cwd: dir })
    expect(image.ref).toMatchObject({
      mediaType: 'image/jpeg',
      width: MAX_SIDE_PX,
      height: 1536,
      resizedFrom: { width: 4000, height: 3000 },
    })
    expect(image.ref.sha256).toBe(sha256(image.data))
    expect(image.ref.bytes).toBe(image.data.length)
    // The same file gives the same bytes again: the hash is stable.
    expect((await prepareImageFile('photo.jpg', { cwd: dir })).ref.sha256).toBe(image.ref.sha256)
  })

  it('refuses each bad input with one line naming the file', async () => {
    const dir = makeDir()
    mkdirSync(join(dir, 'folder.png'))
    writeFileSync(join(dir, 'notes.png'), 'just some text\n')
    const png = await pngImage(100, 100)
    writeImage(dir, 'corrupt.png', png)
    truncateSync(join(dir, 'corrupt.png'), png.length - 20)
    const spliced = Buffer.from(png)
    spliced.write('!!!!', 12, 'latin1') // the IHDR chunk type
    writeImage(dir, 'spliced.png', spliced)
    writeImage(dir, 'locked.png', png)
    chmodSync(join(dir, 'locked.png'), 0o000)
    writeFileSync(join(dir, 'huge.png'), '')
    truncateSync(join(dir, 'huge.png'), 200 * 1024 * 1024)

    const cases: [string, string, RegExp][] = [
      ['missing.png', AttachmentErrorCode.Unreadable, /^image missing\.png: no such file$/],
      ['folder.png', AttachmentErrorCode.Unreadable, /^image folder\.png: is a folder, not a file$/],
      [
        'notes.png',
        AttachmentErrorCode.NotAnImage,
        /^image notes\.png: not an image dsh can send \(PNG, JPEG, GIF or WebP expected\)$/,
      ],
      ['corrupt.png', AttachmentErrorCode.NotAnImage, /^image corrupt\.png: the PNG/],
      ['spliced.png', AttachmentErrorCode.NotAnImage, /^image spliced\.png: the PNG/],
      [
        'huge.png',
        AttachmentErrorCode.Unreadable,
        /^image huge\.png: 200 MB is larger than the 64 MB dsh reads as an image$/,
      ],
      [
        'https://example.com/a.png',
        AttachmentErrorCode.Url,
        /^image https:\/\/example\.com\/a\.png: dsh does not fetch images from URLs/,
      ],
    ]
    if (process.getuid?.() !== 0) {
      cases.push([
        'locked.png',
        AttachmentErrorCode.Unreadable,
        /^image locked\.png: cannot be read \(permission denied\)$/,
      ])
    }
    for (const [path, code, message] of cases) {
      const error = await refusal(prepareImageFile(path, { cwd: dir }))
      expect(error.code, path).toBe(code)
      expect(error.message, path).toMatch(message)
    }
  })
})

describe('prompt images', () => {
  it('finds @ mentions of image files, not e-mail addresses or other files', () => {
    expect(
      imageMentions(
        'fix @shot.png and @"my shots/b.JPG", see @src/x.ts, mail me@host.png, look at @ui/c.webp.',
      ),
    ).toEqual(['shot.png', 'my shots/b.JPG', 'ui/c.webp'])
  })

  it('attaches --image paths then mentions, each image once; mentions outside the project are refused', async () => {
    const dir = makeDir()
    const outside = makeDir()
    const a = await pngImage(10, 10, '#ff0000')
    writeImage(dir, 'a.png', a)
    writeImage(dir, 'same.png', a)
    writeImage(dir, 'b.png', await pngImage(10, 10, '#00ff00'))
    writeImage(outside, 'secret.png', await pngImage(10, 10, '#0000ff'))
    const images = await preparePromptImages('compare @a.png with @b.png and @same.png', {
      cwd: dir,
      paths: [join(outside, 'secret.png')],
    })
    expect(images.map((image) => image.ref.name)).toEqual(['secret.png', 'a.png', 'b.png'])
    const error = await refusal(preparePromptImages(`look at @${join(outside, 'secret.png')}`, { cwd: dir }))
    expect(error.code).toBe(AttachmentErrorCode.Outside)
    expect(error.message).toMatch(/^image .*secret\.png: outside the project/)
    const allowed = await preparePromptImages(`look at @${join(outside, 'secret.png')}`, {
      cwd: dir,
      mentionsOutside: true,
    })
    expect(allowed).toHaveLength(1)
  })
})
