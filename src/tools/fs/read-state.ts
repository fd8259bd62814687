// What the agent has read, per session: path, mtime, size and hash of the bytes it saw.
// `write` and `edit` refuse to change a file the agent has not read, or that changed on
// disk since. Each record is also a `file/read` session event, so a resumed session knows.

import { createHash } from 'node:crypto'
import { stat } from 'node:fs/promises'
import type { ToolExecution } from '../../plugin-api/index.js'
import type { Session } from '../../session/session.js'
import type { SessionEventMap } from '../../session/types.js'

export type FileStamp = SessionEventMap['file/read']

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

export function stampOf(path: string, bytes: Uint8Array, mtimeMs: number): FileStamp {
  return { path, mtimeMs, size: bytes.length, sha256: sha256(bytes) }
}

export type FreshnessCheck =
  | { ok: true; stamp: FileStamp }
  | { ok: false; reason: 'not-read' | 'changed'; message: string }

/** The read records of every session, plus one table for calls without an agent. */
export class FileReadStore {
  private readonly bySession = new WeakMap<Session, Map<string, FileStamp>>()
  private readonly detached = new Map<string, FileStamp>()

  /** Records a read (or the agent's own write) of `stamp.path`, a real absolute path. */
  record(execution: ToolExecution, stamp: FileStamp): void {
    this.table(execution).set(stamp.path, stamp)
    execution.agent?.session.append('file/read', stamp)
  }

  lookup(execution: ToolExecution, path: string): FileStamp | undefined {
    return this.table(execution).get(path)
  }

  /**
   * Whether `path` may be overwritten: it was read in this session and its bytes are the
   * same now. A newer mtime with identical bytes (a `touch`) still counts as unchanged.
   */
  async checkFresh(
    execution: ToolExecution,
    path: string,
    display: string,
    current: Buffer,
  ): Promise<FreshnessCheck> {
    const stamp = this.lookup(execution, path)
    if (!stamp) {
      return {
        ok: false,
        reason: 'not-read',
        message: `${display} exists and has not been read in this session. Read it first (read tool), then write or edit it, so nothing in it is lost by accident.`,
      }
    }
    const info = await stat(path)
    if (info.mtimeMs === stamp.mtimeMs && current.length === stamp.size) return { ok: true, stamp }
    if (current.length === stamp.size && sha256(current) === stamp.sha256) return { ok: true, stamp }
    return {
      ok: false,
      reason: 'changed',
      message: `${display} changed on disk since it was last read (${describeChange(stamp, current.length, info.mtimeMs)}); someone or something else modified it. Read it again and redo the change on the current content.`,
    }
  }

  private table(execution: ToolExecution): Map<string, FileStamp> {
    const session = execution.agent?.session
    if (!session) return this.detached
    let table = this.bySession.get(session)
    if (!table) {
      table = new Map()
      for (const event of session.events) {
        if (event.type === 'file/read') {
          const stamp = event.data as FileStamp
          table.set(stamp.path, stamp)
        }
      }
      this.bySession.set(session, table)
    }
    return table
  }
}

function describeChange(stamp: FileStamp, size: number, mtimeMs: number): string {
  const when = new Date(mtimeMs).toISOString()
  return size === stamp.size ? `modified ${when}` : `size ${stamp.size} → ${size} bytes, modified ${when}`
}
