// The skills plugin: lists the agent's skills in its system prompt (at creation, in a stable
// order) and registers the `skill` tool, which loads one skill's body and names its folder.

import type { Context } from 'cordis'
import * as z from 'zod'
import { toolParameters } from '../core/tool-parameters.js'
import type { AgentHandle } from '../plugin-api/index.js'
import { type DiscoveryProblem, discoverSkills, type SkillSources, skillBody } from './discover.js'
import { SKILL_TOOL_DESCRIPTION, skillsSection } from './prompt.js'

export interface SkillsConfig {
  home: string
  /** Also read `~/.claude/skills` and `~/.agents/skills`. */
  includeUserClaude?: boolean
}

export const skillParameters = toolParameters('skill', () =>
  z.object({
    skill: z.string().min(1).describe('The name of the skill to load.'),
  }),
)

/** Whether a project's own skills count for this cwd: the permission policy's trust decision. */
function trusted(ctx: Context, cwd: string): boolean {
  // Without a policy there is no trust decision; headless composition trusts, as Claude Code's -p does.
  return ctx.get('permissions')?.projectTrusted(cwd) ?? true
}

export const SkillsPlugin = {
  name: 'skills',
  inject: ['tools'],
  apply(ctx: Context, config: SkillsConfig): void {
    const sources = (cwd: string): SkillSources => ({
      home: config.home,
      cwd,
      projectTrusted: trusted(ctx, cwd),
      ...(config.includeUserClaude ? { includeUserClaude: true } : {}),
    })
    // A skill refused for its size is said once per file, not at every prompt.
    const reported = new Set<string>()
    ctx.on('agent/system-prompt', (state) => {
      const problems: DiscoveryProblem[] = []
      const section = skillsSection(discoverSkills(sources(state.cwd), problems))
      for (const { path, message } of problems) {
        if (reported.has(path) || !message.startsWith(path)) continue
        reported.add(path)
        ctx.logger('skills').warn('%s', message)
      }
      if (section) state.sections.push(section)
    })
    ctx.tools.register({
      name: 'skill',
      description: SKILL_TOOL_DESCRIPTION,
      get parameters() {
        return skillParameters.schema()
      },
      parametersJsonSchema: skillParameters.jsonSchema,
      async execute(args, execution) {
        const cwd = (execution.agent as AgentHandle | undefined)?.cwd ?? process.cwd()
        const skills = discoverSkills(sources(cwd))
        const skill = skills.find((candidate) => candidate.name === args.skill)
        if (!skill) {
          const known = skills.map((candidate) => candidate.name)
          return {
            content: `No skill named ${JSON.stringify(args.skill)}. ${known.length > 0 ? `Skills: ${known.join(', ')}` : 'No skills are installed.'}`,
            isError: true,
          }
        }
        return {
          content: `Skill ${skill.name} (${skill.path})\nIts files are in ${skill.folder}; paths in it are relative to that folder.\n\n${skillBody(skill)}`,
        }
      },
    })
  },
}
