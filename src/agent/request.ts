// Request assembly: the model request is built from the session log, and the system
// prompt, tools and model that go with it are logged (when they change) first.

import { lastInstructions } from '../instructions/log.js'
import type { ModelChoice, ModelRequest } from '../llm/adapter.js'
import type { Effort } from '../llm/deepseek/effort.js'
import type { ToolSchema } from '../llm/types.js'
import { deriveHistory } from '../session/history.js'
import type { Session } from '../session/session.js'
import type { SessionEventMap } from '../session/types.js'

export interface RequestConfig {
  model?: string
  effort?: Effort
  system: string
  tools: readonly ToolSchema[]
}

/** The config each live session logged last, to skip the comparison when nothing changed. */
const lastLogged = new WeakMap<Session, RequestConfig>()

/** Appends `request/config` unless the last one logged is identical. */
export function logRequestConfig(session: Session, config: RequestConfig): void {
  const cached = lastLogged.get(session)
  if (
    cached &&
    cached.system === config.system &&
    cached.model === config.model &&
    cached.effort === config.effort &&
    cached.tools === config.tools
  ) {
    return
  }
  lastLogged.set(session, config)
  const data: SessionEventMap['request/config'] = { system: config.system, tools: [...config.tools] }
  if (config.model !== undefined) data.model = config.model
  if (config.effort !== undefined) data.effort = config.effort
  const last = lastRequestConfig(session)
  if (last && JSON.stringify(last) === JSON.stringify(data)) return
  session.append('request/config', data)
}

/** Builds the next request entirely from the log: the last logged config plus derived history. */
export function buildModelRequest(session: Session, choice: ModelChoice, signal: AbortSignal): ModelRequest {
  const config = lastRequestConfig(session)
  const instructions = lastInstructions(session)?.text
  const request: ModelRequest = {
    ...choice,
    messages: [
      { role: 'system', content: config?.system ?? '' },
      // Project instructions: the first context message, the same bytes in every request.
      ...(instructions ? [{ role: 'user' as const, content: instructions }] : []),
      ...deriveHistory(session.events),
    ],
    tools: (config?.tools ?? []) as ToolSchema[],
    signal,
  }
  if (config?.model !== undefined) request.model = config.model
  if (config?.effort !== undefined) request.effort = config.effort
  return request
}

function lastRequestConfig(session: Session): SessionEventMap['request/config'] | undefined {
  return session.last('request/config')?.data
}
