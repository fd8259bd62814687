// The `dsh stdio` server: one attached agent driven by JSON-RPC 2.0 requests read as
// newline-delimited JSON, with the session's events streamed back as notifications.

import { resolve } from 'node:path'
import { createInterface, type Interface } from 'node:readline'
import { startConfiguredAgent } from '../../agent/configured.js'
import { prepareClientImages } from '../../attachments/index.js'
import { formatCompactionLine } from '../../context/index.js'
import { DshError } from '../../core/errors.js'
import type { Harness } from '../../harness/compose.js'
import { resolveSessionId } from '../../history/index.js'
import type { AgentHandle } from '../../plugin-api/index.js'
import { validateSessionId } from '../../session/session.js'
import type { SessionId } from '../../session/types.js'
import { resolvePriceTable, usageReport } from '../../usage/index.js'
import { assertDirectory, JsonRpcErrorCode, StdioErrorCode } from './errors.js'
import {
  errorResponse,
  JsonRpcError,
  type JsonRpcRequest,
  notificationMessage,
  type ParsedMessage,
  parseLine,
  parseMessage,
  parseParams,
  resultMessage,
  toErrorObject,
} from './json-rpc.js'
import { askClient, StdioPermissions } from './permission.js'
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
import { watchReaderGone } from './reader-gone.js'
import { RunningRequest } from './running.js'

export interface StdioServerOptions {
  harness: Harness
  input: NodeJS.ReadableStream
  /** Receives JSON-RPC messages only, one per line. */
  output: NodeJS.WritableStream
  /** The exact session id used when `initialize` names none (resume-or-create). */
  sessionId?: SessionId
}

/** What handling one message gives: its response (none for a notification), and what follows writing it. */
interface Handled {
  reply: Promise<object | undefined>
  /** Runs after the reply is written (`shutdown` closes). */
  after?: () => Promise<void>
  /** A prompt or compaction: answered when it ends, while later lines are read. */
  long?: boolean
}

/** The label of agents this server mints ids for: `stdio-session-<uuid>`. */
export const STDIO_AGENT_LABEL = 'stdio'

