// The Codex hook bridge plugin: runs hooks from Codex hooks.json files unchanged.

import { createHookBridgePlugin } from '../protocol/bridge.js'
import { codexDialect } from './dialect.js'

/** Load with `{ files: [...hooks.json paths] }`; plugin name `hooks-codex`. */
export const codexHooksPlugin = createHookBridgePlugin(codexDialect)
