// Model-facing text of the subagent tool.

export const SUBAGENT_DESCRIPTION = [
  'Delegate a self-contained task to a sub-agent that works in the same folder with the same tools.',
  'The sub-agent starts with no memory of this conversation unless `fork` is true (then it starts',
  'with every completed turn of it). Give it a complete, specific prompt; its final answer is returned',
  "to you as this tool's result. Use it for independent research or side tasks that would clutter",
  'your own context. Background jobs and terminals it starts are stopped when it returns.',
].join(' ')
