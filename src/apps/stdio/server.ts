// The `dsh stdio` server: one attached agent driven by JSON-RPC 2.0 requests read as
// newline-delimited JSON, with the session's events streamed back as notifications.

import { stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { createInterface, type Interface } from 'node:readline'
import { startConfiguredAgent } from '../../agent/configured.js'
import type { AgentHandle } from '../../agent/types.js'
import { prepareClientImages } from '../../attachments/index.js'
import { formatCompactionLine } from '../../context/index.js'
import { DshError } from '../../core/errors.js'
import type { Harness } from '../../harness/compose.js'
import { resolveSessionId } from '../../history/index.js'
import { validateSessionId } from '../../session/session.js'
import type { SessionId } from '../../session/types.js'
import { resolvePriceTable, usageReport } from '../../usage/index.js'
import { JsonRpcErrorCode, StdioErrorCode } from './errors.js'
import {
  errorResponse,
  JsonRpcError,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type JsonRpcRequest,
  notificationMessage,
  parseLine,
  parseParams,
  resultMessage,
  toErrorObject,
} from './json-rpc.js'
import {
  type CancelResult,
  type CompactResult,
  compactParams,
  emptyParams,
  type InitializeResult,
  initializeParams,
  type PromptResult,
  promptParams,
  STDIO_PROTOCOL_VERSION,
  StdioMethod,
  StdioNotification,
  toPromptResult,
} from './protocol.js'

export interface StdioServerOptions {
  harness: Harness
  input: NodeJS.ReadableStream
  /** Receives JSON-RPC messages only, one per line. */
  output: NodeJS.WritableStream
  /** The exact session id used when `initialize` names none (resume-or-create). */
  sessionId?: SessionId
}

/** The label of agents this server mints ids for: `stdio-session-<uuid>`. */
export const STDIO_AGENT_LABEL = 'stdio'

export class StdioServer {
  private agent: AgentHandle | undefined
  private readonly detach: (() => void)[] = []
  /** The response of the running prompt, settled once it is written. */
  private inflight: Promise<void> | undefined
  private queue: Promise<void> = Promise.resolve()
  private lines: Interface | undefined
  private stopping = false
  private closed = false
  private outputBroken = false
  private resolveEnded!: () => void
  private readonly ended = new Promise<void>((resolve) => {
    this.resolveEnded = resolve
  })

  constructor(private readonly options: StdioServerOptions) {}

  /** Serves until `shutdown` is answered or the input ends; the agent is disposed (flushed) either way. */
  run(): Promise<void> {
    const lines = createInterface({ input: this.options.input, crlfDelay: Number.POSITIVE_INFINITY })
    this.lines = lines
    lines.on('line', (line) => this.enqueue(() => this.receive(line)))
    lines.on('close', () => this.enqueue(() => this.finish()))
    this.options.output.on('error', this.onOutputError)
    return this.ended
  }

  private enqueue(work: () => Promise<void>): void {
    this.queue = this.queue.then(work).catch((error) => {
      // A bug in dispatch must not stop the server; the client still gets answers for later lines.
      this.write(errorResponse(null, toErrorObject(error)))
    })
  }

  private async receive(line: string): Promise<void> {
    if (this.closed) return
    const parsed = parseLine(line)
    if (parsed.kind === 'blank') return
    if (parsed.kind === 'invalid') {
      this.write(errorResponse(parsed.id, parsed.error))
      return
    }
    const { request } = parsed
    try {
      if (this.stopping) {
        throw new DshError('the server is shutting down', StdioErrorCode.ShuttingDown)
      }
      if (request.method === StdioMethod.Prompt) {
        this.startPrompt(request)
        return
      }
      if (request.method === StdioMethod.Compact) {
        this.startCompaction(request)
        return
      }
      const result = await this.dispatch(request)
      this.answer(request, result)
      if (request.method === StdioMethod.Shutdown) await this.close()
    } catch (error) {
      this.fail(request, toErrorObject(error))
    }
  }

  private dispatch(request: JsonRpcRequest): Promise<unknown> | unknown {
    switch (request.method) {
      case StdioMethod.Initialize:
        return this.initialize(request.params)
      case StdioMethod.Cancel:
        return this.cancel(request.params)
      case StdioMethod.Shutdown:
        return this.shutdown(request.params)
      default:
        throw new JsonRpcError(JsonRpcErrorCode.MethodNotFound, `Method not found: ${request.method}`)
    }
  }

  private async initialize(raw: unknown): Promise<InitializeResult> {
    const params = parseParams(initializeParams, raw)
    if (this.agent) {
      throw new DshError(
        `already initialized with session ${JSON.stringify(this.agent.id)}`,
        StdioErrorCode.AlreadyInitialized,
      )
    }
    const { harness } = this.options
    const fixed = this.options.sessionId
    if (params.resume !== undefined) {
      if (params.sessionId !== undefined)
        throw new JsonRpcError(
          JsonRpcErrorCode.InvalidParams,
          'Invalid params: give sessionId or resume, not both',
        )
      // The one resolver: an exact id or a unique prefix; unknown and ambiguous are refused.
      params.sessionId = await resolveSessionId(harness.sessions, params.resume)
    }
    if (params.sessionId !== undefined && fixed !== undefined && params.sessionId !== fixed) {
      throw new JsonRpcError(
        JsonRpcErrorCode.InvalidParams,
        `Invalid params: sessionId ${JSON.stringify(params.sessionId)} conflicts with --session-id ${JSON.stringify(fixed)}`,
      )
    }
    if (params.sessionId !== undefined) validateSessionId(params.sessionId)
    const cwd = resolve(params.cwd ?? process.cwd())
    await assertDirectory(cwd)
    let resumed = false
    const agent = await startConfiguredAgent(
      harness.agents,
      async (id) => {
        resumed = await harness.sessions.exists(id)
        return resumed
      },
      {
        id: STDIO_AGENT_LABEL,
        ...((params.sessionId ?? fixed) !== undefined ? { sessionId: params.sessionId ?? fixed } : {}),
        meta: { cwd },
        ...(params.model !== undefined ? { model: { model: params.model } } : {}),
      },
    )
    this.attach(agent)
    const location = harness.ctx.get('sessionPersistence')?.locate(agent.session.header)
    return {
      sessionId: agent.id,
      transcriptPath: location?.path ?? null,
      protocolVersion: STDIO_PROTOCOL_VERSION,
      resumed,
    }
  }

  /** Streams the session's appended events and the agent's live output as notifications. */
  private attach(agent: AgentHandle): void {
    this.agent = agent
    const sessionId = agent.id
    this.detach.push(
      agent.session.onAppend((_session, event) =>
        this.write(notificationMessage(StdioNotification.Event, { sessionId, event })),
      ),
      agent.onOutput((output) =>
        this.write(notificationMessage(StdioNotification.Output, { sessionId, output })),
      ),
    )
  }

  /**
   * Starts a turn and answers when it ends. A prompt while a turn runs is rejected with
   * STDIO_TURN_RUNNING (not queued): the client decides whether to wait, cancel or drop it.
   */
  private startPrompt(request: JsonRpcRequest): void {
    const agent = this.requireAgent()
    const { text, images } = parseParams(promptParams, request.params)
    if (this.inflight) {
      throw new DshError(
        'a turn is already running; wait for its answer or cancel it',
        StdioErrorCode.TurnRunning,
      )
    }
    // Images are checked before the turn starts: a bad one fails the request, nothing is logged.
    const response = prepareClientImages(text, images ?? [], agent.cwd)
      .then((prepared) => agent.prompt(text, prepared.length > 0 ? { images: prepared } : {}))
      .then(
        (result): void => {
          const table = resolvePriceTable(this.options.harness.config.pricing)
          const report = usageReport(agent.session.events, result.turn, table)
          this.answer(request, toPromptResult(result, report) satisfies PromptResult)
        },
        (error): void => this.fail(request, toErrorObject(error)),
      )
    this.inflight = response.finally(() => {
      this.inflight = undefined
    })
  }

  /**
   * Compacts the context and answers when it is done; like a prompt it runs while later
   * requests are read (so `session/cancel` reaches it), and only one at a time.
   */
  private startCompaction(request: JsonRpcRequest): void {
    const agent = this.requireAgent()
    const { instructions } = parseParams(compactParams, request.params)
    if (this.inflight) {
      throw new DshError(
        'a turn or compaction is already running; wait for its answer or cancel it',
        StdioErrorCode.TurnRunning,
      )
    }
    const response = agent.compact(instructions !== undefined ? { instructions } : {}).then(
      (result): void =>
        this.answer(request, { ...result, line: formatCompactionLine(result) } satisfies CompactResult),
      (error): void => this.fail(request, toErrorObject(error)),
    )
    this.inflight = response.finally(() => {
      this.inflight = undefined
    })
  }

  private cancel(raw: unknown): CancelResult {
    parseParams(emptyParams, raw)
    const agent = this.requireAgent()
    const cancelled = agent.busy
    agent.cancel()
    return { cancelled }
  }

  private async shutdown(raw: unknown): Promise<null> {
    parseParams(emptyParams, raw)
    await this.release()
    return null
  }

  /**
   * Input ended without `shutdown`: the client is gone, handled like Ctrl-C — the running
   * turn is cancelled (its commands killed) and answered `aborted`, then the agent is
   * disposed (flushed, lock released).
   */
  private async finish(): Promise<void> {
    if (this.closed) return
    this.stopping = true
    this.agent?.cancel()
    if (!this.outputBroken) await this.inflight
    await this.release()
    await this.close()
  }

  /** Disposes the agent (cancelling and flushing), after the running prompt's answer is written. */
  private async release(): Promise<void> {
    this.stopping = true
    const agent = this.agent
    if (agent) await this.options.harness.agents.dispose(agent.id)
    await this.inflight
    for (const undo of this.detach.splice(0)) undo()
  }

  private async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.lines?.close()
    this.options.output.off('error', this.onOutputError)
    if (!this.outputBroken)
      await new Promise<void>((resolve) => this.options.output.write('', () => resolve()))
    this.resolveEnded()
  }

  private readonly onOutputError = (): void => {
    // The client went away (EPIPE): nothing can be answered any more; release the agent and end.
    this.outputBroken = true
    this.agent?.cancel()
    this.enqueue(() => this.finish())
  }

  private requireAgent(): AgentHandle {
    if (!this.agent) throw new DshError('call initialize first', StdioErrorCode.NotInitialized)
    return this.agent
  }

  private answer(request: JsonRpcRequest, result: unknown): void {
    if (request.id !== undefined) this.write(resultMessage(request.id, result))
  }

  private fail(request: JsonRpcRequest, error: JsonRpcErrorObject): void {
    if (request.id !== undefined) this.write(errorResponse(request.id as JsonRpcId, error))
  }

  private write(message: object): void {
    if (this.closed || this.outputBroken) return
    this.options.output.write(`${JSON.stringify(message)}\n`)
  }
}

async function assertDirectory(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined)
  if (!info?.isDirectory()) {
    throw new DshError(
      `working directory ${path} does not exist or is not a directory`,
      StdioErrorCode.BadCwd,
      {
        userFacing: true,
      },
    )
  }
}
