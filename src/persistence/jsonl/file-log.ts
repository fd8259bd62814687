// Durable byte-level operations on one log file: atomic publication without
// overwrite, whole-line appends with fsync, and rollback of a failed write.

import { randomUUID } from 'node:crypto'
import { fstatSync, fsyncSync, ftruncateSync, writeSync } from 'node:fs'
import { type FileHandle, link, mkdir, open, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'
import { DshError } from '../../core/errors.js'
import { PersistenceErrorCode } from '../errors.js'
import { tempSibling } from './layout.js'

export const DIR_MODE = 0o700
export const FILE_MODE = 0o600

/** Creates a folder (and its parents) with mode 0700. */
export async function ensureDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: DIR_MODE })
}

/**
 * Publishes a new log: writes `bytes` to a temporary file in the same folder,
 * fsyncs it, hard-links it to `path` (which never overwrites: an existing file
 * rejects with PERSISTENCE_ALREADY_EXISTS), removes the temporary name and fsyncs
 * the folder. Resolves with a read-write handle on the published file.
 */
export async function publishLog(path: string, bytes: Buffer): Promise<FileHandle> {
  const dir = dirname(path)
  const temp = tempSibling(path, randomUUID())
  const handle = await open(temp, 'wx+', FILE_MODE)
  let published = false
  try {
    await writeFully(handle, bytes, 0)
    await handle.sync()
    try {
      await link(temp, path)
    } catch (error) {
      if (isCode(error, 'EEXIST')) {
        throw new DshError(
          `session file ${path} already exists; it was not overwritten`,
          PersistenceErrorCode.AlreadyExists,
          {
            userFacing: true,
          },
        )
      }
      throw ioError(`cannot publish session file ${path}`, error)
    }
    published = true
    await syncDir(dir)
    return handle // the same inode as `path`
  } finally {
    if (!published) await handle.close()
    await unlink(temp).catch(() => {}) // best effort: a leftover temp file is ignored by readers
  }
}

/**
 * Writes whole lines at `position` (the current end of the log) and fsyncs; on
 * any failure truncates back to `position` and throws. A log that is not `position`
 * bytes long rejects with PERSISTENCE_SEQ_MISMATCH, nothing written. Synchronous on purpose,
 * like better-sqlite3 in the SQLite backend: the caller's promise settles after
 * one write and one fsync, without two thread-pool round trips, which on a busy
 * machine halved append throughput. The event loop waits for one fsync.
 */
export function appendAt(fd: number, position: number, bytes: Buffer, path: string): void {
  let found: number
  try {
    found = fstatSync(fd).size
  } catch (error) {
    throw ioError(`cannot append to session file ${path}`, error)
  }
  // Bytes past our end are another writer's (one whose lock was broken, or not dsh): never write over them.
  if (found !== position) {
    throw new DshError(
      `session file ${path} was changed by another process (${position} bytes expected, ${found} found); nothing was written`,
      PersistenceErrorCode.SeqMismatch,
      { userFacing: true },
    )
  }
  try {
    let done = 0
    while (done < bytes.length) {
      const written = writeSync(fd, bytes, done, bytes.length - done, position + done)
      if (written === 0) throw new Error('write made no progress')
      done += written
    }
    fsyncSync(fd)
  } catch (error) {
    rollbackTo(fd, position, path, error)
    throw ioError(`cannot append to session file ${path}; the write was rolled back`, error)
  }
}

/** Truncates a log back to `size` bytes and makes that durable. */
export function rollbackTo(fd: number, size: number, path: string, cause?: unknown): void {
  try {
    ftruncateSync(fd, size)
    fsyncSync(fd)
  } catch (error) {
    throw new DshError(
      `cannot roll back session file ${path} to ${size} bytes; reload the session before writing again`,
      PersistenceErrorCode.Io,
      { cause: cause ?? error },
    )
  }
}

async function writeFully(handle: FileHandle, bytes: Buffer, position: number): Promise<void> {
  let done = 0
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done)
    if (bytesWritten === 0) throw new Error('write made no progress')
    done += bytesWritten
  }
}

async function syncDir(dir: string): Promise<void> {
  let handle: FileHandle | undefined
  try {
    handle = await open(dir, 'r')
    await handle.sync()
  } catch {
    // Some file systems cannot fsync a folder; the file itself is already durable.
  } finally {
    await handle?.close()
  }
}

export function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code
}

export function ioError(message: string, cause: unknown): DshError {
  const detail = cause instanceof Error ? `: ${cause.message}` : ''
  // A full disk or a file-size limit is the machine's state, not a dsh bug: one line naming the file.
  return new DshError(`${message}${detail}`, PersistenceErrorCode.Io, { cause, userFacing: true })
}
