// The ACP sub-agent backend: a tool that delegates a task to an external ACP agent process.
// The parent mints the lifecycle id in its own namespace; the child server's wire-level
// session id stays private to the ACP calls (it is never logged, shown or returned).

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { Readable, Writable } from 'node:stream'
import {
  client as clientApp,
  ndJsonStream,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type Stream,
} from '@agentclientprotocol/sdk'
import type { Context } from 'cordis'
import * as z from 'zod'
import { errorMessage } from '../../core/errors.js'
import type { AgentHandle, ToolOutput } from '../../plugin-api/index.js'
import type { SessionId } from '../../session/types.js'
import { withoutPtyMasters } from '../../shell/index.js'
import { DSH_ENV_PREFIX } from '../../shell/namespace.js'
import { ACP_SUBAGENT_DESCRIPTION } from './acp-prompt.js'

export const DEFAULT_ACP_SUBAGENT_TOOL = 'acp_subagent'
export const DEFAULT_CANCEL_GRACE_MS = 5_000
const STDERR_TAIL_CHARS = 2_000

/** A connection to one external agent process, for one delegated task. */
export interface AcpAgentTransport {
  stream: Stream
  /** A short reason when the process failed (spawn error, stderr tail), else undefined. */
  failure(): string | undefined
  /** Ends the agent: closes its input, then terminates it if it does not exit. */
  close(): Promise<void>
}

/** Starts an external agent working in `cwd`. */
export type AcpAgentConnector = (cwd: string) => AcpAgentTransport

export interface AcpSubagentConfig {
  /** The external ACP agent, e.g. `dsh` with args `['acp']`. */
  command: string
  args?: string[]
  /** Added to the child's environment (which is the process environment minus inherited `DSH_*`). */
  env?: Record<string, string>
  /** Default `acp_subagent`. */
  toolName?: string
  /** Deepest delegation allowed, as for the in-process sub-agent. Default 2. */
  maxDepth?: number
  /** Answer the external agent's permission requests with its allow-once option. Default false: reject. */
  allowPermissions?: boolean
  /** How long a cancelled task may take to answer before its process is terminated. Default 5000. */
  cancelGraceMs?: number
  /** Replaces spawning `command` (tests connect an in-process agent). */
  connect?: AcpAgentConnector
}

const parameters = z.object({
  description: z.string().describe('A short (3-7 word) label for the task'),
  prompt: z.string().min(1).describe('The complete task for the external agent'),
})

/** The lifecycle id of one delegated run, in the parent's namespace. */
export function mintAcpSubagentId(parent: SessionId): string {
  return `${parent}-acp-${randomUUID()}`
}

export const acpSubagentToolPlugin = {
  name: 'acp-subagent-tool',
  inject: ['tools'],
  apply(ctx: Context, config: AcpSubagentConfig) {
    const connect = config.connect ?? spawnAcpAgent(config)
    ctx.tools.register({
      name: config.toolName ?? DEFAULT_ACP_SUBAGENT_TOOL,
      description: ACP_SUBAGENT_DESCRIPTION,
      parameters,
      async execute(args, execution): Promise<ToolOutput> {
        const parent = execution.agent
        if (!parent) return { content: 'the ACP sub-agent needs a live parent agent', isError: true }
        const depth = parent.session.header.delegationDepth + 1
        const maxDepth = config.maxDepth ?? 2
        if (depth > maxDepth) {
          return {
            content: `Delegation refused: depth ${depth} exceeds the maximum of ${maxDepth}.`,
            isError: true,
          }
        }
        const lifecycleId = mintAcpSubagentId(parent.id)
        await ctx.parallel('subagent/acp-start', parent, { lifecycleId, description: args.description })
        const outcome = await delegate(connect(parent.cwd), parent, args.prompt, execution.signal, config)
        await ctx.parallel('subagent/acp-stop', parent, { lifecycleId, ...outcome })
        const header = `[acp sub-agent ${lifecycleId}]`
        if (outcome.stopReason === 'end_turn')
          return { content: `${header}\n${outcome.text || '(no answer)'}` }
        const why = outcome.error ?? `it stopped (${outcome.stopReason})`
        return {
          content: `${header}\nThe ACP sub-agent failed: ${why}\n${outcome.text}`.trimEnd(),
          isError: true,
        }
      },
    })
  },
}

