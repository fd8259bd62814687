// Finding sessions on disk without an index: probing buckets for one file name,
// and listing every log from its head and tail. Both are rebuilt from the files.

import { access, readdir } from 'node:fs/promises'
import { sep } from 'node:path'
import { DshError, errorMessage } from '../../core/errors.js'
import type { SessionId, SessionSummary } from '../../session/types.js'
import { ledgerOf } from '../../usage/ledger.js'
import { PersistenceErrorCode } from '../errors.js'
import { matchesPrefix } from '../persistence.js'
import { lastTurnNumber, outcomeOf, sessionTitle } from '../repair.js'
import { ioError, isCode } from './file-log.js'
import { decodeSessionId, LOG_SUFFIX } from './layout.js'
import { headerIdOf, summarizeLogSync } from './log-summary.js'
import { scanLog } from './reader.js'

/** Files summarized per synchronous batch in `listSessions`, between yields to the event loop. */
const LIST_BATCH = 64
/** Buckets probed at once when finding a session by id. */
const FIND_CONCURRENCY = 32
/** Logs scanned whole at once in `listSessions` (damaged tails, logs from before usage ledgers). */
const SCAN_CONCURRENCY = 16

/** The bucket folders under `root` (none when `root` does not exist yet). */
export async function bucketDirs(root: string): Promise<string[]> {
  try {
    const entries = await readdir(root, { withFileTypes: true })
    return entries.filter((entry) => entry.isDirectory()).map((entry) => root + sep + entry.name)
  } catch (error) {
    if (isCode(error, 'ENOENT')) return []
    throw ioError(`cannot read session root ${root}`, error)
  }
}

/**
 * The names in one bucket folder; none when it vanished. A folder that cannot be read is
 * PERSISTENCE_IO naming it: listing it as empty would hide its sessions (and make
 * `--continue` pick an older one).
 */
export async function bucketNames(bucket: string): Promise<string[]> {
  try {
    return await readdir(bucket)
  } catch (error) {
    if (isCode(error, 'ENOENT')) return []
    throw unreadableFolder(bucket, error)
  }
}

function unreadableFolder(bucket: string, error: unknown): DshError {
  return ioError(`cannot read session folder ${bucket}`, error)
}

/**
 * The path of `fileName` in whichever bucket holds it, or undefined. The same
 * name in two buckets is refused as PERSISTENCE_CORRUPT naming both files; a bucket
 * that cannot be searched, when no other holds the name, is PERSISTENCE_IO naming it,
 * unless `skipUnreadable` (the duplicate check of a new session's id).
 */
export async function findSessionFile(
  root: string,
  id: SessionId,
  fileName: string,
  skipUnreadable = false,
): Promise<string | undefined> {
  const buckets = await bucketDirs(root)
  const found: string[] = []
  let unreadable: { bucket: string; error: unknown } | undefined
  for (let i = 0; i < buckets.length; i += FIND_CONCURRENCY) {
    const probes = buckets.slice(i, i + FIND_CONCURRENCY).map(async (bucket) => {
      const path = bucket + sep + fileName
      try {
        await access(path)
        found.push(path)
      } catch (error) {
        // Not in this bucket, or the bucket vanished; anything else hides what it holds.
        if (!isCode(error, 'ENOENT') && !isCode(error, 'ENOTDIR')) unreadable ??= { bucket, error }
      }
    })
    await Promise.all(probes)
  }
  if (found.length === 0 && unreadable && !skipUnreadable)
    throw unreadableFolder(unreadable.bucket, unreadable.error)
  if (found.length > 1) {
    throw new DshError(
      `session ${JSON.stringify(id)} is stored twice (${found.sort().join(', ')}); remove one`,
      PersistenceErrorCode.Corrupt,
      { userFacing: true },
    )
  }
  return found[0]
}

/**
 * Summaries of every log under `root`, from each file's head and tail only. Files
 * are read with synchronous calls in batches, yielding to the event loop between
 * batches: for many small reads that is several times faster than the thread
 * pool. Files that cannot be read or are corrupt (a damaged header) are left out and
 * reported through `onSkipped`, never silently; a file removed meanwhile is not reported.
 */
