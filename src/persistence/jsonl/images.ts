// A JSONL session's images: one file per image, named by its SHA-256, in a folder beside
// the log (`<encoded-id>.images/`), so a session's bytes travel and go with its log.

import { randomUUID } from 'node:crypto'
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { ioError, isCode } from './file-log.js'

const HASH_PATTERN = /^[0-9a-f]{64}$/

/** The image folder of the log at `logPath`. */
export function imagesFolderOf(logPath: string): string {
  return `${logPath.replace(/\.jsonl$/, '')}.images`
}

/** Writes the image once (temp file, fsync, rename): durable on resolve; an existing one is kept. */
export async function writeImageFile(folder: string, sha256: string, data: Buffer): Promise<void> {
  const path = imagePath(folder, sha256)
  if (
    await stat(path).then(
      () => true,
      () => false,
    )
  )
    return
  try {
    await mkdir(folder, { recursive: true })
    const temp = join(folder, `.${sha256}.${randomUUID()}.tmp`)
    const handle = await open(temp, 'wx', 0o600)
    try {
      await handle.writeFile(data)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, path)
    // The rename is durable once the folder's entry is.
    const dir = await open(folder, 'r')
    try {
      await dir.sync()
    } finally {
      await dir.close()
    }
  } catch (error) {
    throw ioError(`cannot store image ${path}`, error)
  }
}

/** The image's bytes, or undefined when the folder has no such image. */
export async function readImageFile(folder: string, sha256: string): Promise<Buffer | undefined> {
  try {
    return await readFile(imagePath(folder, sha256))
  } catch (error) {
    if (isCode(error, 'ENOENT')) return undefined
    throw ioError(`cannot read image ${imagePath(folder, sha256)}`, error)
  }
}

/** Deletes the folder and every image in it (`sessions rm`). */
export async function removeImageFolder(folder: string): Promise<void> {
  await rm(folder, { recursive: true, force: true })
}

function imagePath(folder: string, sha256: string): string {
  // The hash is the file name: anything else could name a path outside the folder.
  if (!HASH_PATTERN.test(sha256)) throw new Error(`not an image hash: ${JSON.stringify(sha256)}`)
  return join(folder, sha256)
}
