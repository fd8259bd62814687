// Public surface of the config seam.

export { ConfigErrorCode } from './errors.js'
export { loadConfig, resolveConfig, validateConfig } from './load.js'
export type { LoadConfigOptions, ResolvedConfig } from './load.js'
export { DEFAULT_API_KEY_ENV, DEFAULT_MAX_DELEGATION_DEPTH, DEFAULT_MODEL, configSchema } from './schema.js'
export type { AgentRowConfig, DshConfigFile } from './schema.js'
