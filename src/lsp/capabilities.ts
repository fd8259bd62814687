// What dsh tells a server it can do (LSP 3.17 ClientCapabilities): plain-text-friendly
// hover, hierarchical document symbols, versioned diagnostics, full-text document sync.

import type { ClientCapabilities } from 'vscode-languageserver-protocol/node'

export const CLIENT_CAPABILITIES: ClientCapabilities = {
  general: { positionEncodings: ['utf-16'] },
  textDocument: {
    synchronization: { didSave: false, willSave: false, dynamicRegistration: false },
    publishDiagnostics: { versionSupport: true, relatedInformation: false },
    hover: { contentFormat: ['plaintext', 'markdown'] },
    definition: { linkSupport: false },
    references: {},
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
  },
  workspace: { symbol: {}, workspaceFolders: true, configuration: true },
  window: { workDoneProgress: false },
}
