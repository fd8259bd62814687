// What the file tools share: the read records, the file history, the session cwd of a call,
// and the one way a change is committed (history copy, atomic write, records, event).

import { stat } from 'node:fs/promises'
import type { ToolExecution, ToolOutput } from '../../plugin-api/index.js'
import type { SessionEventMap } from '../../session/types.js'
import type { FileHistoryStore } from './file-history.js'
import type { HiddenAccess, HiddenPathGuard } from './hidden-guard.js'
import { realOrSelf, resolveToolPath, type ToolPath } from './paths.js'
import { type FileReadStore, sha256, stampOf } from './read-state.js'
import type { SearchRules } from './search-rules.js'
import { writeFileAtomic } from './text-file.js'

export interface FsToolServices {
  readonly reads: FileReadStore
  /** Absent when no harness home is configured: changes are then not undoable. */
  readonly history: FileHistoryStore | undefined
  /** Refuses what the sandbox hides from commands (the harness home, the session store). */
  readonly hidden: HiddenPathGuard
  /** What the permission rules keep out of search results (grep, glob). */
  readonly searchRules: SearchRules
}

export function cwdOf(execution: ToolExecution): string {
  return execution.agent?.cwd ?? process.cwd()
}

export function toolPath(execution: ToolExecution, path: string): ToolPath {
  return resolveToolPath(cwdOf(execution), path)
}

/** The call's path, or the refusal the model sees when the sandbox hides it. */
export function checkedToolPath(
  services: Pick<FsToolServices, 'hidden'>,
  execution: ToolExecution,
  path: string,
  access: HiddenAccess,
): ToolPath | ToolOutput {
  const target = toolPath(execution, path)
  const refusal = services.hidden.refusal(execution, target.absolute, target.display, access)
  return refusal === undefined ? target : failure(refusal)
}

/** True for a refusal from `checkedToolPath`. */
export function isRefusal(value: ToolPath | ToolOutput): value is ToolOutput {
  return 'isError' in value
}

export function failure(content: string): ToolOutput {
  return { content, isError: true }
}

/** A file-system error as one line for the model (`EACCES` → permission denied, ...). */
export function describeFsError(error: unknown, display: string): string {
  const code = (error as NodeJS.ErrnoException).code
  switch (code) {
    case 'ENOENT':
      return `${display} does not exist`
    case 'EACCES':
    case 'EPERM':
      return `permission denied: ${display}`
    case 'EISDIR':
      return `${display} is a folder, not a file`
    case 'ENOTDIR':
      return `a part of ${display} is not a folder`
    case 'EROFS':
      return `${display} is on a read-only file system`
    default:
      return `${display}: ${(error as Error).message}`
  }
}

/** The number of the turn a call runs in (0 outside an agent). */
function currentTurn(execution: ToolExecution): number {
  const events = execution.agent?.session.events ?? []
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'turn/start') return (event.data as SessionEventMap['turn/start']).turn
  }
  return 0
}

/**
 * Writes `after` to the real path of `target`: the previous bytes go to the file history
 * first, then the atomic write, then the new content counts as read, then `file/change`.
 */
export async function commitChange(
  services: FsToolServices,
  execution: ToolExecution,
  target: ToolPath,
  before: Buffer | null,
  after: Buffer,
): Promise<void> {
  const real = realOrSelf(target.absolute)
  const session = execution.agent?.session
  const beforeHash = before === null ? null : sha256(before)
  const afterHash = sha256(after)
  // Only earlier contents are kept: a rewind restores them and checks the current file against `after`'s hash.
  if (session && services.history && before !== null && beforeHash !== null) {
    await services.history.keep(session.id, beforeHash, before)
  }
  await writeFileAtomic(real, after)
  const info = await stat(real)
  services.reads.record(execution, { ...stampOf(real, after, info.mtimeMs), sha256: afterHash })
  session?.append('file/change', {
    turn: currentTurn(execution),
    callId: execution.callId,
    tool: execution.toolName ?? 'unknown',
    path: real,
    before: beforeHash,
    after: afterHash,
  })
}
