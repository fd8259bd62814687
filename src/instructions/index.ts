// Project instructions: AGENTS.md / CLAUDE.md from the project root down to the cwd, plus
// the user's $DSH_HOME/AGENTS.md, given to the model as a stable first context message.

export {
  discoverInstructionFiles,
  INSTRUCTION_FILE_NAMES,
  type InstructionFile,
  MAX_INSTRUCTION_FILE_CHARS,
  renderInstructions,
} from './discover.js'
export { INIT_PROMPT } from './init-prompt.js'
export { lastInstructions } from './log.js'
export { type InstructionsConfig, InstructionsPlugin, refreshInstructions } from './plugin.js'
