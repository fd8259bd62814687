// Model-facing text of skills: the system-prompt section that lists them and the tool.

import type { Skill } from './discover.js'

export const SKILL_TOOL_DESCRIPTION = `Loads a skill: its instructions (SKILL.md) and the folder its other files are in.

- \`skill\`: the name of one of the skills listed in the system prompt.
- Load a skill when the task matches its description, before starting the task; then follow it.`

/** The system-prompt section: one line per skill, in name order (stable bytes). */
export function skillsSection(skills: readonly Skill[]): string {
  if (skills.length === 0) return ''
  return [
    'Skills (load one with the `skill` tool when the task matches its description):',
    ...skills.map((skill) => `- ${skill.name}: ${skill.description.replace(/\s+/g, ' ')}`),
  ].join('\n')
}
