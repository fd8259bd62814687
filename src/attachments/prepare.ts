// Turns a file or pasted bytes into an image ready for a session: recognised from its
// bytes, checked whole, downscaled (sharp, loaded on first use) when over the limits,
// content-addressed by SHA-256. Every refusal is one line naming the file.

import { createHash } from 'node:crypto'
import { readFile, realpath, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { basename, isAbsolute, relative, resolve } from 'node:path'
import { errorMessage } from '../core/errors.js'
import type { ImageMediaType, PreparedImage } from '../plugin-api/index.js'
import { AttachmentErrorCode, attachmentError } from './errors.js'
import { headerDimensions, sniffImageType, structuralDamage } from './format.js'
import { MAX_SIDE_PX, MAX_SOURCE_BYTES, TARGET_IMAGE_BYTES } from './limits.js'

export interface ImageFileOptions {
  /** Relative paths resolve against it; "the project" for `allowOutside`. */
  cwd: string
  /** False: a path outside `cwd` is refused (mentions in text that may not be the user's). Default true. */
  allowOutside?: boolean
}

const URL_PATTERN = /^[a-z][a-z0-9+.-]*:\/\//i

/** Reads, checks and (when needed) downscales the image at `path`. Rejects with one line naming it. */
export async function prepareImageFile(path: string, options: ImageFileOptions): Promise<PreparedImage> {
  if (URL_PATTERN.test(path)) {
    throw attachmentError(
      `image ${path}: dsh does not fetch images from URLs; download it and attach the file`,
      AttachmentErrorCode.Url,
    )
  }
  const target = { absolute: absolutePath(options.cwd, path) }
  if (options.allowOutside === false && (await isOutside(options.cwd, target.absolute))) {
    throw attachmentError(
      `image ${path}: outside the project (${options.cwd}); the permission mode allows mentions of files inside it only (attach it with --image, or use bypassPermissions)`,
      AttachmentErrorCode.Outside,
    )
  }
  let size: number
  try {
    const info = await stat(target.absolute)
    if (info.isDirectory())
      throw attachmentError(`image ${path}: is a folder, not a file`, AttachmentErrorCode.Unreadable)
    size = info.size
  } catch (error) {
    throw fileError(path, error)
  }
  if (size > MAX_SOURCE_BYTES) {
    throw attachmentError(
      `image ${path}: ${formatBytes(size)} is larger than the ${formatBytes(MAX_SOURCE_BYTES)} dsh reads as an image`,
      AttachmentErrorCode.Unreadable,
    )
  }
  let data: Buffer
  try {
    data = await readFile(target.absolute)
  } catch (error) {
    throw fileError(path, error)
  }
  return prepareImageData(data, basename(target.absolute), path)
}

/**
 * Checks and (when needed) downscales image bytes that did not come from a path (a paste,
 * an upload, an ACP block). `label` names it in errors (default `name`).
 */
export async function prepareImageData(data: Buffer, name: string, label = name): Promise<PreparedImage> {
  if (data.length > MAX_SOURCE_BYTES) {
    throw attachmentError(
      `image ${label}: ${formatBytes(data.length)} is larger than the ${formatBytes(MAX_SOURCE_BYTES)} dsh reads as an image`,
      AttachmentErrorCode.Unreadable,
    )
  }
  const type = sniffImageType(data)
  if (type === undefined) {
    throw attachmentError(
      `image ${label}: not an image dsh can send (PNG, JPEG, GIF or WebP expected)`,
      AttachmentErrorCode.NotAnImage,
    )
  }
  const damage = structuralDamage(data, type)
  if (damage !== undefined) throw attachmentError(`image ${label}: ${damage}`, AttachmentErrorCode.NotAnImage)
  let { width, height } = headerDimensions(data, type) ?? { width: 0, height: 0 }
  if (width === 0) {
    const sharp = (await import('sharp')).default
    try {
      const meta = await sharp(data).metadata()
      if (!meta.width || !meta.height) throw new Error('no dimensions')
      width = meta.width
      height = meta.height
    } catch (error) {
      throw attachmentError(
        `image ${label}: does not decode as ${type.slice(6).toUpperCase()} (${errorMessage(error)})`,
        AttachmentErrorCode.NotAnImage,
        error,
      )
    }
  }
  if (Math.max(width, height) <= MAX_SIDE_PX && data.length <= TARGET_IMAGE_BYTES) {
    // Within the limits: the file's own bytes, untouched (no re-encode, the same hash every time).
    return { ref: { sha256: sha256(data), mediaType: type, name, width, height, bytes: data.length }, data }
  }
  try {
    const sharp = (await import('sharp')).default
    const scaled = await downscale(sharp, data, type)
    return {
      ref: {
        sha256: sha256(scaled.data),
        mediaType: scaled.type,
        name,
        width: scaled.width,
        height: scaled.height,
        bytes: scaled.data.length,
        resizedFrom: { width, height },
      },
      data: scaled.data,
    }
  } catch (error) {
    throw attachmentError(
      `image ${label}: does not decode (${errorMessage(error)})`,
      AttachmentErrorCode.NotAnImage,
      error,
    )
  }
}

type Sharp = typeof import('sharp').default

/** Fits the image inside MAX_SIDE_PX (orientation applied); a GIF keeps its first frame, as a PNG. */
async function downscale(
  sharp: Sharp,
  data: Buffer,
  type: ImageMediaType,
): Promise<{ data: Buffer; type: ImageMediaType; width: number; height: number }> {
  const resized = () =>
    sharp(data, { animated: false })
      .rotate()
      .resize({ width: MAX_SIDE_PX, height: MAX_SIDE_PX, fit: 'inside', withoutEnlargement: true })
  let out: { data: Buffer; info: { width: number; height: number } }
  let outType: ImageMediaType = type === 'image/gif' ? 'image/png' : type
  if (outType === 'image/jpeg')
    out = await resized().jpeg({ quality: 85 }).toBuffer({ resolveWithObject: true })
  else if (outType === 'image/webp')
    out = await resized().webp({ quality: 85 }).toBuffer({ resolveWithObject: true })
  else out = await resized().png().toBuffer({ resolveWithObject: true })
  if (out.data.length > TARGET_IMAGE_BYTES) {
    // A photo saved as PNG: JPEG is what fits it.
    out = await resized().jpeg({ quality: 80 }).toBuffer({ resolveWithObject: true })
    outType = 'image/jpeg'
  }
  return { data: out.data, type: outType, width: out.info.width, height: out.info.height }
}

function absolutePath(cwd: string, path: string): string {
  const expanded = path === '~' ? homedir() : path.startsWith('~/') ? homedir() + path.slice(1) : path
  return isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded)
}

/** Outside `cwd` as written or once symlinks are followed (a link inside may point out). */
async function isOutside(cwd: string, absolute: string): Promise<boolean> {
  const out = (folder: string, path: string) => {
    const rel = relative(folder, path)
    return rel.startsWith('..') || isAbsolute(rel)
  }
  if (out(cwd, absolute)) return true
  const real = await realpath(absolute).catch(() => absolute)
  const realCwd = await realpath(cwd).catch(() => cwd)
  return out(realCwd, real)
}

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex')
}

function fileError(path: string, error: unknown) {
  if (error instanceof Error && 'userFacing' in error) return error
  const code = (error as NodeJS.ErrnoException).code
  const why =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EACCES' || code === 'EPERM'
        ? 'cannot be read (permission denied)'
        : code === 'EISDIR'
          ? 'is a folder, not a file'
          : `cannot be read (${errorMessage(error)})`
  return attachmentError(`image ${path}: ${why}`, AttachmentErrorCode.Unreadable, error)
}

/** `214 KB`, `3.1 MB`: sizes as people read them (1 KB = 1024 bytes). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`
  const mb = bytes / (1024 * 1024)
  return `${mb < 10 ? mb.toFixed(1) : Math.round(mb)} MB`
}
