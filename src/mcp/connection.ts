// One MCP server: starting it (the SDK is imported here, lazily), its state, its tools
// as model tools, tool calls with progress and cancellation, one restart after a crash.

import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import { errorMessage } from '../core/errors.js'
import { packageVersion } from '../core/version.js'
import type { ProvidedTool, ToolExecution, ToolOutput } from '../plugin-api/index.js'
import {
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  expandServerConfig,
  type McpServerConfig,
  type McpServerSource,
} from './config.js'
import type { McpConnectionOptions, McpPromptInfo, McpServerState } from './connection-types.js'
import { killOnExit } from './exit-kill.js'
import { type McpCallResult, resultText } from './results.js'
import { ServerLog, serverLogPath } from './server-log.js'
import { spillLongResult } from './spill.js'
import { mcpProvidedTool } from './tool-adapter.js'
import { createTransport, describeStartError, nextStartSlot } from './transport.js'

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

  /** Calls one tool; every failure is an error output naming the server, never a throw. */
  async callTool(tool: string, args: Record<string, unknown>, execution: ToolExecution): Promise<ToolOutput> {
    if (this.stateValue === 'crashed') {
      if (this.restarts >= 1) {
        return this.unavailable(`crashed again and is not restarted (${this.errorValue ?? 'see its log'})`)
      }
      this.restarts += 1
      this.starting = undefined
      if (!(await this.ready())) return this.unavailable(this.describeNotConnected())
    }
    const client = this.client
    if (this.stateValue !== 'connected' || !client) return this.unavailable(this.describeNotConnected())
    // A signal per call: the SDK never removes its abort listener, and a turn's signal
    // would collect one per call (and Node's MaxListenersExceededWarning).
    const call = new AbortController()
    const forward = () => call.abort(execution.signal.reason)
    if (execution.signal.aborted) call.abort(execution.signal.reason)
    else execution.signal.addEventListener('abort', forward, { once: true })
    try {
      const result = (await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: call.signal,
        timeout: this.options.config.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        onprogress: (progress) =>
          this.options.onProgress?.({
            server: this.name,
            execution,
            progress: progress.progress,
            ...(progress.total !== undefined ? { total: progress.total } : {}),
            ...(progress.message !== undefined ? { message: progress.message } : {}),
          }),
      })) as McpCallResult
      const text = await spillLongResult(
        resultText(result),
        () => this.options.spill?.(),
        execution.agent?.id,
        `mcp-${this.name}-${tool}`,
      )
      return { content: text, ...(result.isError ? { isError: true } : {}) }
    } catch (error) {
      if (execution.signal.aborted) {
        return { content: `MCP tool ${tool} was cancelled (the server was told).`, isError: true }
      }
      if (this.client !== client || (this.stateValue as McpServerState) === 'crashed') {
        const again = this.restarts >= 1 ? 'it is not restarted again' : 'it is restarted on the next call'
        return {
          content: `MCP server ${this.name} stopped during the call (${this.errorValue ?? errorMessage(error)}); ${again}.`,
          isError: true,
        }
      }
      return { content: `MCP server ${this.name}: ${errorMessage(error)}`, isError: true }
    } finally {
      execution.signal.removeEventListener('abort', forward)
    }
  }

  /** `prompts/get` as the text of its messages. */
  async getPrompt(prompt: string, args: Record<string, string>): Promise<string> {
    const client = this.requireClient()
    const result = await client.getPrompt({ name: prompt, arguments: args })
    return result.messages
      .map((message) =>
        message.content.type === 'text'
          ? message.content.text
          : resultText({ content: [message.content as { type: string }] }),
      )
      .join('\n\n')
  }

  /** Every resource the server lists (all pages). Only asked of servers that advertise resources. */
  async listResources(): Promise<{ uri: string; name: string; mimeType?: string; description?: string }[]> {
    const client = this.requireClient()
    const resources: { uri: string; name: string; mimeType?: string; description?: string }[] = []
    let cursor: string | undefined
    do {
      const page = await client.listResources(cursor !== undefined ? { cursor } : undefined)
      for (const resource of page.resources) {
        resources.push({
          uri: resource.uri,
          name: resource.name,
          ...(resource.mimeType !== undefined ? { mimeType: resource.mimeType } : {}),
          ...(resource.description !== undefined ? { description: resource.description } : {}),
        })
      }
      cursor = page.nextCursor
    } while (cursor)
    return resources
  }

  /** `resources/read` as text (binary contents described, not dumped). */
  async readResource(uri: string): Promise<string> {
    const client = this.requireClient()
    const result = await client.readResource({ uri })
    return resultText({
      content: result.contents.map((resource) => ({ type: 'resource', resource }) as never),
    })
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
      const transport = await createTransport(config, env, {
        secrets: this.options.secrets,
        cwd: this.options.cwd,
        log: this.log,
      })
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
      created.onclose = () => this.handleClose(created)
      this.client = created
      const connecting = created.connect(transport, {
        timeout: Math.max(MIN_CONNECT_TIMEOUT_MS, 2 * this.startupTimeoutMs),
      })
      // connect() spawns a stdio server at once; its pid (and group) is known from here on.
      // An earlier, crashed attempt's group stays tracked until close().
      const pid = (transport as { pid?: number | null }).pid
      if (typeof pid === 'number') this.trackProcess(killOnExit(pid))
      await connecting
      if ('initialized' in transport) transport.initialized = true
      if (this.closing) return
      this.capabilities = created.getServerCapabilities() ?? {}
      await this.refreshTools(created, validator)
      await this.refreshPrompts(created)
      if (this.client === created && !this.closing) this.stateValue = 'connected'
    } catch (error) {
      if (this.closing) return
      const last = this.log.last
      this.stateValue = 'failed'
      this.errorValue = `${describeStartError(error)}${last ? ` — ${last}` : ''}`
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
    const tools: ProvidedTool[] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor !== undefined ? { cursor } : undefined)
      for (const tool of page.tools)
        tools.push(
          mcpProvidedTool(this.name, tool, validator, (name, args, execution) =>
            this.callTool(name, args, execution),
          ),
        )
      cursor = page.nextCursor
    } while (cursor)
    if (this.client !== client) return
    this.toolList = Object.freeze(tools)
    this.options.onChange?.()
  }

  private async refreshPrompts(client: Client): Promise<void> {
    if (this.client !== client || this.capabilities.prompts === undefined) return
    const prompts: McpPromptInfo[] = []
    let cursor: string | undefined
    do {
      const page = await client.listPrompts(cursor !== undefined ? { cursor } : undefined)
      for (const prompt of page.prompts) {
        prompts.push({
          name: prompt.name,
          ...(prompt.description !== undefined ? { description: prompt.description } : {}),
          ...(prompt.arguments ? { arguments: prompt.arguments } : {}),
        })
      }
      cursor = page.nextCursor
    } while (cursor)
    if (this.client !== client) return
    this.promptList = Object.freeze(prompts)
    this.options.onChange?.()
  }

  private handleClose(client: Client): void {
    if (this.client !== client || this.closing) return
    this.client = undefined
    if (this.stateValue === 'starting') return // the connect attempt reports it
    const last = this.log.last
    this.stateValue = 'crashed'
    this.errorValue = `the server exited${last ? ` — ${last}` : ''}`
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
