// Model-facing text of the ACP sub-agent tool.

export const ACP_SUBAGENT_DESCRIPTION = [
  'Delegate a self-contained task to an external coding agent that works in the same folder.',
  'It starts with no memory of this conversation: give it a complete, specific prompt. Its final',
  "answer is returned to you as this tool's result. Use it for independent tasks that suit that agent.",
].join(' ')
