// ACP session modes are dsh's permission modes: the `modes` state of session/new and
// session/load, `session/set_mode`, and a `current_mode_update` whenever a served
// session's mode changes, whoever changed it.

import { RequestError, type SessionModeState, type SessionUpdate } from '@agentclientprotocol/sdk'
import type { Context } from 'cordis'
import {
  isPermissionMode,
  PERMISSION_MODE_DESCRIPTIONS,
  PERMISSION_MODE_NAMES,
  PERMISSION_MODES,
  type PermissionMode,
} from '../../permissions/index.js'
import type { AgentHandle } from '../../plugin-api/index.js'
import type { SessionId } from '../../session/types.js'

/** Every permission mode, in PERMISSION_MODES order, with `current` selected. */
export function sessionModeState(current: PermissionMode): SessionModeState {
  return {
    currentModeId: current,
    availableModes: PERMISSION_MODES.map((id) => ({
      id,
      name: PERMISSION_MODE_NAMES[id],
      description: PERMISSION_MODE_DESCRIPTIONS[id],
    })),
  }
}

/** The permission mode a `session/set_mode` names; anything else is invalid params naming it. */
export function parseModeId(modeId: string): PermissionMode {
  if (isPermissionMode(modeId)) return modeId
  throw RequestError.invalidParams(
    { modeId, availableModes: [...PERMISSION_MODES] },
    `unknown session mode ${JSON.stringify(modeId)}; modes: ${PERMISSION_MODES.join(', ')}`,
  )
}

export function modeUpdate(mode: PermissionMode): SessionUpdate {
  return { sessionUpdate: 'current_mode_update', currentModeId: mode }
}

/** What the mode listener needs from the connection. */
export interface ModeWatcher {
  owns(sessionId: SessionId): boolean
  changed(agent: AgentHandle, mode: PermissionMode): void
}

/** Reports mode changes of this connection's sessions; unloading the plugin stops it. */
export function acpModePlugin(watcher: ModeWatcher) {
  return {
    name: 'acp-modes',
    apply(ctx: Context) {
      ctx.on('permissions/mode-changed', (agent, mode) => {
        if (watcher.owns(agent.id)) watcher.changed(agent, mode)
      })
    },
  }
}
