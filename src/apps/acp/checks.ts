// Small helpers of the ACP server: error mapping, request checks, tool-call locations, the
// client's MCP servers.

import { stat } from 'node:fs/promises'
import { isAbsolute } from 'node:path'
import {
  type LoadSessionRequest,
  type NewSessionRequest,
  RequestError,
  type SessionUpdate,
} from '@agentclientprotocol/sdk'
import { DshError, isDshError } from '../../core/errors.js'
import type { Harness } from '../../harness/compose.js'
import { resolveSessionId } from '../../history/index.js'
import { fromAcpServers } from '../../mcp/index.js'
import { PersistenceErrorCode } from '../../persistence/errors.js'
import type { AgentHandle } from '../../plugin-api/index.js'
import { SessionErrorCode } from '../../session/errors.js'
import type { SessionId } from '../../session/types.js'
import { AcpErrorCode } from './errors.js'
import { toolLocations } from './file-updates.js'
import { reportFailedStart } from './trust.js'

/** DshError → -32000 with `data.code`; everything else as the SDK maps it. */
export async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof DshError) throw new RequestError(-32000, error.message, { code: error.code })
    throw error
  }
}

export async function assertDirectory(cwd: string): Promise<void> {
  if (!isAbsolute(cwd)) throw new DshError(`cwd must be an absolute path: ${cwd}`, AcpErrorCode.BadCwd)
  const info = await stat(cwd).catch(() => undefined)
  if (!info?.isDirectory()) {
    throw new DshError(`cwd ${cwd} does not exist or is not a directory`, AcpErrorCode.BadCwd)
  }
}

export function locationsOf(name: string, input: unknown, cwd: string) {
  const locations = toolLocations(name, input, cwd)
  return locations.length > 0 ? { locations } : {}
}

/** The client's `mcpServers` belong to this session (and its sub-agents) and stop with it. */
export async function useMcpServers(
  harness: Harness,
  sessionId: SessionId,
  params: NewSessionRequest | LoadSessionRequest,
): Promise<void> {
  await harness.ctx
    .get('mcp')
    ?.setSessionServers(sessionId, fromAcpServers(params.mcpServers ?? []), params.cwd)
}

/**
 * Starts the client's servers of `agent`'s session (the ones `session/new` or `session/load`
 * brought); `tell` gets the report of each that fails to start.
 */
export async function watchSessionServers(
  harness: Harness,
  agent: AgentHandle,
  tell: (update: SessionUpdate) => void,
): Promise<void> {
  const servers = (await harness.ctx.get('mcp')?.visible(agent)) ?? []
  for (const server of servers) {
    if (server.source.kind !== 'session') continue
    void reportFailedStart(server).then((update) => update && tell(update))
  }
}

/** The stored session `session/load` names (an id or a unique prefix of 6+ characters); ACP's "not found" when none. */
export async function resolveLoadedId(harness: Harness, named: SessionId): Promise<SessionId> {
  return resolveSessionId(harness.sessions, named).catch((error: unknown) => {
    if (isDshError(error, PersistenceErrorCode.NotFound)) throw RequestError.sessionNotFound(named)
    throw error
  })
}

/** Resumes a stored session for `session/load`; on failure its MCP servers stop, and a missing one is "not found". */
export async function resumeForLoad(
  harness: Harness,
  sessionId: SessionId,
  cwd: string,
): Promise<AgentHandle> {
  return harness.agents.resume({ resumeSessionId: sessionId }).catch(async (error: unknown) => {
    await harness.ctx.get('mcp')?.setSessionServers(sessionId, {}, cwd)
    if (isDshError(error, PersistenceErrorCode.NotFound) || isDshError(error, SessionErrorCode.NotFound)) {
      throw RequestError.sessionNotFound(sessionId)
    }
    throw error
  })
}
