// `/permissions`: an agent's mode, where its rules come from, and the project trust, as lines.

import { PERMISSION_MODE_DESCRIPTIONS } from './modes.js'
import type { AgentPermissions } from './plugin.js'

export function describePermissions(state: AgentPermissions): string[] {
  const lines = [`mode     ${state.mode}: ${PERMISSION_MODE_DESCRIPTIONS[state.mode]}`]
  lines.push(
    `project  ${state.projectRoot} (${state.trusted ? 'trusted' : 'not trusted: its allow rules, skills and commands are ignored'})`,
  )
  for (const behavior of ['deny', 'ask', 'allow'] as const) {
    const rules = state.rules[behavior]
    lines.push(
      `${behavior.padEnd(8)} ${rules.length === 0 ? '(none)' : rules.map((rule) => rule.text).join(', ')}`,
    )
  }
  if (state.files.length > 0) lines.push(`from     ${state.files.join(', ')} and the config/flags`)
  if (state.ignoredAllow > 0)
    lines.push(`ignored  ${state.ignoredAllow} project allow rule(s) (folder not trusted)`)
  return lines
}
