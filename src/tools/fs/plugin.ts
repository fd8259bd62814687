// The file-tools plugin: registers read, write, edit, multi_edit, glob, grep, ls and
// todo_write on `ctx.tools`, sharing one read-record store and one file history.

import type { Context } from 'cordis'
import { createEditTool, createMultiEditTool } from './edit-tool.js'
import { FileHistoryStore } from './file-history.js'
import { createGlobTool } from './glob-tool.js'
import { createGrepTool, type GrepToolOptions } from './grep-tool.js'
import { createHiddenPathGuard } from './hidden-guard.js'
import { createLsTool } from './ls-tool.js'
import { FileReadStore } from './read-state.js'
import { createReadTool } from './read-tool.js'
import { createSearchRules } from './search-rules.js'
import type { FsToolServices } from './shared.js'
import { createTodoWriteTool } from './todo-tool.js'
import { createWriteTool } from './write-tool.js'

export interface FsToolsConfig {
  /** The harness home: previous file contents are kept under `<home>/file-history`; hidden under a sandbox. */
  home?: string
  grep?: GrepToolOptions
}

/** The file tools' names as the model sees them, in registration order. */
export const FS_TOOL_NAMES = [
  'read',
  'write',
  'edit',
  'multi_edit',
  'glob',
  'grep',
  'ls',
  'todo_write',
] as const

export const FsToolsPlugin = {
  name: 'fs-tools',
  inject: ['tools'],
  apply(ctx: Context, config: FsToolsConfig = {}): void {
    const services: FsToolServices = {
      reads: new FileReadStore(),
      history: config.home ? new FileHistoryStore(config.home) : undefined,
      hidden: createHiddenPathGuard(ctx, config.home),
      searchRules: createSearchRules(ctx),
    }
    ctx.tools.register(createReadTool(services))
    ctx.tools.register(createWriteTool(services))
    ctx.tools.register(createEditTool(services))
    ctx.tools.register(createMultiEditTool(services))
    ctx.tools.register(createGlobTool(services))
    ctx.tools.register(createGrepTool(services, config.grep))
    ctx.tools.register(createLsTool(services))
    ctx.tools.register(createTodoWriteTool())
  },
}
