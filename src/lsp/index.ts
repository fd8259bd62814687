// Public surface of the LSP seam: language servers for code intelligence (`ctx.lsp`), the
// lsp_* tools and the diagnostics fed back after edits. See docs/lsp.md.

import type { LspService } from './service.js'

export {
  DEFAULT_DIAGNOSTICS_SETTLE_MS,
  DEFAULT_DIAGNOSTICS_WAIT_MS,
  DEFAULT_INITIALIZE_TIMEOUT_MS,
  DEFAULT_LSP_SETTINGS,
  DEFAULT_MAX_RESTARTS,
  type LspConfig,
  type LspSettings,
  lspSchemas,
  resolveServerSpecs,
} from './config.js'
export { LspErrorCode, LspServerExitedError } from './errors.js'
export { type EditTexts, newOnes } from './new-diagnostics.js'
export { LSP_TOOL_NAMES, type LspPluginConfig, lspPlugin } from './plugin.js'
export { LSP_PRESETS } from './presets.js'
export { resolveCommand } from './roots.js'
export { type LspAnswer, LspService } from './service.js'
export { formatStatusLines, installedPresets } from './status.js'
export type { LspDiagnostic, LspLocation, LspServerSpec, LspServerStatus, LspSymbol } from './types.js'

declare module 'cordis' {
  interface Context {
    lsp: LspService
  }
}
