// Skills (Agent Skills folders with SKILL.md) and custom slash commands (markdown files),
// from the harness home and the project.

export {
  type CustomCommand,
  type DiscoveryProblem,
  discoverCommands,
  discoverSkills,
  expandCommand,
  type Skill,
  type SkillSources,
  skillBody,
} from './discover.js'
export { parseMarkdown } from './front-matter.js'
export { type SkillsConfig, SkillsPlugin, skillParameters } from './plugin.js'
export { SKILL_TOOL_DESCRIPTION, skillsSection } from './prompt.js'
