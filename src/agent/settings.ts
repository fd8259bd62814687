// An agent's settings as its log records them (`session/settings`): the model and effort
// live on the agent, the permission mode with the permission policy, which adds it when
// `agent/settings` is emitted. Recorded before each turn when they differ from the log's,
// and at once when one changes, so a resume or fork can restore them.

import type { Context } from 'cordis'
import type { AgentHandle } from '../plugin-api/index.js'
import { type SessionSettings, sameSettings, sessionSettings } from '../session/index.js'

/** What the agent runs with now. */
export function currentSettings(ctx: Context, agent: AgentHandle): SessionSettings {
  const settings: SessionSettings = {}
  if (agent.model.model !== undefined) settings.model = agent.model.model
  if (agent.model.effort !== undefined) settings.effort = agent.model.effort
  ctx.emit('agent/settings', agent, settings)
  return settings
}

/** Appends a `session/settings` snapshot unless the log already holds these settings. */
export function recordSettings(ctx: Context, agent: AgentHandle): void {
  const current = currentSettings(ctx, agent)
  if (sameSettings(sessionSettings(agent.session), current)) return
  agent.session.append('session/settings', current)
}
