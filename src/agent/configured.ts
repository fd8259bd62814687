// Config-driven agents: a config row's `id` is a stable label, not a live identity.

import { randomUUID } from 'node:crypto'
import { DshError } from '../core/errors.js'
import type { ModelChoice } from '../llm/adapter.js'
import type { AgentHandle, AgentMeta } from '../plugin-api/index.js'
import type { SessionId } from '../session/types.js'
import { AgentErrorCode } from './errors.js'
import type { AgentRegistry } from './registry.js'

export interface ConfiguredAgentRow {
  /** Stable label from the config. */
  id: string
  /** Exact id: resumes the session when stored, creates it otherwise. */
  sessionId?: SessionId
  /** Exact id of a stored session that must exist. */
  resumeSessionId?: SessionId
  model?: ModelChoice
  meta?: AgentMeta
}

/** A fresh live id for a label; two runs on the same root never collide. */
export function mintSessionId(label: string): SessionId {
  return `${label}-session-${randomUUID()}`
}

export async function startConfiguredAgent(
  agents: AgentRegistry,
  exists: (id: SessionId) => Promise<boolean>,
  row: ConfiguredAgentRow,
): Promise<AgentHandle> {
  if (row.sessionId !== undefined && row.resumeSessionId !== undefined) {
    throw new DshError(
      `agent ${JSON.stringify(row.id)}: sessionId and resumeSessionId are mutually exclusive`,
      AgentErrorCode.BadOptions,
      { userFacing: true },
    )
  }
  if (row.resumeSessionId !== undefined) {
    return agents.resume({ resumeSessionId: row.resumeSessionId, model: row.model })
  }
  if (row.sessionId !== undefined && (await exists(row.sessionId))) {
    return agents.resume({ resumeSessionId: row.sessionId, model: row.model })
  }
  return agents.create({
    sessionId: row.sessionId ?? mintSessionId(row.id),
    meta: row.meta,
    model: row.model,
  })
}
