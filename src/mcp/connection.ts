// One MCP server: starting it (the SDK is imported here, lazily), its state, its tools
// as model tools, tool calls with progress and cancellation, one restart after a crash.

import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import { errorMessage } from '../core/errors.js'
import { packageVersion } from '../core/version.js'
import type { ProvidedTool, ToolExecution, ToolOutput } from '../plugin-api/index.js'
import {
  DEFAULT_STARTUP_TIMEOUT_MS,
  expandServerConfig,
  type McpServerConfig,
  type McpServerSource,
} from './config.js'
import type { McpConnectionOptions, McpPromptInfo, McpServerState } from './connection-types.js'
import { killOnExit } from './exit-kill.js'
import { allPrompts, allResources, type McpResourceInfo, promptText, resourceText } from './listings.js'
import { mcpToolNames } from './naming.js'
import { ServerLog, serverLogPath } from './server-log.js'
import { mcpProvidedTool } from './tool-adapter.js'
import { invokeTool, sessionLost } from './tool-call.js'
import { createTransport, describeCallError, describeStartError, nextStartSlot } from './transport.js'

export type { McpConnectionOptions, McpProgress, McpPromptInfo, McpServerState } from './connection-types.js'

/** The background connection attempt gives up after this (the wait for it is the start-up timeout). */
const MIN_CONNECT_TIMEOUT_MS = 60_000

export class McpConnection {
  readonly name: string
  readonly source: McpServerSource
  readonly log: ServerLog
  private stateValue: McpServerState = 'idle'
  private errorValue: string | undefined
  private client: Client | undefined
  private starting: Promise<void> | undefined
  private restarts = 0
  private readonly refreshing = new Set<Promise<void>>()
  private closing = false
  /** Stop tracking this server's process groups for the exit-time kill (src/mcp/exit-kill.ts). */
  private forgets: (() => void)[] = []
  private toolList: readonly ProvidedTool[] = []
  private promptList: readonly McpPromptInfo[] = []
  private capabilities: { prompts?: unknown; resources?: unknown; tools?: unknown } = {}

  constructor(private readonly options: McpConnectionOptions) {
    this.name = options.name
    this.source = options.source
    this.log = new ServerLog(serverLogPath(options.home, options.name))
  }

  get state(): McpServerState {
    return this.stateValue
  }

  /** Why the server is failed or crashed (one line), if it is. */
  get error(): string | undefined {
    return this.errorValue
  }

  get config(): McpServerConfig {
    return this.options.config
  }

  get startupTimeoutMs(): number {
    return this.options.config.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS
  }

  /** The server's tools as model tools; the same array until the list changes. */
  get tools(): readonly ProvidedTool[] {
    return this.toolList
  }

  get prompts(): readonly McpPromptInfo[] {
    return this.promptList
  }

  get hasResources(): boolean {
    return this.capabilities.resources !== undefined
  }

  /** Whether a crashed server is started again on its next call (once per connection). */
  get restartsLeft(): boolean {
    return this.restarts < 1
  }

  /** Starts the server once (later calls share the attempt); resolves when it settled either way. */
  start(): Promise<void> {
    this.starting ??= this.connect()
    return this.starting
  }

