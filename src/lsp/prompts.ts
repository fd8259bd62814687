// Model-facing descriptions of the LSP tools.

const POSITION =
  'Give file_path plus either line and column (1-based, as `read` numbers lines) or symbol (a name in that file; its first declaration is used).'

export const LSP_DIAGNOSTICS_DESCRIPTION = `Errors and warnings from the language server (TypeScript, Python, Go, Rust, C/C++ when their servers are installed), as path:line:column: severity: message. With file_path: that file, checked as it is on disk now. Without: what the running servers reported for files they have seen in this project. Faster than a full build for checking a change.`

export const LSP_DEFINITION_DESCRIPTION = `Where a symbol is defined, from the language server. ${POSITION}`

export const LSP_REFERENCES_DESCRIPTION = `Every place a symbol is used (declaration included), from the language server. ${POSITION}`

export const LSP_HOVER_DESCRIPTION = `The type and documentation of a symbol, as an editor shows on hover. ${POSITION}`

export const LSP_SYMBOLS_DESCRIPTION = `Symbols from the language server. With file_path alone: the file's outline (classes, functions, methods... with positions). With query too: symbols matching query anywhere in the project of that file's language.`