export interface AcpDelegationOutcome {
  /** The ACP stop reason, or undefined when the run failed before one. */
  stopReason?: string
  /** The agent's final message: its text after its last tool call. */
  text: string
  error?: string
}

/** One ACP client run: initialize, session/new, session/prompt, with session/cancel on abort. */
async function delegate(
  transport: AcpAgentTransport,
  parent: AgentHandle,
  prompt: string,
  signal: AbortSignal,
  config: AcpSubagentConfig,
): Promise<AcpDelegationOutcome> {
  let wireSessionId: string | undefined
  let text = ''
  const app = clientApp({ name: 'dsh' })
    .onNotification('session/update', ({ params }) => {
      if (params.sessionId !== wireSessionId) return
      const { update } = params
      if (update.sessionUpdate === 'tool_call') text = ''
      if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') {
        text += update.content.text
      }
    })
    .onRequest('session/request_permission', ({ params }) =>
      answerPermission(params, config.allowPermissions),
    )
  const connection = app.connect(transport.stream)
  let onAbort: (() => void) | undefined
  try {
    await connection.agent.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    })
    const created = await connection.agent.request('session/new', { cwd: parent.cwd, mcpServers: [] })
    const sessionId = created.sessionId
    wireSessionId = sessionId
    const answer = connection.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: prompt }],
    })
    let graceTimer: NodeJS.Timeout | undefined
    const gaveUp = new Promise<never>((_resolve, reject) => {
      onAbort = () => {
        connection.agent.notify('session/cancel', { sessionId }).catch(() => {
          // The connection is gone already; the prompt rejects on its own.
        })
        graceTimer = setTimeout(
          () => reject(new Error('the agent did not stop after session/cancel')),
          config.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS,
        )
      }
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, { once: true })
    })
    gaveUp.catch(() => {
      // Observed through the race below.
    })
    try {
      const response = await Promise.race([answer, gaveUp])
      return { stopReason: response.stopReason, text }
    } finally {
      clearTimeout(graceTimer)
    }
  } catch (error) {
    const failure = transport.failure()
    return { text, error: failure ? `${errorMessage(error)} (${failure})` : errorMessage(error) }
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort)
    connection.close()
    await transport.close()
  }
}

function answerPermission(request: RequestPermissionRequest, allow = false): RequestPermissionResponse {
  const wanted = allow ? 'allow_once' : 'reject_once'
  const option = request.options.find((candidate) => candidate.kind === wanted)
  return option
    ? { outcome: { outcome: 'selected', optionId: option.optionId } }
    : { outcome: { outcome: 'cancelled' } }
}

/** Spawns `command args` in the task's cwd; stdin/stdout carry ACP, stderr is kept as a short tail. */
export function spawnAcpAgent(
  config: Pick<AcpSubagentConfig, 'command' | 'args' | 'env'>,
): AcpAgentConnector {
  return (cwd) => {
    const child = spawn(config.command, config.args ?? [], {
      cwd,
      env: childEnvironment(process.env, config.env ?? {}),
      stdio: withoutPtyMasters(['pipe', 'pipe', 'pipe']),
    }) as ChildProcessWithoutNullStreams // its first three are pipes
    let stderr = ''
    let spawnError: Error | undefined
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS)
    })
    // A dead child makes writes fail; the connection reports it as closed.
    child.stdin.on('error', () => {})
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve())
      child.once('error', (error) => {
        spawnError = error
        resolve()
      })
    })
    return {
      stream: ndJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      ),
      failure: () =>
        spawnError?.message ?? (stderr.trim() ? `stderr: ${stderr.trim().split('\n').at(-1)}` : undefined),
      async close() {
        child.stdin.end()
        for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
          if (await settlesWithin(exited, DEFAULT_CANCEL_GRACE_MS)) return
          child.kill(signal)
        }
        await exited
      },
    }
  }
}

/** The process environment without inherited managed `DSH_*` values, plus `extra`. */
function childEnvironment(
  inherited: NodeJS.ProcessEnv,
  extra: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(inherited)) {
    if (value !== undefined && !name.startsWith(DSH_ENV_PREFIX)) env[name] = value
  }
  return { ...env, ...extra }
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms)
    promise.then(() => {
      clearTimeout(timer)
      resolve(true)
    })
  })
}
