// The `lsp` service: what tools, edit feedback, chat and the CLI ask of language servers —
// diagnostics, definitions, references, hover, symbols — on files synced from disk.

import { readFile } from 'node:fs/promises'
import { type Context, Service } from 'cordis'
import type { Diagnostic } from 'vscode-languageserver-protocol'
import type { LspSettings } from './config.js'
import type { LspConnection } from './connection.js'
import {
  hoverText,
  pathOfUri,
  toDiagnostic,
  toDocumentSymbols,
  toLocations,
  toWorkspaceSymbols,
  uriOf,
} from './convert.js'
import { LspManager, type LspManagerOptions, type ServerEntry } from './manager.js'
import { type EditTexts, newOnes } from './new-diagnostics.js'
import { languageIdOf } from './presets.js'
import { extensionOf } from './roots.js'
import type { LspDiagnostic, LspLocation, LspServerStatus, LspSymbol } from './types.js'

/** A result, or the one-line reason there is none (no server, not installed, timed out). */
export type LspAnswer<T> =
  | { readonly ok: true; readonly value: T; readonly notes: readonly string[] }
  | { readonly ok: false; readonly note: string; readonly repeated: boolean }

/** 0-based position as LSP counts it. */
export interface LspPosition {
  readonly line: number
  readonly character: number
}

interface Ready {
  readonly server: ServerEntry
  readonly connection: LspConnection
  readonly notes: string[]
}

export class LspService extends Service {
  readonly manager: LspManager
  readonly settings: LspSettings

  constructor(ctx: Context, options: LspManagerOptions) {
    super(ctx, 'lsp')
    this.settings = options.settings
    this.manager = new LspManager(options)
    // Awaited by the fiber's dispose: the harness stops only after every server is gone.
    ctx.effect(() => () => this.manager.stop(), 'lsp: stop servers')
  }

  status(): LspServerStatus[] {
    return this.manager.status()
  }

  /** Syncs `path` from disk and returns its diagnostics once the server has published them. */
  async fileDiagnostics(
    path: string,
    cwd: string,
    signal?: AbortSignal,
  ): Promise<LspAnswer<LspDiagnostic[]>> {
    const ready = await this.ready(path, cwd)
    if ('ok' in ready) return ready
    const text = await readFile(path, 'utf8')
    const { since, changed } = await ready.connection.sync(path, languageIdOf(extensionOf(path)), text)
    const known = ready.connection.publishedUris().includes(uriOf(path))
    if (changed || !known) await this.settle(ready.connection, path, since, signal)
    if (!ready.connection.alive) return this.died(ready)
    return { ok: true, value: this.diagnosticsOf(ready.connection, path), notes: ready.notes }
  }

  /** Everything the running servers published for files under `cwd` (files they were shown). */
  projectDiagnostics(cwd: string): LspDiagnostic[] {
    return this.manager.running().flatMap(({ connection }) =>
      connection.publishedUris().flatMap((uri) => {
        const path = pathOfUri(uri)
        if (path === undefined || !(path === cwd || path.startsWith(`${cwd}/`))) return []
        return this.diagnosticsOf(connection, path)
      }),
    )
  }

  async definition(path: string, cwd: string, at: LspPosition): Promise<LspAnswer<LspLocation[]>> {
    return this.ask(path, cwd, async (ready) =>
      toLocations(
        await ready.connection.request(
          'textDocument/definition',
          this.positionParams(path, at),
          this.settings.requestTimeoutMs,
        ),
      ),
    )
  }

  async references(path: string, cwd: string, at: LspPosition): Promise<LspAnswer<LspLocation[]>> {
    return this.ask(path, cwd, async (ready) =>
      toLocations(
        await ready.connection.request(
          'textDocument/references',
          { ...this.positionParams(path, at), context: { includeDeclaration: true } },
          this.settings.requestTimeoutMs,
        ),
      ),
    )
  }

  async hover(path: string, cwd: string, at: LspPosition): Promise<LspAnswer<string>> {
    return this.ask(path, cwd, async (ready) =>
      hoverText(
        await ready.connection.request(
          'textDocument/hover',
          this.positionParams(path, at),
          this.settings.requestTimeoutMs,
        ),
      ),
    )
  }

  async documentSymbols(path: string, cwd: string): Promise<LspAnswer<LspSymbol[]>> {
    return this.ask(path, cwd, async (ready) =>
      toDocumentSymbols(
        path,
        await ready.connection.request(
          'textDocument/documentSymbol',
          { textDocument: { uri: uriOf(path) } },
          this.settings.requestTimeoutMs,
        ),
      ),
    )
  }

