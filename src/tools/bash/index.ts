// Public surface of the model-facing bash tool.

export { BashToolPlugin } from './bash-tool.js'
export { BASH_TOOL_DESCRIPTION, JOB_KILL_TOOL_DESCRIPTION, JOB_OUTPUT_TOOL_DESCRIPTION } from './prompt.js'
export { renderJob, renderShellResult } from './render.js'
export type { BashArguments, JobArguments } from './schema.js'
export { bashParameters, jobParameters } from './schema.js'
