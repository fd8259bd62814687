// Rewinding the files a session's turns changed (`/rewind`, `dsh sessions rewind`): every
// file a `write`/`edit`/`multi_edit` changed in turn N or later goes back to its content
// before turn N, from the file history. A file changed since by something else is never
// overwritten: the whole rewind is refused with the list. Bash side effects are not undone.

import { readFile, rm, stat } from 'node:fs/promises'
import type { Session } from '../../session/session.js'
import type { SessionEvent, SessionEventMap } from '../../session/types.js'
import type { FileHistoryStore } from './file-history.js'
import { sha256 } from './read-state.js'
import { writeFileAtomic } from './text-file.js'

type FileChange = SessionEventMap['file/change']

export interface RewindTarget {
  readonly path: string
  /** SHA-256 of the content to restore; null: the file did not exist, so it is removed. */
  readonly restore: string | null
  /** What dsh last wrote there; the file must still hold it. */
  readonly expected: string
}

export interface RewindOutcome {
  readonly ok: boolean
  /** Files restored (ok) or that would have been (refused). */
  readonly files: readonly RewindTarget[]
  /** Files changed since dsh wrote them, with why (refused when not empty). */
  readonly conflicts: readonly { path: string; reason: string }[]
}

/** What a rewind to the start of `turn` would restore, per file, in first-change order. */
export function planRewind(events: readonly SessionEvent[], turn: number): RewindTarget[] {
  const targets = new Map<string, { restore: string | null; expected: string }>()
  for (const event of events) {
    if (event.type !== 'file/change') continue
    const change = event.data as FileChange
    if (change.turn < turn) continue
    const known = targets.get(change.path)
    if (known) known.expected = change.after
    else targets.set(change.path, { restore: change.before, expected: change.after })
  }
  return [...targets].map(([path, target]) => ({ path, ...target }))
}

async function currentHash(path: string): Promise<string | null> {
  try {
    if (!(await stat(path)).isFile()) return 'not-a-file'
    return sha256(await readFile(path))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

/** Restores the files, or refuses (changing nothing) when any was changed by something else. */
export async function rewindFiles(
  events: readonly SessionEvent[],
  turn: number,
  history: FileHistoryStore,
  sessionId: string,
): Promise<RewindOutcome> {
  const files = planRewind(events, turn)
  const conflicts: { path: string; reason: string }[] = []
  for (const target of files) {
    const now = await currentHash(target.path)
    if (now !== target.expected) {
      conflicts.push({
        path: target.path,
        reason: now === null ? 'deleted since dsh wrote it' : 'changed since dsh wrote it',
      })
      continue
    }
    if (target.restore !== null) {
      try {
        await history.read(sessionId, target.restore)
      } catch {
        conflicts.push({ path: target.path, reason: 'its earlier content is missing from the file history' })
      }
    }
  }
  if (conflicts.length > 0) return { ok: false, files, conflicts }
  for (const target of files) {
    if (target.restore === null) await rm(target.path, { force: true })
    else await writeFileAtomic(target.path, await history.read(sessionId, target.restore))
  }
  return { ok: true, files, conflicts }
}

/** The context message the model gets after a rewind, so it knows its edits were undone. */
export function rewindNotice(turn: number, files: readonly RewindTarget[]): string {
  const list = files.map(
    (file) => `- ${file.path}${file.restore === null ? ' (removed: it did not exist before)' : ''}`,
  )
  return [
    `The user rewound the files changed from turn ${turn} on to how they were before that turn:`,
    ...list,
    'Changes made through bash were not undone. Read files again before editing them.',
  ].join('\n')
}

/**
 * Rewinds a session's files to the start of `turn` and, when that worked, tells the model with
 * a `context/added` event. `turn` must be a turn the session has.
 */
export async function rewindSession(
  session: Session,
  turn: number,
  history: FileHistoryStore,
): Promise<RewindOutcome> {
  const outcome = await rewindFiles(session.events, turn, history, session.id)
  if (outcome.ok && outcome.files.length > 0) {
    session.append('context/added', { source: 'rewind', text: rewindNotice(turn, outcome.files) })
  }
  return outcome
}

/** The outcome as lines for a terminal (paths made terminal-safe by the caller). */
export function describeRewind(turn: number, outcome: RewindOutcome): string[] {
  if (!outcome.ok) {
    return [
      `rewind refused: ${outcome.conflicts.length} file(s) changed since dsh wrote them; nothing was restored`,
      ...outcome.conflicts.map((conflict) => `  ${conflict.path}: ${conflict.reason}`),
    ]
  }
  if (outcome.files.length === 0) return [`no file changes to rewind from turn ${turn} on`]
  return [
    `restored ${outcome.files.length} file(s) to how they were before turn ${turn}:`,
    ...outcome.files.map((file) => `  ${file.path}${file.restore === null ? ' (removed)' : ''}`),
    'changes made through bash are not undone',
  ]
}