  /** workspace/symbol on the server of `path` (a file of the language to search). */
  async workspaceSymbols(path: string, cwd: string, query: string): Promise<LspAnswer<LspSymbol[]>> {
    return this.ask(path, cwd, async (ready) =>
      toWorkspaceSymbols(
        await ready.connection.request('workspace/symbol', { query }, this.settings.requestTimeoutMs),
      ),
    )
  }

  /**
   * After an edit: shows the server the text before (when it had not seen the file, so the
   * errors already there are known) and after, and answers the diagnostics that are new in
   * the file and, bounded by the caller, in other files the server has open and republished
   * meanwhile.
   */
  async afterEdit(
    path: string,
    cwd: string,
    before: string | undefined,
    after: string,
    signal?: AbortSignal,
  ): Promise<LspAnswer<{ file: LspDiagnostic[]; others: LspDiagnostic[] }>> {
    const ready = await this.ready(path, cwd)
    if ('ok' in ready) return ready
    const { connection } = ready
    const languageId = languageIdOf(extensionOf(path))
    if (!connection.isOpen(path) && before !== undefined) {
      const opened = await connection.sync(path, languageId, before)
      await this.settle(connection, path, opened.since, signal)
    }
    // Other files count only when the server has them open: a server may publish for any
    // path (one outside the project, say), and only open files were shown to it by dsh.
    const shown = (file: string | undefined): file is string =>
      file !== undefined && (file === path || connection.isOpen(file))
    const baseline = new Map<string, readonly LspDiagnostic[]>()
    for (const uri of connection.publishedUris()) {
      const file = pathOfUri(uri)
      if (shown(file)) baseline.set(file, this.diagnosticsOf(connection, file))
    }
    const previous = connection.textOf(path)
    const { since } = await connection.sync(path, languageId, after)
    await this.settle(connection, path, since, signal)
    if (!connection.alive) return this.died(ready)
    const fresh = (file: string, texts?: EditTexts) =>
      newOnes(baseline.get(file) ?? [], this.diagnosticsOf(connection, file), texts)
    const others = connection
      .publishedSince(since)
      .flatMap((uri) => {
        const file = pathOfUri(uri)
        return !shown(file) || file === path ? [] : fresh(file)
      })
      .filter((d) => d.severity === 'error')
    return { ok: true, value: { file: fresh(path, { before: previous, after }), others }, notes: ready.notes }
  }

  private async ask<T>(path: string, cwd: string, run: (ready: Ready) => Promise<T>): Promise<LspAnswer<T>> {
    const ready = await this.ready(path, cwd)
    if ('ok' in ready) return ready
    try {
      await ready.connection.sync(path, languageIdOf(extensionOf(path)), await readFile(path, 'utf8'))
      return { ok: true, value: await run(ready), notes: ready.notes }
    } catch (error) {
      return { ok: false, note: `${ready.server.spec.id}: ${(error as Error).message}`, repeated: false }
    }
  }

  private async ready(path: string, cwd: string): Promise<Ready | (LspAnswer<never> & { ok: false })> {
    const found = await this.manager.lookup(path, cwd)
    if (found.kind === 'none') return { ok: false, note: found.note, repeated: found.repeated }
    const notice = this.manager.takeNotice(found.server)
    return { server: found.server, connection: found.connection, notes: notice ? [notice] : [] }
  }

  private died(ready: Ready): LspAnswer<never> {
    const { spec, root } = ready.server
    return {
      ok: false,
      note: `${spec.id} (${root}) stopped while checking; ${ready.server.state === 'failed' ? 'it stays down' : 'it is being restarted'}`,
      repeated: false,
    }
  }

  private settle(
    connection: LspConnection,
    path: string,
    since: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    return connection.waitForDiagnostics(
      path,
      since,
      this.settings.diagnosticsWaitMs,
      this.settings.diagnosticsSettleMs,
      signal,
    )
  }

  private diagnosticsOf(connection: LspConnection, path: string): LspDiagnostic[] {
    return connection.diagnosticsOf(path).map((d: Diagnostic) => toDiagnostic(path, d))
  }

  private positionParams(path: string, at: LspPosition) {
    return { textDocument: { uri: uriOf(path) }, position: at }
  }
}