export async function listSessions(
  root: string,
  onSkipped: (file: string, reason: string) => void = () => {},
): Promise<SessionSummary[]> {
  const files: string[] = []
  for (const bucket of await bucketDirs(root)) {
    for (const name of await bucketNames(bucket))
      if (name.endsWith(LOG_SUFFIX)) files.push(bucket + sep + name)
  }
  return summarizeFiles(files, onSkipped)
}

/** Summaries of the given logs, head and tail first, whole scans only where needed. */
export async function summarizeFiles(
  files: readonly string[],
  onSkipped: (file: string, reason: string) => void = () => {},
): Promise<SessionSummary[]> {
  const summaries: SessionSummary[] = []
  const toScan: string[] = []
  for (let i = 0; i < files.length; i += LIST_BATCH) {
    if (i > 0) await new Promise<void>((done) => setImmediate(done))
    const end = Math.min(files.length, i + LIST_BATCH)
    for (let j = i; j < end; j++) {
      try {
        const summary = summarizeLogSync(files[j]!)
        if (summary) summaries.push(summary)
        else toScan.push(files[j]!)
      } catch (error) {
        // Removed meanwhile: nothing to list. Corrupt: skipped, and said.
        if (!isCode(error, 'ENOENT')) onSkipped(files[j]!, errorMessage(error))
      }
    }
  }
  for (let i = 0; i < toScan.length; i += SCAN_CONCURRENCY) {
    const scanned = await Promise.all(
      toScan.slice(i, i + SCAN_CONCURRENCY).map((file) => summarizeByScan(file, onSkipped)),
    )
    for (const summary of scanned) if (summary) summaries.push(summary)
  }
  return summaries
}

/**
 * Summary of a log whose tail cannot tell (a damaged last line, or no usage ledger on its
 * last `turn/end` line: written before ledgers): scan it whole, without repairing it.
 */
async function summarizeByScan(
  file: string,
  onSkipped: (file: string, reason: string) => void,
): Promise<SessionSummary | undefined> {
  try {
    const scanned = await scanLog(file)
    const last = scanned.events.at(-1)
    const summary: SessionSummary = {
      header: scanned.header,
      eventCount: scanned.events.length,
      lastActivity: last?.time ?? scanned.header.createdAt,
      turns: lastTurnNumber(scanned.events),
      usage: ledgerOf(scanned.events),
    }
    const title = sessionTitle(scanned.events, scanned.header.seedLength)
    if (title !== undefined) summary.title = title
    const outcome = outcomeOf(scanned.events)
    if (outcome !== undefined) summary.outcome = outcome
    return summary
  } catch (error) {
    // Corrupt: `load` refuses it; a listing skips it and says so.
    if (!isCode(error, 'ENOENT')) onSkipped(file, errorMessage(error))
    return undefined
  }
}

/**
 * Ids of the logs under `root` that start with `prefix` and not with `except` (at most
 * `limit`), from the file names alone: a plain name is the id, encoded. Only a hashed name
 * (an id too long to be a file name) has its header line read, and only when its readable
 * part fits the prefix.
 */
export async function idsWithPrefix(
  root: string,
  prefix: string,
  limit: number,
  except?: string,
): Promise<SessionId[]> {
  const ids = new Set<SessionId>()
  for (const bucket of await bucketDirs(root)) {
    for (const name of await bucketNames(bucket)) {
      if (ids.size >= limit) return [...ids]
      if (!name.endsWith(LOG_SUFFIX)) continue
      const stem = name.slice(0, -LOG_SUFFIX.length)
      const decoded = decodeSessionId(stem)
      if (decoded !== undefined) {
        if (matchesPrefix(decoded, prefix, except)) ids.add(decoded)
        continue
      }
      const readable = decodeSessionId(stem.slice(0, stem.indexOf('~~')))
      if (readable === undefined || !(readable.startsWith(prefix) || prefix.startsWith(readable))) continue
      let id: string | undefined
      try {
        id = headerIdOf(bucket + sep + name)
      } catch {
        continue // removed meanwhile
      }
      if (id !== undefined && matchesPrefix(id, prefix, except)) ids.add(id)
    }
  }
  return [...ids]
}
