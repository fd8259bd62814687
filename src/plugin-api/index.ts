// The plugin contract: what a plugin sees of an agent (AgentHandle, the pipeline's events),
// of tools, of context compaction and of prepared images. Pure types, below every subsystem
// that listens to agents, so none of them has to import the agent folder itself.

export type * from './agent.js'
export type * from './context.js'
export type * from './images.js'
export type * from './pipeline.js'
export type * from './tools.js'
