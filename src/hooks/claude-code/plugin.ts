// The Claude Code hook bridge plugin: runs hooks from Claude Code settings files unchanged.

import { createHookBridgePlugin } from '../protocol/bridge.js'
import { claudeCodeDialect } from './dialect.js'

/** Load with `{ files: [...settings.json paths] }`; plugin name `hooks-claude-code`. */
export const claudeCodeHooksPlugin = createHookBridgePlugin(claudeCodeDialect)
