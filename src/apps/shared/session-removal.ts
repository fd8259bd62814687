// Removing one stored session with its sub-agent sessions and their spill files: the rules
// `dsh sessions rm`, `prune` and the web UI share. A session being written is refused,
// naming its writer, and then keeps its sub-agent sessions; they go only after their parent.

import { DshError } from '../../core/errors.js'
import { PersistenceErrorCode } from '../../persistence/errors.js'
import type { SessionPersistence } from '../../persistence/persistence.js'
import type { SessionId } from '../../session/types.js'
import { removeSpill } from '../../spill/index.js'
import type { SessionLineage } from './session-lineage.js'

/** What happened to one session of the tree; `parent` is set for sub-agent sessions. */
export type RemovalOutcome =
  | { kind: 'removed'; id: SessionId; parent?: SessionId }
  | { kind: 'refused'; id: SessionId; message: string; parent?: SessionId }

/**
 * Removes `id`, then every sub-agent session below it (depth first), each with its spill
 * files. A writer holding a session is an outcome (`refused`, with the backend's one-line
 * reason), not an exception; other failures reject. A sub-agent removed meanwhile is skipped.
 */
export async function removeSessionTree(
  persistence: SessionPersistence,
  lineage: SessionLineage,
  spillRoot: string,
  id: SessionId,
): Promise<RemovalOutcome[]> {
  try {
    await persistence.remove(id)
  } catch (error) {
    if (!isCode(error, PersistenceErrorCode.Locked)) throw error
    return [{ kind: 'refused', id, message: (error as Error).message }]
  }
  await removeSpill(spillRoot, id)
  const outcomes: RemovalOutcome[] = [{ kind: 'removed', id }]
  for (const { summary } of lineage.descendants(id)) {
    const childId = summary.header.id
    const parent = summary.header.parentSession ?? id
    try {
      await persistence.remove(childId)
    } catch (error) {
      if (isCode(error, PersistenceErrorCode.NotFound)) continue
      if (!isCode(error, PersistenceErrorCode.Locked)) throw error
      outcomes.push({ kind: 'refused', id: childId, message: (error as Error).message, parent })
      continue
    }
    await removeSpill(spillRoot, childId)
    outcomes.push({ kind: 'removed', id: childId, parent })
  }
  return outcomes
}

function isCode(error: unknown, code: string): boolean {
  return error instanceof DshError && error.code === code
}
