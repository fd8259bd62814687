// `/permissions [<mode>]` and Shift-Tab: show the permission mode and rules, and change the
// mode — both through switchMode, so a mode is changed (and warned about) one way only.

import {
  describePermissions,
  isPermissionMode,
  PERMISSION_MODE_DESCRIPTIONS,
  PERMISSION_MODES,
  type PermissionMode,
  type PermissionPolicy,
} from '../../../permissions/index.js'
import { type ChatHost, safe } from '../chat-host.js'

/** `/permissions`: the mode and rules; with a mode, switches to it first. */
export function permissionsCommand(chat: ChatHost, argument: string): void {
  const policy = chat.harness.ctx.get('permissions')
  if (!policy) {
    chat.say(chat.colors.yellow('no permission policy is loaded'))
    return
  }
  if (argument !== '') {
    if (!isPermissionMode(argument)) {
      chat.say(chat.colors.yellow(`unknown mode ${safe(argument)}; modes: ${PERMISSION_MODES.join(', ')}`))
      return
    }
    switchMode(chat, policy, argument)
  }
  for (const line of describePermissions(policy.stateOf(chat.agent))) chat.say(safe(line))
}

/**
 * Shift-Tab: the next mode in PERMISSION_MODES order, as `/permissions <mode>` would set it,
 * with one line naming it. bypassPermissions is in the cycle only when the chat was started
 * in it (`--permission-mode` or the config), as Claude Code offers it only when started so:
 * a stray key never turns every approval off.
 */
export function cycleMode(chat: ChatHost): void {
  const policy = chat.harness.ctx.get('permissions')
  if (!policy) return
  const { permissions, config } = chat.plan
  const bypassAllowed = (permissions.mode ?? config.permissions.mode) === 'bypassPermissions'
  const next = nextMode(policy.modeOf(chat.agent), bypassAllowed)
  switchMode(chat, policy, next)
  chat.say(
    `${chat.colors.bold(`mode ${next}`)}${chat.colors.dim(`: ${PERMISSION_MODE_DESCRIPTIONS[next]} (Shift-Tab: next mode)`)}`,
  )
}

/** The mode after `current` in PERMISSION_MODES order, wrapping, skipping bypassPermissions unless allowed. */
export function nextMode(current: PermissionMode, bypassAllowed: boolean): PermissionMode {
  const cycle = PERMISSION_MODES.filter((mode) => bypassAllowed || mode !== 'bypassPermissions')
  const after = PERMISSION_MODES.slice(PERMISSION_MODES.indexOf(current) + 1)
  return after.find((mode) => cycle.includes(mode)) ?? cycle[0]!
}

function switchMode(chat: ChatHost, policy: PermissionPolicy, mode: PermissionMode): void {
  policy.setMode(chat.agent, mode)
  if (mode === 'bypassPermissions')
    chat.say(chat.colors.yellow('warning: every tool call now runs without asking, also outside the project'))
  // The status line shows the mode.
  chat.refresh()
}
