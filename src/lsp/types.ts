// Types of the LSP seam: what a server is, what it reports, and how it is doing.

/** One language server, fully resolved from a preset and/or `lsp.servers`. */
export interface LspServerSpec {
  /** The preset or config name (`typescript`, `pyright`, ...). */
  readonly id: string
  readonly command: string
  readonly args: readonly string[]
  /** File extensions without the dot, lower case (`ts`, `py`). */
  readonly extensions: readonly string[]
  /** Files or folders whose presence marks a project root, nearest first wins. */
  readonly rootMarkers: readonly string[]
  readonly initializationOptions?: unknown
  readonly env: Readonly<Record<string, string>>
  /** The command a person runs to install the server (shown when it is missing). */
  readonly install?: string
}

export type LspServerState = 'starting' | 'running' | 'failed' | 'stopped'

export interface LspServerStatus {
  readonly id: string
  readonly root: string
  readonly state: LspServerState
  readonly command: string
  readonly pid?: number
  /** Restarts after crashes so far. */
  readonly restarts: number
  readonly lastError?: string
}

export type LspSeverity = 'error' | 'warning' | 'info' | 'hint'

/** A diagnostic as dsh shows it: absolute path, 1-based line and column. */
export interface LspDiagnostic {
  readonly path: string
  readonly line: number
  readonly column: number
  readonly severity: LspSeverity
  readonly message: string
  readonly source?: string
  readonly code?: string
}

/** A place in a file: absolute path, 1-based line and column. */
export interface LspLocation {
  readonly path: string
  readonly line: number
  readonly column: number
}

export interface LspSymbol extends LspLocation {
  readonly name: string
  readonly kind: string
  /** The enclosing symbol's name (document symbols) or container (workspace symbols). */
  readonly container?: string
}

/** Where a server's stderr and ignored output go. */
export interface LspLog {
  line(text: string): void
}
