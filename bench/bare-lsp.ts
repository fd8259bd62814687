// The bare LSP client the LSP benchmarks measure dsh against: the protocol library over the
// server's stdio and nothing else (no manager, no frame guard, no bookkeeping).

import { type ChildProcess, spawn } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import {
  createProtocolConnection,
  type Diagnostic,
  type ProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node'
import { CLIENT_CAPABILITIES } from '../src/lsp/capabilities.js'

export class BareLspClient {
  private readonly versions = new Map<string, number>()
  private readonly latest = new Map<string, { items: Diagnostic[]; at: number }>()
  private readonly waiters = new Set<() => void>()

  private constructor(
    private readonly child: ChildProcess,
    private readonly connection: ProtocolConnection,
  ) {
    connection.onNotification(
      'textDocument/publishDiagnostics',
      (params: { uri: string; diagnostics: Diagnostic[] }) => {
        this.latest.set(params.uri, { items: params.diagnostics, at: performance.now() })
        for (const waiter of this.waiters) waiter()
      },
    )
    connection.onRequest('workspace/configuration', (params: { items: unknown[] }) =>
      params.items.map(() => null),
    )
  }

  static async start(command: string, root: string): Promise<BareLspClient> {
    const child = spawn(command, ['--stdio'], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'ignore'],
      detached: true,
    })
    const connection = createProtocolConnection(
      new StreamMessageReader(child.stdout!),
      new StreamMessageWriter(child.stdin!),
    )
    const client = new BareLspClient(child, connection)
    connection.listen()
    const uri = pathToFileURL(root).href
    await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: uri,
      workspaceFolders: [{ uri, name: 'root' }],
      capabilities: CLIENT_CAPABILITIES,
    })
    await connection.sendNotification('initialized', {})
    return client
  }

  uri(path: string): string {
    return pathToFileURL(path).href
  }

  async open(path: string, text: string): Promise<void> {
    this.versions.set(path, 1)
    await this.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri: this.uri(path), languageId: 'typescript', version: 1, text },
    })
  }

  async change(path: string, text: string): Promise<void> {
    const version = (this.versions.get(path) ?? 0) + 1
    this.versions.set(path, version)
    this.latest.delete(this.uri(path))
    await this.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri: this.uri(path), version },
      contentChanges: [{ text }],
    })
  }

  /** Resolves at the first publish for `path` (after the last change) whose items pass `test`. */
  until(path: string, test: (items: Diagnostic[]) => boolean): Promise<void> {
    const uri = this.uri(path)
    return new Promise((resolve) => {
      const check = () => {
        const entry = this.latest.get(uri)
        if (entry && test(entry.items)) {
          this.waiters.delete(check)
          resolve()
        }
      }
      this.waiters.add(check)
      check()
    })
  }

  /** Waits for a publish for `path`, then until none came for `quietMs`. */
  async settled(path: string, quietMs: number): Promise<void> {
    await this.until(path, () => true)
    const uri = this.uri(path)
    for (;;) {
      const at = this.latest.get(uri)!.at
      await new Promise((resolve) => setTimeout(resolve, quietMs))
      if (this.latest.get(uri)!.at === at) return
    }
  }

  /** When the last publish for `path` arrived (performance.now()). */
  lastPublishAt(path: string): number {
    return this.latest.get(this.uri(path))?.at ?? Number.NaN
  }

  request(method: string, params: unknown): Promise<unknown> {
    return this.connection.sendRequest(method, params)
  }

  async stop(): Promise<void> {
    try {
      await this.connection.sendRequest('shutdown')
      await this.connection.sendNotification('exit')
    } catch {
      // Gone already: the group kill below is what counts.
    }
    try {
      process.kill(-this.child.pid!, 'SIGKILL')
    } catch {
      // The group ended on exit.
    }
    this.connection.dispose()
  }
}