  /**
   * Starts the server if needed and waits at most `timeoutMs` (default: its start-up
   * timeout). Answers whether it is connected; a slow server keeps starting in the background.
   */
  async ready(timeoutMs = this.startupTimeoutMs): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs)
    })
    await Promise.race([this.start(), timeout])
    clearTimeout(timer)
    return this.stateValue === 'connected'
  }

  /** Resolves when list refreshes announced so far (tools/list_changed) are done. */
  async settled(): Promise<void> {
    while (this.refreshing.size > 0) await Promise.allSettled([...this.refreshing])
  }

  private track(refresh: Promise<void>): void {
    const tracked = refresh
      .catch((error) => {
        this.errorValue = `refreshing the lists failed: ${errorMessage(error)}`
      })
      .finally(() => this.refreshing.delete(tracked))
    this.refreshing.add(tracked)
  }

  /**
   * Calls one tool; every failure is an error output naming the server, never a throw. A
   * Streamable HTTP server that lost the session (404) gets a new one and the call again, once.
   */
  async callTool(tool: string, args: Record<string, unknown>, execution: ToolExecution): Promise<ToolOutput> {
    if (this.stateValue === 'crashed') {
      if (this.restarts >= 1) {
        return this.unavailable(`crashed again and is not restarted (${this.errorValue ?? 'see its log'})`)
      }
      this.restarts += 1
      this.starting = undefined
      if (!(await this.ready())) return this.unavailable(this.describeNotConnected())
    }
    let client = this.client
    if (this.stateValue !== 'connected' || !client) return this.unavailable(this.describeNotConnected())
    // A signal per call: the SDK never removes its abort listener, and a turn's signal
    // would collect one per call (and Node's MaxListenersExceededWarning).
    const call = new AbortController()
    const forward = () => call.abort(execution.signal.reason)
    if (execution.signal.aborted) call.abort(execution.signal.reason)
    else execution.signal.addEventListener('abort', forward, { once: true })
    try {
      for (let renewed = false; ; renewed = true) {
        try {
          return await invokeTool(client, {
            server: this.name,
            options: this.options,
            tool,
            args,
            execution,
            signal: call.signal,
          })
        } catch (error) {
          if (execution.signal.aborted) {
            return { content: `MCP tool ${tool} was cancelled (the server was told).`, isError: true }
          }
          if (!renewed && sessionLost(this.options.config, client, error)) {
            const next = await this.renewSession(client)
            if (!next) return this.unavailable(this.describeNotConnected())
            client = next
            continue
          }
          return this.failedCall(client, error)
        }
      }
    } finally {
      execution.signal.removeEventListener('abort', forward)
    }
  }

  private failedCall(client: Client, error: unknown): ToolOutput {
    if (this.client !== client || (this.stateValue as McpServerState) === 'crashed') {
      const again = this.restarts >= 1 ? 'it is not restarted again' : 'it is restarted on the next call'
      return {
        content: `MCP server ${this.name} stopped during the call (${this.errorValue ?? errorMessage(error)}); ${again}.`,
        isError: true,
      }
    }
    return { content: `MCP server ${this.name}: ${describeCallError(error)}`, isError: true }
  }

  /**
   * Replaces `stale` with a new connection (a new `initialize`); calls that lost the same
   * session share it. Resolves to the new client, or undefined when it did not connect.
   */
  private async renewSession(stale: Client): Promise<Client | undefined> {
    if (this.client === stale) {
      this.client = undefined
      void stale.close().catch(() => {
        // The old session is gone already: closing it is best effort.
      })
      this.starting = this.connect()
    }
    await this.starting
    return this.stateValue === 'connected' ? this.client : undefined
  }

  /** `prompts/get` as the text of its messages. */
  async getPrompt(prompt: string, args: Record<string, string>): Promise<string> {
    return await promptText(this.requireClient(), prompt, args)
  }

  /** Every resource the server lists (all pages). Only asked of servers that advertise resources. */
  async listResources(): Promise<McpResourceInfo[]> {
    return await allResources(this.requireClient())
  }

  /** `resources/read` as text (binary contents described, not dumped). */
  async readResource(uri: string): Promise<string> {
    return await resourceText(this.requireClient(), uri)
  }

  /** Stops the server (a stdio child is terminated) and keeps it stopped. */
  async close(): Promise<void> {
    this.closing = true
    this.stateValue = 'closed'
    const client = this.client
    this.client = undefined
    await client?.close().catch(() => {
      // Already gone: nothing left to close.
    })
    this.forgetProcesses()
    this.log.close()
  }

  private trackProcess(forget: () => void): void {
    this.forgets.push(forget)
  }

  private forgetProcesses(): void {
    for (const forget of this.forgets.splice(0)) forget()
  }

  private async connect(): Promise<void> {
    this.stateValue = 'starting'
    this.errorValue = undefined
    let client: Client | undefined
    let transport: Transport | undefined
    try {
      const env = this.options.env ?? process.env
      const config = expandServerConfig(this.name, this.options.config, env)
      const [{ Client }, { AjvJsonSchemaValidator }] = await Promise.all([
        import('@modelcontextprotocol/sdk/client/index.js'),
        import('@modelcontextprotocol/sdk/validation/ajv'),
      ])
      // One spawn per event-loop turn: a burst of 100 held off a SIGTERM until all were spawned.
      await nextStartSlot()
      if (this.closing) return
      const opened = await createTransport(config, env, {
        secrets: this.options.secrets,
        cwd: this.options.cwd,
        ...(this.options.cwdBase !== undefined ? { cwdBase: this.options.cwdBase } : {}),
        log: this.log,
      })
      transport = opened
      // Closed while the transport was made: nothing may be spawned any more.
      if (this.closing) return
      const validator = new AjvJsonSchemaValidator()
      const created = new Client(
        { name: 'dsh', version: packageVersion() },
        {
          capabilities: {},
          // One validator for output schemas (the SDK's) and arguments (dsh's), not two.
          jsonSchemaValidator: validator,
          // Refreshed by dsh itself, so the next step can wait for the new list.
          listChanged: {
            tools: {
              autoRefresh: false,
              debounceMs: 0,
              onChanged: () => this.track(this.refreshTools(created, validator)),
            },
            prompts: {
              autoRefresh: false,
              debounceMs: 0,
              onChanged: () => this.track(this.refreshPrompts(created)),
            },
          },
        },
      )
      client = created
      created.onclose = () => this.handleClose(created, opened)
      this.client = created
      const connecting = created.connect(opened, {
        timeout: Math.max(MIN_CONNECT_TIMEOUT_MS, 2 * this.startupTimeoutMs),
      })
      // connect() spawns a stdio server at once; its pid (and group) is known from here on.
      // An earlier, crashed attempt's group stays tracked until close().
      const pid = (opened as { pid?: number | null }).pid
      if (typeof pid === 'number') this.trackProcess(killOnExit(pid))
      await connecting
      if ('initialized' in opened) opened.initialized = true
      if (this.closing) return
      this.capabilities = created.getServerCapabilities() ?? {}
      await this.refreshTools(created, validator)
      await this.refreshPrompts(created)
      if (this.client === created && !this.closing) this.stateValue = 'connected'
    } catch (error) {
      if (this.closing) return
      const last = this.log.last
      this.stateValue = 'failed'
      this.errorValue = failureOf(transport) ?? `${describeStartError(error)}${last ? ` — ${last}` : ''}`
      this.client = undefined
      await client?.close().catch(() => {
        // Failed before it was up: closing is best effort.
      })
      this.forgetProcesses()
    } finally {
      this.options.onChange?.()
    }
  }

  private async refreshTools(
    client: Client,
    validator: { getValidator<T>(schema: never): JsonSchemaValidator<T> },
  ): Promise<void> {
    if (this.client !== client || this.capabilities.tools === undefined) {
      if (this.capabilities.tools === undefined) this.toolList = []
      return
    }
    const listed: Awaited<ReturnType<Client['listTools']>>['tools'] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor !== undefined ? { cursor } : undefined)
      listed.push(...page.tools)
      cursor = page.nextCursor
    } while (cursor)
    if (this.client !== client) return
    const names = mcpToolNames(
      this.name,
      listed.map((tool) => tool.name),
    )
    const tools: ProvidedTool[] = []
    const offered = new Set<string>()
    for (const [i, tool] of listed.entries()) {
      // A tool listed twice is offered once: the model API refuses two tools of one name.
      if (offered.has(names[i]!)) continue
      offered.add(names[i]!)
      tools.push(
        mcpProvidedTool(this.name, tool, names[i]!, validator, (name, args, execution) =>
          this.callTool(name, args, execution),
        ),
      )
    }
    this.toolList = Object.freeze(tools)
    this.options.onChange?.()
  }

  private async refreshPrompts(client: Client): Promise<void> {
    if (this.client !== client || this.capabilities.prompts === undefined) return
    const prompts = await allPrompts(client)
    if (this.client !== client) return
    this.promptList = Object.freeze(prompts)
    this.options.onChange?.()
  }

  private handleClose(client: Client, transport: Transport): void {
    if (this.client !== client || this.closing) return
    this.client = undefined
    if (this.stateValue === 'starting') return // the connect attempt reports it
    const last = this.log.last
    this.stateValue = 'crashed'
    this.errorValue = failureOf(transport) ?? `the server exited${last ? ` — ${last}` : ''}`
    this.options.onChange?.()
  }

  /** Why the server is not connected, as a clause ("it is still starting"). */
  describeNotConnected(): string {
    switch (this.stateValue) {
      case 'starting':
        return 'it is still starting'
      case 'failed':
      case 'crashed':
        return this.errorValue ?? 'it failed'
      case 'closed':
        return 'it was stopped'
      default:
        return 'it is not started'
    }
  }

  private unavailable(why: string): ToolOutput {
    return { content: `MCP server ${this.name} is not available: ${why}.`, isError: true }
  }

  private requireClient(): Client {
    if (this.stateValue !== 'connected' || !this.client) {
      throw new Error(`MCP server ${this.name} is not available: ${this.describeNotConnected()}`)
    }
    return this.client
  }
}

/** Why dsh stopped a stdio server itself (a line past the stdio limit), if it did. */
function failureOf(transport: Transport | undefined): string | undefined {
  return (transport as { failure?: string } | undefined)?.failure
}