export class StdioServer {
  private agent: AgentHandle | undefined
  private readonly detach: (() => void)[] = []
  /** The prompt or compaction answered when it ends; `session/cancel` aborts it. */
  private readonly running = new RunningRequest()
  private queue: Promise<void> = Promise.resolve()
  private lines: Interface | undefined
  private stopping = false
  private closed = false
  private outputBroken = false
  private readonly deliveries = new Set<Promise<void>>()
  private readonly permissions = new StdioPermissions(
    (message) => this.write(message),
    (line) => this.options.harness.ctx.logger('stdio').warn('%s', line),
  )
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
    this.detach.push(watchReaderGone(this.options.output, this.onOutputError))
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
    if (parsed.kind !== 'batch') {
      const handled = await this.handle(parsed)
      const delivered = this.deliver(
        handled.reply.then(async (message) => {
          if (message) this.write(message)
          await handled.after?.()
        }),
      )
      if (!handled.long) await delivered
      return
    }
    if (parsed.items.length === 0) {
      this.write(
        errorResponse(null, {
          code: JsonRpcErrorCode.InvalidRequest,
          message: 'Invalid Request: empty batch',
        }),
      )
      return
    }
    // In order (a batch may initialize, then prompt); one array of the answers once all are in,
    // while later lines are read (a prompt's answer waits for its turn; session/cancel reaches it).
    const handled: Handled[] = []
    for (const item of parsed.items) handled.push(await this.handle(parseMessage(item)))
    void this.deliver(
      Promise.all(handled.map((one) => one.reply)).then(async (replies) => {
        const answers = replies.filter((reply) => reply !== undefined)
        if (answers.length > 0) this.write(answers)
        for (const one of handled) await one.after?.()
      }),
    )
  }

  /**
   * One message: a client's response settles a question dsh asked; a request is dispatched
   * (a prompt or compaction starts and is answered when it ends).
   */
  private async handle(parsed: ParsedMessage): Promise<Handled> {
    if (parsed.kind === 'invalid') return { reply: Promise.resolve(errorResponse(parsed.id, parsed.error)) }
    if (parsed.kind === 'response') {
      // An answer to nothing dsh asked (late, or unknown) is dropped: there is nobody to tell.
      this.permissions.receive(parsed.response)
      return { reply: Promise.resolve(undefined) }
    }
    const { request } = parsed
    const reply = (work: Promise<unknown>) =>
      work.then(
        (result) => (request.id !== undefined ? resultMessage(request.id, result) : undefined),
        (error) => (request.id !== undefined ? errorResponse(request.id, toErrorObject(error)) : undefined),
      )
    try {
      if (this.stopping) {
        throw new DshError('the server is shutting down', StdioErrorCode.ShuttingDown)
      }
      if (request.method === StdioMethod.Prompt)
        return { reply: reply(this.startPrompt(request)), long: true }
      if (request.method === StdioMethod.Compact)
        return { reply: reply(this.startCompaction(request)), long: true }
      const result = await this.dispatch(request)
      return {
        reply: reply(Promise.resolve(result)),
        // Closed behind the lines already read: each request among them is answered STDIO_SHUTTING_DOWN.
        ...(request.method === StdioMethod.Shutdown
          ? { after: async () => this.enqueue(() => this.close()) }
          : {}),
      }
    } catch (error) {
      return { reply: reply(Promise.reject(error)) }
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
    const requestPermission = params.capabilities?.requestPermission === true
    if (requestPermission) this.detach.push(askClient(this.options.harness.ctx, agent, this.permissions))
    const location = harness.ctx.get('sessionPersistence')?.locate(agent.session.header)
    return {
      sessionId: agent.id,
      transcriptPath: location?.path ?? null,
      protocolVersion: STDIO_PROTOCOL_VERSION,
      resumed,
      requestPermission,
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
  private startPrompt(request: JsonRpcRequest): Promise<PromptResult> {
    const agent = this.requireAgent()
    const { text, images } = parseParams(promptParams, request.params)
    // Images are checked before the turn starts: a bad one fails the request, nothing is logged.
    return this.running.start('a turn', (signal) =>
      prepareClientImages(text, images ?? [], agent.cwd)
        .then((prepared) =>
          agent.prompt(text, { signal, ...(prepared.length > 0 ? { images: prepared } : {}) }),
        )
        .then((result) => {
          const table = resolvePriceTable(this.options.harness.config.pricing)
          return toPromptResult(result, usageReport(agent.session.events, result.turn, table))
        }),
    )
  }

  /** Answers not yet written (a prompt's, a batch's), awaited before the server ends. */
  private deliver(work: Promise<void>): Promise<void> {
    const tracked = work.finally(() => this.deliveries.delete(tracked))
    this.deliveries.add(tracked)
    return tracked
  }

  /**
   * Compacts the context and answers when it is done; like a prompt it runs while later
   * requests are read (so `session/cancel` reaches it), and only one at a time.
   */
  private startCompaction(request: JsonRpcRequest): Promise<CompactResult> {
    const agent = this.requireAgent()
    const { instructions } = parseParams(compactParams, request.params)
    return this.running.start('a turn or compaction', (signal) =>
      agent
        .compact({ signal, ...(instructions !== undefined ? { instructions } : {}) })
        .then((result) => ({ ...result, line: formatCompactionLine(result) }) satisfies CompactResult),
    )
  }

  private cancel(raw: unknown): CancelResult {
    parseParams(emptyParams, raw)
    const agent = this.requireAgent()
    // A prompt accepted but not started yet counts: its turn starts cancelled.
    const cancelled = agent.busy || this.running.active
    this.cancelRunning()
    return { cancelled }
  }

  private cancelRunning(): void {
    this.running.abort()
    this.agent?.cancel()
  }

  private async shutdown(raw: unknown): Promise<null> {
    parseParams(emptyParams, raw)
    await this.release()
    return null
  }

  /**
   * Input ended without `shutdown`: the running turn is finished (bounded by the step, cost
   * and time limits; a `session/cancel` sent before the end still cancels it) and answered,
   * then the agent is disposed (flushed, lock released). Permission questions left open, and
   * any asked later, are denied: nobody can answer them any more.
   */
  private async finish(): Promise<void> {
    if (this.closed) return
    this.stopping = true
    this.permissions.endInput()
    if (this.outputBroken) this.cancelRunning()
    else await this.running.settled()
    await this.release()
    await this.close()
  }

  /** Disposes the agent (cancelling and flushing), after the running prompt's answer is written. */
  private async release(): Promise<void> {
    this.stopping = true
    const agent = this.agent
    if (agent) await this.options.harness.agents.dispose(agent.id)
    await this.running.settled()
    await Promise.all([...this.deliveries])
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
    this.cancelRunning()
    this.enqueue(() => this.finish())
  }

  private requireAgent(): AgentHandle {
    if (!this.agent) throw new DshError('call initialize first', StdioErrorCode.NotInitialized)
    return this.agent
  }

  /** Writes one line; false when nothing can be written any more. */
  private write(message: object): boolean {
    if (this.closed || this.outputBroken) return false
    this.options.output.write(`${JSON.stringify(message)}\n`)
    return true
  }
}
