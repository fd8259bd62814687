// Public surface of the config seam.

export { ConfigErrorCode } from './errors.js'
export type { LoadConfigOptions, ResolvedConfig } from './load.js'
export { loadConfig, MAX_CONFIG_BYTES, readConfig, resolveConfig, validateConfig } from './load.js'
export type { AgentRowConfig, DshConfigFile, TitleSource } from './schema.js'
export { configSchema, DEFAULT_MAX_DELEGATION_DEPTH, TITLE_SOURCES } from './schema.js'
export type { ConfigRow, ConfigSources } from './sources.js'
export { describeConfig } from './sources.js'
