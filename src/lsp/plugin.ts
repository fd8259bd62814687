// The LSP plugin: the `lsp` service, its five tools and the edit feedback. Nothing here
// loads the LSP libraries; the first server start does (manager.ts).

import type { Context } from 'cordis'
import { findProjectRoot } from '../core/project-root.js'
import { currentService } from '../core/service-ref.js'
import type { SecretFilter } from '../shell/index.js'
import { createHiddenPathGuard } from '../tools/fs/index.js'
import { type LspSettings, resolveServerSpecs } from './config.js'
import { registerEditFeedback } from './feedback.js'
import { createSandboxWrapper, type LspSandbox } from './sandbox.js'
import { LspService } from './service.js'
import { createLspTools } from './tools.js'

export interface LspPluginConfig {
  readonly settings: LspSettings
  readonly home?: string
  readonly secrets?: SecretFilter
  /** Server processes run under bubblewrap, read-only and without network. */
  readonly sandbox?: LspSandbox
  readonly restartBackoffMs?: number
}

export const LSP_TOOL_NAMES = [
  'lsp_diagnostics',
  'lsp_definition',
  'lsp_references',
  'lsp_hover',
  'lsp_symbols',
] as const

export const lspPlugin = {
  name: 'lsp',
  inject: ['tools'],
  apply(ctx: Context, config: LspPluginConfig): void {
    ctx.plugin(LspService, {
      settings: config.settings,
      specs: resolveServerSpecs(config.settings.servers),
      ...(config.home !== undefined ? { home: config.home } : {}),
      ...(config.secrets !== undefined ? { secrets: config.secrets } : {}),
      ...(config.sandbox !== undefined ? { sandbox: createSandboxWrapper(config.sandbox) } : {}),
      ...(config.restartBackoffMs !== undefined ? { restartBackoffMs: config.restartBackoffMs } : {}),
      // The one trust decision per project folder (asked at most once); no service: not trusted.
      projectTrusted: async (root, path) => {
        const trust = ctx.get('projectTrust')
        if (!trust) return false
        const brings = [`language server ${path}`]
        return (await trust.decide(findProjectRoot(root), brings)).trusted
      },
    })
    const lsp = currentService(ctx, 'lsp')
    for (const tool of createLspTools(lsp, createHiddenPathGuard(ctx, config.home))) ctx.tools.register(tool)
    registerEditFeedback(ctx, lsp)
  },
}
